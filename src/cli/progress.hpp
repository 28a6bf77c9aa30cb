#pragma once
// What an operator sees while plan, apply and verify run, and what is kept afterwards:
// - a live view on a terminal (one line per active node, a done/failed/unreachable counter),
// - plain timestamped lines when stderr is not a terminal or with --no-progress,
// - a per-run log file with every remote command, its exit code, duration and output.
// All are RunHooks; TeeHooks hands every event to several of them. Prints to stderr and
// writes files (this is the CLI).

#include "command_registry.hpp"

#include <gpuctl/apply/hooks.hpp>
#include <gpuctl/core/error.hpp>

#include <memory>
#include <string>
#include <vector>

namespace gpuctl::cli {

// Whether to colour output written to `fd`: --color=always/never win; with auto, NO_COLOR
// (set and non-empty) or --no-color turn colour off, else colour when `fd` is a terminal.
bool use_color(const GlobalOptions& globals, int fd);

// "HH:MM:SS node: text", the plain progress line (also printed above the live view).
std::string progress_line(const std::string& node, const std::string& text);

// Plain timestamped lines on stderr: step start/end (verbosity >= 0), each change (>= 1),
// each remote command and its output (>= 2); failures always.
std::unique_ptr<RunHooks> make_log_hooks(int verbosity, bool color);

// The live view on the terminal `fd` (stderr): redrawn with ANSI escapes at most 10 times a
// second by its own thread; failures and messages scroll above it. Clears itself when a phase
// ends and when destroyed.
std::unique_ptr<RunHooks> make_live_hooks(int verbosity, bool color, int fd);

// The per-run log, opened 0600 (directory 0700) as <dir>/<UTC timestamp>-<command>.log; the
// path is stored in `path`. Fails when the directory or file cannot be created.
Result<std::unique_ptr<RunHooks>> open_run_log(const std::string& dir, const std::string& command, std::string& path);

// Hands every event to each part, in order. Owns its parts.
class TeeHooks : public RunHooks {
 public:
  void add(std::unique_ptr<RunHooks> part) { m_parts.push_back(std::move(part)); }
  bool empty() const { return m_parts.empty(); }

  void on_phase_start(std::string_view phase, std::size_t node_count) override {
    for (auto& p : m_parts) p->on_phase_start(phase, node_count);
  }
  void on_node_start(const std::string& node, std::string_view phase) override {
    for (auto& p : m_parts) p->on_node_start(node, phase);
  }
  void on_step_start(const std::string& node, const std::string& step) override {
    for (auto& p : m_parts) p->on_step_start(node, step);
  }
  void on_change_done(const std::string& node, const Change& change, bool ok, std::chrono::milliseconds took) override {
    for (auto& p : m_parts) p->on_change_done(node, change, ok, took);
  }
  void on_step_done(const std::string& node, const std::string& step, StepStatus status,
                    std::chrono::milliseconds took) override {
    for (auto& p : m_parts) p->on_step_done(node, step, status, took);
  }
  void on_command(const std::string& node, const std::string& command, int exit_code, std::chrono::milliseconds took,
                  const std::string& output) override {
    for (auto& p : m_parts) p->on_command(node, command, exit_code, took, output);
  }
  void on_message(const std::string& node, const std::string& text) override {
    for (auto& p : m_parts) p->on_message(node, text);
  }
  void on_node_done(const exec::NodeOutcome& outcome) override {
    for (auto& p : m_parts) p->on_node_done(outcome);
  }

 private:
  std::vector<std::unique_ptr<RunHooks>> m_parts;
};

// What a run reports through: the live view when stderr is a terminal (unless --no-progress or
// -q), else plain lines (with -q: failures only), plus the run log under <state dir>/logs
// (`command` names it). A log that cannot be opened is a warning, not a failure.
std::unique_ptr<RunHooks> make_run_hooks(const std::string& command, bool no_progress, const GlobalOptions& globals);

}  // namespace gpuctl::cli
