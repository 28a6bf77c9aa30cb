// verify's exporter_metrics: the exporters' /metrics read on the node, held to the fields the
// alert rules read, on real pages (tests/data/monitoring/) and on the failures a scrape meets.
#include <gpuctl/monitoring/dcgm_exporter_fields.hpp>
#include <gpuctl/util/strings.hpp>
#include <gpuctl/verify/catalog.hpp>
#include <gpuctl/verify/checks.hpp>
#include <gpuctl/verify/exporter_scrape.hpp>

#include "check_fixture.hpp"
#include "exporter_pages.hpp"
#include "probe_capture.hpp"

#include <gtest/gtest.h>

namespace gpuctl {
namespace {

GpuInfo gpu(int index) {
  GpuInfo info;
  info.index = index;
  info.name = "NVIDIA H100 80GB HBM3";
  info.uuid = fmt::format("GPU-5d2c{:04d}-7a1e-4a7e-9f0e-0123456789ab", index);
  info.pci_bus_id = fmt::format("00000000:{:02X}:00.0", 0x18 + index);
  return info;
}

class ExporterMetrics : public testing::SingleCheckTest {
 protected:
  ExporterMetrics() {
    for (int i = 0; i < node.gpu.count; ++i) gpus.push_back(gpu(i));
    state.facts.gpus = Fact<std::vector<GpuInfo>>::of(gpus);
    state.services["nvidia-dcgm-exporter"] = ObservedService{true, true, true};
    state.services["prometheus-node-exporter"] = ObservedService{true, true, true};
  }
  CheckResult check(const std::string& dcgm_page, const std::string& node_page) {
    scrapes = testing::scrapes_of(inventory, node, dcgm_page, node_page);
    return run_checks({"exporter_metrics"}, CheckInput{inventory, node, fixture.program, state, nullptr, nullptr, nullptr, &scrapes})
        .at(0);
  }
  std::vector<GpuInfo> gpus;
  ObservedExporterScrapes scrapes;
};

TEST(ExporterScrape, ReadsTheNodesOwnExportersAtTheirScrapeTargets) {
  const auto inventory = testing::example_inventory();
  const auto scrapes = exporters_on_node(inventory, inventory.nodes[1]);
  ASSERT_EQ(scrapes.size(), 2u);
  EXPECT_EQ(scrapes[0].exporter, "dcgm-exporter");
  EXPECT_EQ(scrapes[0].service, "nvidia-dcgm-exporter");
  EXPECT_EQ(scrapes[1].exporter, "node-exporter");
  EXPECT_EQ(scrapes[1].target, inventory.nodes[1].connection.address + ":9100");
  // The address and Host header reach bash as quoted arguments, never inside the script.
  const auto& address = inventory.nodes[1].connection.address;
  EXPECT_TRUE(scrapes[1].command.ends_with("' _ " + address + " 9100 " + address + ":9100")) << scrapes[1].command;
  // A node without GPUs runs node_exporter only.
  const auto head = exporters_on_node(inventory, inventory.nodes[0]);
  ASSERT_EQ(head.size(), 1u);
  EXPECT_EQ(head[0].exporter, "node-exporter");
}

TEST(ExporterScrape, ReadsARealDcgmExporterPage) {
  // The capture: dcgm-exporter with NVIDIA's default counters on one RTX 4000 Ada.
  const auto page = parse_metrics_page("HTTP/1.1 200 OK\n" + testing::read_test_data("monitoring/dcgm-exporter-metrics.txt"));
  ASSERT_TRUE(page) << page.error().message;
  EXPECT_EQ(page->http_status, 200);
  const std::set<std::string> uuid{"GPU-a8394b51-c086-568a-9f1a-c1e1c934c44c"};
  EXPECT_EQ(page->uuids.at("DCGM_FI_DEV_XID_ERRORS"), uuid);
  EXPECT_EQ(page->uuids.at("DCGM_FI_DEV_GPU_TEMP"), uuid);
  // NVIDIA's default counters file exports no ECC counter, no row-remap pending, no clock events.
  EXPECT_FALSE(page->uuids.contains("DCGM_FI_DEV_ECC_DBE_VOL_TOTAL"));
  EXPECT_FALSE(page->uuids.contains("DCGM_FI_DEV_ROW_REMAP_PENDING"));
  EXPECT_FALSE(page->uuids.contains("DCGM_FI_DEV_CLOCKS_EVENT_REASONS"));
  EXPECT_FALSE(parse_metrics_page("SSH-2.0-OpenSSH_9.2p1\n"));
}

TEST_F(ExporterMetrics, PassesWhenEveryGpuExportsEveryFieldTheRulesRead) {
  const auto r = check(testing::full_dcgm_page(gpus), testing::node_exporter_page());
  EXPECT_EQ(r.status, CheckStatus::pass) << r.observed;
}

TEST_F(ExporterMetrics, FailsOnNvidiasDefaultCountersWhichLackTheEccAndRemapFields) {
  // The real page's label set and fields, for this node's GPUs: the default counters file.
  std::string page = "HTTP/1.1 200 OK\n";
  const auto capture = testing::read_test_data("monitoring/dcgm-exporter-metrics.txt");
  for (const auto& line : util::split_lines(capture)) {
    if (!line.starts_with("DCGM_FI_")) continue;
    const auto name = line.substr(0, line.find('{'));
    for (const auto& g : gpus) page += testing::dcgm_sample(name, g);
  }
  const auto r = check(page, testing::node_exporter_page());
  EXPECT_EQ(r.status, CheckStatus::fail);
  for (const char* field : {"DCGM_FI_DEV_ECC_DBE_VOL_TOTAL", "DCGM_FI_DEV_ECC_SBE_VOL_TOTAL", "DCGM_FI_DEV_ROW_REMAP_PENDING",
                            "DCGM_FI_DEV_CLOCKS_EVENT_REASONS"})
    EXPECT_NE(r.observed.find(field), std::string::npos) << field << " in " << r.observed;
  EXPECT_EQ(r.observed.find("DCGM_FI_DEV_XID_ERRORS"), std::string::npos) << r.observed;
  EXPECT_FALSE(r.command.empty());
}

TEST_F(ExporterMetrics, NamesTheGpusAFieldIsMissingFor) {
  // GPU 3's Xid field left blank, as dcgm-exporter 4.5 printed it (NVIDIA/dcgm-exporter#700).
  auto page = testing::full_dcgm_page(gpus);
  const auto blank = testing::dcgm_sample("DCGM_FI_DEV_XID_ERRORS", gpus[3]);
  page.replace(page.find(blank), blank.size(), testing::dcgm_sample("DCGM_FI_DEV_XID_ERRORS", gpus[3], ""));
  const auto r = check(page, testing::node_exporter_page());
  EXPECT_EQ(r.status, CheckStatus::fail);
  EXPECT_NE(r.observed.find("DCGM_FI_DEV_XID_ERRORS (GPU 3)"), std::string::npos) << r.observed;
}

TEST_F(ExporterMetrics, NvlinkFieldsAreRequiredOnlyWhereTheNodeDeclaresNvlink) {
  const auto page = testing::full_dcgm_page(gpus, "DCGM_FI_DEV_NVLINK_RECOVERY_ERROR_COUNT_TOTAL");
  node.gpu.nvlink.reset();
  EXPECT_EQ(check(page, testing::node_exporter_page()).status, CheckStatus::pass);
  node.gpu.nvlink = NvlinkSpec{"NV18", 18, 25.0};
  EXPECT_EQ(check(page, testing::node_exporter_page()).status, CheckStatus::fail);
}

TEST_F(ExporterMetrics, ARunningUnitThatServesNothingFails) {
  scrapes = testing::scrapes_of(inventory, node, "", testing::node_exporter_page());
  scrapes.scrapes[0].exit_code = 7;  // bash: connect refused
  const auto r = run_checks({"exporter_metrics"}, CheckInput{inventory, node, fixture.program, state, nullptr, nullptr, nullptr, &scrapes}).at(0);
  EXPECT_EQ(r.status, CheckStatus::fail);
  EXPECT_NE(r.observed.find("nothing accepts connections on"), std::string::npos) << r.observed;
  EXPECT_NE(r.observed.find("nvidia-dcgm-exporter is running"), std::string::npos) << r.observed;
  EXPECT_EQ(r.command, scrapes.scrapes[0].command);
}

TEST_F(ExporterMetrics, AnotherPageOnThePortFails) {
  EXPECT_EQ(check(testing::full_dcgm_page(gpus), "HTTP/1.0 404 Not Found\n").status, CheckStatus::fail);
  const auto r = check(testing::full_dcgm_page(gpus), "HTTP/1.1 200 OK\n");
  EXPECT_EQ(r.status, CheckStatus::fail);
  EXPECT_NE(r.observed.find("no node_exporter_build_info"), std::string::npos) << r.observed;
}

TEST_F(ExporterMetrics, UnknownGpusOrAScrapeThatCouldNotRunAreNeverAPass) {
  state.facts.gpus = Fact<std::vector<GpuInfo>>::absent("nvidia-smi: command not found");
  EXPECT_EQ(check(testing::full_dcgm_page(gpus), testing::node_exporter_page()).status, CheckStatus::error);
  state.facts.gpus = Fact<std::vector<GpuInfo>>::of(gpus);
  scrapes = testing::scrapes_of(inventory, node, "", "");
  for (auto& s : scrapes.scrapes) s.problem = "connection to gpu01 lost";
  EXPECT_EQ(run_checks({"exporter_metrics"}, CheckInput{inventory, node, fixture.program, state, nullptr, nullptr, nullptr, &scrapes})
                .at(0)
                .status,
            CheckStatus::error);
  // plan never scrapes: without the scrape the check is skipped, not passed.
  EXPECT_EQ(run("exporter_metrics").status, CheckStatus::skipped);
}

TEST(ExporterMetricsCatalog, TheCheckAsksForTheScrape) {
  EXPECT_TRUE(check_needs({"exporter_metrics"}).needs(NodeRunner::exporter_scrape));
  EXPECT_FALSE(check_needs({"exporters_active"}).needs(NodeRunner::exporter_scrape));
}

}  // namespace
}  // namespace gpuctl
