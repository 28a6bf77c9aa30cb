#pragma once
// Facts as JSON and as human text. Pure; no I/O.
//
// JSON schema (format_version 1), one node:
//   {"format_version": 1, "node": "gpu01",
//    "os": {"id", "version_id", "pretty_name"}, "kernel": "6.8.0-45-generic",
//    "boot_id": "...", "uptime_s": 350735.47, "loaded_modules": ["nvidia", ...],
//    "driver_version": "580.159.04", "driver_open_kernel_module": true,
//    "cuda_version": "13.0.88", "nccl_version": "2.28.9",
//    "gpus": [{"index", "name", "uuid", "serial", "pci_bus_id", "driver_version",
//              "vbios_version", "memory_total_mib", "memory_used_mib", "persistence_mode",
//              "ecc_enabled", "ecc_volatile_corrected", "ecc_volatile_uncorrected",
//              "ecc_aggregate_corrected", "ecc_aggregate_uncorrected", "retired_pages_pending",
//              "remapped_rows_pending", "remapped_rows_failure", "pcie_gen_current",
//              "pcie_gen_max", "pcie_width_current", "pcie_width_max", "temperature_c",
//              "power_draw_w", "power_limit_w",
//              "unreported": {"retired_pages.pending": "[N/A]", ...}}],
//    "topology": {"devices": ["GPU0", ..., "NIC0", ...],
//                 "rows": [{"device", "links": ["X", "NV18", ...], "cpu_affinity",
//                           "numa_affinity", "gpu_numa_id"}], "nic_names": {"NIC0": "mlx5_0"}},
//    "nvlink": [{"index", "name", "uuid", "links": [{"link", "active", "speed_gbs"}], "note"}],
//    "packages": {"libnccl2": "2.21.5-1+cuda12.4", ...}}
// A fact that could not be gathered is {"absent": "<reason>"} in place of its value; a GPU
// field nvidia-smi printed no value for ([N/A], [Not Supported], [Unknown Error], ...) is null
// (an empty string for text fields), and the GPU's "unreported" object maps the field's
// nvidia-smi name to what it printed instead.

#include <gpuctl/exec/executor.hpp>
#include <gpuctl/facts/facts.hpp>

#include <optional>
#include <ostream>
#include <span>
#include <string>

namespace gpuctl::facts {

inline constexpr int k_facts_format_version = 1;

// One node's facts as a JSON object (pretty-printed, 2-space indent).
std::string facts_to_json(const NodeFacts& facts);

// The result of gathering one node's facts: the facts, or why they could not be gathered.
struct NodeFactsOutcome {
  std::string node;
  std::optional<NodeFacts> facts;
  exec::NodeStatus status = exec::NodeStatus::ok;  // ok | failed | unreachable | skipped
  std::string error;          // set when facts is empty (unreachable, host key, timeout, ...)
};

// Several nodes: {"format_version": 1,
//                 "nodes": [<facts_to_json object> | {"node", "status", "error"}]}.
std::string facts_report_to_json(std::span<const NodeFactsOutcome> outcomes);
// The same document written to `out` one node at a time: a report over hundreds of nodes never
// holds every node's JSON tree (8 GPUs x 18 NVLinks each) and its text at once.
void write_facts_report_json(std::ostream& out, std::span<const NodeFactsOutcome> outcomes);

// A compact human summary of one node and a GPU table, for `gpuctl facts`.
std::string render_facts_text(const NodeFacts& facts);

}  // namespace gpuctl::facts
