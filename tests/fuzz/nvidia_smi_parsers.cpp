// Fuzz target: the pure parsers of what a node prints (facts/parsers.hpp, facts/slurm.hpp):
// nvidia-smi --query-gpu CSV, -q text, topo -m, nvlink -s, and the system files and tools.
// A node controls these bytes, so every parser gets every input (the real captures are the
// seeds, and a fragment of one format is often a near-miss of another).
// Properties: no crash, leak or hang; a parsed topology has one entry per column in each row;
// an uptime read is a finite, non-negative number.
#include "fuzz_input.hpp"

#include <gpuctl/facts/parsers.hpp>
#include <gpuctl/facts/slurm.hpp>

#include <cmath>

using gpuctl::fuzz::property_failed;
namespace facts = gpuctl::facts;

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const auto text = gpuctl::fuzz::as_text(data, size);

  auto gpus = facts::parse_gpu_query(text);
  const auto repairs = facts::parse_memory_repair_q(text);
  if (gpus && repairs) facts::merge_memory_repair(*gpus, *repairs);
  (void)facts::classify_nvidia_smi_failure(0, text, "");
  (void)facts::classify_nvidia_smi_failure(9, "", text);

  if (const auto matrix = facts::parse_topology_matrix(text)) {
    for (const auto& row : matrix->rows) {
      if (row.links.size() != matrix->devices.size()) property_failed("a topology row has the wrong number of entries");
      for (const auto& to : matrix->devices) (void)matrix->link(row.device, to);
    }
    (void)matrix->gpus();
  }
  (void)facts::parse_nvlink_status(text);

  (void)facts::parse_nvidia_driver_version(text);
  (void)facts::parse_nvcc_version(text);
  (void)facts::parse_os_release(text);
  (void)facts::parse_proc_modules(text);
  (void)facts::parse_kernel_release(text);
  (void)facts::parse_boot_id(text);
  if (const auto uptime = facts::parse_uptime(text); uptime && !(*uptime >= 0 && std::isfinite(*uptime)))
    property_failed("an uptime that is not a finite, non-negative number was read");
  if (const auto packages = facts::parse_dpkg_query(text)) (void)facts::nccl_version_from_packages(*packages);
  (void)facts::nccl_version_from_library_paths(text);

  if (const auto node = facts::parse_scontrol_node(text)) {
    (void)facts::slurm_gpu_gres(node->gres);
    (void)facts::slurm_node_problem(*node);
  }
  (void)facts::slurm_gpu_gres(text);
  return 0;
}
