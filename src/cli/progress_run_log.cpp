// A run's records through spdlog: the per-run log (everything a run did on each node, for the
// post-mortem) and, under systemd, the journal (what an operator filters with journalctl -p).
// Commands arrive with secrets already masked (RunHooks::on_command's contract). Each record
// is flushed as it is written, so `tail -f` follows a run and a crash loses nothing.
//
// Every record has a level; the run log keeps all of them, the journal those at or above
// journal_level(verbosity) (info by default), one line or so per node, never every command:
//   error   a node failed or was unreachable
//   warning a step or change failed, a node was skipped
//   info    a phase started and ended (with its counts), a node's result, a message (reboot)
//   debug   a node's or step's start, a step's or change's success, a probe, the run's end
//   trace   a remote command with its exit code, duration and output
#include "progress.hpp"

#include "log_file_sink.hpp"
#include "log_journal_sink.hpp"
#include "log_stderr.hpp"

#include <gpuctl/api/run_request.hpp>
#include <gpuctl/util/private_dir.hpp>

#include <spdlog/logger.h>

#include <array>
#include <cerrno>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <ctime>
#include <fcntl.h>
#include <filesystem>
#include <fmt/format.h>
#include <mutex>
#include <sys/stat.h>
#include <unistd.h>

namespace gpuctl::cli {
namespace {

using Level = spdlog::level::level_enum;

std::string utc_stamp(const char* format) {
  const auto now = std::time(nullptr);
  std::tm tm{};
  gmtime_r(&now, &tm);
  char text[32];
  std::strftime(text, sizeof text, format, &tm);
  return text;
}

// How a record names its node: the run log "<node> <text>" ("-" for the run), the journal
// "<node>: <text>" (the run's own records without a node).
enum class Style { run_log, journal };

class RunLogHooks : public RunHooks {
 public:
  RunLogHooks(std::shared_ptr<spdlog::logger> logger, Style style) : m_logger(std::move(logger)), m_style(style) {}
  ~RunLogHooks() override { record(Level::debug, "-", "run ended"); }

  void on_phase_start(std::string_view phase, std::size_t node_count) override {
    {
      const std::lock_guard lock(m_mutex);
      m_phase = std::string(phase);
      m_counts = {};
      m_nodes_left = node_count;
      m_phase_start = std::chrono::steady_clock::now();
    }
    record(Level::info, "-", "phase {} over {} nodes", phase, node_count);
  }
  void on_node_start(const std::string& node, std::string_view phase) override {
    record(Level::debug, node, "{} started", phase);
  }
  void on_step_start(const std::string& node, const std::string& step) override {
    record(Level::debug, node, "step {} started", step);
  }
  void on_change_done(const std::string& node, const Change& change, bool ok, std::chrono::milliseconds took) override {
    record(ok ? Level::debug : Level::warn, node, "{} {}: {} in {} ms", action_symbol(change.action), change.summary,
           ok ? "done" : "FAILED", took.count());
  }
  void on_step_done(const std::string& node, const std::string& step, StepStatus status,
                    std::chrono::milliseconds took) override {
    record(status == StepStatus::failed ? Level::warn : Level::debug, node, "step {} {} in {} ms", step, to_string(status),
           took.count());
  }
  void on_command(const std::string& node, const std::string& command, int exit_code, std::chrono::milliseconds took,
                  const std::string& output) override {
    if (!m_logger->should_log(Level::trace)) return;
    std::string text = "$ " + indent(command, "    ") + fmt::format("\n    exit {} after {} ms", exit_code, took.count());
    if (!output.empty()) text += "\n    | " + indent(output, "    | ");
    record(Level::trace, node, "{}", text);
  }
  void on_message(const std::string& node, const std::string& text) override { record(Level::info, node, "{}", text); }
  void on_probe_done(const std::string& node, std::string_view phase, std::chrono::milliseconds took) override {
    record(Level::debug, node, "probed for {} in {} ms (one round trip)", phase, took.count());
  }
  void on_node_done(const exec::NodeOutcome& o) override {
    const auto level = o.status == exec::NodeStatus::failed || o.status == exec::NodeStatus::unreachable ? Level::err
                       : o.status == exec::NodeStatus::skipped                                           ? Level::warn
                                                                                                         : Level::info;
    record(level, o.node, "node {} in {} ms{}", exec::to_string(o.status), o.duration.count(),
           o.reason.empty() ? "" : ": " + o.reason);
    // The phase ends with its last node: one line with the counts (RunHooks has no phase end).
    std::string summary;
    {
      const std::lock_guard lock(m_mutex);
      ++m_counts[static_cast<std::size_t>(o.status)];
      if (m_nodes_left == 0 || --m_nodes_left > 0) return;
      const auto took = std::chrono::duration_cast<std::chrono::milliseconds>(std::chrono::steady_clock::now() - m_phase_start);
      const auto count = [&](exec::NodeStatus s) { return m_counts[static_cast<std::size_t>(s)]; };
      summary = fmt::format("phase {} ended in {} ms: {} ok, {} changed, {} failed, {} unreachable, {} skipped", m_phase,
                            took.count(), count(exec::NodeStatus::ok), count(exec::NodeStatus::changed),
                            count(exec::NodeStatus::failed), count(exec::NodeStatus::unreachable),
                            count(exec::NodeStatus::skipped));
    }
    record(Level::info, "-", "{}", summary);
  }

 private:
  static std::string indent(std::string text, const std::string& prefix) {
    while (!text.empty() && text.back() == '\n') text.pop_back();
    std::string out;
    for (char c : text) {
      out += c;
      if (c == '\n') out += prefix;
    }
    return out;
  }

  // Formats only what the logger keeps: at the journal's info level, a 512-node run's command
  // output is never formatted.
  template <typename... Args>
  void record(Level level, const std::string& node, fmt::format_string<Args...> format, Args&&... args) {
    if (!m_logger->should_log(level)) return;
    const auto text = fmt::format(format, std::forward<Args>(args)...);
    if (m_style == Style::run_log) m_logger->log(level, "{} {}", node, text);
    else if (node == "-") m_logger->log(level, "{}", text);
    else m_logger->log(level, "{}: {}", node, text);
  }

  std::shared_ptr<spdlog::logger> m_logger;
  Style m_style;
  std::mutex m_mutex;
  std::string m_phase;
  std::array<std::size_t, 5> m_counts{};  // by exec::NodeStatus
  std::size_t m_nodes_left = 0;
  std::chrono::steady_clock::time_point m_phase_start;
};

// The journal's records of a run, on stderr (gpuctl runs under systemd; see make_run_hooks).
std::unique_ptr<RunHooks> make_journal_hooks(int verbosity) {
  auto logger = std::make_shared<spdlog::logger>("journal", stderr_sink());
  logger->set_level(journal_level(verbosity));
  return std::make_unique<RunLogHooks>(std::move(logger), Style::journal);
}

}  // namespace

Result<std::unique_ptr<RunHooks>> open_run_log(const std::string& dir, const std::string& command, std::string& path) {
  // It holds command output of every node: private, created 0700, never chmodded, in a state
  // directory no one else can write (checked first: nothing is created in a shared one).
  constexpr std::string_view elsewhere = "choose another state directory with GPUCTL_STATE_DIR";
  if (auto ok = util::prepare_own_directory(std::filesystem::path(dir).parent_path().string(),
                                            util::DirectoryRule::no_other_writers, "state directory", elsewhere);
      !ok)
    return std::unexpected(ok.error());
  if (auto ok = util::prepare_own_directory(dir, util::DirectoryRule::private_to_owner, "run log directory", elsewhere);
      !ok)
    return std::unexpected(ok.error());
  const auto base = fmt::format("{}/{}-{}", dir, utc_stamp("%Y%m%dT%H%M%SZ"), command);
  // Two runs in the same second get distinct files; O_EXCL never appends to another run's log.
  for (int attempt = 0; attempt < 100; ++attempt) {
    path = attempt == 0 ? base + ".log" : fmt::format("{}.{}.log", base, attempt);
    const int fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
    if (fd < 0 && errno == EEXIST) continue;
    if (fd < 0) return fail(ErrorCode::io, fmt::format("cannot create {}: {}", path, std::strerror(errno)));
    std::FILE* file = ::fdopen(fd, "w");
    if (!file) {
      ::close(fd);
      return fail(ErrorCode::io, fmt::format("cannot open {}: {}", path, std::strerror(errno)));
    }
    std::fputs(fmt::format("# gpuctl {} {}, started {}\n", GPUCTL_VERSION, command, utc_stamp("%Y-%m-%dT%H:%M:%SZ")).c_str(),
               file);
    std::fflush(file);
    // spdlog writes to the file opened here (FileSink): its own file sinks would open it again.
    auto sink = std::make_shared<FileSink>(file);
    sink->set_formatter(make_run_log_formatter());
    auto logger = std::make_shared<spdlog::logger>("run-log", std::move(sink));
    logger->set_level(Level::trace);
    return std::make_unique<RunLogHooks>(std::move(logger), Style::run_log);
  }
  return fail(ErrorCode::io, fmt::format("cannot create a new log file like {}.log", base));
}

std::unique_ptr<RunHooks> make_run_hooks(const std::string& command, bool no_progress, const GlobalOptions& globals) {
  auto tee = std::make_unique<TeeHooks>();
  const bool color = use_color(globals, STDERR_FILENO);
  const bool live = !no_progress && globals.verbosity >= 0 && ::isatty(STDERR_FILENO) == 1 &&
                    std::string_view(std::getenv("TERM") ? std::getenv("TERM") : "dumb") != "dumb";
  // Under systemd stderr is the journal: its records, with priorities, replace the plain lines
  // (never both: each would be stored twice). A terminal is never the journal.
  if (live) tee->add(make_live_hooks(globals.verbosity, color, STDERR_FILENO));
  else if (stderr_is_journal()) tee->add(make_journal_hooks(globals.verbosity));
  else tee->add(make_log_hooks(globals.verbosity, color));
  std::string path;
  if (auto log = open_run_log(default_run_log_dir(), command, path)) {
    tee->add(std::move(*log));
    if (globals.verbosity >= 1) stderr_logger().info("gpuctl: run log {}", path);
  } else {
    stderr_logger().warn("gpuctl: warning: no run log: {}", log.error().to_string());
  }
  return tee;
}

}  // namespace gpuctl::cli
