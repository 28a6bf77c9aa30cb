// The check catalog as `verify --list` shows it (report/check_list.hpp).
#include <gpuctl/report/check_list.hpp>

#include <gpuctl/facts/collect.hpp>
#include <gpuctl/verify/catalog.hpp>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <optional>

namespace gpuctl {
namespace {

// What a non-pass cites, in words: the spec's own, else its first fact's readable command.
std::string cited_source(const CheckSpec& spec) {
  if (!spec.source.empty()) return std::string(spec.source);
  return spec.facts.empty() ? std::string() : facts::probe_command(spec.facts.front());
}

}  // namespace

std::string render_check_list() {
  const auto catalog = check_catalog();
  std::size_t width = 0;
  for (const auto* spec : catalog) width = std::max(width, spec->name.size());
  std::string out;
  std::optional<CheckSection> section;
  for (const auto* spec : catalog) {
    if (spec->section != section) {
      out += fmt::format("{}{}:\n", section ? "\n" : "", to_string(spec->section));
      section = spec->section;
    }
    out += fmt::format("  {:<{}}  {}{}\n", spec->name, width, spec->description,
                       spec->judge ? "" : " (added by verify, not listed in playbooks)");
  }
  out += fmt::format("\n{} checks. A playbook step lists the ones that prove it under `checks:`; docs/verify.md says "
                     "what each reads, when it fails and when it cannot run.\n",
                     catalog.size());
  return out;
}

std::string check_list_to_json() {
  nlohmann::ordered_json checks = nlohmann::ordered_json::array();
  for (const auto* spec : check_catalog()) {
    nlohmann::ordered_json facts = nlohmann::ordered_json::array();
    for (const auto fact : spec->facts) facts.push_back(std::string(fact));
    checks.push_back({{"name", std::string(spec->name)},
                      {"description", std::string(spec->description)},
                      {"section", std::string(to_string(spec->section))},
                      {"facts", std::move(facts)},
                      {"runner", spec->runner == NodeRunner::none ? nlohmann::ordered_json(nullptr)
                                                                  : nlohmann::ordered_json(std::string(to_string(spec->runner)))},
                      {"source", cited_source(*spec)},
                      {"in_playbooks", spec->judge != nullptr}});
  }
  nlohmann::ordered_json doc{{"format_version", 1}, {"checks", std::move(checks)}};
  return doc.dump(2) + "\n";
}

}  // namespace gpuctl
