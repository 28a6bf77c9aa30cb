// verify's exporter_metrics: every exporter the inventory runs on the node serves /metrics,
// and dcgm-exporter's page has, for every GPU nvidia-smi lists, each field the alert rules read
// (monitoring/dcgm_exporter_fields.hpp). A unit that runs but serves nothing fails: the alert
// rules would stay silent for the node. Replaces exporters_active's systemd-only pass.
#include "check_result.hpp"
#include "check_sources.hpp"

#include <gpuctl/facts/collect.hpp>
#include <gpuctl/monitoring/dcgm_exporter_fields.hpp>
#include <gpuctl/util/strings.hpp>
#include <gpuctl/verify/catalog.hpp>
#include <gpuctl/verify/exporter_scrape.hpp>

#include <fmt/format.h>

namespace gpuctl::verify_detail {
namespace {

// What systemd says of the exporter's unit, for the finding: a running unit that serves
// nothing is the case this check exists for.
std::string unit_state(const CheckInput& in, const std::string& service) {
  const auto it = in.state.services.find(service);
  if (it == in.state.services.end() || !it->second.known) return fmt::format("{}: systemd state not read", service);
  return fmt::format("{} {}", service, it->second.running ? "is running" : "is not running");
}

// The fields the rules read that `page` lacks for some GPU, as "FIELD (GPU 0, GPU 3)".
std::vector<std::string> missing_fields(const MetricsPage& page, const CheckInput& in, const std::vector<GpuInfo>& gpus) {
  std::vector<std::string> missing;
  for (const auto& field : monitoring::dcgm_exporter_fields()) {
    const bool required = field.need == monitoring::FieldNeed::alerted ||
                          (field.need == monitoring::FieldNeed::alerted_nvlink && in.node.gpu.nvlink.has_value());
    if (!required) continue;
    const auto it = page.uuids.find(std::string(field.name));
    std::vector<std::string> without;
    for (const auto& gpu : gpus)
      if (it == page.uuids.end() || !it->second.contains(gpu.uuid)) without.push_back(fmt::format("GPU {}", gpu.index));
    if (without.size() == gpus.size()) missing.push_back(std::string(field.name));
    else if (!without.empty()) missing.push_back(fmt::format("{} ({})", field.name, util::join(without, ", ")));
  }
  return missing;
}

// One exporter's finding; empty when it meets the contract.
std::string judge_scrape(const ExporterScrape& scrape, const CheckInput& in, bool& unknown) {
  if (!scrape.problem.empty()) {
    unknown = true;
    return fmt::format("{}: the scrape could not run: {}", scrape.exporter, scrape.problem);
  }
  if (scrape.exit_code == 7)
    return fmt::format("{}: nothing accepts connections on {} ({})", scrape.exporter, scrape.target, unit_state(in, scrape.service));
  if (scrape.exit_code == 124) return fmt::format("{}: {} did not answer within 10 s", scrape.exporter, scrape.target);
  if (scrape.exit_code != 0) {
    unknown = true;
    return fmt::format("{}: the scrape exited {}: {}", scrape.exporter, scrape.exit_code, util::trim(scrape.err));
  }
  const auto page = parse_metrics_page(scrape.out);
  if (!page) return fmt::format("{}: {} ({}): {}", scrape.exporter, scrape.target, unit_state(in, scrape.service), page.error().message);
  if (page->http_status != 200)
    return fmt::format("{}: GET http://{}/metrics answered HTTP {}", scrape.exporter, scrape.target, page->http_status);
  if (scrape.exporter == "node-exporter") {
    if (!page->names.contains("node_exporter_build_info"))
      return fmt::format("{}: http://{}/metrics has no node_exporter_build_info: not node_exporter's page", scrape.exporter,
                         scrape.target);
    return {};
  }
  const auto& gpus = in.state.facts.gpus;
  if (!gpus.present() || gpus.value->empty()) {
    unknown = true;
    return fmt::format("{}: the node's GPUs are not known ({}), so the page cannot be held to them", scrape.exporter,
                       gpus.present() ? "nvidia-smi lists none" : absent_reason(gpus, "GPUs"));
  }
  const auto missing = missing_fields(*page, in, *gpus.value);
  if (missing.empty()) return {};
  return fmt::format("{}: http://{}/metrics lacks {} (fields the alert rules read; the counters file is "
                     "/etc/dcgm-exporter/gpuctl-counters.csv, and an exporter drops a field the GPU reports blank)",
                     scrape.exporter, scrape.target, util::join(missing, "; "));
}

CheckResult exporter_metrics(const CheckInput& in) {
  if (!in.exporter_scrapes) return skipped("runs only in gpuctl verify");
  const auto& scrapes = in.exporter_scrapes->scrapes;
  if (scrapes.empty()) return skipped("no exporter runs on this node (monitoring.dcgm_exporter, monitoring.node_exporter)");
  std::vector<std::string> names, findings;
  bool unknown = false;
  for (const auto& scrape : scrapes) {
    names.push_back(fmt::format("{} ({})", scrape.exporter, scrape.target));
    if (auto finding = judge_scrape(scrape, in, unknown); !finding.empty()) findings.push_back(std::move(finding));
  }
  const auto expected = fmt::format("{} serve /metrics, with every field the alert rules read for every GPU", util::join(names, ", "));
  if (findings.empty()) return pass(fmt::format("{} answered with the fields the rules read", util::join(names, ", ")), expected);
  const auto observed = util::join(findings, "; ");
  if (unknown) return cannot_run(observed);
  return failed(observed, expected, "start or fix the exporter (gpuctl apply restores gpuctl's counters file and its listen address)");
}

// The first scrape that did not meet the contract: its command and what came back.
void cite_scrape(CheckResult& result, const CheckInput& in) {
  if (!in.exporter_scrapes || in.exporter_scrapes->scrapes.empty()) {
    result.command = "(not run)";
    result.output = "(exporters are scraped only by gpuctl verify)";
    return;
  }
  for (const auto& scrape : in.exporter_scrapes->scrapes) {
    bool unknown = false;
    if (judge_scrape(scrape, in, unknown).empty()) continue;
    result.command = scrape.command;
    result.output = facts::trim_output(scrape.problem.empty() ? scrape.out + scrape.err : scrape.problem, k_source_output_limit);
    if (result.output.empty()) result.output = fmt::format("(nothing came back; exit status {})", scrape.exit_code);
    return;
  }
}

const CheckRegistration k_registration{{
    .name = "exporter_metrics",
    .description = "each exporter on the node serves /metrics; dcgm-exporter's has every field the alert rules read, "
                   "for every GPU",
    .section = CheckSection::monitoring,
    .facts = {"gpus"},
    .runner = NodeRunner::exporter_scrape,
    .judge = exporter_metrics,
    .cite = cite_scrape,
    .source = "GET http://ADDRESS:PORT/metrics from the node (bash /dev/tcp), DCGM_FI_* lines kept",
}};

}  // namespace
}  // namespace gpuctl::verify_detail
