#pragma once
// How plan, apply and verify report progress without printing: the CLI plugs in a live view,
// plain log lines or JSON lines. Called from worker threads, possibly concurrently for
// different nodes: implementations synchronise themselves. Every method has a no-op default.

#include <gpuctl/exec/executor.hpp>

#include <chrono>
#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

namespace gpuctl {

struct Change;
struct CheckResult;

enum class StepStatus { ok, changed, failed, skipped };
std::string_view to_string(StepStatus status);

class RunHooks {
 public:
  virtual ~RunHooks() = default;
  // A phase (plan, apply, verify) begins over `node_count` nodes; each then gets one
  // on_node_done, also the nodes that never started (skipped).
  virtual void on_phase_start(std::string_view /*phase*/, std::size_t /*node_count*/) {}
  virtual void on_node_done(const exec::NodeOutcome& /*outcome*/) {}
  virtual void on_node_start(const std::string& /*node*/, std::string_view /*phase*/) {}
  virtual void on_step_start(const std::string& /*node*/, const std::string& /*step*/) {}
  virtual void on_change_done(const std::string& /*node*/, const Change& /*change*/, bool /*ok*/,
                              std::chrono::milliseconds /*duration*/) {}
  virtual void on_step_done(const std::string& /*node*/, const std::string& /*step*/, StepStatus /*status*/,
                            std::chrono::milliseconds /*duration*/) {}
  // A remote command ran (secrets already masked): for the per-run log.
  virtual void on_command(const std::string& /*node*/, const std::string& /*command*/, int /*exit_code*/,
                          std::chrono::milliseconds /*duration*/, const std::string& /*output*/) {}
  virtual void on_message(const std::string& /*node*/, const std::string& /*text*/) {}
  // A node's state probe returned (its one round trip for `phase`), after `duration`.
  virtual void on_probe_done(const std::string& /*node*/, std::string_view /*phase*/,
                             std::chrono::milliseconds /*duration*/) {}
  // A node's verify checks ran (verify, or apply's verify of a drained node; a retried verify
  // reports each attempt): for the run history.
  virtual void on_checks_done(const std::string& /*node*/, const std::vector<CheckResult>& /*checks*/) {}
};

}  // namespace gpuctl
