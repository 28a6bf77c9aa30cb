// load_playbook: parse (src/yaml/, the front end the inventory uses too) -> decode with a
// yaml::Decoder that collects every error with its file:line:col -> cross-checks (duplicate
// steps, notify naming no handler). No yaml-cpp here.
#include <gpuctl/playbook/loader.hpp>

#include "yaml/decoder.hpp"

#include <gpuctl/playbook/shell_text.hpp>
#include <gpuctl/util/file_io.hpp>
#include <gpuctl/util/sha256.hpp>
#include <gpuctl/util/strings.hpp>

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <cctype>
#include <map>
#include <sstream>

namespace gpuctl {
namespace {

using yaml::Decoder;
using yaml::MapView;
using yaml::YamlNode;

// The fields of one playbook map (the playbook, a step, a resource, a handler). Every reader
// reports what is wrong at the field's position and returns a neutral value, so decoding goes
// on; the caller never uses a playbook whose decoder reported an error.
class Fields {
 public:
  Fields(Decoder& decoder, const MapView& map, std::string where)
      : m_decoder(decoder), m_map(map), m_where(std::move(where)) {}

  const YamlNode* node(std::string_view key) const { return m_map.get(key); }
  bool has(std::string_view key) const { return node(key) != nullptr; }
  const std::string& where() const { return m_where; }

  // A scalar, "" when absent. An explicitly empty string ("") is kept; a key without a value
  // is an error.
  std::string text(std::string_view key) const {
    const auto* value = node(key);
    if (!value) return {};
    if (value->is_null()) {
      m_decoder.error(*value, fmt::format("'{}' in {} is empty", key, m_where), "give it a value or remove the key");
      return {};
    }
    if (!value->is_scalar()) {
      m_decoder.error(*value, fmt::format("'{}' in {} must be a string, not a {}", key, m_where,
                                          value->is_map() ? "map" : "list"));
      return {};
    }
    return value->value;
  }

  // A list of scalars, or one scalar as a list of one; empty when absent.
  std::vector<std::string> list(std::string_view key) const {
    std::vector<std::string> out;
    const auto* value = node(key);
    if (!value) return out;
    if (value->is_scalar()) return {value->value};
    if (!value->is_sequence()) {
      m_decoder.error(*value, fmt::format("'{}' in {} must be a list", key, m_where), "write e.g. [a, b]");
      return out;
    }
    for (const auto& item : value->items) {
      if (item.is_scalar()) out.push_back(item.value);
      else m_decoder.error(item, fmt::format("'{}' in {} must list strings", key, m_where));
    }
    return out;
  }

  // true or false; also the YAML 1.1 words yaml-cpp reads as booleans (yes/no, on/off, y/n in
  // lower, upper or capitalised case), which playbooks have always accepted.
  std::optional<bool> boolean(std::string_view key) const {
    const auto* value = node(key);
    if (!value) return std::nullopt;
    if (value->is_scalar())
      if (const auto reading = yaml_boolean(value->value)) return reading;
    m_decoder.error(*value, fmt::format("'{}' in {} must be true or false", key, m_where));
    return std::nullopt;
  }

  // Refuses now, at the field's position, what substitution would refuse on every node: a
  // `{{name}}` where no quoting makes a value literal, an unterminated quote (shell_text.hpp).
  void check_shell_command(std::string_view key, const std::string& command) const {
    const auto* value = node(key);
    if (!value || !value->is_scalar()) return;
    if (auto references = find_shell_references(command); !references)
      m_decoder.error(*value, references.error().message, references.error().hint);
  }

 private:
  static std::optional<bool> yaml_boolean(const std::string& text) {
    static const std::array<std::string_view, 4> k_true{"y", "yes", "true", "on"};
    static const std::array<std::string_view, 4> k_false{"n", "no", "false", "off"};
    const auto lower = util::to_lower(text);
    auto upper = text;
    for (auto& c : upper) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
    const bool one_case = text == lower || text == upper ||
                          (text.size() > 1 && text.substr(1) == lower.substr(1));
    if (!one_case) return std::nullopt;
    if (std::ranges::find(k_true, lower) != k_true.end()) return true;
    if (std::ranges::find(k_false, lower) != k_false.end()) return false;
    return std::nullopt;
  }

  Decoder& m_decoder;
  const MapView& m_map;
  std::string m_where;
};

// A `notify` entry, checked once every handler is known (handlers may follow the steps).
struct Notification {
  std::string step;
  std::string handler;
  const YamlNode* at;
};

class PlaybookDecoder {
 public:
  PlaybookDecoder(Decoder& decoder, std::string path, const PlaybookRules& rules)
      : m_decoder(decoder), m_path(std::move(path)), m_rules(rules) {}

  std::optional<Playbook> decode(const YamlNode& root) {
    static const std::vector<std::string> keys{"name", "description", "steps", "handlers"};
    const auto map = m_decoder.map(root, "the playbook", keys);
    if (!map) return std::nullopt;
    const Fields fields(m_decoder, *map, "the playbook");
    Playbook playbook;
    playbook.path = m_path;
    playbook.name = fields.text("name");
    (void)fields.text("description");
    if (const auto* handlers = fields.node("handlers")) {
      if (!handlers->is_sequence())
        m_decoder.error(*handlers, "handlers must be a list");
      else
        for (const auto& item : handlers->items)
          if (auto handler = read_handler(item)) playbook.handlers.push_back(std::move(*handler));
    }
    const auto* steps = fields.node("steps");
    if (!steps || !steps->is_sequence()) {
      m_decoder.error(steps ? *steps : root, "the playbook needs a list of steps");
    } else {
      std::map<std::string, int> step_lines;
      for (const auto& item : steps->items) {
        auto step = read_step(item);
        if (!step) continue;
        if (!step->name.empty()) {
          const auto [first, inserted] = step_lines.emplace(step->name, item.line);
          if (!inserted)
            m_decoder.error(item, fmt::format("duplicate step '{}'", step->name),
                            fmt::format("first defined at line {}", first->second));
        }
        playbook.steps.push_back(std::move(*step));
      }
    }
    check_notifications();
    return playbook;
  }

 private:
  std::optional<Resource> read_resource(const YamlNode& node, const std::string& step) {
    static const std::vector<std::string> keys{"file", "template", "source", "secret", "generate", "mode", "owner", "group",
                                               "package", "state", "version", "hold", "unpackaged_driver",
                                               "service", "enabled", "running",
                                               "command", "creates", "unless", "reason", "notify", "when"};
    const auto where = fmt::format("a resource of step '{}'", step);
    const auto map = m_decoder.map(node, where, keys);
    if (!map) return std::nullopt;
    const Fields r(m_decoder, *map, where);
    Resource resource;
    resource.line = node.line;
    resource.notify = r.list("notify");
    resource.when = r.text("when");
    if (const auto* notify = r.node("notify")) {
      if (notify->is_scalar()) m_notifications.push_back({step, notify->value, notify});
      else if (notify->is_sequence())
        for (const auto& item : notify->items)
          if (item.is_scalar()) m_notifications.push_back({step, item.value, &item});
    }
    const int kinds = r.has("file") + r.has("package") + r.has("service") + r.has("command");
    if (kinds != 1) {
      m_decoder.error(node, fmt::format("{} must have exactly one of file, package, service, command", where));
      return std::nullopt;
    }
    if (r.has("file")) {
      resource.kind = ResourceKind::file;
      auto& f = resource.file;
      f.path = r.text("file");
      f.template_name = r.text("template");
      f.source = r.text("source");
      f.secret = r.text("secret");
      if ((!f.template_name.empty()) + (!f.source.empty()) + (!f.secret.empty()) != 1)
        m_decoder.error(node, fmt::format("file '{}' needs exactly one of template, source, secret", f.path));
      if (r.has("generate")) {
        f.generate_secret = r.boolean("generate").value_or(true);
        if (f.secret.empty()) m_decoder.error(*r.node("generate"), fmt::format("file '{}': 'generate' applies to a secret only", f.path));
      }
      if (const auto mode = r.text("mode"); !mode.empty()) {
        std::uint32_t value = 0;
        std::istringstream in(mode);
        if (mode.size() < 3 || mode.size() > 4 || !(in >> std::oct >> value) || !in.eof() || value > 07777)
          m_decoder.error(*r.node("mode"), fmt::format("mode '{}' of '{}' is not an octal mode", mode, f.path),
                          "quote it, e.g. mode: \"0644\"");
        else
          f.mode = value;
      }
      if (auto owner = r.text("owner"); !owner.empty()) f.owner = std::move(owner);
      if (auto group = r.text("group"); !group.empty()) f.group = std::move(group);
      f.unless = r.text("unless");
      r.check_shell_command("unless", f.unless);
    } else if (r.has("package")) {
      resource.kind = ResourceKind::package;
      auto& p = resource.package;
      p.name = r.text("package");
      p.version = r.text("version");
      p.hold = r.boolean("hold").value_or(false);
      p.unpackaged_driver = r.text("unpackaged_driver");
      const auto state = r.text("state");
      if (state == "absent") p.state = PackageState::absent;
      else if (!state.empty() && state != "present")
        m_decoder.error(*r.node("state"), fmt::format("package state '{}' is not present or absent", state),
                        "write state: present or state: absent");
    } else if (r.has("service")) {
      resource.kind = ResourceKind::service;
      resource.service = ServiceResource{r.text("service"), r.boolean("enabled"), r.boolean("running"),
                                         r.text("unpackaged_driver")};
    } else {
      resource.kind = ResourceKind::command;
      resource.command = CommandResource{r.text("command"), r.text("creates"), r.text("unless"), r.text("reason")};
      r.check_shell_command("command", resource.command.run);
      r.check_shell_command("unless", resource.command.unless);
    }
    return resource;
  }

  std::optional<Step> read_step(const YamlNode& node) {
    static const std::vector<std::string> keys{"name", "description", "when", "resources", "reboot", "reboot_unless",
                                               "reboot_if", "checks", "note"};
    const auto map = m_decoder.map(node, "a step", keys);
    if (!map) return std::nullopt;
    Step step;
    step.line = node.line;
    step.name = Fields(m_decoder, *map, "a step").text("name");
    const auto* name_node = map->get("name");
    if (!name_node || (name_node->is_scalar() && util::trim(step.name).empty()))
      m_decoder.error(name_node ? *name_node : node, "a step needs a name", "add name: followed by a unique name");
    const Fields s(m_decoder, *map, step.name.empty() ? std::string("a step") : fmt::format("step '{}'", step.name));
    step.description = s.text("description");
    step.note = s.text("note");
    step.when = s.text("when");
    step.checks = s.list("checks");
    check_check_names(s.node("checks"), step.name);
    step.reboot_unless = s.text("reboot_unless");
    s.check_shell_command("reboot_unless", step.reboot_unless);
    step.reboot_if = s.text("reboot_if");
    s.check_shell_command("reboot_if", step.reboot_if);
    const auto reboot = s.text("reboot");
    if (reboot == "on-change") step.reboot = RebootPolicy::on_change;
    else if (reboot == "deferred") step.reboot = RebootPolicy::deferred;
    else if (!reboot.empty() && reboot != "never")
      m_decoder.error(*s.node("reboot"),
                      fmt::format("reboot '{}' in {} is not never, on-change or deferred", reboot, s.where()),
                      "write reboot: never, reboot: on-change or reboot: deferred");
    if (const auto* resources = s.node("resources")) {
      if (!resources->is_sequence())
        m_decoder.error(*resources, fmt::format("resources of {} must be a list", s.where()));
      else
        for (const auto& item : resources->items)
          if (auto resource = read_resource(item, step.name)) step.resources.push_back(std::move(*resource));
    }
    return step;
  }

  // Each name under a step's `checks:` must be one verify knows, so a misspelt check fails
  // here (validate, plan) and not only when verify runs it.
  void check_check_names(const YamlNode* checks, const std::string& step) {
    if (!checks || m_rules.check_names.empty()) return;
    const auto check_one = [&](const YamlNode& item) {
      if (!item.is_scalar() || std::ranges::find(m_rules.check_names, item.value) != m_rules.check_names.end()) return;
      const auto suggestion = util::closest_match(item.value, m_rules.check_names);
      m_decoder.error(item, fmt::format("step '{}' lists unknown check '{}'", step, item.value),
                      suggestion ? fmt::format("did you mean '{}'? (gpuctl verify --list shows every check)", *suggestion)
                                 : std::string("gpuctl verify --list shows every check"));
    };
    if (checks->is_scalar()) check_one(*checks);
    else if (checks->is_sequence())
      for (const auto& item : checks->items) check_one(item);
  }

  std::optional<Handler> read_handler(const YamlNode& node) {
    static const std::vector<std::string> keys{"name", "run", "service", "description"};
    const auto map = m_decoder.map(node, "a handler", keys);
    if (!map) return std::nullopt;
    const Fields h(m_decoder, *map, "a handler");
    Handler handler{h.text("name"), h.text("run"), h.text("service"), h.text("description")};
    // Counted as declared even when broken, so its notifications are not reported twice.
    if (!handler.name.empty()) m_handler_names.push_back(handler.name);
    if (handler.name.empty() || handler.run.empty() == handler.service.empty()) {
      m_decoder.error(node, "a handler needs a name and exactly one of run, service");
      return std::nullopt;
    }
    // Handlers run as written on every node: a `{{` would reach the shell as it is.
    const auto* command = handler.run.empty() ? "service" : "run";
    if (handler.run.find("{{") != std::string::npos || handler.service.find("{{") != std::string::npos) {
      m_decoder.error(*h.node(command),
                      fmt::format("handler '{}' uses a {{{{variable}}}}, but handlers are not substituted", handler.name),
                      "put the command in a step's command resource, where values are quoted");
      return std::nullopt;
    }
    h.check_shell_command("run", handler.run);
    return handler;
  }

  void check_notifications() {
    for (const auto& notification : m_notifications) {
      if (std::ranges::find(m_handler_names, notification.handler) != m_handler_names.end()) continue;
      const auto suggestion = util::closest_match(notification.handler, m_handler_names);
      m_decoder.error(*notification.at,
                      fmt::format("step '{}' notifies unknown handler '{}'", notification.step, notification.handler),
                      suggestion ? fmt::format("did you mean '{}'?", *suggestion) : "declare it under handlers:");
    }
  }

  Decoder& m_decoder;
  std::string m_path;
  const PlaybookRules& m_rules;
  std::vector<std::string> m_handler_names;
  std::vector<Notification> m_notifications;
};

std::string position(const Diagnostic& diagnostic) {
  std::string out = diagnostic.file;
  if (diagnostic.line > 0) out += fmt::format(":{}", diagnostic.line);
  if (diagnostic.line > 0 && diagnostic.column > 0) out += fmt::format(":{}", diagnostic.column);
  return out;
}

std::string with_hint(const Diagnostic& diagnostic) {
  return diagnostic.hint.empty() ? diagnostic.message : fmt::format("{} ({})", diagnostic.message, diagnostic.hint);
}

}  // namespace

PlaybookLoadResult check_playbook_text(std::string_view text, const std::string& path, const PlaybookRules& rules) {
  PlaybookLoadResult result;
  auto parsed = yaml::parse_yaml(text, path, "playbook");
  if (!parsed.errors.empty()) {
    result.diagnostics = std::move(parsed.errors);
    result.syntax_error = true;
    return result;
  }
  Decoder decoder(path, result.diagnostics);
  auto playbook = PlaybookDecoder(decoder, path, rules).decode(parsed.root);
  std::ranges::stable_sort(result.diagnostics, [](const Diagnostic& a, const Diagnostic& b) {
    return std::pair{a.line, a.column} < std::pair{b.line, b.column};
  });
  const bool has_errors = std::ranges::any_of(result.diagnostics, [](const Diagnostic& diagnostic) {
    return diagnostic.severity == Severity::error;
  });
  if (playbook && !has_errors) {
    playbook->digest = util::sha256_hex(text);
    result.playbook = std::move(playbook);
  }
  return result;
}

Error playbook_error(const PlaybookLoadResult& result) {
  std::vector<const Diagnostic*> errors;
  for (const auto& diagnostic : result.diagnostics)
    if (diagnostic.severity == Severity::error) errors.push_back(&diagnostic);
  const auto code = result.syntax_error ? ErrorCode::parse : ErrorCode::validation;
  if (errors.empty()) return Error{code, "the playbook is invalid", {}, {}};
  const auto& first = *errors.front();
  Error error{code, first.message, Location{first.file, first.line, first.column, {}, {}}, first.hint};
  if (errors.size() == 1) return error;
  // Every further error on a line of its own, positioned like the first, so the one string the
  // callers print shows them all.
  error.message = with_hint(first);
  error.hint.clear();
  for (std::size_t i = 1; i < errors.size(); ++i)
    error.message += fmt::format("\n{}: {}", position(*errors[i]), with_hint(*errors[i]));
  return error;
}

Result<Playbook> load_playbook_text(std::string_view text, const std::string& path, const PlaybookRules& rules) {
  auto result = check_playbook_text(text, path, rules);
  if (!result.playbook) return std::unexpected(playbook_error(result));
  return std::move(*result.playbook);
}

Result<Playbook> load_playbook(const std::string& path, const PlaybookRules& rules) {
  auto text = util::read_local_file(path, "playbook");
  if (!text) return std::unexpected(text.error());
  return load_playbook_text(*text, path, rules);
}

}  // namespace gpuctl
