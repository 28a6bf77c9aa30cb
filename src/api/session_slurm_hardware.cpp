// Session::gather_slurm_hardware (api/session.hpp): every Slurm node's hardware, read once per
// run before the first file is rendered, for slurm.conf and gres.conf (docs/slurm.md).
#include <gpuctl/api/session.hpp>

#include <gpuctl/facts/node_hardware.hpp>
#include <gpuctl/plan/slurm_hardware.hpp>
#include <gpuctl/template/renderer.hpp>

#include <algorithm>
#include <fmt/format.h>

namespace gpuctl {
namespace {

// The transport to `node`: the session's pool for its own nodes, else `peers` where a
// --connection override made them (a run local to one node reaches the others over SSH).
// `held` keeps a peer's transport alive for the caller. Null when none could be opened.
Transport* transport_to(exec::TransportPool& pool, const TransportFactory& peers, bool own, const Node& node,
                        std::unique_ptr<Transport>& held, std::optional<Error>* why = nullptr) {
  if (!own && peers) {
    auto made = peers(node);
    if (!made) {
      if (why) *why = made.error();
      return nullptr;
    }
    held = std::move(*made);
    return held.get();
  }
  auto pooled = pool.get(node);
  if (!pooled) {
    if (why) *why = pooled.error();
    return nullptr;
  }
  return *pooled;
}

// The deployed slurm.conf and gres.conf, read on the first node that answered the probe; empty
// texts when none could be read.
std::pair<std::string, std::string> deployed_files(const std::vector<const Node*>& nodes,
                                                   const std::vector<Result<facts::NodeHardware>>& observed,
                                                   const std::function<Transport*(const Node&, std::unique_ptr<Transport>&)>& reach,
                                                   std::string& read_on) {
  for (std::size_t i = 0; i < nodes.size(); ++i) {
    if (!observed[i]) continue;
    std::unique_ptr<Transport> held;
    Transport* transport = reach(*nodes[i], held);
    if (!transport) continue;
    auto conf = transport->read_file(std::string(k_deployed_slurm_conf), nodes[i]->connection.become);
    if (!conf) continue;
    auto gres = transport->read_file(std::string(k_deployed_gres_conf), nodes[i]->connection.become);
    read_on = nodes[i]->name;
    return {std::move(*conf), gres.value_or(std::string())};
  }
  return {};
}

}  // namespace

void Session::gather_slurm_hardware() {
  if (!m_inventory.cluster.slurm.enabled) return;
  const auto declared = slurm_compute_nodes(m_inventory);
  if (declared.empty()) return;
  // The session's own node where it has one: it carries the run's connection settings.
  std::vector<const Node*> nodes;
  for (const Node* node : declared) {
    const auto own = std::ranges::find_if(m_nodes, [&](const Node* n) { return n->name == node->name; });
    nodes.push_back(own != m_nodes.end() ? *own : node);
  }
  const auto reach = [this](const Node& node, std::unique_ptr<Transport>& held, std::optional<Error>* why = nullptr) {
    const bool own = std::ranges::find(m_nodes, &node) != m_nodes.end();
    return transport_to(m_pool, m_options.peer_transports, own, node, held, why);
  };
  std::vector<Result<facts::NodeHardware>> observed(nodes.size(), fail(ErrorCode::interrupted, "not read: the run was stopped"));
  const exec::ExecutorOptions options{m_options.forks, m_options.cancel, {}};
  exec::run_on_nodes(nodes, [&](std::size_t i, const Node& node) -> exec::TaskResult {
    std::unique_ptr<Transport> held;
    std::optional<Error> why;
    Transport* transport = reach(node, held, &why);
    observed[i] = transport ? facts::read_node_hardware(*transport) : Result<facts::NodeHardware>(std::unexpected(*why));
    if (!held) end_node_task(node);
    return {};
  }, options);
  // A node that cannot be read (down for repair) keeps the values the deployed slurm.conf gives
  // it, read once on a node that answered: one node down changes slurm.conf nowhere.
  std::optional<std::pair<std::string, std::string>> deployed;
  std::string read_on;
  std::vector<std::string> unknown;
  for (std::size_t i = 0; i < nodes.size(); ++i) {
    auto derived = derive_slurm_hardware(m_inventory, *nodes[i], observed[i]);
    if (derived) {
      m_slurm_hardware[nodes[i]->name] = std::move(*derived);
      continue;
    }
    if (!observed[i]) {
      if (!deployed)
        deployed = deployed_files(nodes, observed, [&](const Node& n, std::unique_ptr<Transport>& held) { return reach(n, held); },
                                  read_on);
      if (!deployed->first.empty())
        if (auto kept = deployed_slurm_hardware(*nodes[i], deployed->first, deployed->second, read_on,
                                                observed[i].error().message)) {
          m_slurm_hardware[nodes[i]->name] = std::move(*kept);
          continue;
        }
    }
    unknown.push_back(derived.error().message + "; " + derived.error().hint);
  }
  std::vector<PreparedClusterContext::Unavailable> unavailable;
  if (!unknown.empty())
    unavailable.push_back({"slurm.node_groups", unknown.size() == 1 ? unknown.front()
                                                                    : fmt::format("{} (and {} more nodes)", unknown.front(),
                                                                                  unknown.size() - 1)});
  m_options.sources.cluster_context =
      std::make_shared<const PreparedClusterContext>(m_inventory, &m_slurm_hardware, std::move(unavailable));
}

}  // namespace gpuctl
