#include <gpuctl/inventory/loader.hpp>
#include <gpuctl_build_paths.hpp>

#include <fmt/format.h>
#include <gtest/gtest.h>

#include <string>

using namespace gpuctl;

namespace {

std::string all_diagnostics(const LoadResult& result) {
  std::string out;
  for (const auto& d : result.diagnostics) out += d.to_string() + "\n";
  return out;
}

LoadResult load_text(const std::string& text) { return load_inventory_text(text, "inv.yaml"); }

TEST(InventoryLoader, LoadsTheDocumentedExample) {
  const auto result = load_inventory(std::string(GPUCTL_SOURCE_DIR) + "/docs/examples/cluster.yaml");
  ASSERT_TRUE(result.ok()) << all_diagnostics(result);
  EXPECT_TRUE(result.diagnostics.empty()) << all_diagnostics(result);
  const auto& inv = *result.inventory;
  EXPECT_EQ(inv.cluster.name, "hopper");
  EXPECT_EQ(inv.cluster.nvidia.driver_branch, "550");
  EXPECT_EQ(inv.cluster.nvidia.driver_version, "550.127.08");
  EXPECT_EQ(inv.cluster.nvidia.cuda_version, "12.4");
  EXPECT_EQ(inv.cluster.nvidia.repository.pin_priority, 600);
  EXPECT_EQ(inv.cluster.nccl.at("NCCL_SOCKET_IFNAME"), "=bond0");
  EXPECT_EQ(inv.cluster.nccl.at("NCCL_NVLS_ENABLE"), "0");
  ASSERT_EQ(inv.cluster.slurm.partitions.size(), 2u);
  EXPECT_TRUE(inv.cluster.slurm.partitions[0].is_default);
  EXPECT_EQ(inv.cluster.slurm.partitions[0].node_names.size(), 8u);
  EXPECT_EQ(inv.cluster.slurm.partitions[1].options.at("MaxTime"), "01:00:00");
  EXPECT_EQ(inv.cluster.monitoring.prometheus, "head01");
  ASSERT_EQ(inv.nodes.size(), 9u);
  EXPECT_EQ(inv.nodes[0].name, "head01");
  EXPECT_EQ(inv.nodes[1].name, "gpu01");
  const auto* gpu05 = inv.find_node("gpu05");
  ASSERT_NE(gpu05, nullptr);
  EXPECT_EQ(gpu05->connection.address, "10.10.1.5");
  EXPECT_EQ(gpu05->connection.user, "root");
  EXPECT_EQ(gpu05->gpu.model, "H100");
  EXPECT_EQ(gpu05->gpu.count, 8);
  EXPECT_EQ(gpu05->ib_hcas.size(), 8u);
  EXPECT_EQ(gpu05->rack, "r2");
  EXPECT_EQ(gpu05->pdu_capacity_watts, 57600);
  EXPECT_EQ(gpu05->groups, std::vector<std::string>{"gpu"});
  EXPECT_EQ(inv.digest.size(), 64u);
}

TEST(InventoryLoader, PrecedenceIsDefaultsThenGroupsInFileOrderThenHost) {
  const auto result = load_text(R"(
cluster: {name: c}
defaults: {user: alice, port: 2200, connect_timeout: 5, labels: {tier: base, site: x}}
groups:
  first:
    hosts: n[1-3]
    vars: {user: bob, gpu: {model: A100, count: 4}, labels: {tier: first}}
  second:
    hosts: n[2-3]
    vars: {user: carol, gpu: {count: 2}}
hosts:
  n3: {user: dave, port: 22}
)");
  ASSERT_TRUE(result.ok()) << all_diagnostics(result);
  const auto& inv = *result.inventory;
  const auto* n1 = inv.find_node("n1");
  const auto* n2 = inv.find_node("n2");
  const auto* n3 = inv.find_node("n3");
  ASSERT_TRUE(n1 && n2 && n3);
  EXPECT_EQ(n1->connection.user, "bob");     // group over defaults
  EXPECT_EQ(n1->connection.port, 2200);      // defaults where nobody overrides
  EXPECT_EQ(n2->connection.user, "carol");   // later group over earlier group
  EXPECT_EQ(n2->gpu.model, "A100");          // gpu merges key by key
  EXPECT_EQ(n2->gpu.count, 2);
  EXPECT_EQ(n3->connection.user, "dave");    // host over everything
  EXPECT_EQ(n3->connection.port, 22);
  EXPECT_EQ(n3->connection.connect_timeout_s, 5);
  EXPECT_EQ(n1->labels.at("tier"), "first"); // labels merge key by key
  EXPECT_EQ(n1->labels.at("site"), "x");
  EXPECT_EQ(n3->groups, (std::vector<std::string>{"first", "second"}));
  EXPECT_EQ(n1->connection.address, "n1");   // address defaults to the name
}

TEST(InventoryLoader, CollectsAllErrorsNotOnlyTheFirst) {
  const auto result = load_text("cluster: {name: c, nvidia: {cuda: 12.10}}\nhosts:\n  a: {prot: 22, user: 'x;y'}\n");
  EXPECT_FALSE(result.ok());
  EXPECT_EQ(result.diagnostics.size(), 3u) << all_diagnostics(result);
}

TEST(InventoryLoader, DigestChangesWithTheBytes) {
  const auto a = load_text("cluster: {name: c}\nhosts: {a: }\n");
  const auto b = load_text("cluster: {name: c}\nhosts: {a: }\n# comment\n");
  ASSERT_TRUE(a.ok() && b.ok()) << all_diagnostics(a) << all_diagnostics(b);
  EXPECT_NE(a.inventory->digest, b.inventory->digest);
}

TEST(InventoryLoader, MissingFileIsAnErrorNotACrash) {
  const auto result = load_inventory("/nonexistent/inventory.yaml");
  ASSERT_FALSE(result.ok());
  EXPECT_NE(result.diagnostics.at(0).message.find("No such file"), std::string::npos) << result.diagnostics.at(0).message;
}

TEST(InventoryLoader, OversizedTextIsRefusedBeforeParsing) {
  const std::string big(k_max_inventory_bytes + 1, '#');
  const auto result = load_text(big);
  ASSERT_FALSE(result.ok());
  EXPECT_NE(result.diagnostics.at(0).message.find("byte limit"), std::string::npos);
}

// An unknown model on many hosts is one warning naming them by hostlist, not one per host.
TEST(InventoryLoader, AnUnknownGpuModelIsOneWarningForAllItsHosts) {
  std::string text = "cluster:\n  name: c\ngroups:\n  gpu: {hosts: \"g[001-300]\", vars: {gpu: {model: MI250X, count: 8}}}\n"
                     "  other: {hosts: x1, vars: {gpu: {model: MI300X, count: 8}}}\n";
  const auto result = load_text(text);
  ASSERT_TRUE(result.ok()) << all_diagnostics(result);
  ASSERT_EQ(result.diagnostics.size(), 2u) << all_diagnostics(result);
  EXPECT_NE(result.diagnostics[0].message.find("hosts 'g[001-300]': unknown GPU model 'MI250X'"), std::string::npos)
      << all_diagnostics(result);
  EXPECT_NE(result.diagnostics[1].message.find("host 'x1': unknown GPU model 'MI300X'"), std::string::npos)
      << all_diagnostics(result);
}

// HGX H20 is a Hopper board gpuctl knows (issue #34): no unknown-model warning.
TEST(InventoryLoader, H20IsAKnownModel) {
  const auto result = load_text("cluster:\n  name: c\nhosts:\n  g1: {gpu: {model: H20, count: 8}}\n");
  ASSERT_TRUE(result.ok()) << all_diagnostics(result);
  EXPECT_EQ(all_diagnostics(result).find("unknown GPU model"), std::string::npos) << all_diagnostics(result);
}

// A lint warning points at the value it is about: the `model:` that won precedence for the
// nodes (defaults, a group's vars or a host), not the group's `hosts:` line.
TEST(InventoryLoader, AnUnknownModelWarningPointsAtTheModelValue) {
  const auto result = load_text(
      "cluster: {name: c}\n"                                      // 1
      "defaults:\n"                                               // 2
      "  gpu: {model: Z9, count: 8}\n"                            // 3: Z9 at column 16
      "groups:\n"                                                 // 4
      "  gpu:\n"                                                  // 5
      "    hosts: \"g[1-4]\"\n"                                   // 6
      "    vars:\n"                                               // 7
      "      gpu:\n"                                              // 8
      "        model: H21\n"                                      // 9: H21 at column 16
      "  plain: {hosts: \"p[1-2]\"}\n"                            // 10: p1, p2 keep the default Z9
      "hosts:\n"                                                  // 11
      "  g4: {gpu: {model: H21}}\n"                               // 12: H21 at column 21
      "  x1: {gpu: {count: 2, model: Q7}}\n");                    // 13: Q7 at column 31
  ASSERT_TRUE(result.ok()) << all_diagnostics(result);
  ASSERT_EQ(result.diagnostics.size(), 3u) << all_diagnostics(result);
  const auto& z9 = result.diagnostics[0];
  EXPECT_EQ(std::pair(z9.line, z9.column), std::pair(3, 16)) << all_diagnostics(result);
  EXPECT_NE(z9.message.find("hosts 'p[1-2]': unknown GPU model 'Z9'"), std::string::npos) << z9.message;
  const auto& h21 = result.diagnostics[1];
  EXPECT_EQ(std::pair(h21.line, h21.column), std::pair(9, 16)) << all_diagnostics(result);
  EXPECT_NE(h21.message.find("hosts 'g[1-4]': unknown GPU model 'H21'"), std::string::npos) << h21.message;
  EXPECT_NE(h21.message.find("(also declared at line 12)"), std::string::npos) << h21.message;
  const auto& q7 = result.diagnostics[2];
  EXPECT_EQ(std::pair(q7.line, q7.column), std::pair(13, 31)) << all_diagnostics(result);
  EXPECT_NE(q7.message.find("host 'x1': unknown GPU model 'Q7'"), std::string::npos) << q7.message;
}

// The PDU warnings point at the pdu_capacity_watts value: the one that differs, and the
// smallest (the one used) for the headroom.
TEST(InventoryLoader, PduWarningsPointAtTheCapacityValue) {
  const auto result = load_text(
      "cluster: {name: c}\n"                                                              // 1
      "groups:\n"                                                                         // 2
      "  a:\n"                                                                            // 3
      "    hosts: \"a[1-2]\"\n"                                                           // 4
      "    vars: {gpu: {model: H100, count: 8, power_watts: 700}, rack: r1,\n"            // 5
      "           pdu_capacity_watts: 20000}\n"                                           // 6: 20000 at column 32
      "  b:\n"                                                                            // 7
      "    hosts: \"b[1-3]\"\n"                                                           // 8
      "    vars: {gpu: {model: H100, count: 8, power_watts: 700}, rack: r1,\n"            // 9
      "           pdu_capacity_watts: 30000}\n");                                         // 10: 30000 at column 32
  ASSERT_TRUE(result.ok()) << all_diagnostics(result);
  ASSERT_EQ(result.diagnostics.size(), 2u) << all_diagnostics(result);
  // 5 nodes x 8 x 700 W = 28000 W, over 80% of the smallest capacity, 20000 W.
  const auto& headroom = result.diagnostics[0];
  EXPECT_EQ(std::pair(headroom.line, headroom.column), std::pair(6, 32)) << all_diagnostics(result);
  EXPECT_NE(headroom.message.find("rack 'r1' draws 28000 W of GPU power, over 80% of its PDU capacity 20000 W"),
            std::string::npos)
      << headroom.message;
  const auto& differs = result.diagnostics[1];
  EXPECT_EQ(std::pair(differs.line, differs.column), std::pair(10, 32)) << all_diagnostics(result);
  EXPECT_NE(differs.message.find("rack 'r1': hosts 'b[1-3]' give pdu_capacity_watts 30000, hosts 'a[1-2]' 20000"),
            std::string::npos)
      << differs.message;
}

TEST(InventoryLoader, WarningsDoNotMakeItInvalid) {
  const auto result = load_text(R"(
cluster:
  name: c
  slurm:
    controller: a1
    partitions: [{name: mixed, nodes: "a1,h1"}]
groups:
  amp: {hosts: a1, vars: {gpu: {model: A100, count: 8}}}
  hop: {hosts: h1, vars: {gpu: {model: H100, count: 8}}}
)");
  ASSERT_TRUE(result.ok()) << all_diagnostics(result);
  ASSERT_EQ(result.diagnostics.size(), 1u) << all_diagnostics(result);
  EXPECT_EQ(result.diagnostics[0].severity, Severity::warning);
  EXPECT_NE(result.diagnostics[0].message.find("mixes GPU architectures: Ampere (a1), Hopper (h1)"), std::string::npos)
      << all_diagnostics(result);
}

}  // namespace

namespace {

TEST(InventoryLoader, NvlinkAndNcclExpectationsMergeKeyByKey) {
  const auto result = load_inventory(std::string(GPUCTL_TEST_DATA_DIR) + "/inventories/good/nvlink-nccl.yaml");
  ASSERT_TRUE(result.inventory) << result.diagnostics.size();
  const auto* gpu01 = result.inventory->find_node("gpu01");
  const auto* gpu02 = result.inventory->find_node("gpu02");
  ASSERT_TRUE(gpu01 && gpu02);
  ASSERT_TRUE(gpu01->gpu.nvlink);
  EXPECT_EQ(gpu01->gpu.nvlink->connection, "NV18");
  EXPECT_EQ(gpu01->gpu.nvlink->links_per_gpu, 18);
  EXPECT_EQ(gpu01->gpu.nvlink->min_link_speed_gbs, 26.5);
  ASSERT_TRUE(gpu01->gpu.nccl_allreduce);
  EXPECT_TRUE(gpu01->gpu.nccl_allreduce->enabled);
  EXPECT_EQ(gpu01->gpu.nccl_allreduce->min_busbw_gbs, 380.0);
  EXPECT_EQ(gpu01->gpu.nccl_allreduce->message_bytes, std::int64_t{1} << 30);
  EXPECT_EQ(gpu01->gpu.nccl_allreduce->iterations, 10);
  // gpu02 turns the all-reduce off and keeps the group's other keys.
  ASSERT_TRUE(gpu02->gpu.nccl_allreduce);
  EXPECT_FALSE(gpu02->gpu.nccl_allreduce->enabled);
  EXPECT_EQ(gpu02->gpu.nccl_allreduce->min_busbw_gbs, 380.0);
  ASSERT_TRUE(gpu02->gpu.nvlink);
}

TEST(InventoryLoader, NoNvlinkOrNcclKeysMeansNeitherIsDeclared) {
  const auto result = load_text("cluster: {name: c}\nhosts:\n  a1: {gpu: {model: H100, count: 8}}\n");
  ASSERT_TRUE(result.inventory);
  EXPECT_FALSE(result.inventory->nodes[0].gpu.nvlink);
  EXPECT_FALSE(result.inventory->nodes[0].gpu.nccl_allreduce);
  const auto sized = load_text("cluster: {name: c}\nhosts:\n  a1: {gpu: {model: H100, count: 8, nccl_allreduce: {message_size: 512K}}}\n");
  ASSERT_TRUE(sized.inventory);
  EXPECT_EQ(sized.inventory->nodes[0].gpu.nccl_allreduce->message_bytes, 512 * 1024);
  EXPECT_FALSE(sized.inventory->nodes[0].gpu.nccl_allreduce->min_busbw_gbs);
}

}  // namespace

// Each hostlist is bounded (100000 names); so are all groups together (issue #37): a small
// inventory of many large groups must not take gigabytes to expand.
TEST(InventoryBounds, AllGroupsTogetherNameAtMostOneHundredThousandHosts) {
  std::string text = "cluster: {name: c}\ngroups:\n";
  for (const char* prefix : {"a", "b", "c"}) text += fmt::format("  {}:\n    hosts: \"{}[00000-49999]\"\n", prefix, prefix);
  const auto result = gpuctl::load_inventory_text(text, "inv.yaml");
  ASSERT_FALSE(result.ok());
  bool named = false;
  for (const auto& d : result.diagnostics)
    named = named || (d.line == 8 && d.message.find("past 100000 hosts in all") != std::string::npos);
  EXPECT_TRUE(named) << result.diagnostics.front().to_string();
  text.resize(text.find("  c:"));
  EXPECT_TRUE(gpuctl::load_inventory_text(text, "inv.yaml").ok()) << "100000 in all is fine";
}
