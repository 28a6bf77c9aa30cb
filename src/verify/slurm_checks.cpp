// The node as slurmctld sees it.
#include "check_result.hpp"

#include <gpuctl/facts/collect.hpp>
#include <gpuctl/facts/slurm.hpp>
#include <gpuctl/util/strings.hpp>
#include <gpuctl/verify/catalog.hpp>

namespace gpuctl::verify_detail {
namespace {

// Registered, able to take jobs, with the inventory's GPUs as its GRES. A node Slurm does not
// know fails; no scontrol or no answer is an error.
CheckResult slurmd_registered(const CheckInput& in) {
  const std::string wanted_gres =
      in.node.gpu.count > 0 ? fmt::format("gpu:{}:{}", util::to_lower(in.node.gpu.model), in.node.gpu.count) : "";
  const std::string expected = fmt::format("registered, takes jobs, Gres={}", wanted_gres.empty() ? "(none)" : wanted_gres);
  if (!in.state.slurm_node) return cannot_run("Slurm's view of the node was not gathered");
  const auto& slurm = *in.state.slurm_node;
  if (!slurm.scontrol_found) return cannot_run("scontrol not found on the node (package slurm-client)");
  if (slurm.exit_code != 0) {
    if (slurm.output.find(fmt::format("Node {} not found", in.node.name)) != std::string::npos)
      return failed("not in Slurm", expected,
                    fmt::format("slurmctld does not know {}: apply the controller so its slurm.conf lists the node", in.node.name));
    return cannot_run(fmt::format("scontrol show node {} exited {}: {}", in.node.name, slurm.exit_code,
                                  util::trim(util::tail_lines(slurm.output, 2))));
  }
  const auto info = facts::parse_scontrol_node(slurm.output);
  if (!info) return cannot_run(info.error().message);
  if (info->name != in.node.name) return cannot_run(fmt::format("scontrol answered for node {}, not {}", info->name, in.node.name));
  const auto gres = facts::slurm_gpu_gres(info->gres);
  const auto observed = fmt::format("State={} Gres={}", util::join(info->states, "+"), gres.empty() ? "(none)" : gres);
  if (const auto problem = facts::slurm_node_problem(*info)) return failed(observed, expected, *problem);
  if (gres != wanted_gres)
    return failed(observed, expected, "slurm.conf or gres.conf on the node or the controller differs from the inventory");
  return pass(observed, expected);
}

void cite_scontrol(CheckResult& result, const CheckInput& in) {
  result.command = fmt::format("scontrol show node {}", in.node.name);
  result.output = in.state.slurm_node ? facts::trim_output(in.state.slurm_node->output, k_source_output_limit)
                                      : "(Slurm's view of the node was not gathered)";
}

const CheckRegistration k_registered{{
    .name = "slurmd_registered",
    .description = "the node is up in Slurm (not down or drained) with the inventory's GPUs as GRES",
    .section = CheckSection::slurm,
    .runner = NodeRunner::slurm_node_view,
    .judge = slurmd_registered,
    .cite = cite_scontrol,
    .source = "scontrol show node NODE",
}};

}  // namespace
}  // namespace gpuctl::verify_detail
