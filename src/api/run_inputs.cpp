// Loading a run's inputs once, for every use case on nodes (run_inputs.hpp).
#include "run_inputs.hpp"

#include <gpuctl/api/inventory_use_case.hpp>

#include <gpuctl/inventory/loader.hpp>
#include <gpuctl/playbook/loader.hpp>
#include <gpuctl/state/secret_store.hpp>
#include <gpuctl/template/renderer.hpp>

namespace gpuctl::use_case {
namespace {

std::optional<ConnectionKind> connection_override(const std::string& text) {
  if (text == "local") return ConnectionKind::local;
  if (text == "ssh") return ConnectionKind::ssh;
  return std::nullopt;
}

}  // namespace

SecretProvider secret_store_at(const std::string& secrets_dir) {
  return SecretProvider{
      .load_or_create = [secrets_dir](const std::string& name) { return state::load_or_create_secret(secrets_dir, name); },
      .load = [secrets_dir](const std::string& name) { return state::load_secret(secrets_dir, name); },
      .directory = secrets_dir,
  };
}

std::expected<std::unique_ptr<SelectedInventory>, Failure> load_selected(const std::string& path,
                                                                         const std::string& limit,
                                                                         const RunEnvironment& env) {
  LoadResult loaded = load_inventory(path);
  if (env.on_diagnostic)
    for (const auto& diagnostic : loaded.diagnostics) env.on_diagnostic(diagnostic);
  if (!loaded.ok()) return std::unexpected(Failure{Verdict::invalid_input, {}});
  auto selected = std::make_unique<SelectedInventory>();
  selected->inventory = std::move(*loaded.inventory);
  auto nodes = select_nodes(selected->inventory, limit);
  if (!nodes) return std::unexpected(Failure{Verdict::invalid_input, "--limit: " + nodes.error().to_string()});
  selected->nodes = std::move(*nodes);
  return selected;
}

std::expected<std::unique_ptr<RunInputs>, Failure> load_run_inputs(const RunTarget& target, const RunEnvironment& env) {
  auto inputs = std::make_unique<RunInputs>();
  auto selected = load_selected(target.inventory, target.limit, env);
  if (!selected) return std::unexpected(selected.error());
  inputs->selected = std::move(*selected);
  const auto playbook_names = target.playbooks.empty() ? default_playbook_names() : target.playbooks;
  auto playbooks = load_playbooks(playbook_names, playbook_rules());
  if (!playbooks) return std::unexpected(Failure{Verdict::invalid_input, playbooks.error().to_string()});
  inputs->playbooks = std::move(*playbooks);
  auto& session = inputs->session;
  session.playbook_names = playbook_names;
  session.forks = target.forks;
  session.cancel = env.cancel;
  session.sources.templates_dir = target.templates_dir.empty() ? default_templates_dir() : target.templates_dir;
  if (env.secrets_dir.empty()) {
    auto secrets_dir = state::default_secrets_dir(inputs->selected->inventory.cluster.name);
    if (!secrets_dir) return std::unexpected(Failure{Verdict::invalid_input, secrets_dir.error().to_string()});
    session.sources.secret_store = secret_store_at(*secrets_dir);
  } else {
    session.sources.secret_store = secret_store_at(env.secrets_dir);
  }
  inputs->factory = env.transport_factory ? env.transport_factory
                                          : default_transport_factory(connection_override(target.connection));
  if (!env.transport_factory && connection_override(target.connection)) session.peer_transports = default_transport_factory();
  inputs->hooks = std::make_unique<TeeHooks>();
  if (env.make_progress)
    if (auto progress = env.make_progress()) inputs->hooks->add(std::move(progress));
  return inputs;
}

std::optional<Verdict> ask(const std::function<Confirmation()>& confirm) {
  switch (confirm ? confirm() : Confirmation::go) {
    case Confirmation::go: return std::nullopt;
    case Confirmation::declined: return Verdict::declined;
    case Confirmation::cannot_ask: break;
  }
  return Verdict::invalid_input;
}

std::unique_ptr<Session> make_session(RunInputs& inputs) {
  return std::make_unique<Session>(inputs.selected->inventory, inputs.selected->nodes, std::move(inputs.playbooks),
                                   inputs.factory, inputs.session, *inputs.hooks);
}

}  // namespace gpuctl::use_case

namespace gpuctl {
std::string default_run_log_dir() { return state::default_state_dir() + "/logs"; }
}  // namespace gpuctl
