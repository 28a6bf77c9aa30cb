// The Grafana dashboard template: it renders to valid JSON (Grafana's own ${...} series names
// survive Mustache) that charts the DCGM fields the alerts watch.
#include <gpuctl/inventory/loader.hpp>
#include <gpuctl_build_paths.hpp>
#include "shipped_playbooks.hpp"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <set>

namespace gpuctl {
namespace {

std::string rendered_dashboard() {
  auto loaded = load_inventory(std::string(GPUCTL_SOURCE_DIR) + "/docs/examples/cluster.yaml");
  if (!loaded.ok()) return {};
  for (const auto& node : loaded.inventory->nodes) {
    if (node.name != "head01") continue;
    auto files = testing::shipped_files(*loaded.inventory, node);
    if (!files) return {};
    for (const auto& file : *files)
      if (file.path == "/etc/prometheus/gpuctl-grafana-dashboard.json") return file.content;
  }
  return {};
}

TEST(GrafanaDashboard, RendersToJsonWithGrafanaLegendsIntact) {
  const auto text = rendered_dashboard();
  ASSERT_FALSE(text.empty()) << "head01 (the Prometheus node) gets no dashboard";
  const auto dashboard = nlohmann::json::parse(text);  // throws, failing the test, when not JSON
  EXPECT_EQ(dashboard.at("uid"), "gpuctl-gpus");
  EXPECT_NE(text.find("\"displayName\": \"${__field.labels.node}\""), std::string::npos);
  EXPECT_NE(dashboard.at("description").get<std::string>().find("gpuctl"), std::string::npos);
}

TEST(GrafanaDashboard, ChartsUtilisationCopyUtilisationTemperatureXidAndEcc) {
  const auto dashboard = nlohmann::json::parse(rendered_dashboard());
  std::set<std::string> fields;
  for (const auto& panel : dashboard.at("panels"))
    for (const auto& target : panel.at("targets"))
      for (const auto* field : {"DCGM_FI_DEV_GPU_UTIL", "DCGM_FI_DEV_MEM_COPY_UTIL", "DCGM_FI_DEV_GPU_TEMP",
                                "DCGM_FI_DEV_XID_ERRORS", "DCGM_FI_DEV_ECC_DBE_VOL_TOTAL", "DCGM_FI_DEV_ECC_SBE_VOL_TOTAL",
                                "gpuctl_check_status"})
        if (target.at("expr").get<std::string>().find(field) != std::string::npos) fields.insert(field);
  EXPECT_EQ(fields.size(), 7u);
}

}  // namespace
}  // namespace gpuctl
