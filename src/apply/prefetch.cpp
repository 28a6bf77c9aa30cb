#include <gpuctl/apply/prefetch.hpp>

#include "change_commands.hpp"

#include <fmt/format.h>

namespace gpuctl {

std::string prefetch_script(const NodeProgram& program, const NodePlan& plan) {
  std::vector<PackageResource> packages;
  for (const auto& change : plan.changes) {
    if (change.action != Action::create && change.action != Action::update) continue;
    if (change.step_index >= program.steps.size()) continue;
    const auto& resources = program.steps[change.step_index].resources;
    if (change.resource_index >= resources.size()) continue;
    const auto& resource = resources[change.resource_index].resource;
    if (resource.kind != ResourceKind::package || resource.package.state != PackageState::present) continue;
    packages.push_back(resource.package);
  }
  // All in one apt-get call: resolved together, a driver metapackage's dependencies are the new
  // versions fetched with it (one by one, apt would hold it to the installed ones and refuse).
  return packages.empty() ? std::string() : apply_detail::packages_download_command(packages);
}

bool prefetch_packages(exec::TransportPool& pool, const Node& node, const NodeProgram& program, const NodePlan& plan,
                       RunHooks& hooks) {
  const auto script = prefetch_script(program, plan);
  if (script.empty()) return true;
  const auto not_fetched = [&](const std::string& why) {
    hooks.on_message(node.name, fmt::format("packages not fetched before the drain ({}): the install downloads them "
                                            "while the node is drained",
                                            why));
    return false;
  };
  auto transport = pool.get(node);
  if (!transport) return not_fetched(transport.error().to_string());
  CommandOptions options;
  options.timeout = std::chrono::seconds(node.connection.command_timeout_s);
  options.become = node.connection.become;
  const std::string shown = "apt-get install --download-only (the plan's packages, before the drain)";
  auto result = (*transport)->run(script, options);
  if (!result) return not_fetched(result.error().to_string());
  hooks.on_command(node.name, shown, result->exit_code, result->duration, result->out + result->err);
  if (!result->ok()) return not_fetched(fmt::format("exit {}", result->exit_code));
  hooks.on_message(node.name, "packages fetched into apt's cache before the drain");
  return true;
}

}  // namespace gpuctl
