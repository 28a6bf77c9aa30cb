// `reimage`: a reinstalled node gets its new host key pinned only when asked, then everything.
#include "workflow_steps.hpp"

#include <gpuctl/transport/ssh_transport.hpp>

#include <fmt/format.h>

namespace gpuctl {

NodeWorkflowReport reimage(const WorkflowContext& context, const ReimageOptions& options) {
  const Node& node = *context.session.nodes().at(0);
  NodeWorkflowReport report;
  report.node = node.name;
  report.expected_gpus = node.gpu.count;
  if (node.connection.kind == ConnectionKind::ssh) {
    auto key = scan_host_key(node.name, node.connection);
    if (!key) {
      workflow::stop(context, report, exec::NodeStatus::unreachable, key.error().to_string());
      return report;
    }
    report.host_key_state = std::string(to_string(key->state));
    report.host_key_fingerprint = key->fingerprint;
    if (key->state != HostKeyState::known) {
      if (!options.accept_new_host_key) {
        workflow::stop(context, report, exec::NodeStatus::unreachable,
                       fmt::format("host key {} ({} {}); refused: check it out of band, then run again with "
                                   "--accept-new-host-key to pin it for this node only",
                                   to_string(key->state), key->key_type, key->fingerprint));
        return report;
      }
      // Only this node's entries are replaced: every other host's line of known_hosts stays.
      auto accepted = accept_host_key(node.name, node.connection, ChangedKeyPolicy::replace);
      if (!accepted) {
        workflow::stop(context, report, exec::NodeStatus::unreachable, accepted.error().to_string());
        return report;
      }
      report.host_key_replaced = true;
    }
  }
  // A node Slurm still knows (re-imaged with its Slurm packages, or scontrol answering from
  // an earlier install) is drained first; a wiped one is not in Slurm until apply installs it.
  auto transport = context.factory(node);
  if (!transport) {
    workflow::stop(context, report, exec::NodeStatus::unreachable, transport.error().to_string());
    return report;
  }
  workflow::run_drained(context, report, transport->get(), "reimage", [&] {
    transport->reset();  // the session opens its own connection
    workflow::converge_verify_record(context, report);
  });
  return report;
}

}  // namespace gpuctl
