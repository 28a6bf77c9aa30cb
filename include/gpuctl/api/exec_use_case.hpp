#pragma once
// `gpuctl exec`: one ad-hoc shell command on many nodes in parallel, each node's result handed
// to the caller as it completes. Does network I/O (the nodes); never prints.

#include <gpuctl/api/run_request.hpp>
#include <gpuctl/api/verdict.hpp>
#include <gpuctl/exec/output_groups.hpp>
#include <gpuctl/exec/remote_exec.hpp>

#include <chrono>
#include <functional>

namespace gpuctl {

struct ExecRequest {
  std::string inventory;
  std::string limit;
  int forks = exec::k_default_forks;
  std::chrono::seconds timeout{0};        // 0: each node's command_timeout
  std::string connection;                 // "", "ssh" or "local"
  std::vector<std::string> command;       // the words form one shell line, as with ssh
};

struct ExecResult {
  Verdict verdict = Verdict::ok;          // invalid_input, nodes_failed (a command failed), nodes_unreachable, interrupted
  std::string error;
  std::vector<exec::ExecNodeResult> results;  // one per node, in inventory order
  std::chrono::steady_clock::duration elapsed{};
};

ExecResult run_exec(const ExecRequest& request, const RunEnvironment& env,
                    const std::function<void(const exec::ExecNodeResult&)>& on_node_done = {});

// `exec --json` (docs/output.md): {"format_version":1,"command":...,"elapsed_ms":N,"nodes":[{"node",
// "status","exit_code" (null without a result),"stdout","stderr","duration_ms","reason"}]}, one
// entry per node in inventory order, never folded. Pure.
std::string exec_to_json(const std::string& command, const ExecResult& result);

}  // namespace gpuctl
