// Plain progress lines: what a run prints when stderr is not a terminal, or with --no-progress.
#include "progress.hpp"

#include <gpuctl/api/run_request.hpp>
#include <gpuctl/api/inventory_use_case.hpp>  // hostlist::compress, as gpuctl hostlist uses it
#include <gpuctl/util/strings.hpp>

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <ctime>
#include <fmt/format.h>
#include <mutex>
#include <vector>
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
  // A node's reason or message, shown and never obeyed: escapes become \xNN.
  return fmt::format("{} {}: {}", stamp, node, util::terminal_safe(text));
}

namespace {

constexpr const char* k_red = "\x1b[31m";
constexpr const char* k_reset = "\x1b[0m";

// How often folded step lines are printed while a phase runs.
constexpr std::chrono::seconds k_fold_interval{10};

class LogHooks : public RunHooks {
 public:
  LogHooks(int verbosity, bool color) : m_verbosity(verbosity), m_color(color) {}
  ~LogHooks() override {
    const std::lock_guard lock(m_mutex);
    flush_steps();
  }

  // Over more than one node (and without -v), the steps that end well are folded: every ten
  // seconds and when the phase ends, one line per step and outcome naming its nodes by
  // hostlist, as `clush -b` folds output. A failure prints at once where it is the first of
  // its kind in the window (failure_or_line); reboots and messages print at once.
  void on_phase_start(std::string_view /*phase*/, std::size_t node_count) override {
    const std::lock_guard lock(m_mutex);
    flush_steps();
    m_fold = node_count > 1 && m_verbosity == 0;
    m_nodes_left = node_count;
    m_last_flush = std::chrono::steady_clock::now();
  }
  void on_step_start(const std::string& node, const std::string& step) override {
    if (m_verbosity >= 0 && !m_fold) line(node, fmt::format("{} ...", step));
  }
  void on_step_done(const std::string& node, const std::string& step, StepStatus status,
                    std::chrono::milliseconds duration) override {
    if (m_fold && status != StepStatus::failed) {
      const std::lock_guard lock(m_mutex);
      const auto key = fmt::format("{} {}", step, to_string(status));
      auto it = std::ranges::find(m_steps, key, &FoldedStep::text);
      if (it == m_steps.end()) it = m_steps.insert(m_steps.end(), FoldedStep{key, {}, {}});
      it->nodes.push_back(node);
      it->longest = std::max(it->longest, duration);
      if (std::chrono::steady_clock::now() - m_last_flush >= k_fold_interval) flush_steps();
      return;
    }
    if (m_verbosity >= 0 || status == StepStatus::failed)
      failure_or_line(status == StepStatus::failed, node, fmt::format("{} {}", step, to_string(status)),
                      fmt::format(" ({:.1f}s)", duration.count() / 1000.0));
  }
  void on_change_done(const std::string& node, const Change& change, bool ok, std::chrono::milliseconds duration) override {
    if (m_verbosity >= 1 || !ok)
      failure_or_line(!ok, node, fmt::format("  {} {} {}", action_symbol(change.action), change.summary, ok ? "done" : "FAILED"),
                      fmt::format(" ({:.1f}s)", duration.count() / 1000.0));
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
      failure_or_line(bad, outcome.node,
                      fmt::format("{}{}", exec::to_string(outcome.status), outcome.reason.empty() ? "" : ": " + outcome.reason),
                      fmt::format(" ({:.1f}s)", outcome.duration.count() / 1000.0));
    const std::lock_guard lock(m_mutex);
    if (m_nodes_left > 0 && --m_nodes_left == 0) flush_steps();
  }

 private:
  struct FoldedStep {
    std::string text;  // "driver changed"
    std::vector<std::string> nodes;
    std::chrono::milliseconds longest{0};
  };

  void line(const std::string& node, const std::string& text, bool bad = false) {
    const std::lock_guard lock(m_mutex);
    print(node, text, bad);
  }
  // A failure prints at once the first time it is seen in a fold window; the same failure on
  // more nodes (the node's name in it as <node>) waits for the window's end, as one line.
  // `timing` (a duration) is not part of what makes two failures the same.
  void failure_or_line(bool failure, const std::string& node, const std::string& text, const std::string& timing = {}) {
    const std::lock_guard lock(m_mutex);
    if (!failure || !m_fold) {
      print(node, text + timing, failure);
      return;
    }
    auto key = util::replace_whole_words(text, node, "<node>");
    auto it = std::ranges::find(m_failures, key, &FoldedFailure::text);
    if (it == m_failures.end()) {
      m_failures.push_back({std::move(key), {}});
      print(node, text + timing, true);
    } else {
      it->more_nodes.push_back(node);
    }
  }
  void print(const std::string& node, const std::string& text, bool bad) {
    const auto formatted = progress_line(node, text);
    if (bad && m_color) fmt::print(stderr, "{}{}{}\n", k_red, formatted, k_reset);
    else fmt::print(stderr, "{}\n", formatted);
  }
  void flush_steps() {  // with m_mutex held
    for (const auto& step : m_steps)
      print(hostlist::compress(step.nodes),
            fmt::format("{} ({} node{}, longest {:.1f}s)", step.text, step.nodes.size(), step.nodes.size() == 1 ? "" : "s",
                        step.longest.count() / 1000.0),
            false);
    m_steps.clear();
    for (const auto& failure : m_failures)
      if (!failure.more_nodes.empty())
        print(hostlist::compress(failure.more_nodes),
              fmt::format("{} (the same on {} more node{})", failure.text, failure.more_nodes.size(),
                          failure.more_nodes.size() == 1 ? "" : "s"),
              true);
    m_failures.clear();
    m_last_flush = std::chrono::steady_clock::now();
  }

  int m_verbosity;
  bool m_color;
  std::mutex m_mutex;
  bool m_fold = false;
  std::size_t m_nodes_left = 0;
  std::vector<FoldedStep> m_steps;  // in the order their first node finished them
  struct FoldedFailure {
    std::string text;                     // with <node> for the node's name
    std::vector<std::string> more_nodes;  // after the first, which printed at once
  };
  std::vector<FoldedFailure> m_failures;
  std::chrono::steady_clock::time_point m_last_flush;
};

}  // namespace

std::unique_ptr<RunHooks> make_log_hooks(int verbosity, bool color) { return std::make_unique<LogHooks>(verbosity, color); }

}  // namespace gpuctl::cli
