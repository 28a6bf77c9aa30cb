// The local secret store (state/secret_store.hpp) against real directories: keys are created 0600 in
// 0700 directories gpuctl makes itself; nothing it did not create is chmodded, followed or
// adopted, and cluster or secret names cannot lead out of the store.
#include <gpuctl/state/secret_store.hpp>

#include "temp_dir.hpp"

#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <sys/stat.h>
#include <unistd.h>
#include <vector>

namespace gpuctl {
namespace {

namespace fs = std::filesystem;
using testing::TempDir;
using testing::mode_of;
using state::default_secrets_dir;
using state::is_plain_secret_name;
using state::load_or_create_secret;
using state::load_secret;

constexpr uid_t k_other_uid = 65534;  // nobody

bool contains(const std::string& text, std::string_view part) { return text.find(part) != std::string::npos; }

// <tmp>/state/secrets/hopper, as default_secrets_dir lays it out.
struct Store {
  TempDir tmp;
  std::string state = tmp / "state";
  std::string secrets = state + "/secrets";
  std::string dir = secrets + "/hopper";
};

TEST(Secrets, CreatesTheKeyPrivatelyOnceAndReadsItBack) {
  Store store;
  auto key = load_or_create_secret(store.dir, "munge.key");
  ASSERT_TRUE(key) << key.error().to_string();
  EXPECT_EQ(key->size(), 1024u);
  EXPECT_EQ(mode_of(store.dir + "/munge.key"), 0600u);
  for (const auto& dir : {store.state, store.secrets, store.dir}) EXPECT_EQ(mode_of(dir), 0700u) << dir;
  auto again = load_or_create_secret(store.dir, "munge.key");
  ASSERT_TRUE(again) << again.error().to_string();
  EXPECT_EQ(*again, *key);
}

TEST(Secrets, RefusesNamesThatAreNotPlain) {
  Store store;
  for (const std::string& bad : std::vector<std::string>{"", "../munge.key", "a/b", ".munge.key", "..", "munge key",
                                                         std::string(256, 'k')}) {
    auto refused = load_or_create_secret(store.dir, bad);
    EXPECT_FALSE(refused) << "accepted '" << bad << "'";
    if (!refused) continue;
    EXPECT_EQ(refused.error().code, ErrorCode::validation);
  }
  EXPECT_FALSE(fs::exists(store.state)) << "a refused name must create nothing";
  EXPECT_TRUE(is_plain_secret_name("munge.key"));
  EXPECT_TRUE(is_plain_secret_name("hopper-2:a_b"));
}

TEST(Secrets, AClusterNameCannotLeadOutOfTheStore) {
  TempDir tmp;
  ::setenv("GPUCTL_STATE_DIR", (tmp / "state").c_str(), 1);
  auto refused = default_secrets_dir("../../x");
  auto plain = default_secrets_dir("hopper");
  auto unnamed = default_secrets_dir("");
  ::unsetenv("GPUCTL_STATE_DIR");
  ASSERT_FALSE(refused);
  EXPECT_EQ(refused.error().code, ErrorCode::validation);
  EXPECT_TRUE(contains(refused.error().hint, "cluster.name")) << refused.error().hint;
  ASSERT_TRUE(plain);
  EXPECT_EQ(*plain, tmp / "state/secrets/hopper");
  ASSERT_TRUE(unnamed);
  EXPECT_EQ(*unnamed, tmp / "state/secrets/default");
}

// GPUCTL_SECRETS_DIR: the cluster's keys stay where they are whatever state directory a run
// uses; a store of its own has no state directory above it to check or create.
TEST(Secrets, AStoreOfItsOwnIsIndependentOfTheStateDirectory) {
  TempDir tmp;
  ::setenv("GPUCTL_STATE_DIR", (tmp / "ci-state").c_str(), 1);
  ::setenv("GPUCTL_SECRETS_DIR", (tmp / "keys").c_str(), 1);
  auto dir = default_secrets_dir("hopper");
  ::unsetenv("GPUCTL_STATE_DIR");
  ASSERT_TRUE(dir) << dir.error().to_string();
  EXPECT_EQ(*dir, tmp / "keys/hopper");
  auto key = load_or_create_secret(*dir, "munge.key");
  ::unsetenv("GPUCTL_SECRETS_DIR");
  ASSERT_TRUE(key) << key.error().to_string();
  EXPECT_EQ(mode_of(tmp / "keys"), 0700u);
  EXPECT_FALSE(fs::exists(tmp / "ci-state")) << "the state directory is not the store's";
}

// load_secret (plan, verify): what load_or_create_secret would read, or nothing; never creates.
TEST(Secrets, LoadingOnlyCreatesNothingAndChecksLikeLoadOrCreate) {
  Store store;
  auto none = load_secret(store.dir, "munge.key");
  ASSERT_TRUE(none) << none.error().to_string();
  EXPECT_FALSE(none->has_value());
  EXPECT_FALSE(fs::exists(store.state)) << "loading created the store";
  auto key = load_or_create_secret(store.dir, "munge.key");
  ASSERT_TRUE(key);
  auto loaded = load_secret(store.dir, "munge.key");
  ASSERT_TRUE(loaded && loaded->has_value());
  EXPECT_EQ(**loaded, *key);
  ::chmod((store.dir + "/munge.key").c_str(), 0640);
  auto loose = load_secret(store.dir, "munge.key");
  ASSERT_FALSE(loose) << "a key others can read was loaded";
  EXPECT_EQ(loose.error().code, ErrorCode::validation);
  ::chmod((store.dir + "/munge.key").c_str(), 0600);
  ::chmod(store.state.c_str(), 0777);
  auto shared = load_secret(store.dir, "munge.key");
  ::chmod(store.state.c_str(), 0700);
  ASSERT_FALSE(shared) << "a key in a world-writable state directory was loaded";
  EXPECT_FALSE(load_secret(store.dir, "../munge.key"));
}

TEST(Secrets, TheStoreItselfRefusesADotDotDirectory) {
  // The attack on the old store: secrets/../../x chmodded a directory outside to 0700 and put
  // the key there.
  TempDir tmp;
  const auto outside = tmp / "outside";
  fs::create_directory(outside);
  ::chmod(outside.c_str(), 0755);
  fs::create_directories(tmp / "state/secrets");
  for (const auto& escape : {tmp / "state/secrets/../../outside", tmp / "state/secrets/../../outside/.."}) {
    auto refused = load_or_create_secret(escape, "munge.key");
    ASSERT_FALSE(refused) << escape;
    EXPECT_EQ(refused.error().code, ErrorCode::validation);
  }
  EXPECT_EQ(mode_of(outside), 0755u);
  EXPECT_FALSE(fs::exists(outside + "/munge.key"));
  EXPECT_FALSE(fs::exists(tmp / "munge.key"));
}

TEST(Secrets, ALooseExistingDirectoryIsRefusedNotChmodded) {
  Store store;
  fs::create_directories(store.dir);
  ::chmod(store.dir.c_str(), 0755);
  auto refused = load_or_create_secret(store.dir, "munge.key");
  ASSERT_FALSE(refused);
  EXPECT_EQ(refused.error().code, ErrorCode::validation);
  EXPECT_TRUE(contains(refused.error().message, "mode 0755")) << refused.error().message;
  EXPECT_TRUE(contains(refused.error().hint, "chmod 700 " + store.dir)) << refused.error().hint;
  EXPECT_EQ(mode_of(store.dir), 0755u);
  EXPECT_FALSE(fs::exists(store.dir + "/munge.key"));
}

TEST(Secrets, AGroupWritableStateDirectoryIsRefused) {
  Store store;
  fs::create_directories(store.dir);
  ::chmod(store.dir.c_str(), 0700);
  ::chmod(store.secrets.c_str(), 0700);
  ::chmod(store.state.c_str(), 0775);
  auto refused = load_or_create_secret(store.dir, "munge.key");
  ASSERT_FALSE(refused);
  EXPECT_TRUE(contains(refused.error().message, "state directory " + store.state)) << refused.error().message;
  EXPECT_EQ(mode_of(store.state), 0775u);
  EXPECT_FALSE(fs::exists(store.dir + "/munge.key"));
}

TEST(Secrets, NothingIsCreatedInASharedStateDirectory) {
  // GPUCTL_STATE_DIR pointing at a shared directory (/tmp-like): refused before any mkdir.
  Store store;
  fs::create_directory(store.state);
  ::chmod(store.state.c_str(), 01777);
  auto refused = load_or_create_secret(store.dir, "munge.key");
  ASSERT_FALSE(refused);
  EXPECT_TRUE(contains(refused.error().message, "writable by group or others (mode 1777)")) << refused.error().message;
  EXPECT_EQ(mode_of(store.state), 01777u);
  EXPECT_FALSE(fs::exists(store.secrets));
}

TEST(Secrets, ASymlinkedDirectoryIsRefused) {
  Store store;
  fs::create_directories(store.secrets);
  const auto elsewhere = store.tmp / "elsewhere";
  fs::create_directory(elsewhere);
  ::chmod(elsewhere.c_str(), 0700);
  ASSERT_EQ(::symlink(elsewhere.c_str(), store.dir.c_str()), 0);
  auto refused = load_or_create_secret(store.dir, "munge.key");
  ASSERT_FALSE(refused);
  EXPECT_TRUE(contains(refused.error().message, "symbolic link")) << refused.error().message;
  EXPECT_FALSE(fs::exists(elsewhere + "/munge.key"));
}

TEST(Secrets, ASymlinkedKeyIsRefusedEvenToAPrivateFile) {
  Store store;
  ASSERT_TRUE(load_or_create_secret(store.dir, "other.key"));
  const auto key = store.dir + "/munge.key";
  ASSERT_EQ(::symlink((store.dir + "/other.key").c_str(), key.c_str()), 0);
  auto refused = load_or_create_secret(store.dir, "munge.key");
  ASSERT_FALSE(refused);
  EXPECT_TRUE(contains(refused.error().message, "symbolic link")) << refused.error().message;
  EXPECT_TRUE(contains(refused.error().hint, "rm " + key)) << refused.error().hint;
}

TEST(Secrets, ALooseKeyIsRefusedAndLeftAsItIs) {
  Store store;
  ASSERT_TRUE(load_or_create_secret(store.dir, "munge.key"));
  const auto key = store.dir + "/munge.key";
  for (const mode_t loose : {0640, 0604, 0620, 0602}) {
    ::chmod(key.c_str(), loose);
    auto refused = load_or_create_secret(store.dir, "munge.key");
    ASSERT_FALSE(refused) << std::oct << loose;
    EXPECT_EQ(refused.error().code, ErrorCode::validation);
    EXPECT_TRUE(contains(refused.error().hint, "rm " + key)) << refused.error().hint;
    EXPECT_EQ(mode_of(key), loose);
  }
}

TEST(Secrets, AKeyThatIsAFifoIsRefusedWithoutHanging) {
  Store store;
  ASSERT_TRUE(load_or_create_secret(store.dir, "other.key"));  // creates the directories
  const auto key = store.dir + "/munge.key";
  ASSERT_EQ(::mkfifo(key.c_str(), 0600), 0);
  ::alarm(10);
  auto refused = load_or_create_secret(store.dir, "munge.key");
  ::alarm(0);
  ASSERT_FALSE(refused);
  EXPECT_TRUE(contains(refused.error().message, "not a regular file")) << refused.error().message;
}

TEST(Secrets, AKeyPlantedByAnotherUserIsNotAdopted) {
  if (::geteuid() != 0) GTEST_SKIP() << "needs root to give a file to another user";
  Store store;
  ASSERT_TRUE(load_or_create_secret(store.dir, "other.key"));
  const auto key = store.dir + "/munge.key";
  std::ofstream(key) << std::string(1024, 'p');
  ::chmod(key.c_str(), 0600);
  ASSERT_EQ(::chown(key.c_str(), k_other_uid, k_other_uid), 0);
  auto refused = load_or_create_secret(store.dir, "munge.key");
  ASSERT_FALSE(refused);
  EXPECT_TRUE(contains(refused.error().message, "gpuctl did not create it")) << refused.error().message;
}

TEST(Secrets, ADirectoryOfAnotherUserIsRefused) {
  if (::geteuid() != 0) GTEST_SKIP() << "needs root to give a directory to another user";
  Store store;
  fs::create_directories(store.dir);
  ::chmod(store.dir.c_str(), 0700);
  ASSERT_EQ(::chown(store.dir.c_str(), k_other_uid, k_other_uid), 0);
  auto refused = load_or_create_secret(store.dir, "munge.key");
  ASSERT_FALSE(refused);
  EXPECT_TRUE(contains(refused.error().message, "belongs to uid 65534")) << refused.error().message;
  EXPECT_FALSE(fs::exists(store.dir + "/munge.key"));
}

}  // namespace
}  // namespace gpuctl
