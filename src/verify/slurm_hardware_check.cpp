// verify's slurm_node_hardware: slurmctld's idea of the node's CPUs and memory holds on the
// node. Slurm drains a node whose slurmd registers less than slurm.conf declares ("Low
// RealMemory", "Low CPUs", "Low socket*core*thread count"); this finds it first, with both values.
#include "check_result.hpp"
#include "check_sources.hpp"

#include <gpuctl/facts/collect.hpp>
#include <gpuctl/facts/slurm.hpp>
#include <gpuctl/facts/slurmd_hardware.hpp>
#include <gpuctl/inventory/slurm_hardware_keys.hpp>
#include <gpuctl/util/strings.hpp>
#include <gpuctl/verify/catalog.hpp>

#include <set>
#include <vector>

namespace gpuctl::verify_detail {
namespace {

struct Field {
  std::string_view name;  // slurm.conf's word
  std::int64_t facts::SlurmHardware::*value;
};

constexpr Field k_fields[] = {
    {"CPUs", &facts::SlurmHardware::cpus},
    {"Boards", &facts::SlurmHardware::boards},
    {"SocketsPerBoard", &facts::SlurmHardware::sockets_per_board},
    {"CoresPerSocket", &facts::SlurmHardware::cores_per_socket},
    {"ThreadsPerCore", &facts::SlurmHardware::threads_per_core},
    {"RealMemory", &facts::SlurmHardware::real_memory_mib},
};

// The drain reasons slurmctld gives when a node registers less than it is declared with.
constexpr std::string_view k_low_reasons[] = {"Low RealMemory", "Low CPUs", "Low socket*core*thread count",
                                              "gres count reported lower than configured"};

CheckResult slurm_node_hardware(const CheckInput& in) {
  const auto actual = in.state.facts.declared.get(facts::k_slurmd_hardware);
  if (!actual.present()) return cannot_run(absent_reason(actual, "slurmd -C"));
  if (!in.state.slurm_node) return cannot_run("Slurm's view of the node was not gathered");
  const auto& slurm = *in.state.slurm_node;
  if (!slurm.scontrol_found) return cannot_run("scontrol not found on the node (package slurm-client)");
  if (slurm.exit_code != 0)
    return cannot_run(fmt::format("scontrol show node {} exited {}: {}", in.node.name, slurm.exit_code,
                                  util::trim(util::tail_lines(slurm.output, 2))));
  const auto info = facts::parse_scontrol_node(slurm.output);
  if (!info) return cannot_run(info.error().message);
  if (info->name != in.node.name) return cannot_run(fmt::format("scontrol answered for node {}, not {}", info->name, in.node.name));
  const auto configured = facts::parse_scontrol_hardware(slurm.output);
  if (!configured) return cannot_run(configured.error().message);
  // gpuctl writes the CPU layout as slurmd -C finds it: less than that, unless a label pins it,
  // is a slurm.conf older than the node's hardware. RealMemory is less on purpose (the reserve).
  std::set<std::string_view> pinned;
  for (const auto& [label, value] : in.node.labels)
    if (const auto key = pinned_hardware_key(label)) pinned.insert(*key);
  std::vector<std::string> over, under, stale;
  for (const auto& field : k_fields) {
    const auto want = (*configured).*field.value, have = (*actual.value).*field.value;
    if (want > have) over.push_back(fmt::format("{}={} (the node has {})", field.name, want, have));
    else if (want < have && field.name != "RealMemory" && !pinned.contains(field.name))
      stale.push_back(fmt::format("{}={} (the node has {})", field.name, want, have));
    else if (want < have) under.push_back(fmt::format("{}={} of {}", field.name, want, have));
  }
  const auto observed = fmt::format("slurmctld: CPUs={} RealMemory={}; slurmd -C: CPUs={} RealMemory={}", configured->cpus,
                                    configured->real_memory_mib, actual.value->cpus, actual.value->real_memory_mib);
  const std::string expected =
      "slurmctld's CPUs, sockets, cores and threads as slurmd -C finds them (or as pinned), RealMemory no more";
  if (!over.empty())
    return failed(observed, expected,
                  fmt::format("slurm.conf declares more than the node has: {}; Slurm drains it when slurmd registers: "
                              "declare what slurmd -C prints, RealMemory derated below it",
                              util::join(over, ", ")));
  if (!stale.empty())
    return failed(observed, expected,
                  fmt::format("slurmctld has less than the node has and no label pins it: {}; jobs cannot use the "
                              "rest: run gpuctl apply to write the node's hardware into slurm.conf",
                              util::join(stale, ", ")));
  if (info->has_state("DRAIN"))
    for (const auto reason : k_low_reasons)
      if (info->reason.find(reason) != std::string::npos)
        return failed(observed, expected, fmt::format("Slurm drained the node: {}", info->reason));
  auto result = pass(observed, expected);
  // Less than the node has never drains it, but jobs cannot ask for what slurmctld does not know.
  if (!under.empty()) result.detail = fmt::format("slurmctld schedules only {}", util::join(under, ", "));
  return result;
}

// Both sides of the comparison, as the node printed them.
void cite_both(CheckResult& result, const CheckInput& in) {
  result.command = fmt::format("scontrol show node {}; slurmd -C", in.node.name);
  CheckResult slurmd;
  cite_probe(slurmd, in.state.facts, facts::k_slurmd_hardware.name);
  result.output = facts::trim_output(
      (in.state.slurm_node ? in.state.slurm_node->output : std::string("(Slurm's view of the node was not gathered)\n")) +
          "\n" + slurmd.output,
      k_source_output_limit);
}

const CheckRegistration k_registration{{
    .name = "slurm_node_hardware",
    .description = "slurmctld's CPUs for the node are what slurmd -C finds and its RealMemory no more (else Slurm drains it)",
    .section = CheckSection::slurm,
    .facts = {facts::k_slurmd_hardware.name},
    .runner = NodeRunner::slurm_node_view,
    .judge = slurm_node_hardware,
    .cite = cite_both,
    .source = "scontrol show node NODE; slurmd -C",
}};

}  // namespace
}  // namespace gpuctl::verify_detail
