#pragma once
// The run history's use cases: `gpuctl history`, `gpuctl show RUN` and `gpuctl report RUN` (a
// past verify's report again). Read the state store (and, for report's groups, the inventory
// the run read); contact no node; never print.

#include <gpuctl/api/verdict.hpp>
#include <gpuctl/inventory/inventory.hpp>
#include <gpuctl/plan/plan.hpp>
#include <gpuctl/report/history.hpp>
#include <gpuctl/report/run_report.hpp>

#include <expected>
#include <memory>
#include <string>

namespace gpuctl {

// `history`: the recorded runs, newest first; with `node`, that node's steps and GPU slots.
// Failure error when the store cannot be opened or read.
std::expected<HistoryView, Failure> run_history(const std::string& state_path, const std::string& node, int limit);

// `show RUN`: one run in full. Failure invalid_input when there is no such run, else error.
std::expected<RunView, Failure> run_show(const std::string& state_path, std::int64_t run);

// `show PLAN.json`: a plan saved with `gpuctl plan -o`, read back (like `terraform show`). Reads
// the file only; contacts no node. Failure invalid_input when the file cannot be read or is not
// a saved plan (the message names the file and what is wrong).
std::expected<Plan, Failure> run_show_saved_plan(const std::string& path);

struct ReportRequest {
  std::string state_path;
  std::string run;            // a run id, or "last"
  bool want_groups = false;   // the HTML page's group filter needs the run's inventory
};

struct ReportResult {
  RunReport report;
  // The inventory the run read, when it is still there with the digest the run recorded (the
  // history keeps no copy); otherwise `groups_note` says why there are no groups.
  std::shared_ptr<const Inventory> inventory;
  std::string groups_note;
};

// `report RUN`. Failure invalid_input when RUN is neither a number nor "last"; error when there
// is no such run, it recorded no check results, or the store cannot be read.
std::expected<ReportResult, Failure> run_report(const ReportRequest& request);

}  // namespace gpuctl
