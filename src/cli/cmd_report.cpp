// `gpuctl report RUN`: the verify report of a past run, from the run history: the table (or
// with --json the JSON of `verify --json`) on stdout, and the same HTML, JUnit and Prometheus
// files `gpuctl verify` writes. Contacts no node.
#include "exit_codes.hpp"
#include "local_files.hpp"
#include "run_support.hpp"

#include <gpuctl/api/report_use_case.hpp>
#include <gpuctl/report/html.hpp>
#include <gpuctl/report/prometheus.hpp>
#include <gpuctl/report/reports.hpp>
#include <gpuctl/report/run_report.hpp>

#include <ctime>
#include <fmt/format.h>

namespace gpuctl::cli {
namespace {

struct ReportCliOptions {
  StateCliOptions state;
  std::string run;
  std::string html;
  bool json = false;
  std::string junit;
  std::string prom;
  bool expand = false;
};

int run_report_command(const ReportCliOptions& options) {
  auto result = run_report({options.state.path, options.run, !options.html.empty()});
  if (!result) {
    print_failure(result.error().message);
    return exit_code_for(result.error().verdict);
  }
  const auto& report = result->report;
  const auto& run = report.run;
  const auto when = run.finished.empty() ? run.started : run.finished;
  std::vector<std::pair<std::string, std::string>> files;
  if (!options.html.empty()) {
    HtmlReportInfo info;
    info.title = fmt::format("gpuctl {} (run {})", run.command, run.id);
    info.generated_at = when;
    if (result->inventory) info.describe_inventory(*result->inventory);
    else if (!result->groups_note.empty()) fmt::print(stderr, "gpuctl: note: {}\n", result->groups_note);
    files.emplace_back(options.html, render_verify_html(report.outcomes, info));
  }
  if (!options.junit.empty()) files.emplace_back(options.junit, verify_to_junit(report.outcomes));
  if (!options.prom.empty())
    files.emplace_back(options.prom, verify_to_prometheus(report.outcomes, unix_time_of(when).value_or(std::time(nullptr))));
  for (const auto& [path, content] : files)
    if (auto written = write_local_file_atomically(path, content); !written) {
      fmt::print(stderr, "gpuctl: {}\n", written.error().to_string());
      return k_exit_error;
    }
  if (options.json) {
    fmt::print("{}", verify_to_json(report.outcomes));
    return k_exit_ok;
  }
  fmt::print("Run {}: {} ({}), {} by {}\n\n{}", run.id, run.command, to_string(run.status), when, run.process.who,
             render_verify_table(report.outcomes, {options.expand}));
  return k_exit_ok;
}

void register_report_command(CLI::App& app, GlobalOptions&, int& exit_code) {
  static ReportCliOptions options;
  auto* cmd = app.add_subcommand(
      "report",
      "Render the verify report of a recorded run again, from the run history (no node is contacted): the table "
      "(or --json) on stdout, and HTML, JUnit or Prometheus files like verify writes. RUN is a run id from gpuctl "
      "history, or 'last' for the newest run with check results.\n"
      "Exit codes: 0 rendered, 1 no such run or it recorded no check results, 2 RUN is neither a number nor last.\n"
      "Example: gpuctl report last --html verify.html\n"
      "Example: gpuctl report 42 --json > verify-42.json");
  add_state_option(*cmd, options.state);
  cmd->add_option("RUN", options.run, "Run id (from gpuctl history) or 'last'")->required();
  cmd->add_option("--html", options.html, "Also write a self-contained HTML report (nodes x checks grid)");
  cmd->add_flag("--json", options.json,
                "The results as JSON on stdout instead of the table (the format of verify --json; to keep a file, "
                "redirect: > FILE)");
  cmd->add_option("--junit", options.junit, "Also write JUnit XML");
  cmd->add_option("--prom", options.prom,
                  "Also write node_exporter textfile-collector metrics (timestamp: the run's end)");
  cmd->add_flag("--expand", options.expand, "One row per node and one line per node's failure (as verify --expand)");
  cmd->callback([&] { exit_code = run_report_command(options); });
}

}  // namespace
GPUCTL_COMMAND(720, register_report_command);
}  // namespace gpuctl::cli
