// The run history's use cases (api/report_use_case.hpp).
#include <gpuctl/api/report_use_case.hpp>

#include "recorded_run.hpp"

#include <gpuctl/inventory/loader.hpp>
#include <gpuctl/plan/render.hpp>
#include <gpuctl/util/file_io.hpp>

#include <fmt/format.h>

namespace gpuctl {

std::expected<HistoryView, Failure> run_history(const std::string& state_path, const std::string& node, int limit) {
  auto store = use_case::open_state_store(state_path);
  if (!store) return std::unexpected(Failure{Verdict::error, store.error().to_string()});
  auto history = load_history(**store, {node, limit});
  if (!history) return std::unexpected(Failure{Verdict::error, history.error().to_string()});
  return std::move(*history);
}

std::expected<RunView, Failure> run_show(const std::string& state_path, std::int64_t id) {
  auto store = use_case::open_state_store(state_path);
  if (!store) return std::unexpected(Failure{Verdict::error, store.error().to_string()});
  auto run = load_run(**store, id);
  if (!run)
    return std::unexpected(Failure{run.error().code == ErrorCode::not_found ? Verdict::invalid_input : Verdict::error,
                                   run.error().to_string()});
  return std::move(*run);
}

std::expected<Plan, Failure> run_show_saved_plan(const std::string& path) {
  auto text = util::read_local_file(path, "saved plan");
  if (!text) return std::unexpected(Failure{Verdict::invalid_input, text.error().to_string()});
  auto plan = plan_from_json(*text, path);
  if (!plan) return std::unexpected(Failure{Verdict::invalid_input, plan.error().to_string()});
  return std::move(*plan);
}

std::expected<ReportResult, Failure> run_report(const ReportRequest& request) {
  auto store = use_case::open_state_store(request.state_path);
  if (!store) return std::unexpected(Failure{Verdict::error, store.error().to_string()});
  auto id = resolve_report_run(**store, request.run);
  auto report = id ? load_run_report(**store, *id) : std::unexpected(id.error());
  if (!report)
    return std::unexpected(Failure{
        report.error().code == ErrorCode::invalid_argument ? Verdict::invalid_input : Verdict::error,
        report.error().to_string()});
  ReportResult result;
  result.report = std::move(*report);
  const auto& run = result.report.run;
  if (request.want_groups && !run.inventory_path.empty()) {
    // Groups from a changed inventory could be wrong: only the one the run read is used.
    auto loaded = load_inventory(run.inventory_path);
    if (loaded.ok() && loaded.inventory->digest == run.inventory_digest)
      result.inventory = std::make_shared<const Inventory>(std::move(*loaded.inventory));
    else
      result.groups_note = fmt::format("the HTML report has no group filter: {} {} since run {}", run.inventory_path,
                                       loaded.ok() ? "changed" : "cannot be read", run.id);
  }
  return result;
}

}  // namespace gpuctl
