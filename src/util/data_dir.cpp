#include <gpuctl/util/data_dir.hpp>
#include <gpuctl_build_paths.hpp>

#include <cstdlib>
#include <filesystem>
#include <system_error>

namespace gpuctl::util {

std::string data_dir(const std::string& name, const char* env_variable) {
  namespace fs = std::filesystem;
  std::error_code ec;
  if (const char* from_env = std::getenv(env_variable); from_env && *from_env) return from_env;
  const auto exe = fs::read_symlink("/proc/self/exe", ec);
  if (!ec) {
    const auto beside = exe.parent_path().parent_path() / "share" / "gpuctl" / name;
    if (fs::is_directory(beside, ec)) return beside.string();
  }
  const auto installed = fs::path(GPUCTL_DATA_DIR) / name;
  if (fs::is_directory(installed, ec)) return installed.string();
  return (fs::path(GPUCTL_SOURCE_DIR) / name).string();
}

}  // namespace gpuctl::util
