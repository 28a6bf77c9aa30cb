// `gpuctl facts` as a use case (api/facts_use_case.hpp).
#include <gpuctl/api/facts_use_case.hpp>

#include "recorded_run.hpp"
#include "run_inputs.hpp"

#include <unistd.h>

namespace gpuctl {
namespace {

std::string local_hostname() {
  char name[256] = {};
  if (gethostname(name, sizeof name - 1) != 0 || name[0] == '\0') return "localhost";
  return name;
}

}  // namespace

FactsResult run_facts(const FactsRequest& request, const RunEnvironment& env) {
  FactsResult result;
  std::optional<ConnectionKind> kind;
  if (request.connection == "local") kind = ConnectionKind::local;
  if (request.connection == "ssh") kind = ConnectionKind::ssh;

  std::unique_ptr<use_case::SelectedInventory> selected;
  std::vector<const Node*> nodes;
  Node this_host;  // single-host use: `gpuctl facts --connection local`
  if (request.inventory.empty()) {
    if (kind != ConnectionKind::local) {
      result.verdict = Verdict::invalid_input;
      result.error = "an INVENTORY is required unless --connection local is given";
      return result;
    }
    this_host.name = local_hostname();
    this_host.connection.kind = ConnectionKind::local;
    nodes.push_back(&this_host);
  } else {
    // The same loading as every other command: an invalid inventory is a usage error (2).
    auto loaded = use_case::load_selected(request.inventory, request.limit, env);
    if (!loaded) {
      result.verdict = loaded.error().verdict;
      result.error = loaded.error().message;
      return result;
    }
    selected = std::move(*loaded);
    nodes = selected->nodes;
  }
  facts::GatherOptions gather;
  gather.forks = request.forks;
  gather.cancel = env.cancel;
  const auto factory = env.transport_factory ? env.transport_factory : default_transport_factory(kind);
  result.outcomes = facts::gather_facts(nodes, gather, factory);
  std::vector<exec::NodeStatus> statuses;
  for (const auto& outcome : result.outcomes) statuses.push_back(outcome.status);
  result.verdict = verdict_for_nodes(statuses, use_case::cancelled(env));
  return result;
}

}  // namespace gpuctl
