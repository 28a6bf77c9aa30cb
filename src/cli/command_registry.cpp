#include "command_registry.hpp"

#include <algorithm>
#include <vector>

namespace gpuctl::cli {
namespace {
std::vector<std::pair<int, CommandRegistrar>>& registry() {
  static std::vector<std::pair<int, CommandRegistrar>> commands;
  return commands;
}
}  // namespace

bool register_command(int order, CommandRegistrar registrar) {
  registry().emplace_back(order, std::move(registrar));
  return true;
}

void add_registered_commands(CLI::App& app, GlobalOptions& globals, int& exit_code) {
  auto& commands = registry();
  std::ranges::stable_sort(commands, {}, &std::pair<int, CommandRegistrar>::first);
  for (auto& [order, registrar] : commands) registrar(app, globals, exit_code);
}

}  // namespace gpuctl::cli
