// Unified diffs for plans (util/diff.hpp). Hunk headers are proven by feeding the diffs to
// GNU patch where it exists.
#include <gpuctl/util/diff.hpp>

#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <unistd.h>

namespace gpuctl {
namespace {

using util::unified_diff;

std::string numbered_lines(int count, int changed_a = 0, int changed_b = 0) {
  std::string text;
  for (int i = 1; i <= count; ++i)
    text += (i == changed_a || i == changed_b ? "changed " : "line ") + std::to_string(i) + "\n";
  return text;
}

TEST(UnifiedDiff, EqualTextsGiveAnEmptyDiff) {
  EXPECT_EQ(unified_diff("", "", "a", "b"), "");
  EXPECT_EQ(unified_diff("x\ny\n", "x\ny\n", "a", "b"), "");
}

TEST(UnifiedDiff, CreatingFromEmptyAddsEveryLine) {
  EXPECT_EQ(unified_diff("", "one\ntwo\n", "/dev/null", "/etc/x"),
            "--- /dev/null\n+++ /etc/x\n@@ -0,0 +1,2 @@\n+one\n+two\n");
}

TEST(UnifiedDiff, RemovingEverythingRemovesEveryLine) {
  EXPECT_EQ(unified_diff("one\ntwo\n", "", "/etc/x", "/dev/null"),
            "--- /etc/x\n+++ /dev/null\n@@ -1,2 +0,0 @@\n-one\n-two\n");
}

TEST(UnifiedDiff, ChangeInTheMiddleHasThreeLinesOfContext) {
  EXPECT_EQ(unified_diff(numbered_lines(10), numbered_lines(10, 5), "f", "f"),
            "--- f\n+++ f\n"
            "@@ -2,7 +2,7 @@\n"
            " line 2\n line 3\n line 4\n-line 5\n+changed 5\n line 6\n line 7\n line 8\n");
}

TEST(UnifiedDiff, InsertionShiftsTheNewSideStart) {
  EXPECT_EQ(unified_diff("a\nb\nc\nd\ne\nf\ng\nh\n", "a\nb\nc\nd\nnew\ne\nf\ng\nh\n", "f", "f"),
            "--- f\n+++ f\n@@ -2,6 +2,7 @@\n b\n c\n d\n+new\n e\n f\n g\n");
}

TEST(UnifiedDiff, ChangeAtTheStartHasOnlyTrailingContext) {
  EXPECT_EQ(unified_diff(numbered_lines(6), numbered_lines(6, 1), "f", "f"),
            "--- f\n+++ f\n@@ -1,4 +1,4 @@\n-line 1\n+changed 1\n line 2\n line 3\n line 4\n");
}

TEST(UnifiedDiff, DistantChangesMakeTwoHunks) {
  EXPECT_EQ(unified_diff(numbered_lines(20), numbered_lines(20, 3, 17), "f", "f"),
            "--- f\n+++ f\n"
            "@@ -1,6 +1,6 @@\n line 1\n line 2\n-line 3\n+changed 3\n line 4\n line 5\n line 6\n"
            "@@ -14,7 +14,7 @@\n line 14\n line 15\n line 16\n-line 17\n+changed 17\n line 18\n line 19\n line 20\n");
}

TEST(UnifiedDiff, ChangesSixLinesApartShareOneHunk) {
  const auto diff = unified_diff(numbered_lines(20), numbered_lines(20, 5, 12), "f", "f");
  EXPECT_NE(diff.find("@@ -2,14 +2,14 @@\n"), std::string::npos) << diff;
  std::size_t hunks = 0;
  for (auto at = diff.find("\n@@ "); at != std::string::npos; at = diff.find("\n@@ ", at + 1)) ++hunks;
  EXPECT_EQ(hunks, 1u) << diff;
}

TEST(UnifiedDiff, MissingFinalNewlineIsMarkedAfterTheLineThatLacksIt) {
  EXPECT_EQ(unified_diff("a\nb\nc", "a\nb\nd", "f", "f"),
            "--- f\n+++ f\n@@ -1,3 +1,3 @@\n a\n b\n-c\n\\ No newline at end of file\n+d\n"
            "\\ No newline at end of file\n");
}

TEST(UnifiedDiff, AddingOnlyTheFinalNewlineIsAChange) {
  EXPECT_EQ(unified_diff("a\nb\nc", "a\nb\nc\n", "f", "f"),
            "--- f\n+++ f\n@@ -1,3 +1,3 @@\n a\n b\n-c\n\\ No newline at end of file\n+c\n");
}

TEST(UnifiedDiff, NoMarkerWhenTheLineWithoutNewlineIsOutsideEveryHunk) {
  const auto before = numbered_lines(12, 0) + "tail";
  const auto after = numbered_lines(12, 2) + "tail";
  const auto diff = unified_diff(before, after, "f", "f");
  EXPECT_EQ(diff.find("No newline"), std::string::npos) << diff;
}

TEST(UnifiedDiff, OversizeTextsGetAOneLineSummary) {
  EXPECT_EQ(unified_diff(numbered_lines(6), numbered_lines(8, 2), "a", "b", 5),
            "--- a\n+++ b\n@@ content differs (6 -> 8 lines; too large to show) @@\n");
}

// --- applying the diffs with patch(1) -------------------------------------------------------

bool have_patch() { return std::system("patch --version >/dev/null 2>&1") == 0; }

class TempDir {
 public:
  TempDir() {
    std::string pattern = (std::filesystem::temp_directory_path() / "gpuctl-diff-XXXXXX").string();
    if (!mkdtemp(pattern.data())) throw std::runtime_error("mkdtemp failed");
    m_path = pattern;
  }
  ~TempDir() { std::filesystem::remove_all(m_path); }
  const std::filesystem::path& path() const { return m_path; }

 private:
  std::filesystem::path m_path;
};

void write(const std::filesystem::path& path, std::string_view text) {
  std::ofstream out(path, std::ios::binary);
  out << text;
}

std::string read(const std::filesystem::path& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

struct PatchCase {
  const char* name;
  std::string before;
  std::string after;
};

TEST(UnifiedDiffPatch, PatchTurnsBeforeIntoAfter) {
  if (!have_patch()) GTEST_SKIP() << "patch(1) is not installed";
  const std::vector<PatchCase> cases{
      {"create", "", "one\ntwo\n"},
      {"remove all", "one\ntwo\n", ""},
      {"middle", numbered_lines(10), numbered_lines(10, 5)},
      {"two hunks", numbered_lines(20), numbered_lines(20, 3, 17)},
      {"one merged hunk", numbered_lines(20), numbered_lines(20, 5, 12)},
      {"insert and delete", "a\nb\nc\nd\ne\nf\ng\nh\ni\nj\nk\nl\nm\n", "a\nB\nc\nd\nx\ny\ne\nf\ng\nh\nj\nk\nl\nm\nn\n"},
      {"no newline before", "a\nb\nc", "a\nb\nd\n"},
      {"no newline after", "a\nb\nc\n", "a\nb\nc"},
      {"no newline both", "a\nb\nc", "a\nx\nc"},
      {"newline only", "a\nb\nc", "a\nb\nc\n"},
      {"last line far away without newline", numbered_lines(12) + "tail", numbered_lines(12, 2) + "tail"},
  };
  TempDir dir;
  for (const auto& c : cases) {
    const auto file = dir.path() / "file";
    const auto diff_file = dir.path() / "change.diff";
    write(file, c.before);
    write(diff_file, unified_diff(c.before, c.after, "a/file", "b/file"));
    const auto command = "cd '" + dir.path().string() + "' && patch -s -p1 --no-backup-if-mismatch file < change.diff" +
                         " > patch.out 2>&1";
    EXPECT_EQ(std::system(command.c_str()), 0) << c.name << ":\n"
                                               << read(diff_file) << read(dir.path() / "patch.out");
    EXPECT_EQ(read(file), c.after) << c.name << ":\n" << read(diff_file);
  }
}

}  // namespace
}  // namespace gpuctl
