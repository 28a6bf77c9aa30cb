// Plain progress lines: what a run prints when stderr is not a terminal, or with --no-progress.
#include "progress.hpp"

#include <gpuctl/api/run_request.hpp>

#include <cstdlib>
#include <ctime>
#include <fmt/format.h>
#include <mutex>
#include <unistd.h>

namespace gpuctl::cli {

bool use_color(const GlobalOptions& globals, int fd) {
  if (globals.color == "always") return true;
  if (globals.color == "never" || globals.no_color) return false;
  if (const char* no_color = std::getenv("NO_COLOR"); no_color && *no_color) return false;
  return ::isatty(fd) == 1;
}

std::string progress_line(const std::string& node, const std::string& text) {
  const auto now = std::time(nullptr);
  std::tm tm{};
  localtime_r(&now, &tm);
  char stamp[16];
  std::strftime(stamp, sizeof stamp, "%H:%M:%S", &tm);
  return fmt::format("{} {}: {}", stamp, node, text);
}

namespace {

constexpr const char* k_red = "\x1b[31m";
constexpr const char* k_reset = "\x1b[0m";

class LogHooks : public RunHooks {
 public:
  LogHooks(int verbosity, bool color) : m_verbosity(verbosity), m_color(color) {}

  void on_step_start(const std::string& node, const std::string& step) override {
    if (m_verbosity >= 0) line(node, fmt::format("{} ...", step));
  }
  void on_step_done(const std::string& node, const std::string& step, StepStatus status,
                    std::chrono::milliseconds duration) override {
    if (m_verbosity >= 0 || status == StepStatus::failed)
      line(node, fmt::format("{} {} ({:.1f}s)", step, to_string(status), duration.count() / 1000.0),
           status == StepStatus::failed);
  }
  void on_change_done(const std::string& node, const Change& change, bool ok, std::chrono::milliseconds duration) override {
    if (m_verbosity >= 1 || !ok)
      line(node, fmt::format("  {} {} {} ({:.1f}s)", action_symbol(change.action), change.summary, ok ? "done" : "FAILED",
                             duration.count() / 1000.0), !ok);
  }
  void on_command(const std::string& node, const std::string& command, int exit_code, std::chrono::milliseconds duration,
                  const std::string& output) override {
    if (m_verbosity < 2) return;
    line(node, fmt::format("    $ {} -> {} ({} ms)", command.substr(0, command.find('\n')), exit_code, duration.count()));
    for (std::size_t start = 0; start < output.size();) {
      const auto end = output.find('\n', start);
      line(node, "      " + output.substr(start, end - start));
      if (end == std::string::npos) break;
      start = end + 1;
    }
  }
  void on_message(const std::string& node, const std::string& text) override {
    if (m_verbosity >= 0) line(node, text);
  }
  void on_probe_done(const std::string& node, std::string_view phase, std::chrono::milliseconds took) override {
    if (m_verbosity >= 1) line(node, fmt::format("probed for {} in {} ms (one round trip)", phase, took.count()));
  }
  void on_node_done(const exec::NodeOutcome& outcome) override {
    const bool bad = outcome.status == exec::NodeStatus::failed || outcome.status == exec::NodeStatus::unreachable;
    if (bad || (m_verbosity >= 1 && outcome.status != exec::NodeStatus::skipped))
      line(outcome.node,
           fmt::format("{}{} ({:.1f}s)", exec::to_string(outcome.status), outcome.reason.empty() ? "" : ": " + outcome.reason,
                       outcome.duration.count() / 1000.0),
           bad);
  }

 private:
  void line(const std::string& node, const std::string& text, bool bad = false) {
    const auto formatted = progress_line(node, text);
    const std::lock_guard lock(m_mutex);
    if (bad && m_color) fmt::print(stderr, "{}{}{}\n", k_red, formatted, k_reset);
    else fmt::print(stderr, "{}\n", formatted);
  }

  int m_verbosity;
  bool m_color;
  std::mutex m_mutex;
};

}  // namespace

std::unique_ptr<RunHooks> make_log_hooks(int verbosity, bool color) { return std::make_unique<LogHooks>(verbosity, color); }

}  // namespace gpuctl::cli
