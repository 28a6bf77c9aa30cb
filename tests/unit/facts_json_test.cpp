#include <gpuctl/facts/json.hpp>
#include <gpuctl/facts/parsers.hpp>

#include "probe_capture.hpp"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

using namespace gpuctl;
using namespace gpuctl::facts;

namespace {
NodeFacts eight_gpu_node() {
  NodeFacts facts;
  facts.node = "gpu01";
  facts.os = Fact<OsRelease>::of({"ubuntu", "24.04", "Ubuntu 24.04.3 LTS"});
  facts.kernel = Fact<std::string>::of("6.8.0-45-generic");
  facts.boot_id = Fact<std::string>::absent("/proc/sys/kernel/random/boot_id: No such file or directory");
  facts.uptime_s = Fact<double>::of(93784.5);
  facts.loaded_modules = Fact<std::vector<std::string>>::of({"overlay", "nvidia_uvm", "nvidia"});
  facts.driver_version = Fact<std::string>::of("580.159.04");
  facts.driver_open_kernel_module = Fact<bool>::of(true);
  facts.driver_origin = Fact<DriverOrigin>::of({DriverOrigin::Kind::package, "nvidia-utils-580", "/usr/bin/nvidia-smi", {}, ""});
  facts.cuda_version = Fact<std::string>::absent("nvcc --version: nvcc: command not found");
  facts.nccl_version = Fact<std::string>::of("2.28.9");
  auto gpus = parse_gpu_query(gpuctl::testing::read_test_data("nvidia-smi/synthetic-8gpu/query-gpu.csv"));
  facts.gpus = Fact<std::vector<GpuInfo>>::of(*gpus);
  facts.packages = {{"libnccl2", "2.28.9-1+cuda13.0"}};
  return facts;
}
}  // namespace

TEST(FactsJson, HasFormatVersionValuesAbsentReasonsAndNullForUnavailableGpuFields) {
  const auto j = nlohmann::json::parse(facts_to_json(eight_gpu_node()));
  EXPECT_EQ(j["format_version"], 1);
  EXPECT_EQ(j["node"], "gpu01");
  EXPECT_EQ(j["os"]["version_id"], "24.04");
  EXPECT_EQ(j["boot_id"]["absent"], "/proc/sys/kernel/random/boot_id: No such file or directory");
  EXPECT_EQ(j["cuda_version"]["absent"], "nvcc --version: nvcc: command not found");
  EXPECT_EQ(j["driver_open_kernel_module"], true);
  EXPECT_EQ(j["driver_origin"]["kind"], "package");
  EXPECT_EQ(j["driver_origin"]["package"], "nvidia-utils-580");
  EXPECT_EQ(j["driver_origin"]["path"], "/usr/bin/nvidia-smi");
  EXPECT_EQ(j["loaded_modules"][2], "nvidia");
  ASSERT_EQ(j["gpus"].size(), 8u);
  EXPECT_EQ(j["gpus"][5]["remapped_rows_pending"], true);
  EXPECT_EQ(j["gpus"][0]["memory_total_mib"], 143771);
  EXPECT_TRUE(j["gpus"][0]["retired_pages_pending"].is_null());
  EXPECT_TRUE(j["gpus"][7]["power_draw_w"].is_null());
  EXPECT_EQ(j["gpus"][7]["unreported"]["power.draw"], "[Unknown Error]");
  EXPECT_EQ(j["gpus"][0]["unreported"], nlohmann::json({{"retired_pages.pending", "[N/A]"}}));
  EXPECT_DOUBLE_EQ(j["gpus"][0]["power_draw_w"].get<double>(), 128.02);
  EXPECT_EQ(j["packages"]["libnccl2"], "2.28.9-1+cuda13.0");
}

TEST(FactsJson, ReportListsUnreachableNodesWithTheirError) {
  std::vector<NodeFactsOutcome> outcomes{{"gpu01", eight_gpu_node(), exec::NodeStatus::ok, ""},
                                         {"gpu02", std::nullopt, exec::NodeStatus::unreachable, "connection refused"}};
  const auto j = nlohmann::json::parse(facts_report_to_json(outcomes));
  EXPECT_EQ(j["format_version"], 1);
  ASSERT_EQ(j["nodes"].size(), 2u);
  EXPECT_EQ(j["nodes"][0]["node"], "gpu01");
  EXPECT_FALSE(j["nodes"][0].contains("format_version"));
  EXPECT_EQ(j["nodes"][1]["error"], "connection refused");
  EXPECT_EQ(j["nodes"][1]["status"], "unreachable");
}

// The report is written node by node; its text must be exactly what one pretty dump of the
// whole document gives (scripts diff reports), for no, one and several nodes, with escapes.
TEST(FactsJson, StreamedReportIsThePrettyDumpOfTheWholeDocument) {
  NodeFacts odd = eight_gpu_node();
  odd.node = "gpu03";
  odd.kernel = Fact<std::string>::absent("uname -r: \"quoted\"\nsecond line");
  const std::vector<NodeFactsOutcome> outcomes{{"gpu01", eight_gpu_node(), exec::NodeStatus::ok, ""},
                                               {"gpu02", std::nullopt, exec::NodeStatus::unreachable, "refused\n"},
                                               {"gpu03", odd, exec::NodeStatus::ok, ""}};
  for (std::size_t count = 0; count <= outcomes.size(); ++count) {
    const std::span<const NodeFactsOutcome> some(outcomes.data(), count);
    const std::string text = facts_report_to_json(some);
    EXPECT_EQ(text, nlohmann::ordered_json::parse(text).dump(2)) << count << " nodes";
    EXPECT_EQ(nlohmann::json::parse(text)["nodes"].size(), count);
  }
}

TEST(FactsText, SummarisesNodeAndTabulatesGpus) {
  const auto text = render_facts_text(eight_gpu_node());
  EXPECT_NE(text.find("gpu01: Ubuntu 24.04.3 LTS, kernel 6.8.0-45-generic, up 1d 2h"), std::string::npos) << text;
  EXPECT_NE(text.find("driver 580.159.04 (open), from package nvidia-utils-580, CUDA absent (nvcc --version: nvcc: "
                      "command not found), NCCL 2.28.9"),
            std::string::npos) << text;
  EXPECT_NE(text.find("modules: nvidia_uvm nvidia"), std::string::npos) << text;
  EXPECT_NE(text.find("00000000:AB:00.0"), std::string::npos);
  EXPECT_NE(text.find("pending"), std::string::npos);
  EXPECT_NE(text.find("5x16/5x16"), std::string::npos);
  // The synthesised GPU 7's power.draw is [Unknown Error]: named under the table.
  EXPECT_NE(text.find("\n  GPU 7 unreadable: power.draw = [Unknown Error]\n"), std::string::npos) << text;
  // 3 summary lines, the table header, 8 GPUs, the unreadable line, then the topology,
  // NVLink, PCIe AER, InfiniBand and network interface lines (absent here).
  EXPECT_EQ(std::count(text.begin(), text.end(), '\n'), 3 + 1 + 8 + 1 + 5);
  EXPECT_NE(text.find("  InfiniBand: absent ("), std::string::npos) << text;
  EXPECT_NE(text.find("  PCIe AER: absent ("), std::string::npos) << text;
  EXPECT_NE(text.find("  network interfaces: absent ("), std::string::npos) << text;
  EXPECT_NE(text.find("  topology: absent ("), std::string::npos) << text;
}

TEST(FactsText, ShowsWhyGpusAreAbsent) {
  auto facts = eight_gpu_node();
  facts.gpus = Fact<std::vector<GpuInfo>>::absent("the NVIDIA driver is not loaded");
  EXPECT_NE(render_facts_text(facts).find("GPUs: absent (the NVIDIA driver is not loaded)"), std::string::npos);
}
