// Loading a past run's verify report from the state store.
#include <gpuctl/report/run_report.hpp>

#include <algorithm>
#include <charconv>
#include <ctime>
#include <fmt/format.h>

namespace gpuctl {
namespace {

CheckStatus check_status_of(const std::string& text) {
  for (auto s : {CheckStatus::pass, CheckStatus::fail, CheckStatus::error, CheckStatus::skipped})
    if (to_string(s) == text) return s;
  return CheckStatus::error;  // the schema's CHECK constraint allows no other value
}

std::optional<exec::NodeStatus> node_status_of(const std::string& text) {
  for (auto s : {exec::NodeStatus::ok, exec::NodeStatus::changed, exec::NodeStatus::failed,
                 exec::NodeStatus::unreachable, exec::NodeStatus::skipped})
    if (exec::to_string(s) == text) return s;
  return std::nullopt;
}

// As Session::verify_one decides: the first check that failed or could not run fails the node.
exec::NodeOutcome outcome_of(const std::string& node, const std::vector<CheckResult>& checks) {
  for (const auto& c : checks)
    if (c.status == CheckStatus::fail || c.status == CheckStatus::error)
      return {node, exec::NodeStatus::failed, fmt::format("check {} {}", c.name, to_string(c.status)), {}};
  return {node, exec::NodeStatus::ok, {}, {}};
}

}  // namespace

Result<state::RunId> resolve_report_run(state::StateStore& store, std::string_view ref) {
  if (ref == "last") return store.latest_run_with_checks();
  state::RunId id = 0;
  const auto [ptr, ec] = std::from_chars(ref.data(), ref.data() + ref.size(), id);
  if (ec != std::errc{} || ptr != ref.data() + ref.size() || id <= 0)
    return fail(ErrorCode::invalid_argument, fmt::format("'{}' is not a run: give a run id or 'last'", ref), {},
                "gpuctl history lists the recorded runs");
  return id;
}

Result<RunReport> load_run_report(state::StateStore& store, state::RunId id) {
  auto run = store.get_run(id);
  if (!run) return std::unexpected(run.error());
  auto recorded = store.check_results(id);
  if (!recorded) return std::unexpected(recorded.error());
  if (recorded->empty())
    return fail(ErrorCode::not_found,
                fmt::format("run {} ({}, {}) recorded no verify check results", id, run->command, to_string(run->status)),
                {},
                "only gpuctl verify and the verify of a drained node during apply record checks; "
                "`gpuctl report last` picks the newest run that has them");
  auto results = store.node_results(id);
  if (!results) return std::unexpected(results.error());

  RunReport report{std::move(*run), {}};
  for (auto& [node, records] : *recorded) {
    NodeVerifyOutcome o;
    for (auto& r : records)
      o.checks.push_back({std::move(r.check), check_status_of(r.status), std::move(r.observed), std::move(r.expected),
                          std::move(r.detail), std::move(r.command), std::move(r.output)});
    o.outcome = outcome_of(node, o.checks);
    report.outcomes.push_back(std::move(o));
  }
  // Nodes verify never reached: a verify run's node without checks, or an unreachable or
  // skipped node of any run (an apply's other nodes were simply not verified: left out).
  for (const auto& r : *results) {
    if (std::ranges::any_of(report.outcomes, [&](const auto& o) { return o.outcome.node == r.node; })) continue;
    const auto status = node_status_of(r.status);
    if (!status) continue;
    const bool unverified = *status == exec::NodeStatus::unreachable || *status == exec::NodeStatus::skipped;
    if (report.run.command != "verify" && !unverified) continue;
    NodeVerifyOutcome o;
    o.outcome = {r.node, *status, r.reason, std::chrono::milliseconds(r.duration_ms)};
    report.outcomes.push_back(std::move(o));
  }
  std::ranges::sort(report.outcomes, {}, [](const auto& o) { return o.outcome.node; });
  return report;
}

std::optional<std::int64_t> unix_time_of(std::string_view iso_utc) {
  std::tm tm{};
  const std::string text(iso_utc);
  const char* end = strptime(text.c_str(), "%Y-%m-%dT%H:%M:%S", &tm);
  if (!end || (*end != 'Z' && *end != '.')) return std::nullopt;
  return static_cast<std::int64_t>(timegm(&tm));
}

}  // namespace gpuctl
