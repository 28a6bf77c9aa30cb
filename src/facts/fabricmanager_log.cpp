// The fabricmanager_log fact (facts/fabricmanager_log.hpp): the fabric manager's error lines,
// parsed, with its facts views. Its shell is src/facts/probes/fabricmanager_log.sh.
#include <gpuctl/facts/fabricmanager_log.hpp>

#include "fact_catalog.hpp"

#include <gpuctl/util/strings.hpp>

namespace gpuctl::facts {
namespace {

const FactRegistration k_registration{{
    .probe = k_fabricmanager_log.name,
    .command = "tail -n 20000 /var/log/fabricmanager.log | grep -e '[ERROR]' -e '[FATAL]' | tail -n 20",
    .shell = [] { return probe_shell("fabricmanager_log"); },
    .fill = [](NodeFacts& facts, const Probes& probes) {
      facts.declared.set(k_fabricmanager_log,
                         parse_fact<FabricManagerLog>(probes, std::string(k_fabricmanager_log.name), "fabric manager log",
                                                      parse_fabricmanager_log));
    },
    .to_json = [](const NodeFacts& facts, nlohmann::ordered_json& node) {
      const auto fact = facts.declared.get(k_fabricmanager_log);
      if (!fact.present()) {
        node["fabricmanager_log"] = {{"absent", fact.absent_reason}};
        return;
      }
      node["fabricmanager_log"] = {{"path", fact.value->path}, {"exists", fact.value->exists}, {"errors", fact.value->errors}};
    },
    // Only where the log has errors: the healthy and the switchless say nothing.
    .to_text = [](const NodeFacts& facts) -> std::string {
      const auto fact = facts.declared.get(k_fabricmanager_log);
      if (!fact.present() || fact.value->errors.empty()) return {};
      return fmt::format("  fabric manager log: {} error lines, the last: {}\n", fact.value->errors.size(),
                         fact.value->errors.back());
    },
}};

}  // namespace

Result<FabricManagerLog> parse_fabricmanager_log(std::string_view text) {
  FabricManagerLog log;
  bool marked = false;
  for (const auto& line : util::split_lines(text)) {
    if (line.starts_with("@@fmlog ")) {
      log.path = std::string(util::trim(line.substr(8)));
      marked = true;
    } else if (line == "@@fmlog-absent") {
      log.exists = false;
      return log;
    } else if (line == "@@fmlog-unreadable") {
      return fail(ErrorCode::parse, fmt::format("{} is not readable (reading it needs root: connection.become)", log.path));
    } else if (marked && !util::trim(line).empty()) {
      log.errors.emplace_back(util::trim(line));
    }
  }
  if (!marked) return fail(ErrorCode::parse, "the fabric manager log probe printed no @@fmlog line");
  log.exists = true;
  return log;
}

}  // namespace gpuctl::facts
