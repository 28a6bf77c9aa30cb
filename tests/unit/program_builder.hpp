#pragma once
// Builds a Playbook and a NodeProgram in code for planner, probe, apply and verify tests,
// without templates, variables or the YAML loader. The program's ResolvedSteps point into
// the fixture's own Playbook, so a ProgramFixture is neither copied nor moved.

#include <gpuctl/plan/program.hpp>
#include <gpuctl/util/sha256.hpp>

#include <string>
#include <vector>

namespace gpuctl::testing {

struct FileSpec {
  std::uint32_t mode = 0644;
  std::string owner = "root";
  std::string group = "root";
  bool secret = false;
  std::vector<std::string> notify;
};

inline ResolvedResource resolved_file(std::string path, std::string content, FileSpec spec = {}) {
  ResolvedResource r;
  r.resource.kind = ResourceKind::file;
  r.resource.file.path = std::move(path);
  if (spec.secret) r.resource.file.secret = "munge.key";
  else r.resource.file.template_name = "x.mustache";
  r.resource.file.mode = spec.mode;
  r.resource.file.owner = spec.owner;
  r.resource.file.group = spec.group;
  r.resource.notify = spec.notify;
  r.content_digest = util::sha256_hex(content);
  r.content = std::move(content);
  r.secret = spec.secret;
  return r;
}

inline ResolvedResource resolved_package(std::string name, std::string version = {}, bool hold = false,
                                         PackageState state = PackageState::present,
                                         std::vector<std::string> notify = {}) {
  ResolvedResource r;
  r.resource.kind = ResourceKind::package;
  r.resource.package = PackageResource{std::move(name), state, std::move(version), hold};
  r.resource.notify = std::move(notify);
  return r;
}

inline ResolvedResource resolved_service(std::string name, std::optional<bool> enabled, std::optional<bool> running) {
  ResolvedResource r;
  r.resource.kind = ResourceKind::service;
  r.resource.service = ServiceResource{std::move(name), enabled, running};
  return r;
}

inline ResolvedResource resolved_command(std::string run, std::string creates = {}, std::string unless = {},
                                         std::string reason = {}, std::vector<std::string> notify = {}) {
  ResolvedResource r;
  r.resource.kind = ResourceKind::command;
  r.resource.command = CommandResource{std::move(run), std::move(creates), std::move(unless), std::move(reason)};
  r.resource.notify = std::move(notify);
  return r;
}

struct StepSpec {
  StepSpec(std::string name_, std::vector<ResolvedResource> resources_ = {}, RebootPolicy reboot_ = RebootPolicy::never,
           std::string reboot_unless_ = {}, std::vector<std::string> checks_ = {}, std::string reboot_if_ = {})
      : name(std::move(name_)), resources(std::move(resources_)), reboot(reboot_),
        reboot_unless(std::move(reboot_unless_)), checks(std::move(checks_)), reboot_if(std::move(reboot_if_)) {}

  std::string name;
  std::vector<ResolvedResource> resources;
  RebootPolicy reboot = RebootPolicy::never;
  std::string reboot_unless;
  std::vector<std::string> checks;
  std::string reboot_if;
};

class ProgramFixture {
 public:
  ProgramFixture(std::vector<StepSpec> steps, std::vector<Handler> handlers = {}, std::string node = "node01") {
    playbook.name = "test";
    playbook.path = "test.yaml";
    playbook.handlers = std::move(handlers);
    for (const auto& spec : steps) {
      Step step;
      step.name = spec.name;
      step.reboot = spec.reboot;
      step.reboot_unless = spec.reboot_unless;
      step.reboot_if = spec.reboot_if;
      step.checks = spec.checks;
      for (const auto& r : spec.resources) step.resources.push_back(r.resource);
      playbook.steps.push_back(std::move(step));
    }
    program.node = std::move(node);
    for (std::size_t i = 0; i < steps.size(); ++i)
      program.steps.push_back(ResolvedStep{&playbook.steps[i], &playbook, std::move(steps[i].resources),
                                           steps[i].reboot_unless, steps[i].reboot_if});
  }
  ProgramFixture(const ProgramFixture&) = delete;
  ProgramFixture& operator=(const ProgramFixture&) = delete;

  Playbook playbook;
  NodeProgram program;
};

}  // namespace gpuctl::testing
