// Beginning and finishing a recorded run (recorded_run.hpp).
#include "recorded_run.hpp"

#include <gpuctl/state/secret_store.hpp>
#include <gpuctl/util/strings.hpp>

#include <filesystem>
#include <fmt/format.h>
#include <fstream>
#include <iterator>

namespace gpuctl::use_case {
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

Result<std::unique_ptr<state::StateStore>> open_state_store(const std::string& path) {
  return state::StateStore::open(state::state_db_path(path, state::default_state_dir()));
}

std::expected<RecordedRun, Failure> begin_recorded_run(RunInputs& inputs, const RunEnvironment& env,
                                                       std::string_view command, state::LockMode lock) {
  RecordedRun run;
  auto store = open_state_store(env.state_path);
  if (!store) return std::unexpected(Failure{Verdict::error, store.error().to_string()});
  run.store = std::move(*store);
  const auto& inventory = inputs.selected->inventory;
  const state::NewRun request{std::string(command), current_command_line(), lock_key(inventory.path),
                              inventory.digest, state::current_process()};
  auto started = run.store->begin_run(request, lock);
  if (!started)
    return std::unexpected(Failure{started.error().code == ErrorCode::locked ? Verdict::locked : Verdict::error,
                                   started.error().to_string()});
  for (const auto& dead : started->abandoned)
    notice(env, fmt::format("run {} ({} by {}, pid {}, started {}) was abandoned: its process is gone", dead.id,
                            dead.command, dead.process.who, dead.process.pid, dead.started));
  run.recorder = std::make_unique<RunRecorder>(*run.store, started->id);
  inputs.hooks->add_borrowed(*run.recorder);
  return run;
}

void finish_recorded_run(RecordedRun& run, state::RunStatus status, const RunEnvironment& env) {
  run.recorder->finish(status);
  if (const auto error = run.recorder->first_error())
    notice(env, fmt::format("warning: run {} is only partly recorded in {}: {}", run.recorder->run_id(),
                            run.store->path(), error->to_string()));
}

}  // namespace gpuctl::use_case
