#include <gpuctl/transport/file_ops.hpp>
#include <gpuctl/transport/local_transport.hpp>

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <array>
#include <cerrno>
#include <cstring>

namespace gpuctl {
namespace {

using Clock = std::chrono::steady_clock;

// Owns a descriptor; closes it once.
class Fd {
 public:
  Fd() = default;
  explicit Fd(int fd) : m_fd(fd) {}
  Fd(const Fd&) = delete;
  Fd& operator=(const Fd&) = delete;
  ~Fd() { reset(); }
  int get() const { return m_fd; }
  void reset() {
    if (m_fd >= 0) ::close(m_fd);
    m_fd = -1;
  }
  int* out() { return &m_fd; }

 private:
  int m_fd = -1;
};

Error local_error(const std::string& node, ErrorCode code, std::string message) {
  Error error{code, std::move(message), {}, {}};
  error.where.node = node;
  return error;
}

bool make_pipe(Fd& read_end, Fd& write_end) {
  int fds[2];
  if (::pipe2(fds, O_CLOEXEC) != 0) return false;
  *read_end.out() = fds[0];
  *write_end.out() = fds[1];
  return true;
}

}  // namespace

LocalTransport::LocalTransport(std::string node) : m_node(std::move(node)) {}

Result<CommandResult> LocalTransport::run(const std::string& command, const CommandOptions& options) {
  const std::string script = options.become && ::geteuid() != 0 ? transport::wrap_become(command) : command;
  Fd in_read, in_write, out_read, out_write, err_read, err_write;
  if (!make_pipe(in_read, in_write) || !make_pipe(out_read, out_write) || !make_pipe(err_read, err_write))
    return std::unexpected(local_error(m_node, ErrorCode::io, std::string("pipe: ") + std::strerror(errno)));

  // Everything the child touches is prepared before fork: after fork in a threaded process
  // only async-signal-safe calls are allowed.
  const char* argv[] = {"/bin/sh", "-c", script.c_str(), nullptr};
  const auto start = Clock::now();
  const pid_t pid = ::fork();
  if (pid < 0) return std::unexpected(local_error(m_node, ErrorCode::io, std::string("fork: ") + std::strerror(errno)));
  if (pid == 0) {
    ::setpgid(0, 0);
    sigset_t none;
    sigemptyset(&none);
    ::sigprocmask(SIG_SETMASK, &none, nullptr);  // workers block SIGINT; children must not inherit that
    ::signal(SIGPIPE, SIG_DFL);
    ::dup2(in_read.get(), 0);
    ::dup2(out_write.get(), 1);
    ::dup2(err_write.get(), 2);
    ::execv("/bin/sh", const_cast<char* const*>(argv));
    ::_exit(127);
  }
  ::setpgid(pid, pid);  // also from the parent, so the group exists before any kill below
  in_read.reset();
  out_write.reset();
  err_write.reset();
  ::fcntl(in_write.get(), F_SETFL, O_NONBLOCK);
  if (options.stdin_data.empty()) in_write.reset();

  CommandResult result;
  std::size_t written = 0;
  const auto deadline = start + options.timeout;
  bool timed_out = false;
  std::array<char, 65536> buffer;
  while (out_read.get() >= 0 || err_read.get() >= 0) {
    const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - Clock::now()).count();
    if (left <= 0) {
      timed_out = true;
      break;
    }
    std::array<pollfd, 3> fds{{{out_read.get(), POLLIN, 0}, {err_read.get(), POLLIN, 0}, {in_write.get(), POLLOUT, 0}}};
    const int ready = ::poll(fds.data(), fds.size(), static_cast<int>(std::min<long long>(left, 1000)));
    if (ready < 0 && errno != EINTR) break;
    if (ready <= 0) continue;
    for (int i = 0; i < 2; ++i) {
      if (fds[i].revents == 0) continue;
      Fd& fd = i == 0 ? out_read : err_read;
      const ssize_t n = ::read(fd.get(), buffer.data(), buffer.size());
      if (n > 0) (i == 0 ? result.out : result.err).append(buffer.data(), static_cast<std::size_t>(n));
      else if (n == 0 || (errno != EINTR && errno != EAGAIN)) fd.reset();
    }
    if (fds[2].revents != 0) {
      const ssize_t n = ::write(in_write.get(), options.stdin_data.data() + written, options.stdin_data.size() - written);
      if (n > 0) written += static_cast<std::size_t>(n);
      // EPIPE: the command stopped reading, which is its business; we just stop feeding it.
      if ((n < 0 && errno != EAGAIN && errno != EINTR) || written == options.stdin_data.size()) in_write.reset();
    }
  }
  in_write.reset();
  if (timed_out) ::kill(-pid, SIGKILL);

  int status = 0;
  while (::waitpid(pid, &status, 0) < 0 && errno == EINTR) {
  }
  result.duration = std::chrono::duration_cast<std::chrono::milliseconds>(Clock::now() - start);
  if (timed_out)
    return std::unexpected(local_error(m_node, ErrorCode::timeout,
                                       "command timed out after " + std::to_string(options.timeout.count()) + "s"));
  // Like a shell: 128+N for a process killed by signal N.
  result.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
  return result;
}

Result<std::string> LocalTransport::read_file(const std::string& path, bool become) {
  return transport::read_file_via(*this, path, become);
}

Result<void> LocalTransport::write_file(const std::string& path, const std::string& content, const WriteOptions& options) {
  return transport::write_file_via(*this, path, content, options);
}

Result<FileAttributes> LocalTransport::stat_file(const std::string& path, bool become) {
  return transport::stat_file_via(*this, path, become);
}

}  // namespace gpuctl
