#include <gpuctl/plan/node_state.hpp>

#include <gpuctl/util/sha256.hpp>
#include <gpuctl/util/strings.hpp>

#include <algorithm>
#include <charconv>
#include <set>
#include <fmt/format.h>

namespace gpuctl {
namespace {

using util::shell_quote;

std::vector<const ResolvedResource*> flatten(const NodeProgram& program) {
  std::vector<const ResolvedResource*> out;
  for (const auto& step : program.steps)
    for (const auto& resource : step.resources) out.push_back(&resource);
  return out;
}

std::uint32_t parse_octal(std::string_view text) {
  std::uint32_t value = 0;
  std::from_chars(text.data(), text.data() + text.size(), value, 8);
  return value;
}

// Reads one line starting at `pos`; advances past its newline.
std::string_view next_line(std::string_view text, std::size_t& pos) {
  const auto end = text.find('\n', pos);
  const auto line = text.substr(pos, end == std::string_view::npos ? std::string_view::npos : end - pos);
  pos = end == std::string_view::npos ? text.size() : end + 1;
  return line;
}

Error bad_probe(std::string_view what) {
  return Error{ErrorCode::parse, fmt::format("unexpected output from the state probe: {}", what), {},
               "the node's /bin/sh or coreutils may be unusual; run with -v to see the output"};
}

// systemd's answers that count as enabled (UnitFileState, is-enabled) and as running (ActiveState).
bool counts_as_enabled(std::string_view state) { return state == "enabled" || state == "static" || state == "enabled-runtime"; }
bool counts_as_running(std::string_view state) { return state == "active" || state == "reloading" || state == "activating"; }

// The unit a service resource names: "munge" is munge.service.
std::string unit_name(const std::string& service) {
  return service.find('.') == std::string::npos ? service + ".service" : service;
}

struct FileLists {
  std::vector<std::string> all, plain;
  std::set<std::string> secret;
};

// The program's files in the order the script names them (node_state_script).
FileLists file_lists(const std::vector<const ResolvedResource*>& resources) {
  FileLists lists;
  for (const auto* r : resources) {
    if (r->resource.kind != ResourceKind::file) continue;
    const auto& path = r->resource.file.path;
    if (std::ranges::find(lists.all, path) != lists.all.end()) continue;
    lists.all.push_back(path);
    if (r->secret) lists.secret.insert(path);
    else lists.plain.push_back(path);
  }
  return lists;
}

// The program's services, once each, in program order.
std::vector<std::string> service_names(const std::vector<const ResolvedResource*>& resources) {
  std::vector<std::string> services;
  for (const auto* r : resources)
    if (r->resource.kind == ResourceKind::service && std::ranges::find(services, r->resource.service.name) == services.end())
      services.push_back(r->resource.service.name);
  return services;
}

// `command -- <those of paths that are regular files>`, one process for all of them.
std::string for_regular_files(const std::vector<std::string>& paths, std::string_view command) {
  return fmt::format("set --; for f in {}; do [ -f \"$f\" ] && set -- \"$@\" \"$f\"; done; [ $# = 0 ] || {} -- \"$@\"",
                     util::shell_join(paths), command);
}

}  // namespace

std::vector<std::string> program_packages(const NodeProgram& program) {
  std::vector<std::string> packages;
  for (const auto* resource : flatten(program))
    if (resource->resource.kind == ResourceKind::package &&
        std::ranges::find(packages, resource->resource.package.name) == packages.end())
      packages.push_back(resource->resource.package.name);
  return packages;
}

std::string node_state_script(const NodeProgram& program, const ProbeExtras& extras) {
  std::string script = "LC_ALL=C; export LC_ALL\n";
  const auto resources = flatten(program);
  for (std::size_t i = 0; i < resources.size(); ++i) {
    const auto& r = resources[i]->resource;
    switch (r.kind) {
      case ResourceKind::file:
        if (!r.file.unless.empty())
          script += fmt::format("( {} ) </dev/null >/dev/null 2>&1; echo \"@@guard {} $?\"\n", r.file.unless, i);
        break;  // the file itself: all at once, below
      case ResourceKind::package:  // asked in the batch's dpkg-query (program_packages)
      case ResourceKind::service:
        break;  // services: all at once, below
      case ResourceKind::command:
        // Done when either guard says so: `creates` exists, or `unless` exits 0.
        if (!r.command.creates.empty() && !r.command.unless.empty())
          script += fmt::format(
              "if [ -e {} ] || ( {} ) </dev/null >/dev/null 2>&1; then echo '@@guard {} 0'; else echo '@@guard {} 1'; fi\n",
              shell_quote(r.command.creates), r.command.unless, i, i);
        else if (!r.command.creates.empty())
          script += fmt::format("if [ -e {} ]; then echo '@@guard {} 0'; else echo '@@guard {} 1'; fi\n",
                                shell_quote(r.command.creates), i, i);
        else if (!r.command.unless.empty())
          script += fmt::format("( {} ) </dev/null >/dev/null 2>&1; echo \"@@guard {} $?\"\n", r.command.unless, i);
        break;
    }
  }
  for (std::size_t i = 0; i < program.steps.size(); ++i)
    if (!program.steps[i].reboot_unless.empty())
      script += fmt::format("( {} ) </dev/null >/dev/null 2>&1; echo \"@@reboot {} $?\"\n", program.steps[i].reboot_unless, i);
  for (std::size_t i = 0; i < program.steps.size(); ++i)
    if (!program.steps[i].reboot_if.empty())
      script += fmt::format("( {} ) </dev/null >/dev/null 2>&1; echo \"@@rebootif {} $?\"\n", program.steps[i].reboot_if, i);
  // Every file in three processes at most: one stat, one cat of the plain ones (split by the
  // sizes stat gave), one sha256sum of the secrets (only their digests leave the node).
  const auto files = file_lists(resources);
  if (!files.all.empty()) {
    script += "echo '@@stat'\n" + for_regular_files(files.all, "stat -L -c '%a %U %G %s %n'") + "\necho '@@stat-end'\n";
    if (!files.plain.empty()) script += "echo '@@cat'\n" + for_regular_files(files.plain, "cat") + "\necho; echo '@@cat-end'\n";
    if (!files.secret.empty()) {
      const std::vector<std::string> secrets(files.secret.begin(), files.secret.end());
      script += "echo '@@sha'\n" + for_regular_files(secrets, "sha256sum") + "\necho '@@sha-end'\n";
    }
  }
  const auto services = service_names(resources);
  // Every service in one `systemctl show` where systemd runs (sd_booted's test); where it
  // does not (a container without it), the unit files still say what is enabled.
  if (!services.empty()) {
    std::vector<std::string> units;
    for (const auto& service : services) units.push_back(unit_name(service));
    script += fmt::format(
        "if ! command -v systemctl >/dev/null 2>&1; then for s in {0}; do echo \"@@svc $s ? ?\"; done\n"
        "elif [ -d /run/systemd/system ]; then echo '@@svcshow'; "
        "systemctl show --property=Id,LoadState,UnitFileState,ActiveState,Result -- {0} 2>/dev/null; echo \"@@svcshow-end $?\"\n"
        "else echo '@@unitfiles'; systemctl list-unit-files --no-legend --no-pager -- {1} 2>/dev/null; echo '@@unitfiles-end'; fi\n",
        util::shell_join(services), util::shell_join(units));
  }
  // The node's registration as slurmctld sees it, for verify only. Bounded: with the
  // controller unreachable scontrol retries for a while, and the probe must not hang.
  if (extras.slurm_node_view)
    script += fmt::format(
        "if command -v scontrol >/dev/null 2>&1; then o=$(timeout 20 scontrol show node {} 2>&1); r=$?; "
        "printf '@@slurm %s %s\n' \"$r\" \"${{#o}}\"; printf '%s\n' \"$o\"; else echo '@@slurm absent'; fi\n",
        shell_quote(program.node));
  script += "echo '@@done'\n";
  return script;
}

facts::CollectOptions node_probe_options(const NodeProgram& program, const ProbeExtras& extras) {
  facts::CollectOptions options;
  options.state_script = node_state_script(program, extras);
  options.exact_packages = program_packages(program);
  options.optional_probes = extras.facts;
  return options;
}

namespace {

// The "package<TAB>version<TAB>status" lines of the batch's package read, for the program's
// packages. Status is dpkg's "want error state", e.g. "hold ok installed". Names dpkg-query
// lists only because another package depends on them ("not-installed") are absent, as the
// status-file reader leaves them out; of a multi-arch pair the installed one counts.
void read_package_lines(NodeState& state, const NodeProgram& program, std::string_view lines) {
  const auto wanted = program_packages(program);
  for (const auto& line : util::split_lines(lines)) {
    const auto fields = util::split(line, '\t');
    if (fields.size() != 3 || std::ranges::find(wanted, fields[0]) == wanted.end()) continue;
    const auto status = util::split(fields[2], ' ');
    if (status.size() == 3 && status[2] == "not-installed") continue;
    ObservedPackage package;
    package.installed = status.size() == 3 && status[2] == "installed";
    package.held = !status.empty() && status[0] == "hold";
    if (package.installed) package.version = fields[1];
    const auto seen = state.packages.find(fields[0]);
    if (seen != state.packages.end() && seen->second.installed && !package.installed) continue;
    state.packages[fields[0]] = package;
  }
}

// `systemctl show` blocks, one per service in the order asked, separated by blank lines.
Result<void> read_service_blocks(NodeState& state, const std::vector<std::string>& services, std::string_view text) {
  std::vector<std::map<std::string, std::string>> blocks(1);
  for (const auto& line : util::split_lines(text)) {
    if (util::trim(line).empty()) {
      if (!blocks.back().empty()) blocks.emplace_back();
      continue;
    }
    const auto eq = line.find('=');
    if (eq == std::string::npos) return std::unexpected(bad_probe(line));
    blocks.back()[line.substr(0, eq)] = line.substr(eq + 1);
  }
  if (blocks.back().empty()) blocks.pop_back();
  if (blocks.size() != services.size())
    return std::unexpected(bad_probe(fmt::format("systemctl show answered {} units for {} services", blocks.size(), services.size())));
  for (std::size_t i = 0; i < services.size(); ++i) {
    const auto& unit = blocks[i];
    const auto value = [&](const char* key) { const auto it = unit.find(key); return it == unit.end() ? std::string() : it->second; };
    const auto enabled = value("UnitFileState");
    const auto active = value("ActiveState");
    state.services[services[i]] = ObservedService{true, counts_as_enabled(enabled), counts_as_running(active),
                                                  value("LoadState"), enabled, active, value("Result")};
  }
  return {};
}

// `systemctl list-unit-files --no-legend` lines ("munge.service enabled enabled"): enabled or
// not from the unit files; whether it runs is unknown without a manager, so not running.
void read_unit_files(NodeState& state, const std::vector<std::string>& services, std::string_view text) {
  std::map<std::string, std::string> states;
  for (const auto& line : util::split_lines(text)) {
    std::vector<std::string> words;
    for (auto& word : util::split(line, ' '))
      if (!word.empty()) words.push_back(std::move(word));
    if (words.size() >= 2) states[words[0]] = words[1];
  }
  for (const auto& service : services) {
    const auto it = states.find(unit_name(service));
    state.services[service] = ObservedService{true, it != states.end() && counts_as_enabled(it->second), false};
  }
}

// The lines from `pos` up to the line `close` (with its newline); advances past it.
std::optional<std::string_view> section(std::string_view output, std::size_t& pos, std::string_view close) {
  std::size_t end = output.substr(pos).starts_with(close) ? pos : output.find(fmt::format("\n{}", close), pos);
  if (end == std::string_view::npos) return std::nullopt;
  if (end != pos) ++end;  // past the newline that ends the last line
  const auto text = output.substr(pos, end - pos);
  pos = end + close.size();
  return text;
}

// "MODE OWNER GROUP SIZE PATH" (stat -c '%a %U %G %s %n'); the path may hold spaces.
struct StatLine {
  std::uint32_t mode = 0;
  std::string owner, group;
  std::size_t size = 0;
};

std::optional<std::pair<std::string, StatLine>> parse_stat_line(std::string_view line) {
  StatLine stat;
  std::size_t pos = 0;
  std::string words[4];
  for (auto& word : words) {
    const auto space = line.find(' ', pos);
    if (space == std::string_view::npos) return std::nullopt;
    word = std::string(line.substr(pos, space - pos));
    pos = space + 1;
  }
  stat.mode = parse_octal(words[0]);
  stat.owner = words[1];
  stat.group = words[2];
  const auto [ptr, ec] = std::from_chars(words[3].data(), words[3].data() + words[3].size(), stat.size);
  if (ec != std::errc{} || ptr != words[3].data() + words[3].size() || pos >= line.size()) return std::nullopt;
  return std::pair{std::string(line.substr(pos)), stat};
}

}  // namespace

Result<NodeState> parse_node_state(const NodeProgram& program, std::string_view output, NodeFacts facts,
                                   std::string_view package_lines) {
  NodeState state;
  state.facts = std::move(facts);
  const auto resources = flatten(program);
  const auto resource_at = [&](std::string_view index_text) -> const ResolvedResource* {
    std::size_t index = 0;
    const auto [ptr, ec] = std::from_chars(index_text.data(), index_text.data() + index_text.size(), index);
    if (ec != std::errc{} || index >= resources.size()) return nullptr;
    return resources[index];
  };
  const auto lists = file_lists(resources);
  std::map<std::string, StatLine> stats;
  std::map<std::string, std::string> contents, digests;
  bool files_seen = false;
  const auto services = service_names(resources);

  std::size_t pos = 0;
  bool done = false;
  while (pos < output.size()) {
    const auto line = next_line(output, pos);
    const auto words = util::split(line, ' ');
    if (words.empty() || !words[0].starts_with("@@")) continue;
    const auto& tag = words[0];
    if (tag == "@@done") {
      done = true;
    } else if (tag == "@@stat") {
      files_seen = true;
      const auto text = section(output, pos, "@@stat-end\n");
      if (!text) return std::unexpected(bad_probe("the file section is cut short"));
      for (const auto& stat_line : util::split_lines(*text)) {
        auto parsed = parse_stat_line(stat_line);
        if (!parsed || std::ranges::find(lists.all, parsed->first) == lists.all.end())
          return std::unexpected(bad_probe(stat_line));
        stats[parsed->first] = parsed->second;
      }
    } else if (tag == "@@cat") {
      // The plain files stat saw, back to back; their sizes say where each ends.
      std::size_t total = 0;
      for (const auto& path : lists.plain)
        if (const auto it = stats.find(path); it != stats.end()) total += it->second.size;
      constexpr std::string_view k_end = "\n@@cat-end\n";
      if (pos + total > output.size() || output.substr(pos + total, k_end.size()) != k_end)
        return std::unexpected(bad_probe("the files' contents do not add up to the sizes stat gave "
                                         "(a file changed or could not be read while it was probed); run again"));
      for (const auto& path : lists.plain)
        if (const auto it = stats.find(path); it != stats.end()) {
          contents[path] = std::string(output.substr(pos, it->second.size));
          pos += it->second.size;
        }
      pos += k_end.size();
    } else if (tag == "@@sha") {
      const auto text = section(output, pos, "@@sha-end\n");
      if (!text) return std::unexpected(bad_probe("the digest section is cut short"));
      for (const auto& sha_line : util::split_lines(*text)) {
        const auto sep = sha_line.find("  ");
        if (sep != 64 || !lists.secret.contains(sha_line.substr(sep + 2))) return std::unexpected(bad_probe(sha_line));
        digests[sha_line.substr(sep + 2)] = sha_line.substr(0, sep);
      }
    } else if (tag == "@@svcshow") {
      const auto end = output.find("@@svcshow-end ", pos);
      if (end == std::string_view::npos) return std::unexpected(bad_probe("the service section is cut short"));
      const auto blocks = output.substr(pos, end - pos);
      pos = end;
      // Non-zero: the manager did not answer; the services stay unknown.
      if (next_line(output, pos) == "@@svcshow-end 0")
        if (auto read = read_service_blocks(state, services, blocks); !read) return std::unexpected(read.error());
    } else if (tag == "@@unitfiles") {
      const auto text = section(output, pos, "@@unitfiles-end\n");
      if (!text) return std::unexpected(bad_probe("the unit file section is cut short"));
      read_unit_files(state, services, *text);
    } else if (tag == "@@svc" && words.size() >= 2) {  // no systemctl at all: "@@svc NAME ? ?"
      const std::string enabled = words.size() > 2 ? words[2] : "";
      const std::string active = words.size() > 3 ? words[3] : "";
      state.services[words[1]] = ObservedService{enabled != "?", counts_as_enabled(enabled), counts_as_running(active)};
    } else if ((tag == "@@reboot" || tag == "@@rebootif") && words.size() == 3) {
      std::size_t index = 0;
      std::from_chars(words[1].data(), words[1].data() + words[1].size(), index);
      if (index >= program.steps.size()) return std::unexpected(bad_probe(line));
      const auto& step = program.steps[index].step->name;
      if (tag == "@@reboot") state.reboot_needed[step] = words[2] != "0";
      else state.changes_reboot[step] = words[2] == "0";
    } else if (tag == "@@slurm" && words.size() == 2 && words[1] == "absent") {
      state.slurm_node = ObservedSlurmNode{};
    } else if (tag == "@@slurm" && words.size() == 3) {
      ObservedSlurmNode slurm{true, 0, {}};
      std::size_t size = 0;
      const auto code = std::from_chars(words[1].data(), words[1].data() + words[1].size(), slurm.exit_code);
      const auto length = std::from_chars(words[2].data(), words[2].data() + words[2].size(), size);
      if (code.ec != std::errc{} || length.ec != std::errc{} || pos + size > output.size())
        return std::unexpected(bad_probe(line));
      slurm.output = std::string(output.substr(pos, size));
      pos += size;
      next_line(output, pos);  // the newline the probe adds after the output
      state.slurm_node = std::move(slurm);
    } else if (tag == "@@guard" && words.size() == 3) {
      const auto* r = resource_at(words[1]);
      if (!r) return std::unexpected(bad_probe(line));
      // A command's guard by its command text; a file's by its resource id ("file:/path").
      const auto& key = r->resource.kind == ResourceKind::file ? resource_id(r->resource) : r->resource.command.run;
      state.guards_done[key] = words[2] == "0";
    }
  }
  if (!done) return std::unexpected(bad_probe("it did not finish"));
  if (!lists.all.empty() && !files_seen) return std::unexpected(bad_probe("it has no file section"));
  for (const auto& path : lists.all) {
    ObservedFile file;
    if (const auto it = stats.find(path); it != stats.end()) {
      file.exists = true;
      file.mode = it->second.mode;
      file.owner = it->second.owner;
      file.group = it->second.group;
      if (lists.secret.contains(path)) {
        const auto digest = digests.find(path);
        if (digest == digests.end()) return std::unexpected(bad_probe("no digest for " + path));
        file.digest = digest->second;
      } else {
        file.content = contents[path];
        file.digest = util::sha256_hex(file.content);
      }
    }
    state.files[path] = std::move(file);
  }
  read_package_lines(state, program, package_lines);
  return state;
}

Result<NodeState> parse_node_state(const NodeProgram& program, const facts::StateProbeOutput& probe) {
  return parse_node_state(program, probe.output, probe.facts, probe.package_lines);
}

std::string NodeState::fingerprint() const {
  std::string canonical;
  for (const auto& [path, f] : files)
    canonical += fmt::format("f {} {} {} {:o} {} {}\n", path, f.exists, f.digest, f.mode, f.owner, f.group);
  for (const auto& [name, p] : packages) canonical += fmt::format("p {} {} {} {}\n", name, p.installed, p.version, p.held);
  for (const auto& [name, s] : services) canonical += fmt::format("s {} {} {}\n", name, s.enabled, s.running);
  for (const auto& [command, done] : guards_done) canonical += fmt::format("g {} {}\n", command, done);
  for (const auto& [step, needed] : reboot_needed) canonical += fmt::format("r {} {}\n", step, needed);
  for (const auto& [step, needed] : changes_reboot) canonical += fmt::format("ri {} {}\n", step, needed);
  canonical += fmt::format("boot {}\n", facts.boot_id.value.value_or(""));
  canonical += fmt::format("driver {}\n", facts.driver_version.value.value_or(""));
  if (facts.loaded_modules.value)
    for (const auto& module : *facts.loaded_modules.value)
      if (module == "nouveau" || module.starts_with("nvidia")) canonical += "m " + module + "\n";
  return util::sha256_hex(canonical);
}

}  // namespace gpuctl
