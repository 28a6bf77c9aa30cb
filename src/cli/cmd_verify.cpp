// `gpuctl verify INVENTORY`: prove each step on each node; a check that could not run is an
// error, never a pass. Results go to stdout (table or JSON) and optionally to JUnit XML, an
// HTML page and a Prometheus textfile.
#include "exit_codes.hpp"
#include "local_files.hpp"
#include "run_support.hpp"

#include <gpuctl/api/verify_use_case.hpp>

#include <gpuctl/report/check_list.hpp>
#include <gpuctl/report/html.hpp>
#include <gpuctl/report/prometheus.hpp>
#include <gpuctl/report/reports.hpp>
#include <gpuctl/report/verify_json.hpp>
#include <gpuctl/util/file_io.hpp>

#include <chrono>
#include <ctime>
#include <fmt/format.h>

namespace gpuctl::cli {
namespace {

struct VerifyCliOptions {
  TargetOptions target;
  StateCliOptions state;
  bool json = false;
  bool expand = false;
  std::string junit;
  std::string html;
  std::string prom;
  std::string from_json;
  int nccl_nodes = 0;
  bool slurm_job = false;
  bool list = false;
};

std::string utc_now() {
  const auto now = std::time(nullptr);
  std::tm tm{};
  gmtime_r(&now, &tm);
  char text[32];
  std::strftime(text, sizeof text, "%Y-%m-%dT%H:%M:%SZ", &tm);
  return text;
}

// Writes the requested report files; false (after printing why) when one cannot be written.
bool write_reports(const VerifyCliOptions& options, const std::vector<NodeVerifyOutcome>& outcomes,
                   const Inventory* inventory) {
  std::vector<std::pair<std::string, std::string>> files;
  if (!options.junit.empty()) files.emplace_back(options.junit, verify_to_junit(outcomes));
  if (!options.html.empty()) {
    HtmlReportInfo info;
    info.generated_at = utc_now();
    if (inventory) info.describe_inventory(*inventory);
    files.emplace_back(options.html, render_verify_html(outcomes, info));
  }
  if (!options.prom.empty())
    files.emplace_back(options.prom, verify_to_prometheus(outcomes, std::time(nullptr)));
  for (const auto& [path, content] : files)
    if (auto written = write_local_file_atomically(path, content); !written) {
      fmt::print(stderr, "gpuctl: {}\n", written.error().to_string());
      return false;
    }
  return true;
}

// --from-json: render a saved result again; the inventory, when given, only supplies groups.
int rerender(const VerifyCliOptions& options, const GlobalOptions& globals) {
  auto text = util::read_local_file(options.from_json, "saved verify result");
  Result<std::vector<NodeVerifyOutcome>> outcomes = std::unexpected(Error{});
  if (text) outcomes = verify_from_json(*text, options.from_json);
  else outcomes = std::unexpected(text.error());
  if (!outcomes) {
    fmt::print(stderr, "gpuctl: {}\n", outcomes.error().to_string());
    return k_exit_usage;
  }
  std::shared_ptr<const Inventory> inventory;
  if (!options.target.inventory.empty()) {
    auto loaded = load_inventory_for_report(options.target.inventory, make_offline_environment(globals));
    if (!loaded) {
      print_failure(loaded.error().message);
      return exit_code_for(loaded.error().verdict);
    }
    inventory = *loaded;
  }
  fmt::print("{}", options.json ? verify_to_json(*outcomes) : render_verify_table(*outcomes, {options.expand}));
  if (!write_reports(options, *outcomes, inventory.get())) return k_exit_error;
  std::vector<exec::NodeStatus> statuses;
  for (const auto& o : *outcomes) statuses.push_back(o.outcome.status);
  return exit_code_for(verdict_for_nodes(statuses, false));
}

int run_verify_command(const VerifyCliOptions& options, const GlobalOptions& globals) {
  if (options.list) {
    fmt::print("{}", options.json ? check_list_to_json() : render_check_list());
    return k_exit_ok;
  }
  if (!options.from_json.empty()) return rerender(options, globals);
  if (options.target.inventory.empty()) {
    fmt::print(stderr, "gpuctl: verify needs INVENTORY (or --from-json FILE, or --list)\n");
    return k_exit_usage;
  }
  const auto result = run_verify({options.target.run_target(), options.nccl_nodes, options.slurm_job},
                                 make_run_environment(options.target, globals, options.state.path));
  if (result.verdict == Verdict::invalid_input) {
    print_failure(result.error);
    return exit_code_for(result.verdict);
  }
  fmt::print("{}", options.json ? verify_to_json(result.outcomes) : render_verify_table(result.outcomes, {options.expand}));
  if (!write_reports(options, result.outcomes, result.inventory.get())) return k_exit_error;
  return exit_code_for(result.verdict);
}

void register_verify_command(CLI::App& app, GlobalOptions& globals, int& exit_code) {
  static VerifyCliOptions options;
  auto* cmd = app.add_subcommand(
      "verify",
      "Prove each node's state: nouveau not loaded, driver version, GPU count and model, ECC and row remaps, "
      "persistence mode, PCIe width, NVLink topology (gpu.nvlink), CUDA/NCCL and a real NCCL all-reduce "
      "(gpu.nccl_allreduce; across nodes through Slurm with --nccl-nodes), DCGM's diagnostic (gpu.dcgm_diag), nccl.conf, services.\n"
      "Exit codes: 0 every check passed, 3 a check failed or could not run, 4 a node unreachable.\n"
      "Example: gpuctl verify cluster.yaml --junit verify.xml --html verify.html --prom /var/lib/prometheus/node-exporter/gpuctl.prom\n"
      "Every check with a line of description: gpuctl verify --list (--json too)");
  add_target_options(*cmd, options.target, /*inventory_required=*/false);
  add_state_option(*cmd, options.state);
  cmd->add_flag("--json", options.json, "Results as JSON on stdout");
  cmd->add_flag("--list", options.list, "Contact no node: list every check gpuctl knows, with its description");
  cmd->add_flag("--expand", options.expand,
                "One row per node (checks as columns) and one line per node's failure. By default checks are rows "
                "with the number of nodes per result, and failures are grouped by check and observed value, naming "
                "their nodes by hostlist");
  cmd->add_option("--nccl-nodes", options.nccl_nodes,
                  "Also run one NCCL all-reduce across each set of N nodes through Slurm: from slurm.controller, salloc "
                  "takes the set's nodes (exclusively, waiting at most 60 s) and srun starts gpuctl's all-reduce on each. "
                  "The GPU nodes that pass every other check form the sets, N at a time in inventory order (a last node "
                  "left alone joins the set before it). Check nccl_allreduce_nodes reports each set's bus bandwidth and "
                  "fails wrong sums or an NCCL that cannot join the nodes. Needs slurm.enabled, and cc and libnccl2 on "
                  "the nodes. Example: --nccl-nodes 2 runs one all-reduce per pair of nodes")
      ->check(CLI::Range(2, k_verify_max_nccl_nodes));
  cmd->add_flag("--slurm-job", options.slurm_job,
                "Also run one short job through Slurm on each GPU node, from the node: srun -w NODE --gres=gpu:N -c 1 "
                "--mem=1024 (waiting at most 60 s for the node). Check slurm_gpu_job fails unless Slurm places it and "
                "gives it exactly the node's GPUs (CUDA_VISIBLE_DEVICES), and, where cgroup.conf constrains devices, "
                "unless nvidia-smi -L in the job lists only those. Needs slurm.enabled. Example: gpuctl verify "
                "cluster.yaml --slurm-job");
  cmd->add_option("--junit", options.junit, "Also write JUnit XML for CI");
  cmd->add_option("--html", options.html, "Also write a self-contained HTML report (nodes x checks grid)");
  cmd->add_option("--prom", options.prom, "Also write node_exporter textfile-collector metrics (atomically)");
  cmd->add_option("--from-json", options.from_json,
                  "Contact no node: render a saved `verify --json` result again (INVENTORY optional, for groups)")
      ->check(CLI::ExistingFile);
  cmd->callback([&] { exit_code = run_verify_command(options, globals); });
}

}  // namespace
GPUCTL_COMMAND(600, register_verify_command);
}  // namespace gpuctl::cli
