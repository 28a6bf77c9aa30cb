#pragma once
// What every use case on nodes starts with: the inventory loaded and its nodes selected, the
// playbooks, the session's options, how nodes are reached, and the run's listeners. Internal
// to src/api. Reads files (inventory, playbooks); contacts no node; never prints.

#include <gpuctl/api/apply_use_case.hpp>
#include <gpuctl/api/run_request.hpp>
#include <gpuctl/api/session.hpp>
#include <gpuctl/api/verdict.hpp>

#include <expected>
#include <memory>

namespace gpuctl::use_case {

// An inventory and the nodes selected from it. The nodes point into the inventory: never copy.
struct SelectedInventory {
  Inventory inventory;
  std::vector<const Node*> nodes;
};

// Loads `path` (each diagnostic to env.on_diagnostic) and selects `limit`. Failure
// invalid_input for an invalid inventory (empty message: the diagnostics said it) or a bad
// --limit ("--limit: ...").
std::expected<std::unique_ptr<SelectedInventory>, Failure> load_selected(const std::string& path,
                                                                         const std::string& limit,
                                                                         const RunEnvironment& env);

// The secret provider of a run's programs: the state module's secret store at `secrets_dir`
// (load_or_create_secret, load_secret), which the planner must not open itself.
SecretProvider secret_store_at(const std::string& secrets_dir);

// Everything a Session needs, and the run's listeners (a TeeHooks: the progress display
// first, then whatever is added, e.g. the run recorder).
struct RunInputs {
  std::unique_ptr<SelectedInventory> selected;
  std::vector<Playbook> playbooks;
  SessionOptions session;
  TransportFactory factory;
  std::unique_ptr<TeeHooks> hooks;
};

// Loads and checks everything the target names. Failure invalid_input for bad input.
std::expected<std::unique_ptr<RunInputs>, Failure> load_run_inputs(const RunTarget& target, const RunEnvironment& env);

// Asks the operator through `confirm` (none: go). nullopt: go on; else the verdict to stop with:
// declined, or invalid_input when there is no one to ask.
std::optional<Verdict> ask(const std::function<Confirmation()>& confirm);

// A Session over the inputs' selected nodes (it takes the playbooks).
std::unique_ptr<Session> make_session(RunInputs& inputs);

}  // namespace gpuctl::use_case
