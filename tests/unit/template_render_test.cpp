// The Mustache renderer's contract: missing names are errors with template, line and node;
// values are never HTML-escaped; syntax errors carry a line.
#include "template_test_inventory.hpp"

#include <gpuctl/template/renderer.hpp>

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

#include <unistd.h>

using namespace gpuctl;
using gpuctl::testing::example_inventory;

namespace {

Result<std::string> render(const std::string& text, const std::string& node = "gpu01") {
  static const Inventory inventory = example_inventory();
  const Node* target = nullptr;
  for (const auto& candidate : inventory.nodes)
    if (candidate.name == node) target = &candidate;
  return render_template_text(text, "test.conf.mustache", inventory, *target);
}

}  // namespace

TEST(TemplateRender, SubstitutesNodeAndClusterValues) {
  const auto out = render("{{cluster.name}} {{node.name}} {{node.address}} {{node.gpu.type}}x{{node.gpu.count}}\n");
  ASSERT_TRUE(out.has_value()) << out.error().to_string();
  EXPECT_EQ(*out, "hopper gpu01 10.10.1.1 h100x8\n");
}

TEST(TemplateRender, MissingVariableNamesTemplateLineAndNode) {
  const auto out = render("line one\nline two\nvalue={{node.colour}}\n");
  ASSERT_FALSE(out.has_value());
  const Error& error = out.error();
  EXPECT_EQ(error.code, ErrorCode::template_error);
  EXPECT_EQ(error.where.file, "test.conf.mustache");
  EXPECT_EQ(error.where.line, 3);
  EXPECT_EQ(error.where.node, "gpu01");
  EXPECT_NE(error.message.find("node.colour"), std::string::npos) << error.message;
  EXPECT_EQ(error.to_string().rfind("test.conf.mustache:3: gpu01: missing variable 'node.colour'", 0), 0u)
      << error.to_string();
}

TEST(TemplateRender, MissingVariableSuggestsTheClosestName) {
  const auto out = render("{{node.adress}}");
  ASSERT_FALSE(out.has_value());
  EXPECT_EQ(out.error().hint, "did you mean 'node.address'?");
}

TEST(TemplateRender, MissingVariableInsideListSectionIsAnError) {
  const auto out = render("{{#nccl}}\n{{key}}={{valu}}\n{{/nccl}}\n");
  ASSERT_FALSE(out.has_value());
  EXPECT_EQ(out.error().where.line, 2);
  EXPECT_NE(out.error().message.find("'valu'"), std::string::npos);
  EXPECT_EQ(out.error().hint, "did you mean 'value'?");
}

TEST(TemplateRender, SectionOverMissingListIsAnError) {
  const auto out = render("a\n{{#slurm.nodegroups}}x{{/slurm.nodegroups}}\n");
  ASSERT_FALSE(out.has_value());
  EXPECT_EQ(out.error().where.line, 2);
  EXPECT_NE(out.error().message.find("missing section 'slurm.nodegroups'"), std::string::npos)
      << out.error().message;
}

TEST(TemplateRender, InvertedSectionOverMissingNameIsAnError) {
  const auto out = render("{{^node.is_gpu}}no gpu{{/node.is_gpu}}");
  ASSERT_FALSE(out.has_value());
  EXPECT_EQ(out.error().where.line, 1);
}

TEST(TemplateRender, ValueAbsentFromInventoryIsMissingNotEmpty) {
  // The example sets no key_file: a template using it must fail rather than print nothing.
  const auto out = render("key={{nvidia.repository.key_file}}\n");
  ASSERT_FALSE(out.has_value());
  EXPECT_EQ(out.error().where.line, 1);
}

TEST(TemplateRender, BranchNotTakenIsNotChecked) {
  // head01 has no GPUs: the GPU-only names inside the section are never needed.
  const auto out = render("{{#node.is_gpu_node}}{{node.gpu.type}}{{/node.is_gpu_node}}ok\n", "head01");
  ASSERT_TRUE(out.has_value()) << out.error().to_string();
  EXPECT_EQ(*out, "ok\n");
}

TEST(TemplateRender, NeverHtmlEscapes) {
  Inventory inventory = example_inventory();
  inventory.cluster.nccl = {{"NCCL_TEST", "a&b <c> 'd' \"e\""}};
  const auto escaped_tags = render_template_text("{{#nccl}}{{key}}={{value}}|{{{value}}}|{{&value}}{{/nccl}}\n",
                                                 "nccl.conf.mustache", inventory, inventory.nodes[1]);
  ASSERT_TRUE(escaped_tags.has_value()) << escaped_tags.error().to_string();
  EXPECT_EQ(*escaped_tags, "NCCL_TEST=a&b <c> 'd' \"e\"|a&b <c> 'd' \"e\"|a&b <c> 'd' \"e\"\n");
}

TEST(TemplateRender, ListUsedAsPlainVariableIsAnError) {
  const auto out = render("{{nccl}}");
  ASSERT_FALSE(out.has_value());
  EXPECT_NE(out.error().message.find("is a list"), std::string::npos) << out.error().message;
}

TEST(TemplateRender, UnclosedSectionReportsItsOpeningLine) {
  const auto out = render("a\nb\n{{#nccl}}\n{{key}}\n");
  ASSERT_FALSE(out.has_value());
  EXPECT_EQ(out.error().where.line, 3);
  EXPECT_NE(out.error().message.find("never closed"), std::string::npos);
}

TEST(TemplateRender, MismatchedSectionEndIsAnError) {
  const auto out = render("{{#nccl}}\n{{/slurm}}\n");
  ASSERT_FALSE(out.has_value());
  EXPECT_EQ(out.error().where.line, 2);
}

TEST(TemplateRender, UnclosedTagIsAnError) {
  const auto out = render("ok\n{{node.name\n");
  ASSERT_FALSE(out.has_value());
  EXPECT_EQ(out.error().where.line, 2);
}

TEST(TemplateRender, PartialsAreRejected) {
  const auto out = render("{{> other}}");
  ASSERT_FALSE(out.has_value());
  EXPECT_NE(out.error().message.find("partials"), std::string::npos);
}

TEST(TemplateRender, CommentsAreIgnored) {
  const auto out = render("{{! anything {{ here }}x\n");
  ASSERT_TRUE(out.has_value()) << out.error().to_string();
  EXPECT_EQ(*out, "x\n");
}

TEST(TemplateRender, StandaloneSectionLinesLeaveNoBlankLines) {
  const auto out = render("[\n{{#node.ib_hcas}}\n{{name}}\n{{/node.ib_hcas}}\n]\n");
  ASSERT_TRUE(out.has_value()) << out.error().to_string();
  EXPECT_EQ(*out, "[\nmlx5_0\nmlx5_1\nmlx5_2\nmlx5_3\nmlx5_4\nmlx5_5\nmlx5_6\nmlx5_7\n]\n");
}

TEST(TemplateRender, MissingTemplateFileIsNotFound) {
  const Inventory inventory = example_inventory();
  const auto out = render_template_file("/nonexistent-gpuctl-templates", "nccl.conf.mustache", inventory,
                                        inventory.nodes[1]);
  ASSERT_FALSE(out.has_value());
  EXPECT_EQ(out.error().code, ErrorCode::not_found);
}

TEST(TemplateRender, ReadsTemplateFromDirectory) {
  const auto dir = std::filesystem::temp_directory_path() / ("gpuctl-tmpl-" + std::to_string(::getpid()));
  std::filesystem::create_directories(dir);
  std::ofstream(dir / "x.mustache") << "{{node.name}}@{{node.rack}}\n";
  const Inventory inventory = example_inventory();
  const auto out = render_template_file(dir.string(), "x.mustache", inventory, inventory.nodes[5]);
  std::filesystem::remove_all(dir);
  ASSERT_TRUE(out.has_value()) << out.error().to_string();
  EXPECT_EQ(*out, "gpu05@r2\n");
}

// A run prepares the inventory-wide context once and hands it to every render; the node's
// part is looked up after it. The result must be the one a render that builds everything
// itself gives, names of both parts resolve inside sections, and typos of either are caught.
TEST(TemplateRender, PreparedClusterContextRendersLikeAFreshOne) {
  const Inventory inventory = example_inventory();
  const PreparedClusterContext prepared(inventory);
  const std::string text =
      "{{cluster.name}} {{node.name}}\n"
      "{{#slurm.node_groups}}{{nodes}} {{node.name}} {{cluster.name}}\n{{/slurm.node_groups}}"
      "{{#node.groups}}{{name}}@{{slurm.controller}} {{/node.groups}}\n";
  for (const auto& node : inventory.nodes) {
    const auto fresh = render_template_text(text, "t.mustache", inventory, node);
    const auto shared = render_template_text(text, "t.mustache", inventory, node, &prepared);
    ASSERT_TRUE(fresh.has_value()) << fresh.error().to_string();
    ASSERT_TRUE(shared.has_value()) << shared.error().to_string();
    EXPECT_EQ(*shared, *fresh) << node.name;
    EXPECT_NE(shared->find(node.name + " hopper\n"), std::string::npos) << *shared;  // in a node group
  }
  const auto cluster_typo = render_template_text("{{slurm.controler}}", "t.mustache", inventory,
                                                 inventory.nodes[0], &prepared);
  ASSERT_FALSE(cluster_typo.has_value());
  EXPECT_EQ(cluster_typo.error().hint, "did you mean 'slurm.controller'?");
  const auto top_level_typo = render_template_text("{{#nod}}x{{/nod}}", "t.mustache", inventory,
                                                   inventory.nodes[0], &prepared);
  ASSERT_FALSE(top_level_typo.has_value());
  EXPECT_EQ(top_level_typo.error().hint, "did you mean 'node'?");
}
