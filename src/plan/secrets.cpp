#include <gpuctl/plan/secrets.hpp>

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <fcntl.h>
#include <filesystem>
#include <fmt/format.h>
#include <sys/stat.h>
#include <unistd.h>

namespace gpuctl {
namespace {

constexpr std::size_t k_secret_bytes = 1024;  // munge's own default key size

Result<void> ensure_private_dir(const std::string& dir) {
  std::error_code ec;
  std::filesystem::create_directories(dir, ec);
  if (ec) return fail(ErrorCode::io, fmt::format("cannot create {}: {}", dir, ec.message()));
  if (::chmod(dir.c_str(), 0700) != 0)
    return fail(ErrorCode::io, fmt::format("cannot chmod {}: {}", dir, std::strerror(errno)));
  return {};
}

Result<std::string> read_all(int fd, const std::string& path) {
  std::string data;
  char buffer[4096];
  while (true) {
    const auto n = ::read(fd, buffer, sizeof buffer);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) return fail(ErrorCode::io, fmt::format("cannot read {}: {}", path, std::strerror(errno)));
    if (n == 0) return data;
    data.append(buffer, static_cast<std::size_t>(n));
  }
}

}  // namespace

std::string default_state_dir() {
  if (const char* dir = std::getenv("GPUCTL_STATE_DIR"); dir && *dir) return dir;
  if (const char* xdg = std::getenv("XDG_STATE_HOME"); xdg && *xdg) return std::string(xdg) + "/gpuctl";
  const char* home = std::getenv("HOME");
  return std::string(home && *home ? home : "/root") + "/.local/state/gpuctl";
}

std::string default_secrets_dir(const std::string& cluster_name) {
  return default_state_dir() + "/secrets/" + (cluster_name.empty() ? "default" : cluster_name);
}

Result<std::string> load_or_create_secret(const std::string& secrets_dir, const std::string& name) {
  if (name.empty() || name.find('/') != std::string::npos || name.starts_with('.'))
    return fail(ErrorCode::invalid_argument, fmt::format("bad secret name '{}'", name));
  if (auto ok = ensure_private_dir(secrets_dir); !ok) return std::unexpected(ok.error());
  const auto path = secrets_dir + "/" + name;

  if (int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC); fd >= 0) {
    struct stat st {};
    ::fstat(fd, &st);
    if ((st.st_mode & 077) != 0) {
      ::close(fd);
      return fail(ErrorCode::validation, fmt::format("secret {} is readable by others", path),
                  {}, fmt::format("chmod 600 {}", path));
    }
    auto data = read_all(fd, path);
    ::close(fd);
    return data;
  }

  // Generate into a temp file and link it into place, so a crash never leaves half a key and
  // two concurrent runs agree on one key.
  auto random = ::open("/dev/urandom", O_RDONLY | O_CLOEXEC);
  if (random < 0) return fail(ErrorCode::io, "cannot open /dev/urandom");
  std::string key(k_secret_bytes, '\0');
  std::size_t got = 0;
  while (got < key.size()) {
    const auto n = ::read(random, key.data() + got, key.size() - got);
    if (n <= 0) break;
    got += static_cast<std::size_t>(n);
  }
  ::close(random);
  if (got != key.size()) return fail(ErrorCode::io, "short read from /dev/urandom");

  auto temp = secrets_dir + "/." + name + ".XXXXXX";
  const int fd = ::mkstemp(temp.data());
  if (fd < 0) return fail(ErrorCode::io, fmt::format("cannot create a file in {}: {}", secrets_dir, std::strerror(errno)));
  ::fchmod(fd, 0600);
  const bool written = ::write(fd, key.data(), key.size()) == static_cast<ssize_t>(key.size()) && ::fsync(fd) == 0;
  ::close(fd);
  if (!written) {
    ::unlink(temp.c_str());
    return fail(ErrorCode::io, fmt::format("cannot write {}", temp));
  }
  const bool linked = ::link(temp.c_str(), path.c_str()) == 0;
  ::unlink(temp.c_str());
  if (!linked && errno != EEXIST) return fail(ErrorCode::io, fmt::format("cannot create {}: {}", path, std::strerror(errno)));
  if (!linked) return load_or_create_secret(secrets_dir, name);  // another run won the race
  return key;
}

}  // namespace gpuctl
