// Loading and checking playbooks (playbook/loader.hpp), including the shipped ones.
#include <gpuctl/playbook/loader.hpp>
#include <gpuctl_build_paths.hpp>

#include <fmt/format.h>
#include <gtest/gtest.h>

#include <algorithm>

#include <string>
#include <vector>

namespace gpuctl {
namespace {

constexpr std::string_view k_good = R"(name: demo
description: a playbook for tests
handlers:
  - name: restart-munge
    service: munge
  - name: apt-update
    run: apt-get update
steps:
  - name: first
    description: one of each
    when: is_gpu_node
    resources:
      - file: /etc/munge/munge.key
        secret: munge.key
        mode: "0400"
        owner: munge
        group: munge
        notify: [restart-munge]
      - file: /etc/nccl.conf
        template: nccl.conf.mustache
      - package: nvidia-driver-550
        version: "550.127.08"
        hold: true
      - package: nouveau-firmware
        state: absent
      - service: munge
        enabled: true
        running: false
      - command: update-initramfs -u
        unless: "! grep -q nouveau /proc/modules"
        reason: rebuild
        notify: apt-update
        when: is_gpu_node
    reboot: on-change
    reboot_unless: "true"
    checks: [nouveau_not_loaded, driver_version]
  - name: second
    resources:
      - command: touch /x
        creates: /x
)";

Result<Playbook> load(std::string_view text) { return load_playbook_text(text, "test.yaml"); }

TEST(PlaybookLoader, ReadsEveryFieldOfAGoodPlaybook) {
  const auto playbook = load(k_good);
  ASSERT_TRUE(playbook) << playbook.error().to_string();
  EXPECT_EQ(playbook->name, "demo");
  EXPECT_EQ(playbook->path, "test.yaml");
  EXPECT_EQ(playbook->digest.size(), 64u);
  ASSERT_EQ(playbook->handlers.size(), 2u);
  EXPECT_EQ(playbook->handlers[0].service, "munge");
  EXPECT_EQ(playbook->handlers[1].run, "apt-get update");
  ASSERT_EQ(playbook->steps.size(), 2u);

  const auto& step = playbook->steps[0];
  EXPECT_EQ(step.name, "first");
  EXPECT_EQ(step.description, "one of each");
  EXPECT_EQ(step.when, "is_gpu_node");
  EXPECT_EQ(step.reboot, RebootPolicy::on_change);
  EXPECT_EQ(step.reboot_unless, "true");
  EXPECT_EQ(step.checks, (std::vector<std::string>{"nouveau_not_loaded", "driver_version"}));
  EXPECT_EQ(step.line, 9);
  ASSERT_EQ(step.resources.size(), 6u);

  const auto& secret = step.resources[0];
  EXPECT_EQ(secret.kind, ResourceKind::file);
  EXPECT_EQ(secret.file.path, "/etc/munge/munge.key");
  EXPECT_EQ(secret.file.secret, "munge.key");
  EXPECT_EQ(secret.file.mode, 0400u);
  EXPECT_EQ(secret.file.owner, "munge");
  EXPECT_EQ(secret.file.group, "munge");
  EXPECT_EQ(secret.notify, std::vector<std::string>{"restart-munge"});
  EXPECT_EQ(resource_id(secret), "file:/etc/munge/munge.key");

  const auto& templated = step.resources[1];
  EXPECT_EQ(templated.file.template_name, "nccl.conf.mustache");
  EXPECT_EQ(templated.file.mode, 0644u);
  EXPECT_EQ(templated.file.owner, "root");
  EXPECT_EQ(templated.file.group, "root");

  const auto& driver = step.resources[2];
  EXPECT_EQ(driver.kind, ResourceKind::package);
  EXPECT_EQ(driver.package.name, "nvidia-driver-550");
  EXPECT_EQ(driver.package.version, "550.127.08");
  EXPECT_TRUE(driver.package.hold);
  EXPECT_EQ(driver.package.state, PackageState::present);
  EXPECT_EQ(resource_id(driver), "package:nvidia-driver-550");
  EXPECT_EQ(step.resources[3].package.state, PackageState::absent);
  EXPECT_FALSE(step.resources[3].package.hold);

  const auto& service = step.resources[4];
  EXPECT_EQ(service.kind, ResourceKind::service);
  EXPECT_EQ(service.service.enabled, std::optional<bool>(true));
  EXPECT_EQ(service.service.running, std::optional<bool>(false));

  const auto& command = step.resources[5];
  EXPECT_EQ(command.kind, ResourceKind::command);
  EXPECT_EQ(command.command.run, "update-initramfs -u");
  EXPECT_EQ(command.command.unless, "! grep -q nouveau /proc/modules");
  EXPECT_EQ(command.command.reason, "rebuild");
  EXPECT_EQ(command.notify, std::vector<std::string>{"apt-update"});  // a scalar notify is a list of one
  EXPECT_EQ(command.when, "is_gpu_node");
  EXPECT_EQ(resource_id(command), "command:update-initramfs -u");

  EXPECT_EQ(playbook->steps[1].reboot, RebootPolicy::never);
  EXPECT_EQ(playbook->steps[1].resources[0].command.creates, "/x");
  EXPECT_NE(playbook->find_handler("apt-update"), nullptr);
  EXPECT_EQ(playbook->find_handler("apt-upgrade"), nullptr);
}

TEST(PlaybookLoader, DigestDependsOnTheText) {
  const auto a = load(k_good);
  const auto b = load(std::string(k_good) + "# comment\n");
  ASSERT_TRUE(a && b);
  EXPECT_NE(a->digest, b->digest);
}

TEST(PlaybookLoader, UnknownStepKeyIsReportedAtItsLineAndColumnWithASuggestion) {
  const auto playbook = load("name: t\nsteps:\n  - name: one\n    resourcs: []\n");
  ASSERT_FALSE(playbook);
  const auto& error = playbook.error();
  EXPECT_EQ(error.code, ErrorCode::validation);
  EXPECT_NE(error.message.find("unknown key 'resourcs'"), std::string::npos) << error.message;
  EXPECT_EQ(error.hint, "did you mean 'resources'?");
  EXPECT_EQ(error.where.file, "test.yaml");
  EXPECT_EQ(error.where.line, 4);
  EXPECT_EQ(error.where.column, 5);
  EXPECT_NE(error.to_string().find("test.yaml:4:5"), std::string::npos) << error.to_string();
}

TEST(PlaybookLoader, UnknownResourceKeySuggestsTheClosestKey) {
  const auto playbook = load("name: t\nsteps:\n  - name: one\n    resources:\n      - package: x\n        hodl: true\n");
  ASSERT_FALSE(playbook);
  EXPECT_EQ(playbook.error().hint, "did you mean 'hold'?");
  EXPECT_EQ(playbook.error().where.line, 6);
  EXPECT_EQ(playbook.error().where.column, 9);
}

TEST(PlaybookLoader, UnknownTopLevelKeyIsAnError) {
  const auto playbook = load("name: t\nhandler: []\nsteps: []\n");
  ASSERT_FALSE(playbook);
  EXPECT_EQ(playbook.error().hint, "did you mean 'handlers'?");
  EXPECT_EQ(playbook.error().where.line, 2);
}

struct BadPlaybook {
  const char* what;
  const char* resources;   // YAML under `resources:` of one step, indented by 6
  const char* message;     // part of the error message
  int line;                // expected error line (0: don't check)
};

class PlaybookLoaderRejects : public ::testing::TestWithParam<BadPlaybook> {};

TEST_P(PlaybookLoaderRejects, BadResource) {
  const std::string text = std::string("name: t\nhandlers:\n  - name: h\n    run: echo\nsteps:\n  - name: one\n    resources:\n") +
                           GetParam().resources;
  const auto playbook = load(text);
  ASSERT_FALSE(playbook) << GetParam().what;
  EXPECT_NE(playbook.error().message.find(GetParam().message), std::string::npos)
      << GetParam().what << ": " << playbook.error().message;
  if (GetParam().line) {
    EXPECT_EQ(playbook.error().where.line, GetParam().line) << GetParam().what;
  }
}

INSTANTIATE_TEST_SUITE_P(
    Table, PlaybookLoaderRejects,
    ::testing::Values(
        BadPlaybook{"no kind", "      - mode: \"0644\"\n", "exactly one of file, package, service, command", 8},
        BadPlaybook{"two kinds", "      - package: munge\n        service: munge\n",
                    "exactly one of file, package, service, command", 8},
        BadPlaybook{"file without content", "      - file: /etc/x\n", "needs exactly one of template, source, secret", 8},
        BadPlaybook{"file with two contents", "      - file: /etc/x\n        template: x.mustache\n        secret: k\n",
                    "needs exactly one of template, source, secret", 8},
        BadPlaybook{"mode not octal", "      - file: /etc/x\n        template: x\n        mode: \"0689\"\n",
                    "is not an octal mode", 10},
        BadPlaybook{"mode too long", "      - file: /etc/x\n        template: x\n        mode: \"06444\"\n",
                    "is not an octal mode", 10},
        BadPlaybook{"mode words", "      - file: /etc/x\n        template: x\n        mode: rw-r--r--\n",
                    "is not an octal mode", 10},
        // At the notify entry itself, no longer at its resource.
        BadPlaybook{"notify unknown handler", "      - command: x\n        notify: [hh]\n", "unknown handler 'hh'", 9},
        BadPlaybook{"package bad state", "      - package: x\n        state: latest\n", "is not present or absent", 9},
        BadPlaybook{"hold not boolean", "      - package: x\n        hold: maybe\n", "must be true or false", 9},
        BadPlaybook{"resources not list", "      file: /etc/x\n", "must be a list", 0},
        BadPlaybook{"notify a mapping", "      - command: x\n        notify: {a: b}\n", "must be a list", 9}));

// One playbook, seven mistakes in different places: every one is reported, in file order, each
// at its own line and column, through both the diagnostics and the one Error callers print.
constexpr std::string_view k_many_errors = R"(name: broken
handlers:
  - name: h
    run: echo
    service: x
steps:
  - name: one
    resourcs: []
  - name: two
    resources:
      - file: /etc/x
        template: x
        mode: "0689"
      - package: y
        state: latest
      - command: z
        notify: [hh]
  - name: one
    reboot: always
)";

TEST(PlaybookLoader, ReportsEveryErrorWithItsLineAndColumn) {
  const auto checked = check_playbook_text(k_many_errors, "test.yaml");
  ASSERT_FALSE(checked.ok());
  EXPECT_FALSE(checked.syntax_error);
  struct Expected {
    int line;
    int column;
    const char* message;
  };
  const std::vector<Expected> expected{
      {3, 5, "a handler needs a name and exactly one of run, service"},
      {8, 5, "unknown key 'resourcs' in a step"},
      {13, 15, "mode '0689' of '/etc/x' is not an octal mode"},
      {15, 16, "package state 'latest' is not present or absent"},
      {17, 18, "step 'two' notifies unknown handler 'hh'"},
      {18, 5, "duplicate step 'one'"},
      {19, 13, "reboot 'always' in step 'one' is not never, on-change or deferred"},
  };
  ASSERT_EQ(checked.diagnostics.size(), expected.size());
  for (std::size_t i = 0; i < expected.size(); ++i) {
    const auto& d = checked.diagnostics[i];
    EXPECT_EQ(d.severity, Severity::error);
    EXPECT_EQ(d.file, "test.yaml");
    EXPECT_EQ(d.line, expected[i].line) << d.to_string();
    EXPECT_EQ(d.column, expected[i].column) << d.to_string();
    EXPECT_NE(d.message.find(expected[i].message), std::string::npos) << d.to_string();
  }

  const auto loaded = load(k_many_errors);
  ASSERT_FALSE(loaded);
  const auto& error = loaded.error();
  EXPECT_EQ(error.code, ErrorCode::validation);
  EXPECT_EQ(error.where.line, 3);
  EXPECT_EQ(error.where.column, 5);
  const auto text = error.to_string();
  for (const auto& e : expected) {
    const auto at = fmt::format("test.yaml:{}:{}: {}", e.line, e.column, e.message);
    EXPECT_NE(text.find(at), std::string::npos) << "missing '" << at << "' in:\n" << text;
  }
  // One line per error.
  EXPECT_EQ(std::ranges::count(text, '\n'), static_cast<long>(expected.size()) - 1) << text;
}

TEST(PlaybookLoader, OneErrorKeepsItsHintApart) {
  const auto loaded = load("name: t\nsteps:\n  - name: one\n    whne: x\n");
  ASSERT_FALSE(loaded);
  EXPECT_EQ(loaded.error().message, "unknown key 'whne' in a step");
  EXPECT_EQ(loaded.error().hint, "did you mean 'when'?");
  EXPECT_EQ(loaded.error().to_string(), "test.yaml:4:5: unknown key 'whne' in a step (did you mean 'when'?)");
}

TEST(PlaybookLoader, ErrorsInSeveralResourcesOfOneStepAreAllReported) {
  const auto checked = check_playbook_text("name: t\nsteps:\n  - name: one\n    resources:\n"
                                           "      - package: a\n        hold: maybe\n"
                                           "      - service: b\n        enabled: sometimes\n"
                                           "      - command: \"echo $(cat {{x}})\"\n",
                                           "test.yaml");
  ASSERT_FALSE(checked.ok());
  ASSERT_EQ(checked.diagnostics.size(), 3u);
  EXPECT_EQ(checked.diagnostics[0].line, 6);
  EXPECT_EQ(checked.diagnostics[1].line, 8);
  EXPECT_EQ(checked.diagnostics[2].line, 9);
  EXPECT_NE(checked.diagnostics[2].message.find("inside $(…)"), std::string::npos) << checked.diagnostics[2].message;
}

TEST(PlaybookLoader, DuplicateKeysAreReportedWithTheFirstOnesLine) {
  const auto checked = check_playbook_text("name: t\nsteps:\n  - name: one\n    when: a\n    when: b\n", "test.yaml");
  ASSERT_EQ(checked.diagnostics.size(), 1u);
  EXPECT_EQ(checked.diagnostics[0].message, "duplicate key 'when' in a step");
  EXPECT_EQ(checked.diagnostics[0].hint, "first defined at line 4");
  EXPECT_EQ(checked.diagnostics[0].line, 5);
}

TEST(PlaybookLoader, AKeyWithoutAValueIsEmpty) {
  const auto loaded = load("name: t\nsteps:\n  - name: one\n    when:\n");
  ASSERT_FALSE(loaded);
  EXPECT_EQ(loaded.error().message, "'when' in step 'one' is empty");
  EXPECT_EQ(loaded.error().where.line, 4);
}

TEST(PlaybookLoader, AMapWhereAStringBelongsIsAnError) {
  const auto loaded = load("name: t\nsteps:\n  - name: one\n    description: {a: b}\n");
  ASSERT_FALSE(loaded);
  EXPECT_EQ(loaded.error().message, "'description' in step 'one' must be a string, not a map");
}

TEST(PlaybookLoader, SyntaxErrorIsOneParseErrorAtItsPosition) {
  const auto checked = check_playbook_text("name: t\nsteps:\n  - name: [unclosed\n", "test.yaml");
  EXPECT_TRUE(checked.syntax_error);
  ASSERT_EQ(checked.diagnostics.size(), 1u);
  EXPECT_NE(checked.diagnostics[0].message.find("YAML syntax"), std::string::npos);
}

TEST(PlaybookLoader, MoreThanOneDocumentIsRefused) {
  const auto loaded = load("name: a\nsteps: []\n---\nname: b\nsteps: []\n");
  ASSERT_FALSE(loaded);
  EXPECT_EQ(loaded.error().code, ErrorCode::parse);
  EXPECT_EQ(loaded.error().hint, "keep one playbook per file (remove the '---' separators)");
}

TEST(PlaybookLoader, AnEmptyFileIsAnError) {
  const auto loaded = load("# nothing\n");
  ASSERT_FALSE(loaded);
  EXPECT_EQ(loaded.error().message, "the playbook is empty");
}

TEST(PlaybookLoader, AcceptsTheBooleanWordsYamlCppAccepted) {
  const auto playbook = load("name: t\nsteps:\n  - name: one\n    resources:\n"
                             "      - service: a\n        enabled: yes\n        running: Off\n"
                             "      - package: b\n        hold: TRUE\n");
  ASSERT_TRUE(playbook) << playbook.error().to_string();
  EXPECT_EQ(playbook->steps[0].resources[0].service.enabled, std::optional<bool>(true));
  EXPECT_EQ(playbook->steps[0].resources[0].service.running, std::optional<bool>(false));
  EXPECT_TRUE(playbook->steps[0].resources[1].package.hold);
  EXPECT_FALSE(load("name: t\nsteps:\n  - name: one\n    resources:\n      - package: b\n        hold: tRUE\n"));
}

TEST(PlaybookLoader, NotifyOfUnknownHandlerSuggestsTheClosestHandler) {
  const auto playbook =
      load("name: t\nhandlers:\n  - name: restart-munge\n    service: munge\nsteps:\n  - name: one\n    resources:\n"
           "      - command: x\n        notify: [restart-mung]\n");
  ASSERT_FALSE(playbook);
  EXPECT_EQ(playbook.error().hint, "did you mean 'restart-munge'?");
}

TEST(PlaybookLoader, HandlersMayFollowTheSteps) {
  const auto playbook = load("name: t\nsteps:\n  - name: one\n    resources:\n      - command: x\n        notify: [h]\n"
                             "handlers:\n  - name: h\n    run: echo\n");
  ASSERT_TRUE(playbook) << playbook.error().to_string();
}

TEST(PlaybookLoader, DuplicateStepNameIsAnErrorAtTheSecondStep) {
  const auto playbook = load("name: t\nsteps:\n  - name: one\n  - name: two\n  - name: one\n");
  ASSERT_FALSE(playbook);
  EXPECT_NE(playbook.error().message.find("duplicate step 'one'"), std::string::npos);
  EXPECT_EQ(playbook.error().where.line, 5);
}

TEST(PlaybookLoader, StepWithoutNameIsAnError) {
  const auto playbook = load("name: t\nsteps:\n  - description: nameless\n");
  ASSERT_FALSE(playbook);
  EXPECT_NE(playbook.error().message.find("needs a name"), std::string::npos);
}

TEST(PlaybookLoader, HandlerNeedsExactlyOneOfRunAndService) {
  EXPECT_FALSE(load("name: t\nhandlers:\n  - name: h\nsteps: []\n"));
  EXPECT_FALSE(load("name: t\nhandlers:\n  - name: h\n    run: x\n    service: y\nsteps: []\n"));
}

TEST(PlaybookLoader, MissingStepsIsAnError) {
  const auto playbook = load("name: t\n");
  ASSERT_FALSE(playbook);
  EXPECT_NE(playbook.error().message.find("list of steps"), std::string::npos);
}

TEST(PlaybookLoader, MalformedYamlIsAParseErrorWithPosition) {
  const auto playbook = load("name: t\nsteps:\n  - name: [unclosed\n");
  ASSERT_FALSE(playbook);
  EXPECT_EQ(playbook.error().code, ErrorCode::parse);
  EXPECT_EQ(playbook.error().where.file, "test.yaml");
  EXPECT_GT(playbook.error().where.line, 0);
}

struct RebootCase {
  const char* value;
  bool ok;
  RebootPolicy policy;
};

class PlaybookLoaderReboot : public ::testing::TestWithParam<RebootCase> {};

TEST_P(PlaybookLoaderReboot, AcceptsOnlyNeverOnChangeAndDeferred) {
  const auto playbook = load(std::string("name: t\nsteps:\n  - name: one\n    reboot: ") + GetParam().value + "\n");
  ASSERT_EQ(bool(playbook), GetParam().ok) << GetParam().value;
  if (playbook) EXPECT_EQ(playbook->steps[0].reboot, GetParam().policy);
  else {
    EXPECT_NE(playbook.error().message.find("not never, on-change or deferred"), std::string::npos);
    EXPECT_EQ(playbook.error().where.line, 4);
  }
}

INSTANTIATE_TEST_SUITE_P(Table, PlaybookLoaderReboot,
                         ::testing::Values(RebootCase{"never", true, RebootPolicy::never},
                                           RebootCase{"on-change", true, RebootPolicy::on_change},
                                           RebootCase{"deferred", true, RebootPolicy::deferred},
                                           RebootCase{"on_change", false, RebootPolicy::never},
                                           RebootCase{"always", false, RebootPolicy::never}));

TEST(PlaybookLoader, AcceptsThreeAndFourDigitModes) {
  const auto playbook = load("name: t\nsteps:\n  - name: one\n    resources:\n      - file: /a\n        template: a\n"
                             "        mode: \"600\"\n      - file: /b\n        template: b\n        mode: \"2755\"\n");
  ASSERT_TRUE(playbook) << playbook.error().to_string();
  EXPECT_EQ(playbook->steps[0].resources[0].file.mode, 0600u);
  EXPECT_EQ(playbook->steps[0].resources[1].file.mode, 02755u);
}

std::vector<std::string> step_names(const Playbook& playbook) {
  std::vector<std::string> names;
  for (const auto& step : playbook.steps) names.push_back(step.name);
  return names;
}

TEST(ShippedPlaybooks, GpuNodeLoadsWithItsStepsInOrder) {
  const auto playbook = load_playbook(std::string(GPUCTL_SOURCE_DIR) + "/playbooks/gpu-node.yaml");
  ASSERT_TRUE(playbook) << playbook.error().to_string();
  EXPECT_EQ(playbook->name, "gpu-node");
  // The repository before the driver, the driver before what needs it (the fabric manager at
  // its version right after it), Slurm and monitoring last.
  EXPECT_EQ(step_names(*playbook), (std::vector<std::string>{"nouveau", "cuda-repository", "driver", "fabric-manager",
                                                              "cuda-toolkit", "persistence", "rdma", "nccl",
                                                              "container-repository", "containers", "slurm",
                                                              "slurm-containers-absent", "slurm-containers", "monitoring"}));
  EXPECT_EQ(playbook->steps[2].reboot, RebootPolicy::on_change);  // a new driver takes effect at boot
  EXPECT_FALSE(playbook->steps[2].reboot_unless.empty());
}

TEST(ShippedPlaybooks, HeadNodeLoadsWithItsStepsInOrder) {
  const auto playbook = load_playbook(std::string(GPUCTL_SOURCE_DIR) + "/playbooks/head-node.yaml");
  ASSERT_TRUE(playbook) << playbook.error().to_string();
  EXPECT_EQ(playbook->name, "head-node");
  EXPECT_EQ(step_names(*playbook), (std::vector<std::string>{"slurm-controller", "node-exporter", "prometheus", "alertmanager", "grafana-absent", "grafana"}));
}

TEST(ShippedPlaybooks, DefaultNamesResolveToTheShippedFiles) {
  EXPECT_EQ(default_playbook_names(), (std::vector<std::string>{"gpu-node", "head-node"}));
  const auto path = find_playbook(std::string(GPUCTL_SOURCE_DIR) + "/playbooks/gpu-node.yaml");
  ASSERT_TRUE(path);
  EXPECT_FALSE(find_playbook("no-such-playbook-xyz"));
}

TEST(ShippedPlaybooks, MissingFileIsNotFound) {
  const auto playbook = load_playbook("/nonexistent/playbook.yaml");
  ASSERT_FALSE(playbook);
  EXPECT_EQ(playbook.error().code, ErrorCode::not_found);
}

}  // namespace
}  // namespace gpuctl
