// The citations checks share (check_sources.hpp); each check's own is in its file.
#include "check_sources.hpp"

#include <gpuctl/facts/fabricmanager_log.hpp>

#include <gpuctl/util/strings.hpp>
#include <gpuctl/verify/catalog.hpp>

#include <fmt/format.h>

namespace gpuctl::verify_detail {
namespace {

std::string yes_no(bool value) { return value ? "yes" : "no"; }

}  // namespace

void cite_probe(CheckResult& result, const NodeFacts& facts, std::string_view probe) {
  const auto it = facts.sources.find(std::string(probe));
  if (it == facts.sources.end()) return;
  result.command = it->second.command;
  result.output = it->second.output;
  if (it->second.exit_code != 0)
    result.output += fmt::format("{}[exit status {}]", result.output.ends_with('\n') || result.output.empty() ? "" : "\n",
                                 it->second.exit_code);
}

void cite_module_lines(CheckResult& result, const NodeFacts& facts, std::string_view module) {
  cite_probe(result, facts, "modules");
  const auto it = facts.sources.find("modules");
  if (it == facts.sources.end() || it->second.exit_code != 0) return;
  std::string lines;
  const auto all = util::split_lines(it->second.output);
  for (const auto& line : all)
    if (line.starts_with(std::string(module) + " ")) lines += line + "\n";
  result.output = lines.empty() ? fmt::format("(no line for {} among {} modules)", module, all.size()) : lines;
}

void cite_service(CheckResult& result, const NodeState& state, const std::string& service) {
  result.command = fmt::format("systemctl show -p LoadState,UnitFileState,ActiveState,Result {}", service);
  const auto it = state.services.find(service);
  if (it == state.services.end() || !it->second.known) result.output = "(systemctl gave no answer)";
  else if (!it->second.load_state.empty())
    result.output = fmt::format("LoadState={}\nUnitFileState={}\nActiveState={}\nResult={}", it->second.load_state,
                                it->second.unit_file_state, it->second.active_state, it->second.result);
  else result.output = fmt::format("enabled: {}\nactive: {}", yes_no(it->second.enabled), yes_no(it->second.running));
}

std::string fabricmanager_log_says(const NodeFacts& node_facts) {
  const auto log = node_facts.declared.get(facts::k_fabricmanager_log);
  if (!log.present() || log.value->errors.empty()) return {};
  return fmt::format("; the fabric manager's log ({}) says: {}{}", log.value->path, log.value->errors.back(),
                     log.value->errors.size() > 1
                         ? fmt::format(" ({} error lines, `gpuctl facts --json` lists them)", log.value->errors.size())
                         : "");
}

std::string dcgm_exporter_service(const Inventory& inventory) {
  const auto service = inventory.cluster.packages.service("dcgm_exporter");
  return service.empty() ? "dcgm-exporter" : service;
}

void cite_source(CheckResult& result, const CheckInput& input) {
  const auto* spec = find_check(result.name);
  if (!spec) return;
  if (spec->cite) spec->cite(result, input);
  else if (!spec->facts.empty()) cite_probe(result, input.state.facts, spec->facts.front());
}

}  // namespace gpuctl::verify_detail
