#include <gpuctl/transport/file_ops.hpp>
#include <gpuctl/transport/local_transport.hpp>

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <signal.h>
#include <thread>
#include <unistd.h>

using namespace gpuctl;
using namespace std::chrono_literals;
namespace fs = std::filesystem;

namespace {

class TempDir {
 public:
  TempDir() {
    std::string pattern = (fs::temp_directory_path() / "gpuctl-test-XXXXXX").string();
    m_path = ::mkdtemp(pattern.data());
  }
  ~TempDir() {
    std::error_code ec;
    fs::permissions(m_path, fs::perms::owner_all, fs::perm_options::add, ec);
    fs::remove_all(m_path, ec);
  }
  const fs::path& path() const { return m_path; }
  std::vector<std::string> entries() const {
    std::vector<std::string> names;
    for (const auto& entry : fs::directory_iterator(m_path)) names.push_back(entry.path().filename().string());
    std::sort(names.begin(), names.end());
    return names;
  }

 private:
  fs::path m_path;
};

std::string slurp(const fs::path& path) {
  std::ifstream in(path);
  return {std::istreambuf_iterator<char>(in), {}};
}

WriteOptions as_me(std::uint32_t mode = 0640) { return WriteOptions{.mode = mode, .owner = "", .group = ""}; }

}  // namespace

TEST(LocalTransport, CapturesStdoutStderrAndExitCode) {
  LocalTransport local;
  auto result = local.run("echo out; echo err >&2; exit 7");
  ASSERT_TRUE(result) << result.error().to_string();
  EXPECT_EQ(result->out, "out\n");
  EXPECT_EQ(result->err, "err\n");
  EXPECT_EQ(result->exit_code, 7);
}

TEST(LocalTransport, FeedsStdinLargerThanAPipeBuffer) {
  LocalTransport local;
  const std::string data(1 << 20, 'x');
  auto result = local.run("wc -c", {.stdin_data = data});
  ASSERT_TRUE(result);
  EXPECT_EQ(std::stoul(result->out), data.size());
}

TEST(LocalTransport, TimeoutKillsTheWholeProcessGroupPromptly) {
  LocalTransport local;
  TempDir dir;
  const auto pid_file = dir.path() / "child.pid";
  const auto start = std::chrono::steady_clock::now();
  auto result = local.run("sleep 30 & echo $! > " + pid_file.string() + "; wait", {.timeout = 1s});
  ASSERT_FALSE(result);
  EXPECT_EQ(result.error().code, ErrorCode::timeout);
  EXPECT_LT(std::chrono::steady_clock::now() - start, 5s);
  const pid_t child = std::stoi(slurp(pid_file));
  std::this_thread::sleep_for(100ms);
  // Gone, or a zombie waiting for init to reap it: either way no longer running.
  std::string state = "gone";
  if (std::ifstream stat("/proc/" + std::to_string(child) + "/stat"); stat) {
    std::string pid, comm;
    stat >> pid >> comm >> state;
  }
  EXPECT_TRUE(state == "gone" || state == "Z") << "the backgrounded grandchild must be killed too, state " << state;
}

TEST(LocalTransport, ReportsSignalDeathLikeAShell) {
  LocalTransport local;
  auto result = local.run("kill -TERM $$");
  ASSERT_TRUE(result);
  EXPECT_EQ(result->exit_code, 128 + SIGTERM);
}

TEST(AtomicWrite, WritesContentModeAndLeavesNoTempFile) {
  LocalTransport local;
  TempDir dir;
  const auto target = dir.path() / "nccl.conf";
  const std::string content = "NCCL_DEBUG=WARN\n\0binary'$(x)\n";
  ASSERT_TRUE(local.write_file(target.string(), content, as_me(0640)));
  EXPECT_EQ(slurp(target), content);
  EXPECT_EQ(fs::status(target).permissions() & fs::perms::all,
            fs::perms::owner_read | fs::perms::owner_write | fs::perms::group_read);
  EXPECT_EQ(dir.entries(), std::vector<std::string>{"nccl.conf"});
  auto attributes = local.stat_file(target.string());
  ASSERT_TRUE(attributes);
  EXPECT_TRUE(attributes->exists);
  EXPECT_EQ(attributes->mode, 0640u);
  EXPECT_EQ(attributes->size, content.size());
}

TEST(AtomicWrite, FailureLeavesTheOldFileAndRemovesTheTemp) {
  LocalTransport local;
  TempDir dir;
  const auto target = dir.path() / "file with 'quotes' $HOME";
  std::ofstream(target) << "old\n";
  WriteOptions options = as_me();
  options.owner = "no-such-user-gpuctl";  // chown fails after the temp file was written
  auto written = local.write_file(target.string(), "new\n", options);
  ASSERT_FALSE(written);
  EXPECT_EQ(written.error().code, ErrorCode::io);
  EXPECT_NE(written.error().message.find("no-such-user-gpuctl"), std::string::npos) << written.error().message;
  EXPECT_EQ(slurp(target), "old\n");
  EXPECT_EQ(dir.entries(), std::vector<std::string>{target.filename().string()});
}

TEST(AtomicWrite, RefusesToReplaceADirectory) {
  LocalTransport local;
  TempDir dir;
  fs::create_directory(dir.path() / "sub");
  auto written = local.write_file((dir.path() / "sub").string(), "x", as_me());
  ASSERT_FALSE(written);
  EXPECT_TRUE(fs::is_directory(dir.path() / "sub"));
  EXPECT_EQ(dir.entries(), std::vector<std::string>{"sub"});
}

TEST(AtomicWrite, UnwritableDirectoryFailsWithoutLeavingAnything) {
  if (::geteuid() == 0) GTEST_SKIP() << "root ignores directory permissions";
  LocalTransport local;
  TempDir dir;
  fs::permissions(dir.path(), fs::perms::owner_read | fs::perms::owner_exec);
  auto written = local.write_file((dir.path() / "f").string(), "x", as_me());
  ASSERT_FALSE(written);
  EXPECT_EQ(dir.entries(), std::vector<std::string>{});
}

TEST(AtomicWrite, ScriptChecksTheSizeBeforeRenaming) {
  const std::string script = transport::atomic_write_script("/etc/x", 42, {});
  EXPECT_NE(script.find("-ne 42"), std::string::npos);
  EXPECT_LT(script.find("-ne 42"), script.find("mv -f"));
  EXPECT_NE(script.find("chown -- root:root"), std::string::npos);
}

TEST(ReadFile, DistinguishesMissingFromOtherFailures) {
  LocalTransport local;
  TempDir dir;
  auto missing = local.read_file((dir.path() / "nope").string());
  ASSERT_FALSE(missing);
  EXPECT_EQ(missing.error().code, ErrorCode::not_found);
  auto directory = local.read_file(dir.path().string());
  ASSERT_FALSE(directory);
  EXPECT_EQ(directory.error().code, ErrorCode::io);
  std::ofstream(dir.path() / "f") << "hello\n";
  auto present = local.read_file((dir.path() / "f").string());
  ASSERT_TRUE(present);
  EXPECT_EQ(*present, "hello\n");
}

TEST(StatFile, MissingPathIsNotAnError) {
  LocalTransport local;
  auto attributes = local.stat_file("/nonexistent/gpuctl/path");
  ASSERT_TRUE(attributes);
  EXPECT_FALSE(attributes->exists);
}

TEST(Become, WrapsInNonInteractiveSudo) {
  EXPECT_EQ(transport::wrap_become("echo 'hi'"), "sudo -n sh -c 'echo '\\''hi'\\'''");
}
