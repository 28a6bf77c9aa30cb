// `gpuctl inventory`'s folded view: nodes whose settings read the same but for their own name
// and address are one block; anything else that differs splits them; --expand and JSON per node.
#include <gpuctl/api/inventory_use_case.hpp>
#include <gpuctl/inventory/json.hpp>

#include <gtest/gtest.h>

#include <string>
#include <vector>

using namespace gpuctl;

namespace {

std::vector<const Node*> all_nodes(const Inventory& inventory) {
  std::vector<const Node*> nodes;
  for (const auto& node : inventory.nodes) nodes.push_back(&node);
  return nodes;
}

TEST(InventoryFold, NodesDifferingOnlyByNameAndAddressFoldUnderTheirHostlist) {
  const auto loaded = load_inventory_text(R"(
cluster: {name: c}
groups:
  gpu:
    hosts: "gpu[001-512]"
    vars: {gpu: {model: H100, count: 8}, rack: r1, labels: {role: compute}}
  odd:
    hosts: "gpu[100-101]"
    vars: {rack: r2}
hosts:
  head01: {address: 10.0.0.1}
)", "inv.yaml");
  ASSERT_TRUE(loaded.ok());
  const auto nodes = all_nodes(*loaded.inventory);
  const auto text = describe_nodes_folded(nodes);
  EXPECT_EQ(text,
            "gpu[001-099,102-512] (510 nodes):\n"
            "  groups: gpu\n"
            "  connection: ssh root@<node>:22 (become: false, host_key_checking: strict, connect_timeout: 10s, "
            "command_timeout: 600s)\n"
            "  gpu: 8x H100\n"
            "  rack: r1\n"
            "  label role: compute\n"
            "gpu[100-101] (2 nodes):\n"
            "  groups: gpu,odd\n"
            "  connection: ssh root@<node>:22 (become: false, host_key_checking: strict, connect_timeout: 10s, "
            "command_timeout: 600s)\n"
            "  gpu: 8x H100\n"
            "  rack: r2\n"
            "  label role: compute\n"
            "head01:\n"
            "  groups: -\n"
            "  connection: ssh root@10.0.0.1:22 (become: false, host_key_checking: strict, connect_timeout: 10s, "
            "command_timeout: 600s)\n"
            "  gpu: none\n")
      << text;
  // The per-node view is unchanged: one block per node.
  EXPECT_EQ(describe_nodes(nodes).find("gpu512:\n") != std::string::npos, true);
}

TEST(InventoryFold, DifferentAddressesShowAsPlaceholderWithAnAddressesLine) {
  const auto loaded = load_inventory_text(R"(
cluster: {name: c}
defaults: {user: admin}
hosts:
  n1: {address: 10.1.0.1}
  n2: {address: 10.1.0.2}
  n3: {address: 10.1.0.3, port: 2222}
)", "inv.yaml");
  ASSERT_TRUE(loaded.ok());
  const auto text = describe_nodes_folded(all_nodes(*loaded.inventory));
  EXPECT_NE(text.find("n[1-2] (2 nodes):\n  groups: -\n  connection: ssh admin@<address>:22 "), std::string::npos) << text;
  EXPECT_NE(text.find("  addresses: 10.1.0.[1-2]\n"), std::string::npos) << text;
  // n3 differs by its port: a block of its own, with its real address.
  EXPECT_NE(text.find("n3:\n  groups: -\n  connection: ssh admin@10.1.0.3:2222 "), std::string::npos) << text;
  EXPECT_EQ(text.find("addresses: 10.1.0.3"), std::string::npos) << text;
}

}  // namespace
