#include <gpuctl/util/data_dir.hpp>
#include <gpuctl_build_paths.hpp>

#include <cstdlib>
#include <sys/stat.h>
#include <unistd.h>
#include <filesystem>
#include <system_error>

namespace gpuctl::util {

bool trusted_tree(const std::string& dir, const std::string& top) {
  namespace fs = std::filesystem;
  std::error_code ec;
  const auto stop = fs::weakly_canonical(top, ec);
  if (ec) return false;
  for (auto at = fs::weakly_canonical(dir, ec); !ec; at = at.parent_path()) {
    struct stat st {};
    if (::stat(at.c_str(), &st) != 0) return false;
    if (st.st_uid != 0 && st.st_uid != ::geteuid()) return false;
    if ((st.st_mode & (S_IWGRP | S_IWOTH)) != 0) return false;
    if (at == stop) return true;
    if (at == at.parent_path()) return false;  // `top` is not above `dir`
  }
  return false;
}

std::string data_dir(const std::string& name, const char* env_variable) {
  namespace fs = std::filesystem;
  std::error_code ec;
  if (const char* from_env = std::getenv(env_variable); from_env && *from_env) return from_env;
  const auto exe = fs::read_symlink("/proc/self/exe", ec);
  if (!ec) {
    const auto prefix = exe.parent_path().parent_path();
    const auto beside = prefix / "share" / "gpuctl" / name;
    if (fs::is_directory(beside, ec) && trusted_tree(beside.string(), prefix.string())) return beside.string();
  }
  const auto installed = fs::path(GPUCTL_DATA_DIR) / name;
  if (fs::is_directory(installed, ec)) return installed.string();
  return (fs::path(GPUCTL_SOURCE_DIR) / name).string();
}

}  // namespace gpuctl::util
