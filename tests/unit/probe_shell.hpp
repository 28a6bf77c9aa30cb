#pragma once
// Test helpers that run shell text under this host's /bin/sh: one probe of the facts batch
// (facts::build_probe_script) on a fake sysfs tree, or any command line, keeping what it printed
// and its exit status.

#include "temp_dir.hpp"

#include <gpuctl/facts/collect.hpp>

#include <gtest/gtest.h>

#include <cstdio>
#include <sys/wait.h>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace gpuctl::testing {

struct ShellRun {
  std::string out;  // stdout only
  int rc = -1;
};

// `command` under sh -c, stderr dropped unless the command redirects it itself.
inline ShellRun run_shell_command(const std::string& command) {
  ShellRun run;
  if (FILE* pipe = popen(command.c_str(), "r")) {
    char buffer[4096];
    while (const auto n = fread(buffer, 1, sizeof buffer, pipe)) run.out.append(buffer, n);
    const int status = pclose(pipe);
    run.rc = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  }
  return run;
}

// The body of probe `name` in the facts batch: the text of its function `p_<name>() {...}`.
inline std::string probe_body(std::string_view name) {
  const auto script = facts::build_probe_script("n");
  const auto head = "p_" + std::string(name) + "() {\n";
  const auto at = script.find(head);
  EXPECT_NE(at, std::string::npos) << "no probe " << name;
  if (at == std::string::npos) return {};
  const auto from = at + head.size();
  return script.substr(from, script.find("\n}\n", from) - from);
}

// Runs a probe body as a function under /bin/sh, with every `from` path in it replaced by its
// `to` (a fake tree), from directory `cwd` when given (so that a name run as a command would
// leave its trace there). `rc` is the function's return status.
inline ShellRun run_probe_body(std::string body, const std::vector<std::pair<std::string, std::string>>& moves,
                               const std::string& cwd = {}) {
  for (const auto& [from, to] : moves)
    for (auto at = body.find(from); at != std::string::npos; at = body.find(from, at + to.size())) body.replace(at, from.size(), to);
  const TempDir dir;
  const auto script = dir.write("probe.sh", "f() {\n" + body + "\n}\nf\necho \"rc=$?\"\n");
  auto run = run_shell_command((cwd.empty() ? "" : "cd " + cwd + " 2>/dev/null; ") + "/bin/sh " + script + " 2>/dev/null");
  run.rc = -1;
  if (const auto rc_at = run.out.rfind("rc="); rc_at != std::string::npos) {
    run.rc = std::stoi(run.out.substr(rc_at + 3));
    run.out.erase(rc_at);
  }
  return run;
}

}  // namespace gpuctl::testing
