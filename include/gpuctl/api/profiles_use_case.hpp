#pragma once
// `gpuctl profiles`: the shipped package profiles (packages/profile.hpp), all of them or one by
// name, read from gpuctl's data directory.

#include <gpuctl/core/error.hpp>
#include <gpuctl/packages/profile.hpp>

#include <string>
#include <vector>

namespace gpuctl {

struct ProfilesRequest {
  std::string name;  // one profile; empty: every shipped one
};

struct ProfilesResult {
  std::vector<PackageProfile> profiles;  // sorted by name
};

// An unknown name is ErrorCode::not_found with the closest name; a profile that does not parse
// is the parser's error (file:line).
Result<ProfilesResult> run_profiles(const ProfilesRequest& request);

}  // namespace gpuctl
