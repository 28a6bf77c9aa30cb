// The renderer's second line of defence behind the inventory grammar: a value holding a line
// break or another control character (an inventory built in code, not loaded) fails the render
// instead of adding a line to a config file, whichever tag form the template uses.
#include "template_test_inventory.hpp"

#include <gpuctl/template/renderer.hpp>

#include <gtest/gtest.h>

using namespace gpuctl;
using gpuctl::testing::example_inventory;

namespace {

TEST(TemplateValueGuard, RefusesALineBreakInAClusterValue) {
  Inventory inventory = example_inventory();
  inventory.cluster.nccl["NCCL_DEBUG"] = "WARN\nNCCL_NET_PLUGIN=/tmp/evil.so";
  for (const std::string text : {"{{#nccl}}{{key}}={{value}}\n{{/nccl}}", "{{#nccl}}{{{value}}}{{/nccl}}", "{{cluster.name}}"}) {
    const auto out = render_template_text(text, "nccl.conf.mustache", inventory, inventory.nodes.front());
    ASSERT_FALSE(out.has_value()) << text << " rendered:\n" << *out;
    EXPECT_EQ(out.error().code, ErrorCode::template_error);
    EXPECT_NE(out.error().message.find("'nccl[0].value' holds a line break"), std::string::npos) << out.error().message;
  }
}

TEST(TemplateValueGuard, RefusesAControlCharacterInANodeValue) {
  Inventory inventory = example_inventory();
  inventory.nodes.front().labels["role"] = "train\x1b[2J";
  const auto out = render_template_text("{{node.name}}\n", "x.mustache", inventory, inventory.nodes.front());
  ASSERT_FALSE(out.has_value());
  EXPECT_NE(out.error().message.find("'node.labels.role'"), std::string::npos) << out.error().message;
  // Other nodes do not carry the label: their renders go on.
  EXPECT_TRUE(render_template_text("{{node.name}}\n", "x.mustache", inventory, inventory.nodes.back()).has_value());
}

TEST(TemplateValueGuard, RendersOrdinaryValues) {
  const Inventory inventory = example_inventory();
  const auto out = render_template_text("{{#nccl}}{{key}}={{value}}\n{{/nccl}}", "nccl.conf.mustache", inventory,
                                        inventory.nodes.front());
  ASSERT_TRUE(out.has_value()) << out.error().to_string();
  EXPECT_NE(out->find("NCCL_SOCKET_IFNAME==bond0\n"), std::string::npos) << *out;
}

}  // namespace
