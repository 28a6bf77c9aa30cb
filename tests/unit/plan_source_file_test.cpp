// A file copied from the control host (`source:`, the repository key) appears in plans by its
// sha256 digest and size only: no diff of its content in the planner's changes, the text plan
// or the JSON plan. Templates keep their diffs.
#include <gpuctl/plan/plan.hpp>
#include <gpuctl/plan/render.hpp>
#include <gpuctl/util/sha256.hpp>
#include <gpuctl/util/strings.hpp>

#include "program_builder.hpp"
#include "shipped_playbooks.hpp"
#include "temp_dir.hpp"
#include "template_test_inventory.hpp"

#include <gpuctl_build_paths.hpp>
#include <gtest/gtest.h>

namespace gpuctl {
namespace {

using testing::ProgramFixture;
using testing::StepSpec;

const std::string k_key_path = std::string(GPUCTL_SOURCE_DIR) + "/tests/data/openpgp/repository-key.asc";

bool contains(const std::string& text, std::string_view part) { return text.find(part) != std::string::npos; }

// The key's base64 lines: none may appear anywhere in a plan.
std::vector<std::string> key_body_lines(const std::string& key) {
  std::vector<std::string> lines;
  for (const auto& line : util::split_lines(key))
    if (line.size() > 16 && !line.starts_with("-----")) lines.push_back(std::string(line));
  return lines;
}

void expect_no_content(const std::string& rendered, const std::string& key) {
  const auto lines = key_body_lines(key);
  ASSERT_FALSE(lines.empty());
  for (const auto& line : lines) EXPECT_FALSE(contains(rendered, line)) << "key content in:\n" << rendered;
}

ResolvedResource source_file(const std::string& content) {
  ResolvedResource r;
  r.resource.kind = ResourceKind::file;
  r.resource.file.path = "/etc/apt/keyrings/gpuctl-cuda.asc";
  r.resource.file.source = "/srv/keys/cuda.asc";
  r.content = content;
  r.content_digest = util::sha256_hex(content);
  return r;
}

Plan plan_of(NodePlan node) {
  Plan plan;
  plan.nodes.push_back(std::move(node));
  return plan;
}

TEST(PlanSourceFile, ANewFileIsShownByDigestAndSize) {
  const auto key = testing::read_binary(k_key_path);
  ProgramFixture fixture({StepSpec{"cuda-repository", {source_file(key)}}});
  const auto node = make_node_plan(fixture.program, {});
  ASSERT_EQ(node.changes.size(), 1u);
  const auto& change = node.changes[0];
  EXPECT_EQ(change.action, Action::create);
  EXPECT_EQ(change.diff, "");
  EXPECT_EQ(change.reason, "file does not exist; content from /srv/keys/cuda.asc: sha256 " + util::sha256_hex(key) +
                               ", " + std::to_string(key.size()) + " bytes");
  const auto plan = plan_of(node);
  expect_no_content(render_plan_text(plan, {ColorMode::never, true}), key);
  expect_no_content(plan_to_json(plan), key);
  EXPECT_TRUE(contains(plan_to_json(plan), util::sha256_hex(key)));
}

TEST(PlanSourceFile, AChangedFileIsShownByDigestNotByDiff) {
  const auto key = testing::read_binary(k_key_path);
  NodeState state;
  ObservedFile observed;
  observed.exists = true;
  observed.content = "an older key\n";
  observed.digest = util::sha256_hex(observed.content);
  observed.mode = 0644;
  observed.owner = observed.group = "root";
  state.files["/etc/apt/keyrings/gpuctl-cuda.asc"] = observed;
  ProgramFixture fixture({StepSpec{"cuda-repository", {source_file(key)}}});
  const auto node = make_node_plan(fixture.program, state);
  ASSERT_EQ(node.changes.size(), 1u);
  EXPECT_EQ(node.changes[0].action, Action::update);
  EXPECT_EQ(node.changes[0].diff, "");
  EXPECT_TRUE(contains(node.changes[0].reason, "content differs from /srv/keys/cuda.asc: sha256 " + util::sha256_hex(key)))
      << node.changes[0].reason;
  const auto text = render_plan_text(plan_of(node), {ColorMode::never, true});
  expect_no_content(text, key);
  EXPECT_FALSE(contains(text, "an older key")) << text;
}

TEST(PlanSourceFile, TemplatesKeepTheirDiff) {
  ProgramFixture fixture({StepSpec{"nccl", {testing::resolved_file("/etc/nccl.conf", "NCCL_DEBUG=WARN\n")}}});
  const auto node = make_node_plan(fixture.program, {});
  ASSERT_EQ(node.changes.size(), 1u);
  EXPECT_TRUE(contains(node.changes[0].diff, "+NCCL_DEBUG=WARN")) << node.changes[0].diff;
}

// The shipped gpu-node playbook with key_file set: from the inventory to the rendered plan.
Result<NodeProgram> gpu_node_program(const std::string& key_file) {
  Inventory inventory = testing::example_inventory();
  inventory.cluster.nvidia.repository.key_url.clear();
  inventory.cluster.nvidia.repository.key_file = key_file;
  const ProgramSources sources{testing::k_shipped_templates_dir, {}, SecretMode::masked, nullptr};
  return resolve_program(inventory, inventory.nodes[1], testing::shipped_playbooks(), sources);
}

TEST(PlanSourceFile, TheShippedPlaybookShowsTheKeyFileByDigest) {
  const auto key = testing::read_binary(k_key_path);
  auto program = gpu_node_program(k_key_path);
  ASSERT_TRUE(program) << program.error().to_string();
  const auto plan = plan_of(make_node_plan(*program, {}));
  const auto text = render_plan_text(plan, {ColorMode::never, true});
  EXPECT_TRUE(contains(text, "create /etc/apt/keyrings/gpuctl-cuda.asc")) << text;
  EXPECT_TRUE(contains(text, "sha256 " + util::sha256_hex(key))) << text;
  expect_no_content(text, key);
  expect_no_content(plan_to_json(plan), key);
}

TEST(PlanSourceFile, TheShippedPlaybookRefusesProcSelfEnvironAsKeyFile) {
  auto program = gpu_node_program("/proc/self/environ");
  ASSERT_FALSE(program);
  EXPECT_TRUE(contains(program.error().message, "/proc/self/environ is not an OpenPGP public key"))
      << program.error().to_string();
  EXPECT_EQ(program.error().where.step, "cuda-repository");
}

}  // namespace
}  // namespace gpuctl
