#pragma once
// The exporters' /metrics as Prometheus would scrape them, read from the node itself: one HTTP
// GET per exporter the inventory runs there (bash's /dev/tcp, so the node needs no curl), kept
// to the lines the exporter_metrics check reads. Verify only (a read of the exporter's page,
// like Prometheus's every 15 s). Judged by src/verify/exporter_metrics_check.cpp.
#include <gpuctl/core/error.hpp>
#include <gpuctl/inventory/inventory.hpp>
#include <gpuctl/transport/transport.hpp>

#include <map>
#include <set>
#include <string>
#include <string_view>
#include <vector>

namespace gpuctl {

struct ExporterScrape {
  std::string exporter;   // "dcgm-exporter", "node-exporter"
  std::string service;    // its systemd unit, for the citation
  std::string target;     // host:port as prometheus.yml has it
  std::string command;    // what ran on the node
  int exit_code = -1;     // the scrape's; -1: it did not run
  std::string out;        // the status line and the kept sample lines
  std::string err;
  std::string problem;    // why it could not run at all; empty when it ran
};

struct ObservedExporterScrapes {
  std::vector<ExporterScrape> scrapes;  // in the order of exporters_on_node
};

// The exporters the inventory runs on `node` (dcgm-exporter on GPU nodes, node_exporter on
// every node), with their targets; nothing scraped yet (pure).
std::vector<ExporterScrape> exporters_on_node(const Inventory& inventory, const Node& node);

// The node-side command that scrapes ADDRESS:PORT (pure): the status line, then the sample
// lines of DCGM_FI_* fields and node_exporter_build_info; exit 7 when nothing listens.
std::string exporter_scrape_command(const std::string& address, int port);

// What one /metrics page says (pure).
struct MetricsPage {
  int http_status = 0;                                   // 0: no status line
  std::map<std::string, std::set<std::string>> uuids;    // DCGM field -> the UUID labels it has samples for
  std::set<std::string> names;                           // every sample's metric name
};
Result<MetricsPage> parse_metrics_page(std::string_view out);

// Scrapes every exporter of the node. Never fails: a transport error is a scrape's `problem`.
ObservedExporterScrapes scrape_exporters(Transport& transport, const Inventory& inventory, const Node& node);

}  // namespace gpuctl
