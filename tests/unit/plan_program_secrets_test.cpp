// Secrets in a node's program (plan/program.hpp): resolve_program takes them from
// ProgramSources::secret_store as SecretMode says and touches no secret store itself (the
// provider here is a map; the real store is tested in secrets_test.cpp and, bound by api/, in
// api_use_cases_test.cpp).
#include <gpuctl/plan/program.hpp>
#include <gpuctl/util/sha256.hpp>

#include "shipped_playbooks.hpp"
#include "template_test_inventory.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <map>
#include <string>
#include <vector>

namespace gpuctl {
namespace {

// A secret store in memory that records what the planner asked of it.
struct FakeSecrets {
  std::map<std::string, std::string> kept;
  std::vector<std::string> created, loaded;

  SecretProvider provider() {
    return SecretProvider{
        .load_or_create = [this](const std::string& name) -> Result<std::string> {
          created.push_back(name);
          return kept.try_emplace(name, "generated " + name).first->second;
        },
        .load = [this](const std::string& name) -> Result<std::optional<std::string>> {
          loaded.push_back(name);
          const auto it = kept.find(name);
          return it == kept.end() ? std::optional<std::string>{} : std::optional<std::string>{it->second};
        },
    };
  }
};

Result<NodeProgram> program_with(const Inventory& inventory, SecretProvider provider, SecretMode mode) {
  ProgramSources sources;
  sources.templates_dir = testing::k_shipped_templates_dir;
  sources.secret_store = std::move(provider);
  sources.secrets = mode;
  return resolve_program(inventory, *inventory.find_node("gpu01"), testing::shipped_playbooks(), sources);
}

const ResolvedResource* munge_key(const NodeProgram& program) {
  for (const auto& step : program.steps)
    for (const auto& resolved : step.resources)
      if (resolved.secret && resolved.resource.file.path == "/etc/munge/munge.key") return &resolved;
  return nullptr;
}

TEST(ProgramSecrets, LoadOrCreateTakesTheSecretFromTheProvider) {
  const auto inventory = testing::example_inventory();
  FakeSecrets secrets;
  const auto program = program_with(inventory, secrets.provider(), SecretMode::load_or_create);
  ASSERT_TRUE(program) << program.error().to_string();
  const auto* key = munge_key(*program);
  ASSERT_NE(key, nullptr);
  EXPECT_EQ(key->content, "generated munge.key");
  EXPECT_EQ(key->content_digest, util::sha256_hex("generated munge.key"));
  EXPECT_FALSE(key->secret_missing);
  EXPECT_EQ(secrets.created, std::vector<std::string>{"munge.key"});
  EXPECT_TRUE(secrets.loaded.empty()) << "load_or_create asks for nothing else";
}

TEST(ProgramSecrets, LoadOnlyCreatesNothingAndMarksAMissingSecret) {
  const auto inventory = testing::example_inventory();
  FakeSecrets secrets;
  const auto missing = program_with(inventory, secrets.provider(), SecretMode::load_only);
  ASSERT_TRUE(missing) << missing.error().to_string();
  const auto* absent = munge_key(*missing);
  ASSERT_NE(absent, nullptr);
  EXPECT_TRUE(absent->secret_missing);
  EXPECT_EQ(absent->content, "");
  EXPECT_EQ(absent->content_digest, "") << "no digest: it must match no file a node has";
  EXPECT_TRUE(secrets.created.empty());
  EXPECT_EQ(secrets.loaded, std::vector<std::string>{"munge.key"});

  secrets.kept["munge.key"] = "the cluster's key";
  const auto present = program_with(inventory, secrets.provider(), SecretMode::load_only);
  ASSERT_TRUE(present) << present.error().to_string();
  const auto* key = munge_key(*present);
  ASSERT_NE(key, nullptr);
  EXPECT_FALSE(key->secret_missing);
  EXPECT_EQ(key->content, "the cluster's key");
  EXPECT_EQ(key->content_digest, util::sha256_hex("the cluster's key"));
  EXPECT_TRUE(secrets.created.empty());
}

TEST(ProgramSecrets, MaskedAsksTheProviderNothing) {
  const auto inventory = testing::example_inventory();
  FakeSecrets secrets;
  const auto program = program_with(inventory, secrets.provider(), SecretMode::masked);
  ASSERT_TRUE(program) << program.error().to_string();
  const auto* key = munge_key(*program);
  ASSERT_NE(key, nullptr);
  EXPECT_EQ(key->content, "");
  EXPECT_TRUE(secrets.created.empty());
  EXPECT_TRUE(secrets.loaded.empty());
}

TEST(ProgramSecrets, TheProvidersErrorComesBackInTheResourcesContext) {
  const auto inventory = testing::example_inventory();
  const SecretProvider refusing{
      .load_or_create = [](const std::string& name) -> Result<std::string> {
        return fail(ErrorCode::validation, "secret " + name + " is open to group or others");
      },
      .load = {},
  };
  const auto program = program_with(inventory, refusing, SecretMode::load_or_create);
  ASSERT_FALSE(program);
  EXPECT_EQ(program.error().code, ErrorCode::validation);
  EXPECT_EQ(program.error().message, "secret munge.key is open to group or others");
  EXPECT_EQ(program.error().where.node, "gpu01");
  EXPECT_FALSE(program.error().where.step.empty());
}

TEST(ProgramSecrets, AMissingProviderIsAnError) {
  const auto inventory = testing::example_inventory();
  for (const auto mode : {SecretMode::load_or_create, SecretMode::load_only}) {
    const auto program = program_with(inventory, SecretProvider{}, mode);
    ASSERT_FALSE(program);
    EXPECT_EQ(program.error().code, ErrorCode::internal);
    EXPECT_NE(program.error().message.find("munge.key"), std::string::npos) << program.error().message;
  }
}


// A receiver's token is the admin's: never generated, in any mode; missing, the program fails
// with the store's path and how to put it there, before any node is touched.
TEST(ProgramSecrets, AnAdminsSecretIsNeverGeneratedAndItsAbsenceSaysWhereToPutIt) {
  auto inventory = testing::example_inventory();
  inventory.cluster.monitoring.webhook.declared = true;
  inventory.cluster.monitoring.webhook.url = "https://relay.example.com/gpu";
  inventory.cluster.monitoring.webhook.bearer_token = true;
  const auto head = [&](SecretProvider provider, SecretMode mode) {
    ProgramSources sources;
    sources.templates_dir = testing::k_shipped_templates_dir;
    sources.secret_store = std::move(provider);
    sources.secret_store.directory = "/var/lib/gpuctl/secrets/c";
    sources.secrets = mode;
    return resolve_program(inventory, *inventory.find_node("head01"), testing::shipped_playbooks(), sources);
  };
  for (const auto mode : {SecretMode::load_or_create, SecretMode::load_only}) {
    FakeSecrets secrets;
    const auto missing = head(secrets.provider(), mode);
    ASSERT_FALSE(missing);
    EXPECT_NE(missing.error().message.find("secret 'alertmanager-webhook-token' is not in the secret store /var/lib/gpuctl/secrets/c"),
              std::string::npos)
        << missing.error().to_string();
    EXPECT_NE(missing.error().hint.find("install -m 0600 /dev/stdin /var/lib/gpuctl/secrets/c/alertmanager-webhook-token"),
              std::string::npos);
    EXPECT_EQ(std::ranges::count(secrets.created, "alertmanager-webhook-token"), 0);
  }
  FakeSecrets secrets;
  secrets.kept["alertmanager-webhook-token"] = "s3cr3t";
  const auto program = head(secrets.provider(), SecretMode::load_or_create);
  ASSERT_TRUE(program) << program.error().to_string();
  bool found = false;
  for (const auto& step : program->steps)
    for (const auto& resolved : step.resources)
      if (resolved.resource.file.path == "/etc/prometheus/alertmanager-secrets/webhook-token") {
        found = true;
        EXPECT_TRUE(resolved.secret);
        EXPECT_EQ(resolved.content, "s3cr3t");
        EXPECT_EQ(resolved.resource.file.group, "prometheus");
        EXPECT_EQ(resolved.resource.file.mode, 0640u);
      }
  EXPECT_TRUE(found);
  EXPECT_EQ(std::ranges::count(secrets.created, "alertmanager-webhook-token"), 0);
}

}  // namespace
}  // namespace gpuctl
