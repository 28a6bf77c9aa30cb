// gpuctl's spdlog sinks (src/cli/log_*.cpp): the run log's records on a FILE* gpuctl opened
// (format "HH:MM:SS.mmm <node> <text>" in UTC, flushed per record), and the journal under
// systemd: whether JOURNAL_STREAM names stderr's file, and the sd-daemon priority prefixes.
// The sinks are the CLI's, not gpuctl_core's: tests/CMakeLists.txt compiles their sources in.
#include "cli/log_file_sink.hpp"
#include "cli/log_journal_sink.hpp"

#include "temp_dir.hpp"

#include <gtest/gtest.h>

#include <chrono>

#include <spdlog/logger.h>

#include <fcntl.h>
#include <fmt/format.h>
#include <fstream>
#include <regex>
#include <sstream>
#include <sys/stat.h>
#include <unistd.h>

namespace gpuctl::cli {
namespace {

using testing::TempDir;

std::string read_all(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

std::string dev_ino(int fd) {
  struct stat st {};
  EXPECT_EQ(::fstat(fd, &st), 0);
  return fmt::format("{}:{}", static_cast<std::uintmax_t>(st.st_dev), static_cast<std::uintmax_t>(st.st_ino));
}

class FdFile {
 public:
  explicit FdFile(const std::string& path) : m_fd(::open(path.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600)) {}
  ~FdFile() {
    if (m_fd >= 0) ::close(m_fd);
  }
  int fd() const { return m_fd; }

 private:
  int m_fd;
};

TEST(JournalStream, MatchesTheFileOpenOnTheDescriptor) {
  TempDir dir;
  FdFile file(dir / "stream");
  ASSERT_GE(file.fd(), 0);
  EXPECT_TRUE(journal_stream_matches(dev_ino(file.fd()).c_str(), file.fd()));
}

TEST(JournalStream, AnotherFileIsNotTheJournal) {
  TempDir dir;
  FdFile journal(dir / "journal"), other(dir / "other");
  ASSERT_GE(journal.fd(), 0);
  ASSERT_GE(other.fd(), 0);
  // Inherited by a process whose stderr was redirected elsewhere: not the journal.
  EXPECT_FALSE(journal_stream_matches(dev_ino(journal.fd()).c_str(), other.fd()));
  struct stat st {};
  ASSERT_EQ(::fstat(journal.fd(), &st), 0);
  const auto dev = static_cast<std::uintmax_t>(st.st_dev), ino = static_cast<std::uintmax_t>(st.st_ino);
  EXPECT_FALSE(journal_stream_matches(fmt::format("{}:{}", dev, ino + 1).c_str(), journal.fd()));
  EXPECT_FALSE(journal_stream_matches(fmt::format("{}:{}", dev + 1, ino).c_str(), journal.fd()));
  if (dev != ino) {
    EXPECT_FALSE(journal_stream_matches(fmt::format("{}:{}", ino, dev).c_str(), journal.fd()));
  }
}

TEST(JournalStream, UnsetMalformedOrClosedIsNotTheJournal) {
  TempDir dir;
  FdFile file(dir / "stream");
  ASSERT_GE(file.fd(), 0);
  const auto good = dev_ino(file.fd());
  const auto colon = good.find(':');
  const std::string dev = good.substr(0, colon), ino = good.substr(colon + 1);
  EXPECT_FALSE(journal_stream_matches(nullptr, file.fd()));
  for (const std::string& bad :
       {std::string(), std::string(":"), dev, dev + ":", ":" + ino, ino, dev + ":" + ino + ":1", "-" + dev + ":" + ino,
        "+" + dev + ":" + ino, " " + dev + ":" + ino, dev + ":" + ino + " ", dev + ":" + ino + "\n", dev + " :" + ino,
        "0x" + dev + ":" + ino, dev + ":" + ino + "x", dev + ":99999999999999999999999999",
        "99999999999999999999999999:" + ino, std::string("journal"), dev + "," + ino})
    EXPECT_FALSE(journal_stream_matches(bad.c_str(), file.fd())) << "JOURNAL_STREAM=" << bad;
  // The right value for a descriptor that is not open.
  EXPECT_FALSE(journal_stream_matches(good.c_str(), -1));
}

TEST(JournalPriority, SdDaemonPrefixes) {
  EXPECT_EQ(journal_priority_prefix(spdlog::level::critical), "<2>");
  EXPECT_EQ(journal_priority_prefix(spdlog::level::err), "<3>");
  EXPECT_EQ(journal_priority_prefix(spdlog::level::warn), "<4>");
  EXPECT_EQ(journal_priority_prefix(spdlog::level::info), "<6>");
  EXPECT_EQ(journal_priority_prefix(spdlog::level::debug), "<7>");
  EXPECT_EQ(journal_priority_prefix(spdlog::level::trace), "<7>");
  EXPECT_EQ(journal_priority_prefix(spdlog::level::off), "");
}

TEST(JournalPriority, EveryLineCarriesThePrefix) {
  EXPECT_EQ(journal_lines(spdlog::level::err, "n1: node failed: check gpu_count"), "<3>n1: node failed: check gpu_count\n");
  // journald splits a stream at newlines: a line without the prefix would be stored as info.
  EXPECT_EQ(journal_lines(spdlog::level::warn, "first\n  second\n\n"), "<4>first\n<4>  second\n");
  EXPECT_EQ(journal_lines(spdlog::level::info, "a\n\nb"), "<6>a\n<6>\n<6>b\n");
  EXPECT_EQ(journal_lines(spdlog::level::debug, ""), "<7>\n");
}

TEST(JournalSinkTest, WritesPrefixedMessagesWithoutTimeAtTheLoggersLevel) {
  TempDir dir;
  const auto path = dir / "journal";
  std::FILE* file = std::fopen(path.c_str(), "w");
  ASSERT_NE(file, nullptr);
  {
    spdlog::logger logger("journal", std::make_shared<JournalSink>(file));
    logger.set_level(spdlog::level::info);
    logger.info("phase {} over {} nodes", "verify", 2);
    logger.debug("n1: step gpu_count started");  // below the journal's level: left out
    logger.error("{}: {}", "n1", "node failed in 12 ms: check gpu_count");
    logger.warn("n2: step driver failed\nsecond line");
    // Flushed per record: readable before the sink goes.
    EXPECT_EQ(read_all(path),
              "<6>phase verify over 2 nodes\n<3>n1: node failed in 12 ms: check gpu_count\n<4>n2: step driver failed\n"
              "<4>second line\n");
  }
  std::fclose(file);  // the journal sink never closes its stream (stderr)
}

TEST(RunLogSink, LinesAreUtcMillisecondTimeNodeAndTextFlushedPerRecord) {
  TempDir dir;
  const auto path = dir / "run.log";
  std::FILE* file = std::fopen(path.c_str(), "w");
  ASSERT_NE(file, nullptr);
  // The precise clock spdlog stamps with: time() reads the coarse one, which can lag it by a
  // tick, so right after a second turned it said the previous second (a flake, seen once).
  const auto before = std::chrono::system_clock::to_time_t(std::chrono::system_clock::now());
  auto sink = std::make_shared<FileSink>(file);  // owns `file` from here
  sink->set_formatter(make_run_log_formatter());
  spdlog::logger logger("run-log", sink);
  logger.set_level(spdlog::level::trace);
  logger.info("{} {}", "-", "phase verify over 2 nodes");
  logger.trace("{} {}", "n1", "$ nvidia-smi -L\n    exit 0 after 41 ms\n    | GPU 0: H100");
  const auto after = std::chrono::system_clock::to_time_t(std::chrono::system_clock::now());
  const auto text = read_all(path);  // no flush asked for: each record is already in the file
  std::smatch match;
  const std::regex line(R"(^(\d{2}):(\d{2}):(\d{2})\.\d{3} - phase verify over 2 nodes\n)"
                        R"(\d{2}:\d{2}:\d{2}\.\d{3} n1 \$ nvidia-smi -L\n    exit 0 after 41 ms\n    \| GPU 0: H100\n$)");
  ASSERT_TRUE(std::regex_match(text, match, line)) << text;
  // UTC, not local time: the stamp lies between the UTC times of day before and after.
  const auto seconds = std::stoi(match[1]) * 3600 + std::stoi(match[2]) * 60 + std::stoi(match[3]);
  std::tm tm_before{}, tm_after{};
  gmtime_r(&before, &tm_before);
  gmtime_r(&after, &tm_after);
  const auto from = tm_before.tm_hour * 3600 + tm_before.tm_min * 60 + tm_before.tm_sec;
  const auto to = tm_after.tm_hour * 3600 + tm_after.tm_min * 60 + tm_after.tm_sec;
  if (from <= to) {
    EXPECT_GE(seconds, from);
    EXPECT_LE(seconds, to);
  }  // else the run crossed midnight UTC: nothing to compare
}

TEST(RunLogSink, ClosesTheFileItWasGiven) {
  TempDir dir;
  const int fd = ::open((dir / "run.log").c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
  ASSERT_GE(fd, 0);
  std::FILE* file = ::fdopen(fd, "w");
  ASSERT_NE(file, nullptr);
  { FileSink sink(file); }
  EXPECT_EQ(::fcntl(fd, F_GETFD), -1);  // closed with the sink
  EXPECT_EQ(errno, EBADF);
}

}  // namespace
}  // namespace gpuctl::cli
