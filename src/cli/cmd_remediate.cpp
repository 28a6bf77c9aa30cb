// `gpuctl remediate INVENTORY [NODES]`: each failing node gets the remedy gpuctl's health policy
// names for its faults (GPU reset, reboot, or left drained for a person), inside an owned Slurm
// drain, and is resumed only when DCGM's diagnostic and verify pass.
#include "exit_codes.hpp"
#include "node_workflow_support.hpp"

#include <gpuctl/api/remediate_use_case.hpp>

#include <fmt/format.h>

namespace gpuctl::cli {
namespace {

struct RemediateCliOptions {
  TargetOptions target;
  StateCliOptions state;
  std::string nodes;
  bool yes = false;
  bool json = false;
  bool dry_run = false;
  bool stop_jobs = false;
  int drain_timeout_s = 3600;
  std::string batch_size = "1";
  std::string max_fail;
};

int run_remediate_command(const RemediateCliOptions& options, const GlobalOptions& globals) {
  RemediateRequest request;
  request.target = options.target.run_target();
  if (!options.nodes.empty() && !request.target.limit.empty()) {
    fmt::print(stderr, "gpuctl: remediate takes the nodes once: as NODES or as --limit, not both\n");
    return k_exit_usage;
  }
  if (!options.nodes.empty()) request.target.limit = options.nodes;
  request.options.dry_run = options.dry_run;
  request.drain_timeout = std::chrono::seconds(options.drain_timeout_s);
  request.stop_jobs = options.stop_jobs;
  auto rollout = parse_batch_size(options.batch_size);
  if (!rollout) {
    fmt::print(stderr, "gpuctl: --batch-size: {}\n", rollout.error().message);
    return k_exit_usage;
  }
  request.rollout = *rollout;
  if (!options.max_fail.empty()) {
    auto percent = parse_percent(options.max_fail);
    if (!percent) {
      fmt::print(stderr, "gpuctl: --max-fail: {}\n", percent.error().message);
      return k_exit_usage;
    }
    request.rollout.max_fail_percent = *percent;
  }
  const auto question = fmt::format("Drain, remedy (reset or reboot) and verify the failing nodes of {}?",
                                    options.nodes.empty() ? std::string("the inventory") : options.nodes);
  const auto result = run_remediate(request, [&] { return confirm_workflow(options.yes, "remediate", question); },
                                    make_run_environment(options.target, globals, options.state.path));
  print_failure(result.error);
  if (options.json) {
    std::string out = "[";
    for (std::size_t i = 0; i < result.reports.size(); ++i)
      out += (i ? ",\n" : "\n") + workflow_report_to_json(result.reports[i]);
    fmt::print("{}]\n", out);
  } else {
    for (const auto& report : result.reports) fmt::print("{}", render_workflow_report(report));
    for (const auto& node : result.not_started) fmt::print("{}: not started (--max-fail reached)\n", node);
  }
  return exit_code_for(result.verdict);
}

void register_remediate_command(CLI::App& app, GlobalOptions& globals, int& exit_code) {
  static RemediateCliOptions options;
  auto* cmd = app.add_subcommand(
      "remediate",
      "Diagnose each selected node with verify and, where it fails on a GPU fault, take the remedy gpuctl's "
      "health policy gives (gpuctl verify --list shows it; docs/remediation.md): with Slurm enabled, drain the "
      "node (reason \"gpuctl run: remediate\") and wait for its jobs (--drain-timeout), or cancel them (--stop-jobs); then a GPU reset "
      "(nvidia-smi -r with DCGM, its exporter, the fabric manager and nvidia-persistenced stopped and started "
      "again; a failed reset escalates to a reboot) or a reboot; then DCGM's diagnostic at the policy's level and "
      "verify. The node is resumed only when they pass; otherwise it stays drained with the failing check as the "
      "reason. Faults no reset or reboot fixes (RMA, unknown Xids) drain the node and leave it drained with the "
      "faults. A node drained by someone else is worked on and never resumed. Nodes that pass, or fail only "
      "configuration checks (fix those with gpuctl apply), are not touched.\n"
      "Exit codes: 0 ok (nothing to do, or remedied and resumed), 1 declined, 2 bad input, 3 a node failed "
      "(left drained), 4 unreachable, 5 another run holds the inventory's lock, 130 interrupted.\n"
      "Example: gpuctl remediate cluster.yaml gpu05 --dry-run; gpuctl remediate cluster.yaml 'gpu[01-64]' --yes "
      "--batch-size 2 --max-fail 10%");
  options.target.command = "remediate";
  cmd->add_option("INVENTORY", options.target.inventory, "Cluster inventory (YAML)")->check(CLI::ExistingFile)->required();
  cmd->add_option("NODES", options.nodes,
                  "Nodes, groups or hostlists as --limit takes them (gpu[01-08],head01); default: every node");
  cmd->add_option("-l,--limit", options.target.limit, "The nodes, as NODES takes them (the other commands' form)");
  add_state_option(*cmd, options.state);
  cmd->add_flag("--dry-run", options.dry_run, "Diagnose and show the remedy each node would get; change nothing");
  cmd->add_flag("-y,--yes", options.yes, "Do not ask for confirmation (needed without a terminal)")->configurable(false);
  cmd->add_flag("--json", options.json, "The reports as a JSON list on stdout");
  cmd->add_option("-p,--playbook", options.target.playbooks,
                  "A shipped playbook by name, or a file given as a path (repeatable; default: gpu-node and head-node): "
                  "its checks are the ones verify runs");
  cmd->add_option("--templates", options.target.templates_dir, "Directory of templates (default: the shipped ones)");
  add_drain_timeout_option(*cmd, options.drain_timeout_s);
  cmd->add_flag("--stop-jobs", options.stop_jobs,
                "Cancel the drained node's jobs (scancel -w NODE) instead of waiting for them to end: for a GPU "
                "fault that already broke them");
  cmd->add_option("--batch-size", options.batch_size, "Remedy N nodes (or P% of them) at a time (default: 1)");
  cmd->add_option("--max-fail", options.max_fail,
                  "Start no new batch once more than P% of the nodes so far failed or were unreachable");
  cmd->add_flag("--no-progress", options.target.no_progress, "No live progress view: plain lines on stderr");
  cmd->callback([&] { exit_code = run_remediate_command(options, globals); });
}

}  // namespace
GPUCTL_COMMAND(525, register_remediate_command);
}  // namespace gpuctl::cli
