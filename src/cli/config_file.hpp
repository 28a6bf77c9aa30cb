#pragma once
// gpuctl.conf: site defaults for command-line options (docs/configuration.md). CLI11 reads it
// (`key = value` lines; `[command]` sections for a subcommand's options); gpuctl checks it
// first, so a misspelt option or section names its file and line instead of being ignored.

#include <gpuctl/core/error.hpp>

#include <CLI/CLI.hpp>

#include <optional>
#include <string>
#include <string_view>

namespace gpuctl::cli {

inline constexpr const char* k_system_config_file = "/etc/gpuctl/gpuctl.conf";

struct ConfigFileChoice {
  std::string path;
  // Named by --config or GPUCTL_CONFIG: then it must exist. The system file may be absent.
  bool named = false;
};

// The value argv gives `flag` (--flag VALUE or --flag=VALUE; empty when it ends there), before
// CLI11 parses: which configuration file to read, and whether a directory option came from the
// command line rather than from the file.
std::optional<std::string> value_on_command_line(int argc, char** argv, std::string_view flag);

// --config FILE (or --config=FILE) from argv, else $GPUCTL_CONFIG, else /etc/gpuctl/gpuctl.conf.
ConfigFileChoice choose_config_file(int argc, char** argv);

// CLI11's reader of the file, with each relative path an option takes (--playbook given as a
// path, --templates, the report and output files) made relative to the file's own directory,
// never to the directory gpuctl happens to run in. A bare playbook name ("gpu-node") stays a
// shipped playbook's name.
std::shared_ptr<CLI::Config> config_reader(const ConfigFileChoice& choice);

// `value` of option `name` as the file at `config_dir` means it (pure).
std::string anchored_config_value(std::string_view name, const std::string& value, const std::string& config_dir);

// Checks `choice` against the options of `app` and its subcommands before CLI11 reads it:
// a regular file (links followed) of at most 64 KiB; every line blank, a comment (#, ;), a
// `[command]` or `[command.subcommand]` section naming a command, or `name = value` naming an
// option of that section's command that a config file may set (a long option, not --config,
// --help or one marked not configurable like apply's --yes). Errors carry file and line and,
// for a misspelling, the closest name. An absent file that was not named is fine.
Result<void> check_config_file(const CLI::App& app, const ConfigFileChoice& choice);

}  // namespace gpuctl::cli
