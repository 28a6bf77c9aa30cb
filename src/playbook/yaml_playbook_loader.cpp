// The only playbook file that includes yaml-cpp: turns YAML into a checked Playbook.
#include <gpuctl/playbook/loader.hpp>

#include <gpuctl/playbook/shell_text.hpp>
#include <gpuctl/util/file_io.hpp>
#include <gpuctl/util/sha256.hpp>
#include <gpuctl/util/strings.hpp>

#include <fmt/format.h>
#include <yaml-cpp/yaml.h>

#include <fstream>
#include <set>
#include <sstream>

namespace gpuctl {
namespace {

class Reader {
 public:
  explicit Reader(std::string path) : m_path(std::move(path)) {}

  Error error_at(const YAML::Node& node, std::string message, std::string hint = {}) const {
    const auto mark = node.Mark();
    return Error{ErrorCode::validation, std::move(message),
                 Location{m_path, mark.line >= 0 ? mark.line + 1 : 0, mark.column >= 0 ? mark.column + 1 : 0, {}, {}},
                 std::move(hint)};
  }

  // Checks that `map` is a mapping whose keys are all in `allowed`, once each.
  Result<void> check_keys(const YAML::Node& map, std::string_view where, const std::vector<std::string>& allowed) const {
    if (!map.IsMap()) return std::unexpected(error_at(map, fmt::format("{} must be a mapping", where)));
    std::set<std::string> seen;
    for (const auto& entry : map) {
      const auto key = entry.first.as<std::string>();
      if (!seen.insert(key).second)
        return std::unexpected(error_at(entry.first, fmt::format("duplicate key '{}' in {}", key, where)));
      if (std::ranges::find(allowed, key) == allowed.end()) {
        const auto suggestion = util::closest_match(key, allowed);
        return std::unexpected(error_at(entry.first, fmt::format("unknown key '{}' in {}", key, where),
                                        suggestion ? fmt::format("did you mean '{}'?", *suggestion)
                                                   : fmt::format("allowed: {}", util::join(allowed, ", "))));
      }
    }
    return {};
  }

  Result<std::string> text(const YAML::Node& map, const char* key, std::string_view where) const {
    const auto node = map[key];
    if (!node) return std::string{};
    if (!node.IsScalar()) return std::unexpected(error_at(node, fmt::format("'{}' in {} must be a string", key, where)));
    return node.Scalar();
  }

  Result<std::vector<std::string>> list(const YAML::Node& map, const char* key, std::string_view where) const {
    std::vector<std::string> out;
    const auto node = map[key];
    if (!node) return out;
    if (node.IsScalar()) return std::vector<std::string>{node.Scalar()};
    if (!node.IsSequence()) return std::unexpected(error_at(node, fmt::format("'{}' in {} must be a list", key, where)));
    for (const auto& item : node) {
      if (!item.IsScalar()) return std::unexpected(error_at(item, fmt::format("'{}' in {} must list strings", key, where)));
      out.push_back(item.Scalar());
    }
    return out;
  }

  Result<std::optional<bool>> boolean(const YAML::Node& map, const char* key, std::string_view where) const {
    const auto node = map[key];
    if (!node) return std::optional<bool>{};
    bool value = false;
    if (!node.IsScalar() || !YAML::convert<bool>::decode(node, value))
      return std::unexpected(error_at(node, fmt::format("'{}' in {} must be true or false", key, where)));
    return std::optional<bool>{value};
  }

  // Refuses now, with the field's position, what substitution would refuse on every node: a
  // `{{name}}` where no quoting makes a value literal, an unterminated quote (shell_text.hpp).
  Result<void> check_shell_command(const YAML::Node& map, const char* key, const std::string& command) const {
    if (auto references = find_shell_references(command); !references)
      return std::unexpected(error_at(map[key], references.error().message, references.error().hint));
    return {};
  }

  const std::string& path() const { return m_path; }

 private:
  std::string m_path;
};

#define GPUCTL_TRY(var, expr)            \
  auto var##_result = (expr);            \
  if (!var##_result) return std::unexpected(var##_result.error()); \
  auto var = std::move(*var##_result)

Result<Resource> read_resource(const Reader& r, const YAML::Node& node, std::string_view step) {
  const auto where = fmt::format("a resource of step '{}'", step);
  static const std::vector<std::string> keys{"file", "template", "source", "secret", "mode", "owner", "group",
                                             "package", "state", "version", "hold",
                                             "service", "enabled", "running",
                                             "command", "creates", "unless", "reason", "notify", "when"};
  if (auto ok = r.check_keys(node, where, keys); !ok) return std::unexpected(ok.error());
  Resource resource;
  resource.line = node.Mark().line + 1;
  const int kinds = !!node["file"] + !!node["package"] + !!node["service"] + !!node["command"];
  if (kinds != 1)
    return std::unexpected(r.error_at(node, fmt::format("{} must have exactly one of file, package, service, command", where)));
  GPUCTL_TRY(notify, r.list(node, "notify", where));
  GPUCTL_TRY(when, r.text(node, "when", where));
  resource.notify = notify;
  resource.when = when;
  if (node["file"]) {
    resource.kind = ResourceKind::file;
    auto& f = resource.file;
    GPUCTL_TRY(path, r.text(node, "file", where));
    GPUCTL_TRY(template_name, r.text(node, "template", where));
    GPUCTL_TRY(source, r.text(node, "source", where));
    GPUCTL_TRY(secret, r.text(node, "secret", where));
    GPUCTL_TRY(mode, r.text(node, "mode", where));
    GPUCTL_TRY(owner, r.text(node, "owner", where));
    GPUCTL_TRY(group, r.text(node, "group", where));
    f.path = path;
    f.template_name = template_name;
    f.source = source;
    f.secret = secret;
    if ((!template_name.empty()) + (!source.empty()) + (!secret.empty()) != 1)
      return std::unexpected(r.error_at(node, fmt::format("file '{}' needs exactly one of template, source, secret", path)));
    if (!mode.empty()) {
      std::uint32_t value = 0;
      std::istringstream in(mode);
      if (mode.size() < 3 || mode.size() > 4 || !(in >> std::oct >> value) || !in.eof() || value > 07777)
        return std::unexpected(r.error_at(node["mode"], fmt::format("mode '{}' of '{}' is not an octal mode", mode, path),
                                          "quote it, e.g. mode: \"0644\""));
      f.mode = value;
    }
    if (!owner.empty()) f.owner = owner;
    if (!group.empty()) f.group = group;
  } else if (node["package"]) {
    resource.kind = ResourceKind::package;
    auto& p = resource.package;
    GPUCTL_TRY(name, r.text(node, "package", where));
    GPUCTL_TRY(state, r.text(node, "state", where));
    GPUCTL_TRY(version, r.text(node, "version", where));
    GPUCTL_TRY(hold, r.boolean(node, "hold", where));
    p.name = name;
    p.version = version;
    p.hold = hold.value_or(false);
    if (state == "absent") p.state = PackageState::absent;
    else if (!state.empty() && state != "present")
      return std::unexpected(r.error_at(node["state"], fmt::format("package state '{}' is not present or absent", state)));
  } else if (node["service"]) {
    resource.kind = ResourceKind::service;
    GPUCTL_TRY(name, r.text(node, "service", where));
    GPUCTL_TRY(enabled, r.boolean(node, "enabled", where));
    GPUCTL_TRY(running, r.boolean(node, "running", where));
    resource.service = ServiceResource{name, enabled, running};
  } else {
    resource.kind = ResourceKind::command;
    GPUCTL_TRY(run, r.text(node, "command", where));
    GPUCTL_TRY(creates, r.text(node, "creates", where));
    GPUCTL_TRY(unless, r.text(node, "unless", where));
    GPUCTL_TRY(reason, r.text(node, "reason", where));
    if (auto ok = r.check_shell_command(node, "command", run); !ok) return std::unexpected(ok.error());
    if (auto ok = r.check_shell_command(node, "unless", unless); !ok) return std::unexpected(ok.error());
    resource.command = CommandResource{run, creates, unless, reason};
  }
  return resource;
}

Result<Step> read_step(const Reader& r, const YAML::Node& node) {
  static const std::vector<std::string> keys{"name", "description", "when", "resources", "reboot", "reboot_unless", "checks"};
  if (auto ok = r.check_keys(node, "a step", keys); !ok) return std::unexpected(ok.error());
  Step step;
  step.line = node.Mark().line + 1;
  GPUCTL_TRY(name, r.text(node, "name", "a step"));
  if (name.empty()) return std::unexpected(r.error_at(node, "a step needs a name"));
  const auto where = fmt::format("step '{}'", name);
  GPUCTL_TRY(description, r.text(node, "description", where));
  GPUCTL_TRY(when, r.text(node, "when", where));
  GPUCTL_TRY(reboot, r.text(node, "reboot", where));
  GPUCTL_TRY(checks, r.list(node, "checks", where));
  GPUCTL_TRY(reboot_unless, r.text(node, "reboot_unless", where));
  if (auto ok = r.check_shell_command(node, "reboot_unless", reboot_unless); !ok) return std::unexpected(ok.error());
  step.reboot_unless = reboot_unless;
  step.name = name;
  step.description = description;
  step.when = when;
  step.checks = checks;
  if (reboot == "on-change") step.reboot = RebootPolicy::on_change;
  else if (!reboot.empty() && reboot != "never")
    return std::unexpected(r.error_at(node["reboot"], fmt::format("reboot '{}' in {} is not never or on-change", reboot, where)));
  if (const auto resources = node["resources"]) {
    if (!resources.IsSequence()) return std::unexpected(r.error_at(resources, fmt::format("resources of {} must be a list", where)));
    for (const auto& item : resources) {
      GPUCTL_TRY(resource, read_resource(r, item, name));
      step.resources.push_back(std::move(resource));
    }
  }
  return step;
}

Result<Handler> read_handler(const Reader& r, const YAML::Node& node) {
  static const std::vector<std::string> keys{"name", "run", "service", "description"};
  if (auto ok = r.check_keys(node, "a handler", keys); !ok) return std::unexpected(ok.error());
  Handler handler;
  GPUCTL_TRY(name, r.text(node, "name", "a handler"));
  GPUCTL_TRY(run, r.text(node, "run", "a handler"));
  GPUCTL_TRY(service, r.text(node, "service", "a handler"));
  GPUCTL_TRY(description, r.text(node, "description", "a handler"));
  if (name.empty() || run.empty() == service.empty())
    return std::unexpected(r.error_at(node, "a handler needs a name and exactly one of run, service"));
  // Handlers run as written on every node: a `{{` would reach the shell as it is.
  if (run.find("{{") != std::string::npos || service.find("{{") != std::string::npos)
    return std::unexpected(r.error_at(node[run.empty() ? "service" : "run"],
                                      fmt::format("handler '{}' uses a {{{{variable}}}}, but handlers are not substituted", name),
                                      "put the command in a step's command resource, where values are quoted"));
  if (auto ok = r.check_shell_command(node, "run", run); !ok) return std::unexpected(ok.error());
  return Handler{name, run, service, description};
}

Result<Playbook> read_playbook(const Reader& r, const YAML::Node& root) {
  if (auto ok = r.check_keys(root, "the playbook", {"name", "description", "steps", "handlers"}); !ok)
    return std::unexpected(ok.error());
  Playbook playbook;
  playbook.path = r.path();
  GPUCTL_TRY(name, r.text(root, "name", "the playbook"));
  playbook.name = name;
  if (const auto handlers = root["handlers"]) {
    if (!handlers.IsSequence()) return std::unexpected(r.error_at(handlers, "handlers must be a list"));
    for (const auto& item : handlers) {
      GPUCTL_TRY(handler, read_handler(r, item));
      playbook.handlers.push_back(std::move(handler));
    }
  }
  const auto steps = root["steps"];
  if (!steps || !steps.IsSequence()) return std::unexpected(r.error_at(root, "the playbook needs a list of steps"));
  std::set<std::string> names;
  for (const auto& item : steps) {
    GPUCTL_TRY(step, read_step(r, item));
    if (!names.insert(step.name).second) return std::unexpected(r.error_at(item, fmt::format("duplicate step '{}'", step.name)));
    for (const auto& resource : step.resources)
      for (const auto& handler : resource.notify)
        if (!playbook.find_handler(handler)) {
          std::vector<std::string> known;
          for (const auto& h : playbook.handlers) known.push_back(h.name);
          const auto suggestion = util::closest_match(handler, known);
          return std::unexpected(Error{ErrorCode::validation,
                                       fmt::format("step '{}' notifies unknown handler '{}'", step.name, handler),
                                       Location{r.path(), resource.line, 0, {}, {}},
                                       suggestion ? fmt::format("did you mean '{}'?", *suggestion) : "declare it under handlers:"});
        }
    playbook.steps.push_back(std::move(step));
  }
  return playbook;
}

}  // namespace

Result<Playbook> load_playbook_text(std::string_view text, const std::string& path) {
  const Reader reader(path);
  try {
    const auto root = YAML::Load(std::string(text));
    auto playbook = read_playbook(reader, root);
    if (playbook) playbook->digest = util::sha256_hex(text);
    return playbook;
  } catch (const YAML::Exception& e) {
    return fail(ErrorCode::parse, e.msg, Location{path, e.mark.line + 1, e.mark.column + 1, {}, {}});
  }
}

Result<Playbook> load_playbook(const std::string& path) {
  auto text = util::read_local_file(path, "playbook");
  if (!text) return std::unexpected(text.error());
  return load_playbook_text(*text, path);
}

}  // namespace gpuctl
