#pragma once
// A temporary directory for tests of local files (mkdtemp: mode 0700, the current user's),
// removed with everything in it when the test ends, and helpers to put files in it.

#include <filesystem>
#include <fstream>
#include <iterator>
#include <stdexcept>
#include <string>
#include <sys/stat.h>
#include <unistd.h>

namespace gpuctl::testing {

class TempDir {
 public:
  TempDir() {
    std::string pattern = (std::filesystem::temp_directory_path() / "gpuctl-test-XXXXXX").string();
    if (!::mkdtemp(pattern.data())) throw std::runtime_error("mkdtemp failed");
    m_path = pattern;
  }
  ~TempDir() {
    std::error_code ec;
    std::filesystem::remove_all(m_path, ec);
  }
  TempDir(const TempDir&) = delete;
  TempDir& operator=(const TempDir&) = delete;

  const std::string& path() const { return m_path; }
  std::string operator/(const std::string& name) const { return m_path + "/" + name; }

  // Writes `content` to `name` with `mode` (chmod after writing, so the umask does not matter).
  std::string write(const std::string& name, const std::string& content, mode_t mode = 0600) const {
    const auto file = *this / name;
    std::ofstream(file, std::ios::binary) << content;
    if (::chmod(file.c_str(), mode) != 0) throw std::runtime_error("chmod failed");
    return file;
  }

 private:
  std::string m_path;
};

inline mode_t mode_of(const std::string& path) {
  struct stat st {};
  if (::lstat(path.c_str(), &st) != 0) return 0;
  return st.st_mode & 07777;
}

// The content of a file in tests/data.
inline std::string read_binary(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw std::runtime_error("cannot read " + path);
  return std::string(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
}

}  // namespace gpuctl::testing
