// `apply PLAN.json`: reading the saved plan and setting the run up from what it names.
#include "saved_plan_options.hpp"

#include <gpuctl/plan/render.hpp>
#include <gpuctl/util/file_io.hpp>

#include <fmt/format.h>

namespace gpuctl::cli {
namespace {

// What the command line asks for that a saved plan already fixed otherwise; empty when nothing.
std::string conflicting_option(const TargetOptions& given, const Plan& plan) {
  std::vector<std::string> names;
  for (const auto& playbook : plan.playbooks) names.push_back(playbook.name);
  if (!given.limit.empty() && given.limit != plan.limit)
    return fmt::format("--limit '{}' is not the plan's ('{}')", given.limit, plan.limit);
  if (!given.playbooks.empty() && given.playbooks != names) return "--playbook is not the plan's";
  if (!given.templates_dir.empty() && given.templates_dir != plan.templates_dir)
    return fmt::format("--templates '{}' is not the plan's ('{}')", given.templates_dir, plan.templates_dir);
  if (!given.connection.empty() && given.connection != plan.connection)
    return fmt::format("--connection '{}' is not the plan's ('{}')", given.connection, plan.connection);
  return {};
}

}  // namespace

std::optional<Plan> load_saved_plan(TargetOptions& target, int& exit_code) {
  const auto path = target.inventory;
  auto text = util::read_local_file(path);
  if (!text || text->empty() || (*text)[0] != '{') return std::nullopt;  // an inventory, not a plan
  auto plan = plan_from_json(*text, path);
  if (!plan) {
    fmt::print(stderr, "gpuctl: {}\n", plan.error().to_string());
    exit_code = k_exit_usage;
    return std::nullopt;
  }
  if (const auto conflict = conflicting_option(target, *plan); !conflict.empty()) {
    fmt::print(stderr, "gpuctl: {}: {}; a saved plan is applied with the options it was made with\n", path, conflict);
    exit_code = k_exit_usage;
    return std::nullopt;
  }
  target.inventory = plan->inventory_path;
  target.limit = plan->limit;
  target.connection = plan->connection;
  target.templates_dir = plan->templates_dir;
  target.playbooks.clear();
  for (const auto& playbook : plan->playbooks) target.playbooks.push_back(playbook.name);
  return std::move(*plan);
}

}  // namespace gpuctl::cli
