// gpuctl's entry point: parse the command line, run one subcommand, map its outcome to an
// exit code. Subcommands live in cmd_<name>.cpp and register themselves.

#include "command_registry.hpp"
#include "config_file.hpp"
#include "exit_codes.hpp"

#include <gpuctl/util/open_files.hpp>
#include <gpuctl/util/strings.hpp>

#include <cstdio>
#include <cstdlib>
#include <fmt/format.h>
#include <string>
#include <vector>
#include <string_view>
#include <exception>

namespace {

// True when the command line asks for `--detailed-exitcode` (also as `--detailed-exitcode=...`).
bool detailed_exitcode_requested(int argc, char** argv) {
  for (int i = 1; i < argc; ++i) {
    const std::string_view arg = argv[i];
    if (arg == "--") break;
    if (arg.starts_with(gpuctl::cli::k_detailed_exitcode_flag)) return true;
  }
  return false;
}

// The first word that is not a global option, when it names no command ("plna"): CLI11 would
// only say that a subcommand is required. Empty when the word is a command or there is none.
std::string unknown_command(const CLI::App& app, int argc, char** argv) {
  for (int i = 1; i < argc; ++i) {
    const std::string_view arg = argv[i];
    if (arg == "--color" || arg == "--config" || arg == "--state-dir" || arg == "--secrets-dir") {
      ++i;  // its value
      continue;
    }
    if (arg.starts_with("-")) continue;
    for (const auto* command : app.get_subcommands({}))
      if (command->check_name(std::string(arg))) return {};
    return std::string(arg);
  }
  return {};
}

// GPUCTL_PARSE_ONLY=1: parse the command line as usual and run nothing. The test of the
// documentation (tests/e2e/docs_commands.sh) runs every `gpuctl ...` line of README.md and
// docs/ this way, so that a renamed or removed flag fails the build instead of the reader.
// It exits k_exit_parsed_only, never 0: an environment variable must not turn a CI gate
// (`plan --detailed-exitcode`) green without a plan.
constexpr int k_exit_parsed_only = 96;
bool parse_only() {
  const char* value = std::getenv("GPUCTL_PARSE_ONLY");
  return value != nullptr && std::string_view(value) == "1";
}

// Value checks (a file that must exist, a range) off, for a parse-only run: the examples'
// files are the reader's. Flags, commands, arguments and value types are still parsed.
void disable_value_checks(CLI::App& app) {
  for (auto* option : app.get_options())
    for (int i = 0;; ++i) {
      try {
        option->get_validator(i)->active(false);
      } catch (const CLI::OptionNotFound&) {
        break;
      }
    }
  for (auto* command : app.get_subcommands({})) disable_value_checks(*command);
}

// --state-dir and --secrets-dir reach the library as GPUCTL_STATE_DIR and GPUCTL_SECRETS_DIR,
// which it reads wherever it needs the directory. Precedence as admins expect it: the command
// line, then the environment (a CI job's own state directory), then gpuctl.conf.
void export_directory(const std::string& value, const char* variable, bool on_command_line) {
  if (value.empty()) return;
  const char* current = std::getenv(variable);
  if (on_command_line || current == nullptr || *current == '\0') ::setenv(variable, value.c_str(), 1);
}

std::string did_you_mean(const CLI::App& app, const std::string& word) {
  std::vector<std::string> names;
  for (const auto* command : app.get_subcommands({})) names.push_back(command->get_name());
  const auto match = gpuctl::util::closest_match(word, names);
  return match ? " (did you mean '" + *match + "'?)" : "";
}

}  // namespace

int main(int argc, char** argv) {
  using namespace gpuctl::cli;
  // One socket per node session: a run over a thousand nodes needs more than the usual soft
  // limit of 1,024 descriptors (the Session closes sessions early if even the hard one is short).
  gpuctl::util::raise_open_file_limit();
  CLI::App app{
      "gpuctl brings GPU nodes to a declared state over SSH: plan -> apply -> verify.\n"
      "Example: gpuctl validate cluster.yaml && gpuctl plan cluster.yaml",
      "gpuctl"};
  app.set_version_flag("--version", std::string("gpuctl ") + GPUCTL_VERSION);
  app.require_subcommand(1);
  app.fallthrough();
  GlobalOptions globals;
  app.add_flag("-v,--verbose", globals.verbosity, "More output (repeatable)");
  app.add_flag_callback("-q,--quiet", [&] { globals.verbosity = -1; }, "Only errors");
  app.add_flag("--no-color", globals.no_color, "Disable colour (same as --color=never)");
  app.add_option("--color", globals.color, "Colour: auto (a terminal, unless NO_COLOR is set), always, never")
      ->check(CLI::IsMember({"auto", "always", "never"}))
      ->capture_default_str();
  std::string state_dir, secrets_dir;
  // Absolute: a relative directory in gpuctl.conf would depend on where gpuctl was started.
  const CLI::Validator absolute_path(
      [](std::string& value) {
        return value.starts_with('/') ? std::string{} : "'" + value + "' is not an absolute path (start it with /)";
      },
      "");
  app.add_option("--state-dir", state_dir,
                 "Run history, run logs and (unless --secrets-dir) secrets; default: $GPUCTL_STATE_DIR, else "
                 "~/.local/state/gpuctl. A team's shared one: docs/configuration.md")
      ->check(absolute_path)
      ->type_name("DIR");
  app.add_option("--secrets-dir", secrets_dir,
                 "The cluster secrets' store (the munge key), whatever the state directory; default: "
                 "$GPUCTL_SECRETS_DIR, else STATE_DIR/secrets")
      ->check(absolute_path)
      ->type_name("DIR");
  const auto config = choose_config_file(argc, argv);
  app.config_formatter(config_reader(config));
  app.set_config("--config", config.path,
                 fmt::format("Defaults for options, one 'name = value' a line, [command] sections "
                             "(docs/configuration.md); default: $GPUCTL_CONFIG, else {}, if present",
                             k_system_config_file))
      ->type_name("FILE");

  int exit_code = k_exit_ok;
  add_registered_commands(app, globals, exit_code);
  if (const auto word = unknown_command(app, argc, argv); !word.empty()) {
    std::fprintf(stderr, "gpuctl: unknown command '%s'%s; the commands are listed by gpuctl --help\n", word.c_str(),
                 did_you_mean(app, word).c_str());
    return exit_code_for(gpuctl::Verdict::invalid_input,
                         detailed_exitcode_requested(argc, argv) ? ExitRule::detailed : ExitRule::standard);
  }
  // CLI11 runs the top level's parse-complete callback after every option is read and checked
  // (the configuration file included) and before any subcommand's callback: stopping there runs
  // nothing (Success exits 0).
  const bool only_parse = parse_only();
  if (only_parse) {
    disable_value_checks(app);
    app.set_config("--config")->type_name("FILE");  // a documented --config FILE is the reader's
  } else if (auto ok = check_config_file(app, config); !ok) {
    std::fprintf(stderr, "gpuctl: %s\n", ok.error().to_string().c_str());
    return exit_code_for(gpuctl::Verdict::invalid_input,
                         detailed_exitcode_requested(argc, argv) ? ExitRule::detailed : ExitRule::standard);
  }
  app.parse_complete_callback([&] {
    if (only_parse) {
      std::fprintf(stderr, "gpuctl: GPUCTL_PARSE_ONLY=1: the command line parsed; nothing ran (exit %d)\n", k_exit_parsed_only);
      std::exit(k_exit_parsed_only);
    }
    export_directory(state_dir, "GPUCTL_STATE_DIR", value_on_command_line(argc, argv, "--state-dir").has_value());
    export_directory(secrets_dir, "GPUCTL_SECRETS_DIR", value_on_command_line(argc, argv, "--secrets-dir").has_value());
  });
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    const int code = app.exit(e);
    return code == 0 ? k_exit_ok
                     : exit_code_for(gpuctl::Verdict::invalid_input,
                                     detailed_exitcode_requested(argc, argv) ? ExitRule::detailed : ExitRule::standard);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "gpuctl: internal error: %s\n", e.what());
    return k_exit_error;
  }
  return exit_code;
}
