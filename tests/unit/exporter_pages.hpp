#pragma once
// /metrics pages as the exporter_metrics scrape returns them (the status line, then the kept
// sample lines), in the real exporters' formats: dcgm-exporter's label set as the capture in
// tests/data/monitoring/dcgm-exporter-metrics.txt has it, node_exporter's build info from Debian 12's.
#include <gpuctl/facts/facts.hpp>
#include <gpuctl/monitoring/dcgm_exporter_fields.hpp>
#include <gpuctl/util/strings.hpp>
#include <gpuctl/verify/exporter_scrape.hpp>

#include "probe_capture.hpp"

#include <fmt/format.h>

#include <string>
#include <vector>

namespace gpuctl::testing {

// One sample line of `field` for `gpu`, labelled as dcgm-exporter 4.x labels them.
inline std::string dcgm_sample(std::string_view field, const GpuInfo& gpu, std::string_view value = "0") {
  return fmt::format("{}{{gpu=\"{}\",UUID=\"{}\",pci_bus_id=\"{}\",device=\"nvidia{}\",modelName=\"{}\",Hostname=\"gpu01\","
                     "DCGM_FI_DRIVER_VERSION=\"550.127.08\"}} {}\n",
                     field, gpu.index, gpu.uuid, gpu.pci_bus_id, gpu.index, gpu.name, value);
}

// A page with every field of gpuctl's counters file for every GPU (less `without`).
inline std::string full_dcgm_page(const std::vector<GpuInfo>& gpus, std::string_view without = {}) {
  std::string page = "HTTP/1.1 200 OK\n";
  for (const auto& field : monitoring::dcgm_exporter_fields()) {
    if (field.type == "label" || field.need == monitoring::FieldNeed::alias || field.name == without) continue;
    for (const auto& gpu : gpus) page += dcgm_sample(field.name, gpu);
  }
  return page;
}

// node_exporter's page as the scrape keeps it: Debian 12's build info line from the capture.
inline std::string node_exporter_page() {
  std::string page = "HTTP/1.1 200 OK\n";
  for (const auto& line : util::split_lines(read_test_data("monitoring/node-exporter-metrics-debian12.txt")))
    if (line.starts_with("node_exporter_build_info")) page += line + "\n";
  return page;
}

// The scrapes of `node` with these pages (exit 0), as scrape_exporters leaves them.
inline ObservedExporterScrapes scrapes_of(const Inventory& inventory, const Node& node, const std::string& dcgm_page,
                                          const std::string& node_page) {
  ObservedExporterScrapes observed{exporters_on_node(inventory, node)};
  for (auto& scrape : observed.scrapes) {
    scrape.exit_code = 0;
    scrape.out = scrape.exporter == "dcgm-exporter" ? dcgm_page : node_page;
  }
  return observed;
}

}  // namespace gpuctl::testing
