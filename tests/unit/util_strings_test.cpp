#include <gpuctl/util/strings.hpp>

#include <gtest/gtest.h>

using namespace gpuctl::util;

TEST(ShellQuote, LeavesPlainWordsAlone) { EXPECT_EQ(shell_quote("/etc/nccl.conf"), "/etc/nccl.conf"); }

TEST(ShellQuote, QuotesMetacharactersAndSingleQuotes) {
  EXPECT_EQ(shell_quote("a b"), "'a b'");
  EXPECT_EQ(shell_quote("it's"), "'it'\\''s'");
  EXPECT_EQ(shell_quote(""), "''");
  EXPECT_EQ(shell_quote("$(reboot)"), "'$(reboot)'");
}

TEST(ClosestMatch, SuggestsTyposOnly) {
  const std::vector<std::string> keys{"hosts", "vars", "name"};
  EXPECT_EQ(closest_match("hots", keys), "hosts");
  EXPECT_EQ(closest_match("vras", keys), "vars");
  EXPECT_FALSE(closest_match("completely_different", keys).has_value());
}

TEST(SplitLines, DropsTrailingNewlineAndCarriageReturns) {
  EXPECT_EQ(split_lines("a\r\nb\n"), (std::vector<std::string>{"a", "b"}));
  EXPECT_TRUE(split_lines("").empty());
}

TEST(SplitWords, SplitsOnRunsOfWhitespace) {
  EXPECT_EQ(split_words("4: eth0    inet 10.0.0.1/8\t scope"),
            (std::vector<std::string_view>{"4:", "eth0", "inet", "10.0.0.1/8", "scope"}));
  EXPECT_EQ(split_words("  lead and trail  "), (std::vector<std::string_view>{"lead", "and", "trail"}));
  EXPECT_TRUE(split_words(" \t ").empty());
  EXPECT_TRUE(split_words("").empty());
}

TEST(TailLines, KeepsLastLines) { EXPECT_EQ(tail_lines("1\n2\n3\n", 2), "2\n3"); }

// What a node prints reaches the terminal shown, never obeyed (issue #37).
TEST(TerminalSafe, EscapesEveryControlCharacterButLineFeedAndTab) {
  EXPECT_EQ(gpuctl::util::terminal_safe("ok\tyes\n"), "ok\tyes\n");
  EXPECT_EQ(gpuctl::util::terminal_safe("\x1b[2J\x1b]0;owned\x07\r\b\x7f"), "\\x1b[2J\\x1b]0;owned\\x07\\x0d\\x08\\x7f");
  EXPECT_EQ(gpuctl::util::terminal_safe("caf\xc3\xa9"), "caf\xc3\xa9") << "UTF-8 stays";
}
