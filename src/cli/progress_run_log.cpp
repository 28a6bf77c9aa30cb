// The per-run log: everything a run did on each node, for the post-mortem. Commands arrive
// with secrets already masked (RunHooks::on_command's contract). Each record is flushed as it
// is written, so `tail -f` follows a run and a crash loses nothing.
#include "progress.hpp"

#include <gpuctl/api/run_request.hpp>
#include <gpuctl/util/private_dir.hpp>

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

std::string utc_stamp(const char* format) {
  const auto now = std::time(nullptr);
  std::tm tm{};
  gmtime_r(&now, &tm);
  char text[32];
  std::strftime(text, sizeof text, format, &tm);
  return text;
}

// Time of day with milliseconds (UTC): commands of one node are often milliseconds apart.
std::string clock_stamp() {
  const auto now = std::chrono::system_clock::now();
  const auto ms = std::chrono::duration_cast<std::chrono::milliseconds>(now.time_since_epoch()).count() % 1000;
  return fmt::format("{}.{:03}", utc_stamp("%H:%M:%S"), ms);
}

class RunLogHooks : public RunHooks {
 public:
  explicit RunLogHooks(std::FILE* file) : m_file(file) {}
  ~RunLogHooks() override {
    record("-", "run ended");
    std::fclose(m_file);
  }

  void on_phase_start(std::string_view phase, std::size_t node_count) override {
    record("-", fmt::format("phase {} over {} nodes", phase, node_count));
  }
  void on_node_start(const std::string& node, std::string_view phase) override {
    record(node, fmt::format("{} started", phase));
  }
  void on_step_start(const std::string& node, const std::string& step) override {
    record(node, fmt::format("step {} started", step));
  }
  void on_change_done(const std::string& node, const Change& change, bool ok, std::chrono::milliseconds took) override {
    record(node, fmt::format("{} {}: {} in {} ms", action_symbol(change.action), change.summary, ok ? "done" : "FAILED",
                             took.count()));
  }
  void on_step_done(const std::string& node, const std::string& step, StepStatus status,
                    std::chrono::milliseconds took) override {
    record(node, fmt::format("step {} {} in {} ms", step, to_string(status), took.count()));
  }
  void on_command(const std::string& node, const std::string& command, int exit_code, std::chrono::milliseconds took,
                  const std::string& output) override {
    std::string text = "$ " + indent(command, "    ") + fmt::format("\n    exit {} after {} ms", exit_code, took.count());
    if (!output.empty()) text += "\n    | " + indent(output, "    | ");
    record(node, text);
  }
  void on_message(const std::string& node, const std::string& text) override { record(node, text); }
  void on_probe_done(const std::string& node, std::string_view phase, std::chrono::milliseconds took) override {
    record(node, fmt::format("probed for {} in {} ms (one round trip)", phase, took.count()));
  }
  void on_node_done(const exec::NodeOutcome& o) override {
    record(o.node, fmt::format("node {} in {} ms{}", exec::to_string(o.status), o.duration.count(),
                               o.reason.empty() ? "" : ": " + o.reason));
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

  void record(const std::string& node, const std::string& text) {
    const auto line = fmt::format("{} {} {}\n", clock_stamp(), node, text);
    const std::lock_guard lock(m_mutex);
    std::fputs(line.c_str(), m_file);
    std::fflush(m_file);
  }

  std::FILE* m_file;
  std::mutex m_mutex;
};

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
    return std::make_unique<RunLogHooks>(file);
  }
  return fail(ErrorCode::io, fmt::format("cannot create a new log file like {}.log", base));
}

std::unique_ptr<RunHooks> make_run_hooks(const std::string& command, bool no_progress, const GlobalOptions& globals) {
  auto tee = std::make_unique<TeeHooks>();
  const bool color = use_color(globals, STDERR_FILENO);
  const bool live = !no_progress && globals.verbosity >= 0 && ::isatty(STDERR_FILENO) == 1 &&
                    std::string_view(std::getenv("TERM") ? std::getenv("TERM") : "dumb") != "dumb";
  if (live) tee->add(make_live_hooks(globals.verbosity, color, STDERR_FILENO));
  else tee->add(make_log_hooks(globals.verbosity, color));
  std::string path;
  if (auto log = open_run_log(default_run_log_dir(), command, path)) {
    tee->add(std::move(*log));
    if (globals.verbosity >= 1) fmt::print(stderr, "gpuctl: run log {}\n", path);
  } else {
    fmt::print(stderr, "gpuctl: warning: no run log: {}\n", log.error().to_string());
  }
  return tee;
}

}  // namespace gpuctl::cli
