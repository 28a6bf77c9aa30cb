// NVLink: every GPU pair linked as the inventory declares, every link up.
#include "check_result.hpp"

#include <gpuctl/util/strings.hpp>
#include <gpuctl/verify/catalog.hpp>

#include <map>

namespace gpuctl::verify_detail {
namespace {

// Every GPU pair linked as gpu.nvlink.connection says (topo -m), every NVLink up (nvlink -s),
// with the declared number of links per GPU and speed. Names each failing pair and link.
CheckResult check_nvlink_topology(const CheckInput& in) {
  if (!in.node.gpu.nvlink) return skipped("gpu.nvlink is not declared in the inventory");
  const auto& spec = *in.node.gpu.nvlink;
  std::vector<std::string> wanted;
  if (!spec.connection.empty()) wanted.push_back(fmt::format("{} between every GPU pair", spec.connection));
  if (spec.links_per_gpu) wanted.push_back(fmt::format("{} links up per GPU", *spec.links_per_gpu));
  else wanted.push_back("every link up");
  if (spec.min_link_speed_gbs) wanted.push_back(fmt::format("each at least {} GB/s", *spec.min_link_speed_gbs));
  const auto expected = util::join(wanted, ", ");

  std::vector<std::string> problems, observed;
  if (!spec.connection.empty()) {
    const auto& topology = in.state.facts.topology;
    if (!topology.present()) return cannot_run(absent_reason(topology, "GPU topology"));
    const auto gpus = topology.value->gpus();
    std::map<std::string, int> seen;
    for (std::size_t a = 0; a < gpus.size(); ++a)
      for (std::size_t b = a + 1; b < gpus.size(); ++b) {
        const auto link = topology.value->link(gpus[a], gpus[b]);
        ++seen[link];
        if (link != spec.connection) problems.push_back(fmt::format("{}-{} {}", gpus[a], gpus[b], link));
      }
    std::string pairs;
    for (const auto& [kind, count] : seen) pairs += fmt::format("{}{} x{}", pairs.empty() ? "" : " ", kind, count);
    observed.push_back(fmt::format("{} GPUs in topo -m{}", gpus.size(), pairs.empty() ? ", no GPU pair" : ": " + pairs));
    if (static_cast<int>(gpus.size()) != in.node.gpu.count)
      problems.push_back(fmt::format("topo -m lists {} GPUs, the inventory {}", gpus.size(), in.node.gpu.count));
  }
  const auto& nvlink = in.state.facts.nvlink;
  if (!nvlink.present()) return cannot_run(absent_reason(nvlink, "NVLink state"));
  int links_up = 0;
  for (const auto& gpu : *nvlink.value) {
    int up = 0;
    for (const auto& link : gpu.links) {
      if (!link.active) {
        problems.push_back(fmt::format("GPU {} link {} inactive", gpu.index, link.link));
        continue;
      }
      ++up;
      if (spec.min_link_speed_gbs && link.speed_gbs.value_or(0) < *spec.min_link_speed_gbs)
        problems.push_back(fmt::format("GPU {} link {} at {} GB/s", gpu.index, link.link, link.speed_gbs.value_or(0)));
    }
    links_up += up;
    if (spec.links_per_gpu && up != *spec.links_per_gpu)
      problems.push_back(fmt::format("GPU {} has {} links up", gpu.index, up));
  }
  // GPUs nvlink -s does not list at all have no NVLink: a failure when links are expected.
  const bool links_expected = spec.links_per_gpu || spec.connection.starts_with("NV");
  const int gpu_count = in.state.facts.gpus.present() ? static_cast<int>(in.state.facts.gpus.value->size()) : in.node.gpu.count;
  if (links_expected && static_cast<int>(nvlink.value->size()) < gpu_count)
    problems.push_back(nvlink.value->empty() ? "nvidia-smi nvlink -s lists no NVLink on any GPU"
                                             : fmt::format("nvlink -s lists {} of {} GPUs", nvlink.value->size(), gpu_count));
  observed.push_back(fmt::format("{} NVLinks up on {} GPUs", links_up, nvlink.value->size()));
  const auto observed_text = util::join(observed, "; ");
  if (!problems.empty())
    return failed(observed_text, expected, util::join(problems, "; ") + ": check the NVLink cabling/NVSwitch trays and the fabric manager");
  return pass(observed_text, expected);
}

const CheckRegistration k_nvlink{{
    .name = "nvlink_topology",
    .description = "every GPU pair linked as gpu.nvlink declares, every NVLink up",
    .section = CheckSection::fabric,
    .facts = {"topology", "nvlink"},
    .judge = check_nvlink_topology,
}};

}  // namespace
}  // namespace gpuctl::verify_detail
