#pragma once
// A Transport for unit tests: answers commands from a script of (substring -> result) and
// keeps an in-memory file system; records every command it ran.

#include <gpuctl/transport/transport.hpp>

#include <map>
#include <string>
#include <vector>

namespace gpuctl::testing {

class FakeTransport : public Transport {
 public:
  explicit FakeTransport(std::string node = "node01") : m_node(std::move(node)) {}

  // The first rule whose `needle` occurs in the command, or in what the command gets on
  // stdin (a script for `sh -s`), answers it; unmatched commands exit 127 with "command not
  // found", like a shell.
  void on_command(std::string needle, CommandResult result) { m_rules.emplace_back(std::move(needle), std::move(result)); }
  void fail_commands_with(Error error) { m_transport_error = std::move(error); }

  std::map<std::string, std::string> files;          // path -> content
  std::map<std::string, FileAttributes> attributes;  // path -> attributes (exists implied by files)
  std::vector<std::string> commands;                 // every command run, in order

  const std::string& node() const override { return m_node; }

  Result<CommandResult> run(const std::string& command, const CommandOptions& options = {}) override {
    commands.push_back(command);
    if (m_transport_error) return std::unexpected(*m_transport_error);
    for (const auto& [needle, result] : m_rules)
      if (command.find(needle) != std::string::npos || options.stdin_data.find(needle) != std::string::npos) return result;
    return CommandResult{127, "", "sh: 1: command not found\n", {}};
  }

  Result<std::string> read_file(const std::string& path, bool = false) override {
    if (m_transport_error) return std::unexpected(*m_transport_error);
    const auto it = files.find(path);
    if (it == files.end()) return fail(ErrorCode::not_found, path + ": No such file or directory");
    return it->second;
  }

  Result<void> write_file(const std::string& path, const std::string& content, const WriteOptions& options = {}) override {
    if (m_transport_error) return std::unexpected(*m_transport_error);
    files[path] = content;
    attributes[path] = FileAttributes{true, options.mode, options.owner, options.group, content.size()};
    commands.push_back("write " + path);
    return {};
  }

  Result<FileAttributes> stat_file(const std::string& path, bool = false) override {
    if (m_transport_error) return std::unexpected(*m_transport_error);
    if (const auto it = attributes.find(path); it != attributes.end()) return it->second;
    if (const auto it = files.find(path); it != files.end())
      return FileAttributes{true, 0644, "root", "root", it->second.size()};
    return FileAttributes{};
  }

 private:
  std::string m_node;
  std::vector<std::pair<std::string, CommandResult>> m_rules;
  std::optional<Error> m_transport_error;
};

// The connection pool owns (and after a reboot destroys) what a factory returns: it gets a
// forwarder, and the fake (a FakeTransport or a FakeNode) stays with the test to inspect.
class ForwardingTransport : public Transport {
 public:
  explicit ForwardingTransport(FakeTransport& target) : m_target(target) {}
  const std::string& node() const override { return m_target.node(); }
  Result<CommandResult> run(const std::string& command, const CommandOptions& options) override {
    return m_target.run(command, options);
  }
  Result<std::string> read_file(const std::string& path, bool become) override { return m_target.read_file(path, become); }
  Result<void> write_file(const std::string& path, const std::string& content, const WriteOptions& options) override {
    return m_target.write_file(path, content, options);
  }
  Result<FileAttributes> stat_file(const std::string& path, bool become) override { return m_target.stat_file(path, become); }

 private:
  FakeTransport& m_target;
};

}  // namespace gpuctl::testing
