#include <gpuctl/facts/gpu_changes.hpp>
#include <gpuctl/facts/json.hpp>

#include <gtest/gtest.h>

namespace gpuctl::facts {
namespace {

GpuIdentity card(int slot, std::string serial, std::string uuid, std::string bus = "00000000:00:06.0") {
  return {slot, std::move(serial), std::move(uuid), std::move(bus)};
}

struct CompareCase {
  const char* name;
  std::vector<GpuIdentity> recorded;
  std::vector<GpuIdentity> current;
  std::vector<GpuChange> expected;
};

class CompareGpus : public ::testing::TestWithParam<CompareCase> {};

TEST_P(CompareGpus, FindsExactlyTheChangedSlots) {
  const auto& c = GetParam();
  EXPECT_EQ(compare_gpus(c.recorded, c.current), c.expected) << c.name;
}

INSTANTIATE_TEST_SUITE_P(
    Table, CompareGpus,
    ::testing::Values(
        CompareCase{"same cards", {card(0, "S0", "U0"), card(1, "S1", "U1")},
                    {card(0, "S0", "U0"), card(1, "S1", "U1")}, {}},
        CompareCase{"slot 1 replaced",
                    {card(0, "S0", "U0"), card(1, "S1", "U1", "00000000:00:07.0")},
                    {card(0, "S0", "U0"), card(1, "S9", "U9", "00000000:00:07.0")},
                    {{1, "00000000:00:07.0", GpuChangeKind::replaced, "S1", "S9", "U1", "U9"}}},
        CompareCase{"same serial, new uuid counts as replaced", {card(0, "S0", "U0")}, {card(0, "S0", "U5")},
                    {{0, "00000000:00:06.0", GpuChangeKind::replaced, "S0", "S0", "U0", "U5"}}},
        CompareCase{"no serial reported: uuid decides", {card(0, "", "U0")}, {card(0, "", "U0")}, {}},
        CompareCase{"card fell off the bus", {card(0, "S0", "U0"), card(1, "S1", "U1", "B1")}, {card(0, "S0", "U0")},
                    {{1, "B1", GpuChangeKind::removed, "S1", "", "U1", ""}}},
        CompareCase{"new slot", {card(0, "S0", "U0")}, {card(0, "S0", "U0"), card(1, "S1", "U1", "B1")},
                    {{1, "B1", GpuChangeKind::added, "", "S1", "", "U1"}}},
        CompareCase{"changes come in slot order regardless of input order",
                    {card(2, "S2", "U2", "B2"), card(0, "S0", "U0", "B0")},
                    {card(0, "N0", "V0", "B0"), card(2, "N2", "V2", "B2")},
                    {{0, "B0", GpuChangeKind::replaced, "S0", "N0", "U0", "V0"},
                     {2, "B2", GpuChangeKind::replaced, "S2", "N2", "U2", "V2"}}}),
    [](const auto& info) {
      std::string name = info.param.name;
      for (auto& ch : name)
        if (!std::isalnum(static_cast<unsigned char>(ch))) ch = '_';
      return name;
    });

TEST(GpuIdentitiesFromJson, ReadsWhatFactsToJsonWrote) {
  NodeFacts facts;
  facts.node = "gpu01";
  GpuInfo gpu;
  gpu.index = 3;
  gpu.serial = "1654123456789";
  gpu.uuid = "GPU-abc";
  gpu.pci_bus_id = "00000000:18:00.0";
  facts.gpus = Fact<std::vector<GpuInfo>>::of({gpu});
  const auto gpus = gpu_identities_from_json(facts_to_json(facts), "run 1");
  ASSERT_TRUE(gpus) << gpus.error().to_string();
  ASSERT_EQ(gpus->size(), 1u);
  EXPECT_EQ((*gpus)[0].slot, 3);
  EXPECT_EQ((*gpus)[0].serial, "1654123456789");
  EXPECT_EQ((*gpus)[0].uuid, "GPU-abc");
  EXPECT_EQ((*gpus)[0].pci_bus_id, "00000000:18:00.0");
  EXPECT_EQ(gpu_identities(facts).size(), 1u);
}

TEST(GpuIdentitiesFromJson, RejectsAnAbsentGpuListWithItsReason) {
  NodeFacts facts;
  facts.node = "gpu01";
  facts.gpus = Fact<std::vector<GpuInfo>>::absent("nvidia-smi: command not found");
  const auto gpus = gpu_identities_from_json(facts_to_json(facts), "run 1");
  ASSERT_FALSE(gpus);
  EXPECT_NE(gpus.error().message.find("nvidia-smi: command not found"), std::string::npos);
}

TEST(GpuIdentitiesFromJson, RejectsTextThatIsNotJson) {
  EXPECT_FALSE(gpu_identities_from_json("{not json", "run 1"));
}

}  // namespace
}  // namespace gpuctl::facts
