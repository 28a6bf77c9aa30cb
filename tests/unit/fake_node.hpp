#pragma once
// A FakeTransport that behaves enough like a node for the use cases (api/*_use_case.hpp) to
// plan, apply and verify it: it answers the facts batch (boot id, kernel, loaded modules, and
// the GPU query when the test sets one) and
// the state probe from its own files and packages, writes files into them, "installs" a
// package on apt-get install and creates a file on `touch`. Anything else is answered by the
// FakeTransport's rules (e.g. scontrol and squeue). Records every command.

#include "fake_transport.hpp"

#include <gpuctl/transport/transport_factory.hpp>
#include <gpuctl/util/sha256.hpp>

#include <cctype>
#include <cstdio>
#include <map>
#include <memory>
#include <mutex>
#include <regex>
#include <set>
#include <sstream>
#include <string>

namespace gpuctl::testing {

class FakeNode : public FakeTransport {
 public:
  explicit FakeNode(std::string node) : FakeTransport(std::move(node)) {}

  std::string boot_id = "0b5c8d1e-2f3a-4b6c-9d7e-8f9a0b1c2d3e";
  std::string modules = "nvidia 104067072 2 - Live 0x0000000000000000 (OE)\n";
  std::map<std::string, std::string> packages;     // installed: name -> version
  std::string fail_install;                        // apt-get install of this package exits 100
  bool answer_everything = true;                   // a command no rule answers exits 0 (systemctl, apt-mark, ...)
  std::string gpu_query;                           // nvidia-smi --query-gpu output (CSV); empty: no "gpus" probe

  Result<CommandResult> run(const std::string& command, const CommandOptions& options = {}) override {
    const std::lock_guard lock(m_mutex);
    if (const auto at = options.stdin_data.find("@@gpuctl-"); command == "sh -s" && at != std::string::npos) {
      const bool with_state = options.stdin_data.find("\np_state() {") != std::string::npos;
      commands.push_back(with_state ? "state probe" : "facts probe");
      return CommandResult{0, facts_batch(options.stdin_data, at, with_state), "", {}};
    }
    if (command.find("apt-get install") != std::string::npos) {
      const bool download_only = command.find("--download-only") != std::string::npos;  // into the cache only
      for (const auto& [name, version] : wanted_packages(command)) {
        if (name == fail_install) {
          commands.push_back(command);
          return CommandResult{100, "E: Unable to locate package " + name + "\n", "", {}};
        }
        if (!download_only) packages[name] = version.empty() ? "1.0" : version;
      }
      commands.push_back(command);
      return CommandResult{0, "", "", {}};
    }
    if (command.starts_with("touch ")) {
      files[command.substr(6)] = "";
      commands.push_back(command);
      return CommandResult{0, "", "", {}};
    }
    auto result = FakeTransport::run(command, options);
    if (result && result->exit_code == 127 && answer_everything) return CommandResult{0, "", "", {}};
    return result;
  }

  Result<void> write_file(const std::string& path, const std::string& content, const WriteOptions& options = {}) override {
    const std::lock_guard lock(m_mutex);
    return FakeTransport::write_file(path, content, options);
  }

  // Packages named in the probe's dpkg-query that the script should report, for `wanted_packages`.
  void set_apt_packages(std::set<std::string> names) { m_known_packages = std::move(names); }

 private:
  // The batch the probe prints, for the nonce of its markers: the facts, the packages its
  // dpkg-query names, and (with_state) the state probe's output.
  std::string facts_batch(const std::string& script, std::size_t at, bool with_state) const {
    std::size_t end = at + 9;
    while (end < script.size() && std::isalnum(static_cast<unsigned char>(script[end]))) ++end;
    const std::string marker = script.substr(at, end - at);
    std::map<std::string, std::pair<int, std::string>> answered{
        {"kernel", {0, "6.1.0-test\n"}}, {"boot_id", {0, boot_id + "\n"}}, {"uptime", {0, "100.0 50.0\n"}},
        {"modules", {0, modules}}, {"packages", {0, dpkg_lines(script)}},
    };
    if (!gpu_query.empty()) answered.emplace("gpus", std::pair<int, std::string>{0, gpu_query});
    if (with_state) answered.emplace("state", std::pair<int, std::string>{0, state_probe(script)});
    std::string text;
    for (const auto& [name, probe] : answered)
      text += marker + " begin " + name + "\n" + probe.second + "\n" + marker + " end " + name +
              " rc=" + std::to_string(probe.first) + "\n";
    return text;
  }

  // The shell words of a `for f in ...;` list: bare or single-quoted (util::shell_quote).
  static std::vector<std::string> words_of(const std::string& list) {
    std::vector<std::string> words;
    std::istringstream in(list);
    for (std::string word; in >> word;)
      words.push_back(word.size() >= 2 && word.front() == '\'' ? word.substr(1, word.size() - 2) : word);
    return words;
  }

  // dpkg-query lines for the installed packages the batch names exactly.
  std::string dpkg_lines(const std::string& script) const {
    static const std::regex query(R"(dpkg-query -W -f='[^']*'(.*))");
    std::smatch m;
    std::string out;
    if (!std::regex_search(script, m, query)) return out;
    for (const auto& name : words_of(m[1].str()))
      if (const auto it = packages.find(name); it != packages.end())
        out += name + "\t" + it->second + "\tinstall ok installed\n";
    return out;
  }

  // The state probe's output for the files and guards its script asks about.
  std::string state_probe(const std::string& script) const {
    static const std::regex files_line(R"(for f in (.*); do \[ -f "\$f" \] && set -- "\$@" "\$f"; done; \[ \$# = 0 \] \|\| (stat|cat|sha256sum) )");
    static const std::regex guard_line(R"(if \[ -e '?([^' ]*)'? \]; then echo '@@guard (\d+) 0')");
    std::string out;
    std::smatch m;
    std::istringstream lines(script);
    for (std::string line; std::getline(lines, line);) {
      if (std::regex_search(line, m, files_line)) {
        const auto paths = words_of(m[1].str());
        const auto tool = m[2].str();
        if (tool == "stat") {
          out += "@@stat\n";
          for (const auto& path : paths) {
            const auto it = files.find(path);
            if (it == files.end()) continue;
            const auto a = attributes.contains(path) ? attributes.at(path) : FileAttributes{true, 0644, "root", "root", 0};
            char mode[8];
            std::snprintf(mode, sizeof mode, "%o", a.mode);
            out += std::string(mode) + " " + a.owner + " " + a.group + " " + std::to_string(it->second.size()) + " " + path + "\n";
          }
          out += "@@stat-end\n";
        } else if (tool == "cat") {
          out += "@@cat\n";
          for (const auto& path : paths)
            if (const auto it = files.find(path); it != files.end()) out += it->second;
          out += "\n@@cat-end\n";
        } else {
          out += "@@sha\n";
          for (const auto& path : paths)
            if (const auto it = files.find(path); it != files.end()) out += util::sha256_hex(it->second) + "  " + path + "\n";
          out += "@@sha-end\n";
        }
      } else if (std::regex_search(line, m, guard_line)) {
        out += "@@guard " + m[2].str() + (files.contains(m[1]) ? " 0\n" : " 1\n");
      }
    }
    return out + "@@done\n";
  }

  // The packages an apt-get install line names (those the test declared, with a =version if any).
  std::map<std::string, std::string> wanted_packages(const std::string& command) const {
    std::map<std::string, std::string> out;
    for (const auto& name : m_known_packages)
      if (const auto at = command.find(name); at != std::string::npos) {
        std::string version;
        if (at + name.size() < command.size() && command[at + name.size()] == '=') {
          const auto from = at + name.size() + 1;
          version = command.substr(from, command.find_first_of(" '\n", from) - from);
        }
        out[name] = version;
      }
    return out;
  }

  std::mutex m_mutex;
  std::set<std::string> m_known_packages;
};

// Fake nodes by name; `factory()` reaches them (a name it does not know is unreachable).
struct FakeCluster {
  std::map<std::string, std::unique_ptr<FakeNode>> nodes;

  FakeNode& add(const std::string& name) {
    auto& node = nodes[name];
    node = std::make_unique<FakeNode>(name);
    return *node;
  }

  TransportFactory factory() {
    return [this](const Node& node) -> Result<std::unique_ptr<Transport>> {
      const auto it = nodes.find(node.name);
      if (it == nodes.end()) return fail(ErrorCode::transport, node.name + ": connection refused");
      return std::unique_ptr<Transport>(std::make_unique<ForwardingTransport>(*it->second));
    };
  }
};

}  // namespace gpuctl::testing
