#include "state_support.hpp"

#include <gpuctl/plan/secrets.hpp>
#include <gpuctl/util/strings.hpp>

#include <filesystem>
#include <fmt/format.h>
#include <fstream>
#include <iterator>

namespace gpuctl::cli {
namespace {

// The command line as typed, from /proc/self/cmdline (NUL-separated arguments).
std::string current_command_line() {
  std::ifstream in("/proc/self/cmdline", std::ios::binary);
  const std::string raw((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  std::vector<std::string> arguments;
  for (std::size_t start = 0; start < raw.size();) {
    const auto end = raw.find('\0', start);
    arguments.push_back(raw.substr(start, end - start));
    if (end == std::string::npos) break;
    start = end + 1;
  }
  return util::shell_join(arguments);
}

// The lock's key: one inventory reached by two relative paths or a symlink is one lock.
std::string lock_key(const std::string& inventory_path) {
  std::error_code ec;
  auto canonical = std::filesystem::weakly_canonical(std::filesystem::absolute(inventory_path), ec);
  return ec ? std::filesystem::absolute(inventory_path).string() : canonical.string();
}

}  // namespace

void add_state_option(CLI::App& command, StateCliOptions& options) {
  command.add_option("--state", options.path,
                     "State database (default: $GPUCTL_STATE_DIR/state.db, else ~/.local/state/gpuctl/state.db)");
}

std::unique_ptr<state::StateStore> open_state(const StateCliOptions& options) {
  auto store = state::StateStore::open(state::state_db_path(options.path, default_state_dir()));
  if (!store) {
    fmt::print(stderr, "gpuctl: {}\n", store.error().to_string());
    return nullptr;
  }
  return std::move(*store);
}

std::optional<RecordedRun> start_recorded_run(RunSetup& setup, const StateCliOptions& options, std::string_view command,
                                              state::LockMode lock, int& exit_code) {
  RecordedRun run;
  run.store = open_state(options);
  if (!run.store) {
    exit_code = k_exit_error;
    return std::nullopt;
  }
  const auto& inventory = setup.selected->inventory;
  const state::NewRun request{std::string(command), current_command_line(), lock_key(inventory.path), inventory.digest,
                              state::current_process()};
  auto started = run.store->begin_run(request, lock);
  if (!started) {
    fmt::print(stderr, "gpuctl: {}\n", started.error().to_string());
    exit_code = started.error().code == ErrorCode::locked ? k_exit_locked : k_exit_error;
    return std::nullopt;
  }
  for (const auto& dead : started->abandoned)
    fmt::print(stderr, "gpuctl: run {} ({} by {}, pid {}, started {}) was abandoned: its process is gone\n", dead.id,
               dead.command, dead.process.who, dead.process.pid, dead.started);
  run.recorder = std::make_unique<RunRecorder>(*run.store, started->id);
  add_hooks(setup, *run.recorder);
  return run;
}

void finish_recorded_run(RecordedRun& run, state::RunStatus status) {
  run.recorder->finish(status);
  if (const auto error = run.recorder->first_error())
    fmt::print(stderr, "gpuctl: warning: run {} is only partly recorded in {}: {}\n", run.recorder->run_id(),
               run.store->path(), error->to_string());
}

}  // namespace gpuctl::cli
