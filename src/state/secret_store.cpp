#include <gpuctl/state/secret_store.hpp>

#include <gpuctl/util/private_dir.hpp>

#include <cctype>
#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <fcntl.h>
#include <filesystem>
#include <fmt/format.h>
#include <optional>
#include <sys/stat.h>
#include <unistd.h>

namespace gpuctl::state {
namespace {

constexpr std::size_t k_secret_bytes = 1024;        // munge's own default key size
constexpr std::size_t k_max_secret_bytes = 65536;   // far above any key; bounds a bad file's read
constexpr std::string_view k_elsewhere =
    "choose another state directory with GPUCTL_STATE_DIR, or another secret store with GPUCTL_SECRETS_DIR";

struct FileDescriptor {
  int fd;
  ~FileDescriptor() {
    if (fd >= 0) ::close(fd);
  }
};

Result<std::string> read_all(int fd, const std::string& path) {
  std::string data;
  char buffer[4096];
  while (true) {
    const auto n = ::read(fd, buffer, sizeof buffer);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) return fail(ErrorCode::io, fmt::format("cannot read {}: {}", path, std::strerror(errno)));
    if (n == 0) return data;
    data.append(buffer, static_cast<std::size_t>(n));
    if (data.size() > k_max_secret_bytes)
      return fail(ErrorCode::validation, fmt::format("secret {} is larger than {} bytes", path, k_max_secret_bytes), {},
                  fmt::format("remove it (rm {}); gpuctl then generates a new one", path));
  }
}

// The fix for a secret file gpuctl cannot trust: a new secret replaces it everywhere.
std::string replace_fix(const std::string& path) {
  return fmt::format("remove it (rm {}): the next plan generates a new secret and apply pushes it to every node", path);
}

// A secret file gpuctl may use: one it created itself, so a regular file of the current user
// that no one else can read or write.
Result<void> check_secret_file(const struct stat& st, const std::string& path) {
  if (!S_ISREG(st.st_mode))
    return fail(ErrorCode::validation, fmt::format("secret {} is not a regular file", path), {}, replace_fix(path));
  // In a team's store: the team's key (0640: its members read it), whichever member made it.
  if (const auto team = util::team_group_of(std::filesystem::path(path).parent_path().string());
      team && st.st_gid == *team) {
    if ((st.st_mode & 027) != 0)
      return fail(ErrorCode::validation,
                  fmt::format("secret {} is writable by the team or open to others (mode {:04o})", path,
                              st.st_mode & 07777),
                  {}, replace_fix(path));
    return {};
  }
  if (st.st_uid != ::geteuid())
    return fail(ErrorCode::validation,
                fmt::format("secret {} belongs to uid {}, not to you (uid {}): gpuctl did not create it", path,
                            st.st_uid, ::geteuid()),
                {}, replace_fix(path));
  if ((st.st_mode & 077) != 0)
    return fail(ErrorCode::validation,
                fmt::format("secret {} is open to group or others (mode {:04o}): it may be known to others", path,
                            st.st_mode & 07777),
                {}, replace_fix(path) + fmt::format(" (or, if only you could ever read it, chmod 600 {})", path));
  return {};
}

// The secret at `path`, or an empty optional when there is none yet.
Result<std::optional<std::string>> load_existing(const std::string& path) {
  const FileDescriptor file{::open(path.c_str(), O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC | O_NOCTTY)};
  if (file.fd < 0 && errno == ENOENT) return std::optional<std::string>{};
  if (file.fd < 0 && errno == ELOOP)
    return fail(ErrorCode::validation,
                fmt::format("secret {} is a symbolic link; gpuctl does not follow links in its secret store", path), {},
                replace_fix(path));
  if (file.fd < 0) return fail(ErrorCode::io, fmt::format("cannot open secret {}: {}", path, std::strerror(errno)));
  struct stat st {};
  if (::fstat(file.fd, &st) != 0)
    return fail(ErrorCode::io, fmt::format("cannot read secret {}: {}", path, std::strerror(errno)));
  if (auto ok = check_secret_file(st, path); !ok) return std::unexpected(ok.error());
  auto data = read_all(file.fd, path);
  if (!data) return std::unexpected(data.error());
  return std::optional<std::string>{std::move(*data)};
}

Result<std::string> random_bytes(std::size_t count) {
  const FileDescriptor random{::open("/dev/urandom", O_RDONLY | O_CLOEXEC)};
  if (random.fd < 0) return fail(ErrorCode::io, "cannot open /dev/urandom");
  std::string bytes(count, '\0');
  std::size_t got = 0;
  while (got < bytes.size()) {
    const auto n = ::read(random.fd, bytes.data() + got, bytes.size() - got);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) break;
    got += static_cast<std::size_t>(n);
  }
  if (got != bytes.size()) return fail(ErrorCode::io, "short read from /dev/urandom");
  return bytes;
}

const char* secrets_root_from_environment() {
  const char* root = std::getenv("GPUCTL_SECRETS_DIR");
  return root && *root ? root : nullptr;
}

// Checks the directory layout before anything is created or read in it: no "." or ".."
// component (a cluster named "../../x" must not lead out of the store) and a plain last one.
// `create`: make what is missing (load_or_create_secret); else only check (load_secret).
Result<void> prepare_secrets_dir(const std::string& secrets_dir, bool create) {
  const auto use = create ? util::prepare_own_directory : util::check_own_directory;
  const std::filesystem::path dir(secrets_dir);
  const auto fix = "give the cluster a plain name (letters, digits, '_', '-', '.', ':'; no '/', not starting with '.')";
  for (const auto& part : dir)
    if (part == "." || part == "..")
      return fail(ErrorCode::validation,
                  fmt::format("secrets directory {} has a '{}' component: it could lead out of the secret store",
                              secrets_dir, part.string()),
                  {}, fix);
  if (!is_plain_secret_name(dir.filename().string()))
    return fail(ErrorCode::validation, fmt::format("secrets directory {} does not end in a plain name", secrets_dir),
                {}, fix);
  // Whoever can write a directory can swap what is in it, so the two above, the state directory
  // and "secrets", must be the user's and writable by no one else (earlier gpuctl versions made
  // "secrets" 0755, which is fine). Checked top-down: nothing is created in a shared directory.
  const auto parent = dir.parent_path();
  const auto state_dir = parent.parent_path();
  // A store of its own (GPUCTL_SECRETS_DIR) has no state directory above it to check.
  if (!secrets_root_from_environment() && !state_dir.empty() && state_dir != state_dir.root_path())
    if (auto ok = use(state_dir.string(), util::DirectoryRule::no_other_writers, "state directory", k_elsewhere);
        !ok)
      return ok;
  if (!parent.empty() && parent != parent.root_path())
    if (auto ok = use(parent.string(), util::DirectoryRule::no_other_writers, "secrets directory", k_elsewhere);
        !ok)
      return ok;
  return use(secrets_dir, util::DirectoryRule::private_to_owner, "secrets directory", k_elsewhere);
}

}  // namespace

bool is_plain_secret_name(std::string_view name) {
  if (name.empty() || name.size() > 255 || name.front() == '.') return false;
  for (const char c : name)
    if (!(std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '-' || c == '.' || c == ':')) return false;
  return true;
}

std::string default_state_dir() {
  if (const char* dir = std::getenv("GPUCTL_STATE_DIR"); dir && *dir) return dir;
  if (const char* xdg = std::getenv("XDG_STATE_HOME"); xdg && *xdg) return std::string(xdg) + "/gpuctl";
  const char* home = std::getenv("HOME");
  return std::string(home && *home ? home : "/root") + "/.local/state/gpuctl";
}

Result<std::string> default_secrets_dir(const std::string& cluster_name) {
  if (!cluster_name.empty() && !is_plain_secret_name(cluster_name))
    return fail(ErrorCode::validation,
                fmt::format("cluster name '{}' cannot name a directory of the secret store", cluster_name), {},
                "give cluster.name a plain name: letters, digits, '_', '-', '.', ':', not starting with '.', no '/'");
  // Absolute and without "." or "..": load_or_create_secret refuses those components.
  const char* own_root = secrets_root_from_environment();
  const auto root = std::filesystem::absolute(own_root ? std::filesystem::path(own_root)
                                                       : std::filesystem::path(default_state_dir()) / "secrets")
                        .lexically_normal();
  return (root / (cluster_name.empty() ? "default" : cluster_name)).string();
}

Result<std::optional<std::string>> load_secret(const std::string& secrets_dir, const std::string& name) {
  if (!is_plain_secret_name(name))
    return fail(ErrorCode::validation, fmt::format("bad secret name '{}'", name), {},
                "name a secret with letters, digits, '_', '-', '.', ':' only, not starting with '.'");
  struct stat st {};
  // Nothing is created: a store that does not exist yet holds no secret.
  if (::lstat(secrets_dir.c_str(), &st) != 0 && errno == ENOENT) return std::optional<std::string>{};
  // The checks load_or_create_secret makes: apply pushes what is read here.
  if (auto ok = prepare_secrets_dir(secrets_dir, false); !ok) return std::unexpected(ok.error());
  return load_existing(secrets_dir + "/" + name);
}

Result<std::string> load_or_create_secret(const std::string& secrets_dir, const std::string& name) {
  if (!is_plain_secret_name(name))
    return fail(ErrorCode::validation, fmt::format("bad secret name '{}'", name), {},
                "name a secret with letters, digits, '_', '-', '.', ':' only, not starting with '.'");
  if (auto ok = prepare_secrets_dir(secrets_dir, true); !ok) return std::unexpected(ok.error());
  const auto path = secrets_dir + "/" + name;
  auto existing = load_existing(path);
  if (!existing) return std::unexpected(existing.error());
  if (*existing) return std::move(**existing);

  // Generate into a temp file and link it into place, so a crash never leaves half a key and
  // two concurrent runs agree on one key.
  auto key = random_bytes(k_secret_bytes);
  if (!key) return std::unexpected(key.error());
  auto temp = secrets_dir + "/." + name + ".XXXXXX";
  const int fd = ::mkstemp(temp.data());  // created 0600 by mkstemp
  if (fd < 0) return fail(ErrorCode::io, fmt::format("cannot create a file in {}: {}", secrets_dir, std::strerror(errno)));
  // A team's store: readable by the team (the file was just made here; nothing else is chmodded).
  const bool shared = !util::team_group_of(secrets_dir) || ::fchmod(fd, 0640) == 0;
  const bool written = shared && ::write(fd, key->data(), key->size()) == static_cast<ssize_t>(key->size()) && ::fsync(fd) == 0;
  ::close(fd);
  if (!written) {
    ::unlink(temp.c_str());
    return fail(ErrorCode::io, fmt::format("cannot write {}", temp));
  }
  const bool linked = ::link(temp.c_str(), path.c_str()) == 0;
  const int link_errno = errno;
  ::unlink(temp.c_str());
  if (!linked && link_errno != EEXIST)
    return fail(ErrorCode::io, fmt::format("cannot create {}: {}", path, std::strerror(link_errno)));
  if (!linked) return load_or_create_secret(secrets_dir, name);  // another run won the race
  return std::move(*key);
}

}  // namespace gpuctl::state
