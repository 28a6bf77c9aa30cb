// Session::verify_nccl_across_nodes: verify --nccl-nodes, run from the Slurm controller
// (api/session.hpp; the sets, script and checks are verify/nccl_nodes.hpp's).
#include <gpuctl/api/session.hpp>

#include <gpuctl/verify/nccl_nodes.hpp>

#include <chrono>
#include <fmt/format.h>
#include <map>

namespace gpuctl {
namespace {

void add_check(NodeVerifyOutcome& result, CheckResult check) {
  const bool bad = check.status == CheckStatus::fail || check.status == CheckStatus::error;
  if (bad && result.outcome.status == exec::NodeStatus::ok) {
    result.outcome.status = exec::NodeStatus::failed;
    result.outcome.reason = fmt::format("check {} {}", check.name, to_string(check.status));
  }
  result.checks.push_back(std::move(check));
}

CheckResult skipped_check(std::string why) {
  return {std::string(k_nccl_nodes_check), CheckStatus::skipped, {}, {}, std::move(why)};
}

}  // namespace

void Session::verify_nccl_across_nodes(std::vector<NodeVerifyOutcome>& results, int nodes_per_set) {
  std::vector<const Node*> candidates;
  std::map<std::string, std::size_t> index_of;
  for (std::size_t i = 0; i < m_nodes.size() && i < results.size(); ++i) {
    const Node& node = *m_nodes[i];
    if (node.gpu.count <= 0) continue;  // not a GPU node: the check does not apply
    index_of[node.name] = i;
    // A node that fails on its own would be blamed on the fabric and spoil its partners' run.
    if (results[i].outcome.status == exec::NodeStatus::ok) candidates.push_back(&node);
    else add_check(results[i], skipped_check("not run: the node did not pass its other checks"));
  }
  const auto sets = make_nccl_node_sets(candidates, nodes_per_set);
  for (const auto& name : sets.alone) {
    auto& result = results[index_of[name]];
    add_check(result, skipped_check(fmt::format("not run: no other node with {} GPUs passed verify to form a set with",
                                                m_nodes[index_of[name]]->gpu.count)));
  }
  if (sets.sets.empty()) return;

  const auto& controller_name = m_inventory.cluster.slurm.controller;
  m_hooks.on_message(controller_name, fmt::format("NCCL all-reduce across {} set(s) of nodes through srun", sets.sets.size()));
  std::string not_run;
  Result<NcclNodesRun> parsed = std::unexpected(Error{});
  const Node* controller = m_inventory.find_node(controller_name);
  if (!m_inventory.cluster.slurm.enabled || !controller) {
    not_run = "the inventory declares no Slurm controller (slurm.enabled, slurm.controller) to launch it from";
  } else if (auto transport = m_pool.get(*controller); !transport) {
    not_run = fmt::format("cannot reach the Slurm controller {}: {}", controller_name, transport.error().to_string());
  } else {
    auto ran = (*transport)->run("sh -s", CommandOptions{std::chrono::seconds(k_nccl_nodes_timeout_s), nccl_nodes_script(sets.sets), false});
    if (!ran) not_run = fmt::format("the all-reduce on the Slurm controller {} failed: {}", controller_name, ran.error().to_string());
    else if (parsed = parse_nccl_nodes_output(ran->out + ran->err, sets.sets.size()); !parsed)
      not_run = fmt::format("on the Slurm controller {}: {}", controller_name, parsed.error().message);
    else if (!parsed->problem.empty()) not_run = parsed->problem;
  }
  for (std::size_t k = 0; k < sets.sets.size(); ++k) {
    const auto& set = sets.sets[k];
    const auto checks = not_run.empty() ? nccl_nodes_checks(set, parsed->sets[k]) : nccl_nodes_not_run(set, not_run);
    for (std::size_t j = 0; j < set.nodes.size() && j < checks.size(); ++j) add_check(results[index_of[set.nodes[j]]], checks[j]);
  }
}

}  // namespace gpuctl
