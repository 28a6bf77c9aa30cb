// The exporters' /metrics read on the node (verify/exporter_scrape.hpp).
#include <gpuctl/verify/exporter_scrape.hpp>

#include <gpuctl/template/context.hpp>
#include <gpuctl/util/strings.hpp>

#include <charconv>
#include <fmt/format.h>

namespace gpuctl {

std::vector<ExporterScrape> exporters_on_node(const Inventory& inventory, const Node& node) {
  const auto& m = inventory.cluster.monitoring;
  std::vector<ExporterScrape> scrapes;
  const auto address = node_address(node);
  const auto add = [&](std::string exporter, std::string service, int port) {
    ExporterScrape scrape;
    scrape.exporter = std::move(exporter);
    scrape.service = std::move(service);
    scrape.target = fmt::format("{}:{}", url_address(address), port);
    scrape.command = exporter_scrape_command(address, port);
    scrapes.push_back(std::move(scrape));
  };
  if (m.dcgm_exporter && node.gpu.count > 0)
    add("dcgm-exporter", inventory.cluster.packages.service("dcgm_exporter"), m.dcgm_exporter_port);
  if (m.node_exporter) add("node-exporter", "prometheus-node-exporter", m.node_exporter_port);
  return scrapes;
}

std::string exporter_scrape_command(const std::string& address, int port) {
  // HTTP/1.0: the answer is the page itself, never chunked, and the connection ends with it.
  // Only the lines the check reads come back: a node_exporter page is ~100 KiB.
  return fmt::format(
      "timeout 10 bash -c 'exec 3<>\"/dev/tcp/$1/$2\" || exit 7; "
      "printf \"GET /metrics HTTP/1.0\\r\\nHost: %s\\r\\nAccept: text/plain\\r\\n\\r\\n\" \"$3\" >&3; "
      "tr -d \"\\r\" <&3 | grep -E \"^(HTTP/|DCGM_FI_|node_exporter_build_info)\"; exit 0' _ {} {} {}",
      util::shell_quote(address), port, util::shell_quote(fmt::format("{}:{}", url_address(address), port)));
}

Result<MetricsPage> parse_metrics_page(std::string_view out) {
  MetricsPage page;
  for (const auto& raw : util::split_lines(out)) {
    const auto line = util::trim(raw);
    if (line.starts_with("HTTP/")) {
      const auto space = line.find(' ');
      if (space == std::string_view::npos) continue;
      const auto code = line.substr(space + 1, 3);
      std::from_chars(code.data(), code.data() + code.size(), page.http_status);
      continue;
    }
    const auto name_end = line.find_first_of("{ ");
    if (name_end == std::string_view::npos || name_end == 0) continue;
    const std::string name(line.substr(0, name_end));
    page.names.insert(name);
    if (!name.starts_with("DCGM_FI_")) continue;
    // A sample without a value (dcgm-exporter drops blank fields, some releases print them) is
    // no sample: the value is what follows the label set.
    const auto close = line.rfind('}');
    const auto value = util::trim(close == std::string_view::npos ? line.substr(name_end) : line.substr(close + 1));
    if (value.empty()) continue;
    const auto uuid_at = line.find("UUID=\"");
    if (uuid_at == std::string_view::npos || (close != std::string_view::npos && uuid_at > close)) continue;
    const auto start = uuid_at + 6;
    const auto end = line.find('"', start);
    if (end == std::string_view::npos) continue;
    page.uuids[name].insert(std::string(line.substr(start, end - start)));
  }
  if (page.http_status == 0) return fail(ErrorCode::parse, "no HTTP status line: the port does not answer HTTP");
  return page;
}

ObservedExporterScrapes scrape_exporters(Transport& transport, const Inventory& inventory, const Node& node) {
  ObservedExporterScrapes observed;
  observed.scrapes = exporters_on_node(inventory, node);
  for (auto& scrape : observed.scrapes) {
    CommandOptions options;
    options.timeout = std::chrono::seconds(20);
    auto run = transport.run(scrape.command, options);
    if (!run) {
      scrape.problem = run.error().message;
      continue;
    }
    scrape.exit_code = run->exit_code;
    scrape.out = std::move(run->out);
    scrape.err = std::move(run->err);
  }
  return observed;
}

}  // namespace gpuctl
