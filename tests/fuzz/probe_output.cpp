// Fuzz target: a node's whole facts batch output (facts/collect.hpp): split into probes by
// the markers, every probe parsed into facts, then shown as `gpuctl facts` does (JSON and
// text) and read back for GPU identities (replace-gpu). The node controls these bytes.
// Properties: no crash, leak or hang; the GPUs in the facts JSON always read back.
#include "fuzz_input.hpp"

#include <gpuctl/facts/collect.hpp>
#include <gpuctl/facts/gpu_changes.hpp>
#include <gpuctl/facts/json.hpp>

using gpuctl::fuzz::property_failed;
namespace facts = gpuctl::facts;

// The nonce of the seeds (tests/fuzz/corpus/probe_output/): markers are "@@gpuctl-fuzz ...".
constexpr std::string_view k_nonce = "fuzz";

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const auto probes = facts::split_probe_output(gpuctl::fuzz::as_text(data, size), k_nonce);
  if (!probes) return 0;
  const auto node = facts::facts_from_probes("gpu01", *probes);
  const auto json = facts::facts_to_json(node);
  (void)facts::render_facts_text(node);
  // replace-gpu compares the GPUs recorded in this JSON with the node's: they must read back.
  if (node.gpus.present()) {
    const auto identities = facts::gpu_identities_from_json(json, "fuzz");
    if (!identities) property_failed("facts_to_json() wrote GPUs that gpu_identities_from_json() refuses");
    if (identities->size() != node.gpus.value->size())
      property_failed("the GPUs read back from the facts JSON are not the GPUs of the facts");
  }
  const facts::NodeFactsOutcome outcome{"gpu01", node, {}, {}};
  (void)facts::facts_report_to_json({&outcome, 1});
  return 0;
}
