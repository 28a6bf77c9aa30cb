// `gpuctl verify INVENTORY`: prove each step on each node; a check that could not run is an
// error, never a pass.
#include "local_files.hpp"
#include "node_exit_code.hpp"
#include "run_support.hpp"
#include "state_support.hpp"

#include <gpuctl/report/reports.hpp>

#include <fmt/format.h>

namespace gpuctl::cli {
namespace {

struct VerifyCliOptions {
  TargetOptions target;
  StateCliOptions state;
  bool json = false;
  std::string junit;
};

int run_verify(const VerifyCliOptions& options, const GlobalOptions& globals) {
  int exit_code = k_exit_ok;
  auto setup = prepare_run(options.target, globals, exit_code);
  if (!setup) return exit_code;
  // Verify takes no lock (it changes nothing) and still runs when the history cannot be written.
  int state_exit = k_exit_ok;
  auto recorded = start_recorded_run(*setup, options.state, "verify", state::LockMode::none, state_exit);
  if (!recorded) fmt::print(stderr, "gpuctl: warning: this verify is not recorded in the run history\n");
  Session session(setup->selected->inventory, setup->selected->nodes, std::move(setup->playbooks), setup->factory,
                  setup->session, *setup->hooks);
  const auto outcomes = session.verify();
  if (recorded) {
    recorded->recorder->record_facts(session);
    recorded->recorder->record_outcomes(outcomes);
    const auto statuses = outcomes | std::views::transform([](const auto& o) { return o.outcome; });
    finish_recorded_run(*recorded, run_status_for(std::vector(statuses.begin(), statuses.end()),
                                                  setup->session.cancel->cancelled()));
  }
  fmt::print("{}", options.json ? verify_to_json(outcomes) : render_verify_table(outcomes));
  if (!options.junit.empty())
    if (auto written = write_local_file_atomically(options.junit, verify_to_junit(outcomes)); !written) {
      fmt::print(stderr, "gpuctl: {}\n", written.error().to_string());
      return k_exit_error;
    }
  return exit_code_for_nodes(outcomes | std::views::transform([](const auto& o) { return o.outcome.status; }),
                             setup->session.cancel->cancelled());
}

void register_verify_command(CLI::App& app, GlobalOptions& globals, int& exit_code) {
  static VerifyCliOptions options;
  auto* cmd = app.add_subcommand(
      "verify",
      "Prove each node's state: nouveau not loaded, driver version, GPU count and model, ECC and row remaps, "
      "persistence mode, PCIe width, CUDA/NCCL, nccl.conf, services.\n"
      "Exit codes: 0 every check passed, 3 a check failed or could not run, 4 a node unreachable.\n"
      "Example: gpuctl verify cluster.yaml --junit verify.xml");
  add_target_options(*cmd, options.target);
  add_state_option(*cmd, options.state);
  cmd->add_flag("--json", options.json, "Results as JSON on stdout");
  cmd->add_option("--junit", options.junit, "Also write JUnit XML for CI");
  cmd->callback([&] { exit_code = run_verify(options, globals); });
}

}  // namespace
GPUCTL_COMMAND(600, register_verify_command);
}  // namespace gpuctl::cli
