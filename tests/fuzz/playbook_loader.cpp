// Fuzz target: the playbook loader (playbook/loader.hpp) on YAML text, then what planning
// does with a loaded playbook's strings: `when:` conditions and `{{variable}}` substitution
// against a typical node's variables. Property: no crash, leak or hang; errors are values.
#include "fuzz_input.hpp"

#include <gpuctl/playbook/loader.hpp>
#include <gpuctl/playbook/variables.hpp>

namespace {

const gpuctl::Variables& sample_variables() {
  static const gpuctl::Variables variables{
      {"cluster.name", "lab"},         {"node.name", "gpu01"},       {"node.address", "10.0.0.11"},
      {"gpu.model", "H200"},           {"gpu.count", "8"},           {"nvidia.driver_branch", "580"},
      {"nvidia.driver_version", "580.159.04"}, {"nvidia.cuda", "13.0"}, {"nvidia.cuda_dashed", "13-0"},
      {"slurm.enabled", "true"},       {"slurm.controller", "head01"}, {"is_gpu_node", "true"},
      {"is_slurm_controller", "false"}, {"is_prometheus", "false"},  {"labels.rack", "r1"}};
  return variables;
}

void use(std::string_view text) { (void)gpuctl::substitute(text, sample_variables()); }

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const auto playbook = gpuctl::load_playbook_text(gpuctl::fuzz::as_text(data, size), "fuzz.yaml");
  if (!playbook) {
    (void)playbook.error().to_string();
    return 0;
  }
  const auto& variables = sample_variables();
  for (const auto& step : playbook->steps) {
    (void)gpuctl::evaluate_condition(step.when, variables);
    use(step.reboot_unless);
    for (const auto& resource : step.resources) {
      (void)gpuctl::evaluate_condition(resource.when, variables);
      (void)gpuctl::resource_id(resource);
      use(resource.file.path);
      use(resource.package.name);
      use(resource.package.version);
      use(resource.command.run);
      use(resource.command.creates);
      use(resource.command.unless);
    }
  }
  for (const auto& handler : playbook->handlers) use(handler.run);
  return 0;
}
