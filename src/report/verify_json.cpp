#include <gpuctl/report/verify_json.hpp>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

namespace gpuctl {
namespace {

Location at(const std::string& file) {
  Location where;
  where.file = file;
  return where;
}

Result<exec::NodeStatus> node_status(const std::string& text, const std::string& where) {
  for (auto s : {exec::NodeStatus::ok, exec::NodeStatus::changed, exec::NodeStatus::failed, exec::NodeStatus::unreachable,
                 exec::NodeStatus::skipped})
    if (exec::to_string(s) == text) return s;
  return fail(ErrorCode::parse, fmt::format("unknown node status '{}'", text), at(where));
}

Result<CheckStatus> check_status(const std::string& text, const std::string& where) {
  for (auto s : {CheckStatus::pass, CheckStatus::fail, CheckStatus::error, CheckStatus::skipped})
    if (to_string(s) == text) return s;
  return fail(ErrorCode::parse, fmt::format("unknown check status '{}'", text), at(where));
}

}  // namespace

Result<std::vector<NodeVerifyOutcome>> verify_from_json(std::string_view text, const std::string& where) {
  try {
    const auto doc = nlohmann::json::parse(text);
    if (doc.value("format_version", 0) != 1)
      return fail(ErrorCode::parse, "not a gpuctl verify --json result (format_version 1)", at(where),
                  "write it with gpuctl verify --json");
    std::vector<NodeVerifyOutcome> outcomes;
    for (const auto& n : doc.at("nodes")) {
      NodeVerifyOutcome o;
      o.outcome.node = n.at("node").get<std::string>();
      auto status = node_status(n.at("status").get<std::string>(), where);
      if (!status) return std::unexpected(status.error());
      o.outcome.status = *status;
      o.outcome.reason = n.value("reason", "");
      for (const auto& c : n.value("checks", nlohmann::json::array())) {
        auto cs = check_status(c.at("status").get<std::string>(), where);
        if (!cs) return std::unexpected(cs.error());
        o.checks.push_back({c.at("check").get<std::string>(), *cs, c.value("observed", ""), c.value("expected", ""),
                            c.value("detail", ""), c.value("command", ""), c.value("output", "")});
      }
      outcomes.push_back(std::move(o));
    }
    return outcomes;
  } catch (const nlohmann::json::exception& e) {
    return fail(ErrorCode::parse, fmt::format("invalid verify result: {}", e.what()), at(where));
  }
}

}  // namespace gpuctl
