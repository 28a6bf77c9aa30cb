#include "config_file.hpp"

#include <gpuctl/util/file_io.hpp>
#include <gpuctl/util/strings.hpp>

#include <cstdlib>
#include <filesystem>
#include <optional>
#include <fmt/format.h>
#include <string_view>
#include <vector>

namespace gpuctl::cli {
namespace {

constexpr std::size_t k_max_config_bytes = 64 * 1024;

Error at_line(const std::string& path, int line, std::string message, std::string hint) {
  return Error{ErrorCode::validation, std::move(message), Location{path, line, 0, {}, {}}, std::move(hint)};
}

std::string suggestion(std::string_view word, const std::vector<std::string>& names) {
  const auto match = util::closest_match(word, names);
  return match ? fmt::format("did you mean '{}'? ", *match) : std::string{};
}

// The long option names a config file may set for `command`.
std::vector<std::string> settable_options(const CLI::App& command) {
  std::vector<std::string> names;
  for (const auto* option : command.get_options()) {
    if (!option->get_configurable() || option->get_lnames().empty()) continue;
    for (const auto& name : option->get_lnames())
      if (name != "help" && name != "config" && name != "version") names.push_back(name);
  }
  return names;
}

std::vector<std::string> command_names(const CLI::App& app) {
  std::vector<std::string> names;
  for (const auto* command : app.get_subcommands({})) names.push_back(command->get_name());
  return names;
}

// The command a `[a.b]` section names, or nullptr.
const CLI::App* section_command(const CLI::App& app, std::string_view section) {
  const CLI::App* command = &app;
  while (!section.empty()) {
    const auto dot = section.find('.');
    const auto part = std::string(section.substr(0, dot));
    const CLI::App* next = nullptr;
    for (const auto* sub : command->get_subcommands({}))
      if (sub->get_name() == part) next = sub;
    if (!next) return nullptr;
    command = next;
    section = dot == std::string_view::npos ? std::string_view{} : section.substr(dot + 1);
  }
  return command;
}

}  // namespace

std::optional<std::string> value_on_command_line(int argc, char** argv, std::string_view flag) {
  for (int i = 1; i < argc; ++i) {
    const std::string_view arg = argv[i];
    if (arg == "--") break;
    if (arg == flag) return i + 1 < argc ? std::string(argv[i + 1]) : std::string{};
    if (arg.starts_with(flag) && arg.substr(flag.size()).starts_with("=")) return std::string(arg.substr(flag.size() + 1));
  }
  return std::nullopt;
}

namespace {

// The options whose values are local paths.
constexpr std::string_view k_path_options[] = {"playbook", "templates", "html", "junit", "prom", "out", "from-json", "state"};

class AnchoredConfig : public CLI::ConfigTOML {
 public:
  explicit AnchoredConfig(std::string dir) : m_dir(std::move(dir)) {}
  std::vector<CLI::ConfigItem> from_config(std::istream& input) const override {
    auto items = CLI::ConfigTOML::from_config(input);
    for (auto& item : items)
      for (auto& value : item.inputs) value = anchored_config_value(item.name, value, m_dir);
    return items;
  }

 private:
  std::string m_dir;
};

}  // namespace

std::string anchored_config_value(std::string_view name, const std::string& value, const std::string& config_dir) {
  if (std::ranges::find(k_path_options, name) == std::end(k_path_options)) return value;
  if (value.empty() || value.starts_with('/')) return value;
  const bool playbook_name = name == "playbook" && value.find('/') == std::string::npos && !value.ends_with(".yaml") &&
                             !value.ends_with(".yml");
  if (playbook_name) return value;
  return (std::filesystem::path(config_dir) / value).lexically_normal().string();
}

std::shared_ptr<CLI::Config> config_reader(const ConfigFileChoice& choice) {
  std::error_code ec;
  const auto file = std::filesystem::absolute(choice.path, ec);
  return std::make_shared<AnchoredConfig>(ec ? std::string("/") : file.parent_path().string());
}

ConfigFileChoice choose_config_file(int argc, char** argv) {
  if (auto given = value_on_command_line(argc, argv, "--config")) return {std::move(*given), true};
  if (const char* env = std::getenv("GPUCTL_CONFIG"); env && *env) return {env, true};
  return {k_system_config_file, false};
}

Result<void> check_config_file(const CLI::App& app, const ConfigFileChoice& choice) {
  std::error_code ec;
  if (!choice.named && !std::filesystem::exists(choice.path, ec)) return {};
  // Links are followed (configuration management links /etc files), to world-readable regular
  // files only: the local-file rules (util/file_io.hpp).
  auto text = util::read_local_file(choice.path, "configuration file", k_max_config_bytes);
  if (!text) {
    auto error = text.error();
    if (error.code == ErrorCode::not_found) error.hint = "give an existing file with --config or GPUCTL_CONFIG, or unset them";
    return std::unexpected(error);
  }

  const CLI::App* command = &app;
  std::string section;
  int line_number = 0;
  std::string_view rest = *text;
  while (!rest.empty()) {
    ++line_number;
    const auto end = rest.find('\n');
    const auto line = util::trim(rest.substr(0, end));
    rest = end == std::string_view::npos ? std::string_view{} : rest.substr(end + 1);
    if (line.empty() || line.front() == '#' || line.front() == ';') continue;
    if (line.front() == '[') {
      if (line.back() != ']')
        return std::unexpected(at_line(choice.path, line_number, fmt::format("'{}' is not a section header", line),
                                       "write a section as [plan] or [hostkeys.scan]"));
      section = std::string(util::trim(line.substr(1, line.size() - 2)));
      command = section_command(app, section);
      if (!command)
        return std::unexpected(at_line(choice.path, line_number, fmt::format("no command '{}'", section),
                                       suggestion(section, command_names(app)) +
                                           "a section names a command of gpuctl --help"));
      continue;
    }
    const auto equals = line.find('=');
    if (equals == std::string_view::npos)
      return std::unexpected(at_line(choice.path, line_number, fmt::format("'{}' is not 'name = value'", line),
                                     "set an option as forks = 32 (its long name, without --)"));
    auto name = std::string(util::trim(line.substr(0, equals)));
    if (name.starts_with("--")) name.erase(0, 2);
    const auto names = settable_options(*command);
    if (std::ranges::find(names, name) != names.end()) continue;
    const auto where = section.empty() ? std::string("gpuctl's global options") : "gpuctl " + section;
    const auto* option = command->get_option_no_throw("--" + name);
    if (option && !option->get_configurable())
      return std::unexpected(at_line(choice.path, line_number,
                                     fmt::format("--{} of {} cannot be set in a configuration file", name, where),
                                     "give it on the command line of each run"));
    return std::unexpected(at_line(choice.path, line_number, fmt::format("{} has no option --{}", where, name),
                                   suggestion(name, names) + fmt::format("see gpuctl {}--help", section.empty() ? "" : section + " ")));
  }
  return {};
}

}  // namespace gpuctl::cli
