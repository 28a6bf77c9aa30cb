// `gpuctl version`: the version, for scripts that prefer a subcommand to --version.
#include "command_registry.hpp"

#include <fmt/format.h>

namespace gpuctl::cli {
namespace {
void register_version_command(CLI::App& app, GlobalOptions&, int& exit_code) {
  auto* cmd = app.add_subcommand("version", "Print gpuctl's version\nExample: gpuctl version");
  cmd->callback([&exit_code] {
    fmt::print("gpuctl {}\n", GPUCTL_VERSION);
    exit_code = k_exit_ok;
  });
}
}  // namespace
GPUCTL_COMMAND(1000, register_version_command);
}  // namespace gpuctl::cli
