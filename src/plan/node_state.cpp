#include <gpuctl/plan/node_state.hpp>

#include <gpuctl/util/sha256.hpp>
#include <gpuctl/util/strings.hpp>

#include <algorithm>
#include <charconv>
#include <fmt/format.h>

namespace gpuctl {
namespace {

using util::shell_quote;

// The check that needs Slurm's view of the node (verify/checks.cpp).
constexpr std::string_view k_slurm_registration_check = "slurmd_registered";

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

}  // namespace

std::string node_state_script(const NodeProgram& program) {
  std::string script = "LC_ALL=C; export LC_ALL\n";
  std::vector<std::string> packages;
  std::vector<std::string> services;
  const auto resources = flatten(program);
  for (std::size_t i = 0; i < resources.size(); ++i) {
    const auto& r = resources[i]->resource;
    switch (r.kind) {
      case ResourceKind::file: {
        const auto path = shell_quote(r.file.path);
        if (resources[i]->secret)
          script += fmt::format(
              "if [ -f {0} ]; then printf '@@secret {1} %s\\n' \"$(stat -c '%a %U %G' {0})\"; "
              "sha256sum < {0} | cut -c1-64; else echo '@@absent {1}'; fi\n",
              path, i);
        else
          script += fmt::format(
              "if [ -f {0} ]; then printf '@@file {1} %s\\n' \"$(stat -c '%a %U %G %s' {0})\"; cat {0}; echo; "
              "else echo '@@absent {1}'; fi\n",
              path, i);
        break;
      }
      case ResourceKind::package:
        if (std::ranges::find(packages, r.package.name) == packages.end()) packages.push_back(r.package.name);
        break;
      case ResourceKind::service:
        if (std::ranges::find(services, r.service.name) == services.end()) services.push_back(r.service.name);
        break;
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
  if (!packages.empty())
    script += fmt::format(
        "dpkg-query -W -f='@@pkg ${{Package}} ${{db:Status-Abbrev}} ${{Version}}\\n' {} 2>/dev/null\n",
        util::shell_join(packages));
  for (const auto& service : services)
    script += fmt::format(
        "if command -v systemctl >/dev/null; then printf '@@svc %s %s %s\\n' {0} "
        "\"$(systemctl is-enabled {0} 2>/dev/null | head -n1)\" \"$(systemctl is-active {0} 2>/dev/null | head -n1)\"; "
        "else echo '@@svc {0} ? ?'; fi\n",
        shell_quote(service));
  // The node's registration as slurmctld sees it. Bounded: with the controller unreachable
  // scontrol retries for a while, and the probe must not hang a plan.
  const auto checks = program.checks();
  if (std::ranges::find(checks, k_slurm_registration_check) != checks.end())
    script += fmt::format(
        "if command -v scontrol >/dev/null 2>&1; then o=$(timeout 20 scontrol show node {} 2>&1); r=$?; "
        "printf '@@slurm %s %s\n' \"$r\" \"${{#o}}\"; printf '%s\n' \"$o\"; else echo '@@slurm absent'; fi\n",
        shell_quote(program.node));
  script += "echo '@@done'\n";
  return script;
}

Result<NodeState> parse_node_state(const NodeProgram& program, std::string_view output) {
  NodeState state;
  const auto resources = flatten(program);
  const auto resource_at = [&](std::string_view index_text) -> const ResolvedResource* {
    std::size_t index = 0;
    const auto [ptr, ec] = std::from_chars(index_text.data(), index_text.data() + index_text.size(), index);
    if (ec != std::errc{} || index >= resources.size()) return nullptr;
    return resources[index];
  };
  std::size_t pos = 0;
  bool done = false;
  while (pos < output.size()) {
    const auto line = next_line(output, pos);
    const auto words = util::split(line, ' ');
    if (words.empty() || !words[0].starts_with("@@")) continue;
    const auto& tag = words[0];
    if (tag == "@@done") {
      done = true;
    } else if ((tag == "@@file" || tag == "@@secret" || tag == "@@absent") && words.size() >= 2) {
      const auto* r = resource_at(words[1]);
      if (!r || r->resource.kind != ResourceKind::file) return std::unexpected(bad_probe(line));
      ObservedFile file;
      if (tag == "@@file") {
        if (words.size() != 6) return std::unexpected(bad_probe(line));
        std::size_t size = 0;
        std::from_chars(words[5].data(), words[5].data() + words[5].size(), size);
        if (pos + size > output.size()) return std::unexpected(bad_probe("file content cut short"));
        file.content = std::string(output.substr(pos, size));
        file.digest = util::sha256_hex(file.content);
        pos += size;
        next_line(output, pos);  // the newline the probe adds after the content
      } else if (tag == "@@secret") {
        if (words.size() != 5) return std::unexpected(bad_probe(line));
        file.digest = std::string(util::trim(next_line(output, pos)));
      }
      if (tag != "@@absent") {
        file.exists = true;
        file.mode = parse_octal(words[2]);
        file.owner = words[3];
        file.group = words[4];
      }
      state.files[r->resource.file.path] = std::move(file);
    } else if (tag == "@@pkg" && words.size() >= 3) {
      // "@@pkg NAME STATUS VERSION": STATUS is dpkg's abbreviation, e.g. "ii " or "hi ".
      ObservedPackage package;
      const auto& status = words[2];
      package.installed = status.size() >= 2 && (status[1] == 'i');
      package.held = !status.empty() && status[0] == 'h';
      if (package.installed && words.size() >= 4) package.version = words.back();
      state.packages[words[1]] = package;
    } else if (tag == "@@svc" && words.size() >= 2) {
      ObservedService service;
      const std::string enabled = words.size() > 2 ? words[2] : "";
      const std::string active = words.size() > 3 ? words[3] : "";
      service.known = enabled != "?";
      service.enabled = enabled == "enabled" || enabled == "static" || enabled == "enabled-runtime";
      service.running = active == "active" || active == "reloading" || active == "activating";
      state.services[words[1]] = service;
    } else if (tag == "@@reboot" && words.size() == 3) {
      std::size_t index = 0;
      std::from_chars(words[1].data(), words[1].data() + words[1].size(), index);
      if (index >= program.steps.size()) return std::unexpected(bad_probe(line));
      state.reboot_needed[program.steps[index].step->name] = words[2] != "0";
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
      state.guards_done[r->resource.command.run] = words[2] == "0";
    }
  }
  if (!done) return std::unexpected(bad_probe("it did not finish"));
  return state;
}

Result<NodeState> parse_node_state(const NodeProgram& program, std::string_view output, NodeFacts facts) {
  auto state = parse_node_state(program, output);
  if (state) state->facts = std::move(facts);
  return state;
}

std::string NodeState::fingerprint() const {
  std::string canonical;
  for (const auto& [path, f] : files)
    canonical += fmt::format("f {} {} {} {:o} {} {}\n", path, f.exists, f.digest, f.mode, f.owner, f.group);
  for (const auto& [name, p] : packages) canonical += fmt::format("p {} {} {} {}\n", name, p.installed, p.version, p.held);
  for (const auto& [name, s] : services) canonical += fmt::format("s {} {} {}\n", name, s.enabled, s.running);
  for (const auto& [command, done] : guards_done) canonical += fmt::format("g {} {}\n", command, done);
  for (const auto& [step, needed] : reboot_needed) canonical += fmt::format("r {} {}\n", step, needed);
  canonical += fmt::format("boot {}\n", facts.boot_id.value.value_or(""));
  canonical += fmt::format("driver {}\n", facts.driver_version.value.value_or(""));
  if (facts.loaded_modules.value)
    for (const auto& module : *facts.loaded_modules.value)
      if (module == "nouveau" || module.starts_with("nvidia")) canonical += "m " + module + "\n";
  return util::sha256_hex(canonical);
}

}  // namespace gpuctl
