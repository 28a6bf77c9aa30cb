#include <gpuctl/api/profiles_use_case.hpp>

namespace gpuctl {

Result<ProfilesResult> run_profiles(const ProfilesRequest& request) {
  ProfilesResult result;
  const auto names = request.name.empty() ? shipped_profile_names() : std::vector<std::string>{request.name};
  for (const auto& name : names) {
    auto profile = load_profile(name);
    if (!profile) return std::unexpected(profile.error());
    result.profiles.push_back(std::move(*profile));
  }
  return result;
}

}  // namespace gpuctl
