// Where the state database lives (state/state_store.hpp, util/private_dir.hpp): directories
// are created 0700; an existing directory or database that others could write or that is not
// the current user's is refused with the fix and left exactly as it was; no symlink is
// followed to the database.
#include <gpuctl/state/secret_store.hpp>
#include <gpuctl/state/state_store.hpp>
#include <gpuctl/util/private_dir.hpp>

#include "temp_dir.hpp"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <sys/stat.h>
#include <unistd.h>

namespace gpuctl {
namespace {

namespace fs = std::filesystem;
using testing::TempDir;
using testing::mode_of;
using state::load_or_create_secret;

bool contains(const std::string& text, std::string_view part) { return text.find(part) != std::string::npos; }

std::string make_dir(const std::string& path, mode_t mode) {
  fs::create_directories(path);
  ::chmod(path.c_str(), mode);
  return path;
}

TEST(StateDir, CreatesMissingDirectories0700) {
  TempDir tmp;
  const auto db = tmp / "x/y/state.db";
  auto store = state::StateStore::open(db);
  ASSERT_TRUE(store) << store.error().to_string();
  EXPECT_EQ(mode_of(tmp / "x"), 0700u);
  EXPECT_EQ(mode_of(tmp / "x/y"), 0700u);
  EXPECT_EQ(mode_of(db), 0600u);
}

TEST(StateDir, AnExistingReadableDirectoryIsUsedAsItIs) {
  TempDir tmp;
  const auto dir = make_dir(tmp / "state", 0755);
  auto store = state::StateStore::open(dir + "/state.db");
  ASSERT_TRUE(store) << store.error().to_string();
  EXPECT_EQ(mode_of(dir), 0755u) << "gpuctl changes no directory it did not create";
}

TEST(StateDir, AGroupOrWorldWritableDirectoryIsRefusedNotChmodded) {
  for (const mode_t shared : {0775, 0777, 01777, 0757}) {
    TempDir tmp;
    const auto dir = make_dir(tmp / "shared", shared);
    auto store = state::StateStore::open(dir + "/state.db");
    ASSERT_FALSE(store) << std::oct << shared;
    EXPECT_EQ(store.error().code, ErrorCode::validation);
    EXPECT_TRUE(contains(store.error().message, "writable by group or others")) << store.error().message;
    EXPECT_TRUE(contains(store.error().hint, "GPUCTL_STATE_DIR")) << store.error().hint;
    EXPECT_EQ(mode_of(dir), shared);
    EXPECT_FALSE(fs::exists(dir + "/state.db"));
  }
}

TEST(StateDir, ADirectoryOfAnotherUserIsRefused) {
  if (::geteuid() != 0) GTEST_SKIP() << "needs root to give a directory to another user";
  TempDir tmp;
  const auto dir = make_dir(tmp / "theirs", 0755);
  ASSERT_EQ(::chown(dir.c_str(), 65534, 65534), 0);
  auto store = state::StateStore::open(dir + "/state.db");
  ASSERT_FALSE(store);
  EXPECT_TRUE(contains(store.error().message, "belongs to uid 65534")) << store.error().message;
  EXPECT_FALSE(fs::exists(dir + "/state.db"));
}

TEST(StateDir, ASymlinkAtTheDatabasePathIsRefusedAndItsTargetUntouched) {
  TempDir tmp;
  const auto target = tmp.write("precious", "not a database\n", 0644);
  const auto db = tmp / "state.db";
  ASSERT_EQ(::symlink(target.c_str(), db.c_str()), 0);
  auto store = state::StateStore::open(db);
  ASSERT_FALSE(store);
  EXPECT_EQ(store.error().code, ErrorCode::validation);
  EXPECT_TRUE(contains(store.error().message, "symbolic link")) << store.error().message;
  EXPECT_EQ(mode_of(target), 0644u);
  EXPECT_EQ(testing::read_binary(target), "not a database\n");
}

TEST(StateDir, ADanglingSymlinkAtTheDatabasePathCreatesNothing) {
  TempDir tmp;
  const auto target = tmp / "would-be-created";
  const auto db = tmp / "state.db";
  ASSERT_EQ(::symlink(target.c_str(), db.c_str()), 0);
  EXPECT_FALSE(state::StateStore::open(db));
  EXPECT_FALSE(fs::exists(target));
}

TEST(StateDir, ADatabaseThatIsAFifoIsRefusedWithoutHanging) {
  TempDir tmp;
  const auto db = tmp / "state.db";
  ASSERT_EQ(::mkfifo(db.c_str(), 0600), 0);
  ::alarm(10);
  auto store = state::StateStore::open(db);
  ::alarm(0);
  ASSERT_FALSE(store);
  EXPECT_TRUE(contains(store.error().message, "not a regular file")) << store.error().message;
}

TEST(StateDir, ADatabaseOfAnotherUserIsRefused) {
  if (::geteuid() != 0) GTEST_SKIP() << "needs root to give a file to another user";
  TempDir tmp;
  const auto db = tmp.write("state.db", "", 0600);
  ASSERT_EQ(::chown(db.c_str(), 65534, 65534), 0);
  auto store = state::StateStore::open(db);
  ASSERT_FALSE(store);
  EXPECT_TRUE(contains(store.error().message, "belongs to uid 65534")) << store.error().message;
}

TEST(PrivateDir, PrivateDirectoriesMustNotBeOpenAtAllNorLinks) {
  TempDir tmp;
  const auto readable = make_dir(tmp / "readable", 0750);
  auto refused = util::prepare_own_directory(readable, util::DirectoryRule::private_to_owner, "run log directory", "x");
  ASSERT_FALSE(refused);
  EXPECT_TRUE(contains(refused.error().message, "run log directory " + readable)) << refused.error().message;
  EXPECT_EQ(mode_of(readable), 0750u);

  const auto real = make_dir(tmp / "real", 0700);
  const auto link = tmp / "link";
  ASSERT_EQ(::symlink(real.c_str(), link.c_str()), 0);
  EXPECT_FALSE(util::prepare_own_directory(link, util::DirectoryRule::private_to_owner, "run log directory", "x"));
  // The state directory's rule follows a link to a directory of the user's own.
  EXPECT_TRUE(util::prepare_own_directory(link, util::DirectoryRule::no_other_writers, "state directory", "x"));
}

TEST(PrivateDir, CreatesOnlyWhatIsMissingAndRefusesAFileInTheWay) {
  TempDir tmp;
  const auto existing = make_dir(tmp / "existing", 0755);
  ASSERT_TRUE(util::prepare_own_directory(existing + "/a/b/", util::DirectoryRule::private_to_owner, "d", "x"));
  EXPECT_EQ(mode_of(existing), 0755u);
  EXPECT_EQ(mode_of(existing + "/a"), 0700u);
  EXPECT_EQ(mode_of(existing + "/a/b"), 0700u);
  const auto file = tmp.write("file", "x");
  auto refused = util::prepare_own_directory(file, util::DirectoryRule::no_other_writers, "state directory", "x");
  ASSERT_FALSE(refused);
  EXPECT_TRUE(contains(refused.error().message, "is not a directory")) << refused.error().message;
}

}  // namespace
}  // namespace gpuctl

// A team's state directory (docs/configuration.md): setgid, group rwx, not writable by others,
// its group one of ours. What gpuctl creates there is the team's (directories 2770, the
// database 0660, a secret 0640); a teammate's database and key are used; anything else is
// refused as before and left as it is.
namespace gpuctl {
namespace {  // the same unnamed namespace as above

std::string team_dir(const TempDir& tmp, mode_t mode = 02770) {
  const auto dir = make_dir(tmp / "team", mode);
  EXPECT_EQ(::chown(dir.c_str(), static_cast<uid_t>(-1), ::getegid()), 0);
  ::chmod(dir.c_str(), mode);  // chown may clear the setgid bit
  return dir;
}

TEST(TeamStateDir, WhatGpuctlCreatesInATeamDirectoryIsTheTeams) {
  TempDir tmp;
  const auto dir = team_dir(tmp);
  ASSERT_TRUE(util::team_group_of(dir));
  auto store = state::StateStore::open(dir + "/state.db");
  ASSERT_TRUE(store) << store.error().to_string();
  EXPECT_EQ(mode_of(dir + "/state.db"), 0660u);
  ASSERT_TRUE(util::prepare_own_directory(dir + "/logs", util::DirectoryRule::private_to_owner, "run log directory", ""));
  EXPECT_EQ(mode_of(dir + "/logs"), 02770u);
  auto key = load_or_create_secret(dir + "/secrets/lab", "munge.key");
  ASSERT_TRUE(key) << key.error().to_string();
  EXPECT_EQ(mode_of(dir + "/secrets"), 02770u);
  EXPECT_EQ(mode_of(dir + "/secrets/lab"), 02770u);
  EXPECT_EQ(mode_of(dir + "/secrets/lab/munge.key"), 0640u);
  EXPECT_EQ(mode_of(dir), 02770u) << "the team's directory itself is never changed";
}

TEST(TeamStateDir, ATeammatesDatabaseAndKeyAreUsed) {
  if (::geteuid() != 0) GTEST_SKIP() << "needs root to make files a teammate's";
  TempDir tmp;
  const auto dir = team_dir(tmp);
  ASSERT_TRUE(state::StateStore::open(dir + "/state.db"));
  auto key = load_or_create_secret(dir + "/secrets/lab", "munge.key");
  ASSERT_TRUE(key);
  for (const auto& path : {dir + "/state.db", dir + "/secrets", dir + "/secrets/lab", dir + "/secrets/lab/munge.key"}) {
    const auto mode = mode_of(path);
    ASSERT_EQ(::chown(path.c_str(), 65534, static_cast<gid_t>(-1)), 0) << path;
    ::chmod(path.c_str(), mode);
  }
  auto store = state::StateStore::open(dir + "/state.db");
  EXPECT_TRUE(store) << store.error().to_string();
  auto again = load_or_create_secret(dir + "/secrets/lab", "munge.key");
  ASSERT_TRUE(again) << again.error().to_string();
  EXPECT_EQ(*again, *key);
}

TEST(TeamStateDir, WithoutSetgidOrOpenToOthersItIsNotATeamDirectory) {
  for (const mode_t mode : {0770, 02772, 02777}) {
    TempDir tmp;
    const auto dir = team_dir(tmp, mode);
    EXPECT_FALSE(util::team_group_of(dir)) << std::oct << mode;
    auto store = state::StateStore::open(dir + "/state.db");
    ASSERT_FALSE(store) << std::oct << mode;
    EXPECT_TRUE(contains(store.error().message, "writable by group or others")) << store.error().message;
    EXPECT_EQ(mode_of(dir), mode);
    EXPECT_FALSE(fs::exists(dir + "/state.db"));
  }
}

TEST(TeamStateDir, AGroupWeAreNotInIsNoTeamOfOurs) {
  if (::geteuid() != 0) GTEST_SKIP() << "needs root to give a directory another group";
  TempDir tmp;
  const auto dir = team_dir(tmp);
  ASSERT_EQ(::chown(dir.c_str(), static_cast<uid_t>(-1), 65534), 0);
  ::chmod(dir.c_str(), 02770);
  if (util::is_team_group(65534)) GTEST_SKIP() << "this user is in group 65534";
  EXPECT_FALSE(util::team_group_of(dir));
  EXPECT_FALSE(state::StateStore::open(dir + "/state.db"));
  EXPECT_FALSE(fs::exists(dir + "/state.db"));
}

TEST(TeamStateDir, ATeamFileOpenToOthersIsRefusedAndLeftAsItIs) {
  TempDir tmp;
  const auto dir = team_dir(tmp);
  ASSERT_TRUE(state::StateStore::open(dir + "/state.db"));
  ::chmod((dir + "/state.db").c_str(), 0664);
  auto store = state::StateStore::open(dir + "/state.db");
  ASSERT_FALSE(store);
  EXPECT_TRUE(contains(store.error().message, "open to others")) << store.error().message;
  EXPECT_EQ(mode_of(dir + "/state.db"), 0664u);
  ASSERT_TRUE(load_or_create_secret(dir + "/secrets/lab", "munge.key"));
  ::chmod((dir + "/secrets/lab/munge.key").c_str(), 0660);
  EXPECT_FALSE(load_or_create_secret(dir + "/secrets/lab", "munge.key")) << "a key the team could rewrite";
  ::chmod((dir + "/secrets/lab").c_str(), 02775);
  ::chmod((dir + "/secrets/lab/munge.key").c_str(), 0640);
  EXPECT_FALSE(load_or_create_secret(dir + "/secrets/lab", "munge.key")) << "a store others can list";
}

}  // namespace
}  // namespace gpuctl
