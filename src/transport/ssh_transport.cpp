#include "ssh_session.hpp"

#include <gpuctl/transport/file_ops.hpp>
#include <gpuctl/transport/ssh_transport.hpp>

#include <fmt/format.h>

#include <libssh/server.h>  // ssh_send_keepalive lives here, though it serves clients too

#include <array>

namespace gpuctl {
namespace {

using namespace ssh_detail;
using Clock = std::chrono::steady_clock;

// How long one read waits before checking the deadline; bounds Ctrl-C-free latency only.
constexpr int k_read_slice_ms = 200;
// Silence after which a keepalive is sent, so NAT and firewalls keep the session open.
constexpr auto k_keepalive_after = std::chrono::seconds(15);

struct ChannelDeleter {
  void operator()(ssh_channel channel) const {
    if (ssh_channel_is_open(channel)) ssh_channel_close(channel);
    ssh_channel_free(channel);
  }
};
using ChannelPtr = std::unique_ptr<ssh_channel_struct, ChannelDeleter>;

class SshTransport final : public Transport {
 public:
  SshTransport(std::string node, SessionPtr session)
      : m_node(std::move(node)), m_session(std::move(session)), m_root(session_user(m_session.get()) == "root") {}

  const std::string& node() const override { return m_node; }

  Result<CommandResult> run(const std::string& command, const CommandOptions& options) override {
    if (m_broken) return std::unexpected(ssh_error(m_node, ErrorCode::transport, "SSH session lost: " + m_broken_reason));
    const auto start = Clock::now();
    const auto deadline = start + options.timeout;
    ssh_session s = m_session.get();
    ChannelPtr channel(ssh_channel_new(s));
    if (!channel || ssh_channel_open_session(channel.get()) != SSH_OK) return lost("cannot open a channel");
    const std::string script = options.become && !m_root ? transport::wrap_become(command) : command;
    if (ssh_channel_request_exec(channel.get(), script.c_str()) != SSH_OK) return lost("exec request refused");
    if (!options.stdin_data.empty()) {
      const char* data = options.stdin_data.data();
      std::size_t left = options.stdin_data.size();
      while (left > 0) {
        const int n = ssh_channel_write(channel.get(), data, static_cast<uint32_t>(std::min<std::size_t>(left, 1 << 20)));
        if (n == SSH_ERROR) return lost("writing stdin failed");
        data += n;
        left -= static_cast<std::size_t>(n);
      }
    }
    ssh_channel_send_eof(channel.get());

    CommandResult result;
    std::array<char, 32768> buffer;
    auto last_data = Clock::now();
    while (true) {
      if (Clock::now() >= deadline) {
        ssh_channel_request_send_signal(channel.get(), "KILL");  // OpenSSH >= 7.9 honours it
        return std::unexpected(ssh_error(m_node, ErrorCode::timeout,
                                         fmt::format("command timed out after {}s", options.timeout.count())));
      }
      const int n = ssh_channel_read_timeout(channel.get(), buffer.data(), buffer.size(), 0, k_read_slice_ms);
      if (n == SSH_ERROR) return lost("read failed");
      if (n > 0) result.out.append(buffer.data(), static_cast<std::size_t>(n));
      int e = 0;
      while ((e = ssh_channel_read_nonblocking(channel.get(), buffer.data(), buffer.size(), 1)) > 0)
        result.err.append(buffer.data(), static_cast<std::size_t>(e));
      if (e == SSH_ERROR) return lost("read failed");
      if (n > 0 || e > 0) last_data = Clock::now();
      if (n == 0 && ssh_channel_is_eof(channel.get())) break;
      if (Clock::now() - last_data > k_keepalive_after) {
        ssh_send_keepalive(s);
        last_data = Clock::now();
      }
    }
    // Whatever is left in the stderr buffer after stdout reached EOF.
    int e = 0;
    while ((e = ssh_channel_read_nonblocking(channel.get(), buffer.data(), buffer.size(), 1)) > 0)
      result.err.append(buffer.data(), static_cast<std::size_t>(e));
    // A command killed by a signal has no exit status (-1); report it like a shell would.
    const int status = ssh_channel_get_exit_status(channel.get());
    result.exit_code = status < 0 ? 255 : status;
    result.duration = std::chrono::duration_cast<std::chrono::milliseconds>(Clock::now() - start);
    return result;
  }

  Result<std::string> read_file(const std::string& path, bool become) override {
    return transport::read_file_via(*this, path, become);
  }
  Result<void> write_file(const std::string& path, const std::string& content, const WriteOptions& options) override {
    return transport::write_file_via(*this, path, content, options);
  }
  Result<FileAttributes> stat_file(const std::string& path, bool become) override {
    return transport::stat_file_via(*this, path, become);
  }

 private:
  // A protocol-level failure poisons the session: later commands fail fast instead of
  // waiting on a dead socket.
  std::unexpected<Error> lost(const std::string& what) {
    m_broken = true;
    m_broken_reason = what + ": " + ssh_get_error(m_session.get());
    return std::unexpected(ssh_error(m_node, ErrorCode::transport, m_broken_reason));
  }

  std::string m_node;
  SessionPtr m_session;
  bool m_root;
  bool m_broken = false;
  std::string m_broken_reason;
};

}  // namespace

Result<std::unique_ptr<Transport>> connect_ssh(const std::string& node, const ConnectionSettings& settings) {
  auto session = open_session(node, settings);
  if (!session) return std::unexpected(session.error());
  if (auto key = verify_host_key(session->get(), node, settings.host_key_policy); !key)
    return std::unexpected(key.error());
  if (auto auth = authenticate(session->get(), node, settings); !auth) return std::unexpected(auth.error());
  return std::make_unique<SshTransport>(node, std::move(*session));
}

}  // namespace gpuctl
