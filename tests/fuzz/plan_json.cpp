// Fuzz target: reading a saved plan (plan_from_json in src/plan/plan_json.cpp), as
// `gpuctl apply PLAN.json` does, then showing it; and writing a plan whose strings hold any
// bytes (a diff shows a node's file, whatever its encoding). Properties: a plan that reads
// writes back to JSON that reads as the same plan, and renders as text without failing; any
// plan writes as JSON that reads back.
#include "fuzz_input.hpp"

#include <gpuctl/plan/render.hpp>

#include <algorithm>
#include <tuple>

namespace {

using gpuctl::fuzz::property_failed;

auto fields(const gpuctl::Change& c) {
  return std::tie(c.action, c.step, c.resource, c.summary, c.reason, c.diff, c.step_index, c.resource_index,
                  c.content_digest);
}

bool same_inputs(const std::vector<gpuctl::BoundInput>& a, const std::vector<gpuctl::BoundInput>& b) {
  return std::ranges::equal(a, b, [](const auto& x, const auto& y) {
    return std::tie(x.name, x.digest) == std::tie(y.name, y.digest);
  });
}

bool same(const gpuctl::Plan& a, const gpuctl::Plan& b) {
  const auto same_playbook = [](const gpuctl::BoundPlaybook& x, const gpuctl::BoundPlaybook& y) {
    return std::tie(x.name, x.path, x.digest) == std::tie(y.name, y.path, y.digest);
  };
  if (std::tie(a.created_at, a.gpuctl_version, a.inventory_path, a.inventory_digest, a.limit, a.connection,
               a.templates_dir) != std::tie(b.created_at, b.gpuctl_version, b.inventory_path, b.inventory_digest,
                                            b.limit, b.connection, b.templates_dir) ||
      !std::ranges::equal(a.playbooks, b.playbooks, same_playbook) || !same_inputs(a.templates, b.templates) ||
      !same_inputs(a.source_files, b.source_files) || !same_inputs(a.secrets, b.secrets) ||
      a.nodes.size() != b.nodes.size())
    return false;
  for (std::size_t i = 0; i < a.nodes.size(); ++i) {
    const auto &x = a.nodes[i], &y = b.nodes[i];
    if (std::tie(x.node, x.status, x.error, x.state_fingerprint) != std::tie(y.node, y.status, y.error, y.state_fingerprint) ||
        x.changes.size() != y.changes.size())
      return false;
    for (std::size_t j = 0; j < x.changes.size(); ++j)
      if (fields(x.changes[j]) != fields(y.changes[j])) return false;
  }
  return true;
}

// The input as the strings of a plan that `gpuctl plan -o` writes.
void write_any_bytes(std::string_view text) {
  gpuctl::Plan plan;
  gpuctl::NodePlan node;
  node.node = "gpu01";
  gpuctl::Change change;
  change.step = "files";
  change.resource = "file:/etc/motd";
  change.summary = "update /etc/motd";
  change.diff = std::string(text);
  node.changes.push_back(change);
  plan.nodes.push_back(node);
  node.node = std::string(text);
  node.status = gpuctl::NodePlanStatus::failed;
  node.error = std::string(text);
  plan.nodes.push_back(node);
  if (!gpuctl::plan_from_json(gpuctl::plan_to_json(plan), "written.json"))
    property_failed("a plan with arbitrary bytes in its strings did not read back");
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  write_any_bytes(gpuctl::fuzz::as_text(data, size));
  const auto plan = gpuctl::plan_from_json(gpuctl::fuzz::as_text(data, size), "fuzz.json");
  if (!plan) {
    (void)plan.error().to_string();
    return 0;
  }
  const auto again = gpuctl::plan_from_json(gpuctl::plan_to_json(*plan), "again.json");
  if (!again) property_failed("a plan that was read does not read back after writing");
  if (!same(*plan, *again)) property_failed("a plan changed when written and read back");
  for (const auto& node : again->nodes)
    if (node.changes_digest != gpuctl::changes_digest(node.changes))
      property_failed("a written plan does not record the digest of its changes");
  (void)gpuctl::render_plan_text(*plan);
  (void)gpuctl::render_plan_text(*plan, {gpuctl::ColorMode::always, false});
  (void)gpuctl::render_plan_summary(*plan);
  return 0;
}
