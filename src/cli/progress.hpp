#pragma once
// What an operator sees while plan, apply and verify run, and what is kept afterwards:
// - a live view on a terminal (one line per active node, a done/failed/unreachable counter),
// - plain timestamped lines when stderr is not a terminal or with --no-progress,
// - a per-run log file with every remote command, its exit code, duration and output,
// - under systemd, records with priorities in the journal instead of the plain lines.
// The run log and the journal are written through spdlog (log_file_sink.hpp, log_journal_sink.hpp).
// All are RunHooks; a TeeHooks (apply/tee_hooks.hpp) hands every event to several of them. Prints to stderr and
// writes files (this is the CLI).

#include "command_registry.hpp"

#include <gpuctl/api/run_request.hpp>
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

// What a run reports through: the live view when stderr is a terminal (unless --no-progress or
// -q), else the journal's records when stderr is the journal (stderr_is_journal()), else plain
// lines (with -q: failures only), plus the run log under <state dir>/logs (`command` names it).
// A log that cannot be opened is a warning, not a failure.
std::unique_ptr<RunHooks> make_run_hooks(const std::string& command, bool no_progress, const GlobalOptions& globals);

}  // namespace gpuctl::cli
