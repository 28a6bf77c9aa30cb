// The check catalog (verify/catalog.hpp): the registrations of every check file, and what is
// derived from them.
#include <gpuctl/verify/catalog.hpp>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <map>

namespace gpuctl {
namespace {

// Function-local so a registration in any file, run before main in any order, finds it built.
std::map<std::string, CheckSpec, std::less<>>& registered() {
  static std::map<std::string, CheckSpec, std::less<>> specs;
  return specs;
}

}  // namespace

CheckRegistration::CheckRegistration(CheckSpec spec) {
  const std::string name(spec.name);
  if (!registered().emplace(name, std::move(spec)).second) {
    std::fprintf(stderr, "gpuctl: check '%s' is declared twice (src/verify)\n", name.c_str());
    std::abort();
  }
}

std::string_view to_string(NodeRunner runner) {
  switch (runner) {
    case NodeRunner::none: return "none";
    case NodeRunner::slurm_node_view: return "scontrol show node";
    case NodeRunner::nccl_allreduce: return "NCCL all-reduce";
    case NodeRunner::dcgm_diag: return "DCGM diagnostic";
    case NodeRunner::nccl_nodes: return "NCCL all-reduce across nodes (srun)";
    case NodeRunner::slurm_job: return "a Slurm job on the node (srun)";
    case NodeRunner::exporter_scrape: return "a GET of each exporter's /metrics on the node";
    case NodeRunner::container_gpu: return "a container through CDI running nvidia-smi -L";
  }
  return "none";
}

std::string_view to_string(CheckSection section) {
  switch (section) {
    case CheckSection::kernel: return "kernel and driver";
    case CheckSection::gpu: return "GPUs";
    case CheckSection::health: return "GPU health";
    case CheckSection::fabric: return "NVLink and NVSwitch";
    case CheckSection::software: return "CUDA and NCCL";
    case CheckSection::containers: return "containers";
    case CheckSection::network: return "network";
    case CheckSection::slurm: return "Slurm";
    case CheckSection::monitoring: return "monitoring";
  }
  return "other";
}

std::vector<const CheckSpec*> check_catalog() {
  std::vector<const CheckSpec*> specs;
  for (const auto& [name, spec] : registered()) specs.push_back(&spec);
  std::ranges::stable_sort(specs, {}, [](const CheckSpec* spec) { return spec->section; });
  return specs;
}

const CheckSpec* find_check(std::string_view name) {
  const auto it = registered().find(name);
  return it == registered().end() ? nullptr : &it->second;
}

std::vector<std::string> playbook_check_names() {
  std::vector<std::string> names;
  for (const auto& [name, spec] : registered())
    if (spec.judge) names.push_back(name);
  return names;
}

CheckNeeds check_needs(const std::vector<std::string>& names) {
  CheckNeeds needs;
  for (const auto& name : names) {
    const auto* spec = find_check(name);
    if (!spec) continue;
    for (const auto fact : spec->facts) needs.probes.emplace(fact);
    if (spec->runner != NodeRunner::none) needs.runners.insert(spec->runner);
  }
  return needs;
}

}  // namespace gpuctl
