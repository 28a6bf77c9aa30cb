// Where each {{name}} stands in shell text, and which places are refused (playbook/shell_text.hpp).
#include <gpuctl/playbook/shell_text.hpp>

#include <gtest/gtest.h>

namespace gpuctl {
namespace {

std::vector<ShellQuoting> quotings(std::string_view command) {
  const auto references = find_shell_references(command);
  if (!references) ADD_FAILURE() << command << ": " << references.error().to_string();
  std::vector<ShellQuoting> out;
  for (const auto& reference : references.value_or(std::vector<ShellReference>{})) out.push_back(reference.quoting);
  return out;
}

using enum ShellQuoting;
using Quotings = std::vector<ShellQuoting>;

TEST(ShellReferences, FollowsSingleAndDoubleQuotes) {
  EXPECT_EQ(quotings("echo {{a}} '{{b}}' \"{{c}}\""), (Quotings{unquoted, single_quoted, double_quoted}));
  EXPECT_EQ(quotings("echo '{{a}}'\"{{b}}\"{{c}}"), (Quotings{single_quoted, double_quoted, unquoted}));
  EXPECT_EQ(quotings("grep -q ' {{nvidia.driver_version}} ' /proc/driver/nvidia/version"), (Quotings{single_quoted}));
  EXPECT_EQ(quotings("echo \"it's {{a}}\" '\"{{b}}'"), (Quotings{double_quoted, single_quoted}));
}

TEST(ShellReferences, FollowsEscapesAndClosedConstructs) {
  EXPECT_EQ(quotings("echo \\'{{a}}"), (Quotings{unquoted}));           // \' is a quote character, not a quote
  EXPECT_EQ(quotings("echo '\\'{{a}}"), (Quotings{unquoted}));          // a backslash inside '...' is literal
  EXPECT_EQ(quotings("echo \"a\\\"{{b}}\""), (Quotings{double_quoted})); // \" inside "..." does not close it
  EXPECT_EQ(quotings("echo \"$(date)\" ${x} $y{{a}}"), (Quotings{unquoted}));
  EXPECT_EQ(quotings("echo $(echo ')') {{a}}"), (Quotings{unquoted}));  // the ) in quotes does not end $(
  EXPECT_EQ(quotings("cat <<EOF\nbody '\nEOF\necho {{a}}"), (Quotings{unquoted}));
  EXPECT_EQ(quotings("cat <<-'EOF'\n\tbody\n\tEOF\necho '{{a}}'"), (Quotings{single_quoted}));
  EXPECT_EQ(quotings("echo x # it's\necho {{a}}"), (Quotings{unquoted}));
  EXPECT_EQ(quotings("echo a#{{a}}"), (Quotings{unquoted}));             // # inside a word starts no comment
  EXPECT_EQ(quotings("echo \\\\{{a}}"), (Quotings{unquoted}));           // an escaped backslash, then the value
  EXPECT_EQ(quotings("! { cat /proc/modules || lsmod; } | grep -q '^nouveau '"), Quotings{});
  EXPECT_EQ(quotings("case {{a}} in (x) true;; esac"), (Quotings{unquoted}));  // a case outside $( ) is fine
  // `<<` in arithmetic is a shift, not a here-document swallowing the lines after it.
  EXPECT_EQ(quotings("x=$((1<<2))\necho '\n2\n{{a}}'"), (Quotings{single_quoted}));
  EXPECT_EQ(quotings("((x<<2)); echo '\n2\n{{a}}'"), (Quotings{single_quoted}));
  EXPECT_EQ(quotings("echo \"$'\" '{{a}}'"), (Quotings{single_quoted}));   // $' is plain text inside "…"
  EXPECT_EQ(quotings("cat <<< {{a}}"), (Quotings{unquoted}));                // a here-string is a word
}

TEST(ShellReferences, RecordsNamesAndSpans) {
  const std::string command = "grep -qxF {{ nvidia.cuda }} f";
  const auto references = find_shell_references(command);
  ASSERT_TRUE(references) << references.error().to_string();
  ASSERT_EQ(references->size(), 1u);
  EXPECT_EQ((*references)[0].name, "nvidia.cuda");
  EXPECT_EQ(command.substr((*references)[0].begin, (*references)[0].end - (*references)[0].begin), "{{ nvidia.cuda }}");
}

struct Refused {
  const char* command;
  const char* message;   // a part of the error message
};

class ShellReferencesRefused : public ::testing::TestWithParam<Refused> {};

TEST_P(ShellReferencesRefused, WithAMessageAndAFix) {
  const auto references = find_shell_references(GetParam().command);
  ASSERT_FALSE(references) << GetParam().command;
  EXPECT_EQ(references.error().code, ErrorCode::validation);
  EXPECT_NE(references.error().message.find(GetParam().message), std::string::npos) << references.error().message;
  EXPECT_FALSE(references.error().hint.empty());
}

INSTANTIATE_TEST_SUITE_P(
    Places, ShellReferencesRefused,
    ::testing::Values(Refused{"echo $({{a}})", "inside $(…)"}, Refused{"echo \"$(cat {{a}})\"", "inside $(…)"},
                      Refused{"echo \"$(echo \"{{a}}\")\"", "inside $(…)"}, Refused{"echo `echo {{a}}`", "inside `…`"},
                      Refused{"echo \"`echo {{a}}`\"", "inside `…`"}, Refused{"echo ${x:-{{a}}}", "inside ${…}"},
                      Refused{"echo $(( {{a}} + 1 ))", "inside $((…))"}, Refused{"echo $'{{a}}'", "inside $'…'"},
                      Refused{"cat <<EOF\nline {{a}}\nEOF", "inside a here-document"},
                      Refused{"cat <<'EOF' >f\n'{{a}}'\nEOF\n", "inside a here-document"},
                      Refused{"cat <<{{a}}\nx\n", "delimiter"}, Refused{"echo x # {{a}}", "inside a comment"},
                      Refused{"# {{a}}\necho", "inside a comment"}, Refused{"echo \\{{a}}", "after a backslash"},
                      Refused{"echo \"\\{{a}}\"", "after a backslash"}, Refused{"echo ${{a}}", "after a $"},
                      Refused{"echo \"${{a}}\"", "after a $"},
                      Refused{"x=$(case y in y) echo;; esac); echo {{a}}", "cannot follow"},
                      Refused{"echo \"${x:-'a'}\" {{a}}", "cannot follow"},
                      Refused{"echo $((1) ) {{a}}", "cannot follow"}, Refused{"cat <<<#{{a}}", "inside a comment"},
                      Refused{"echo $((1 + {{a}}))", "inside $((…))"}, Refused{"((x = {{a}}))", "inside ((…))"},
                      Refused{"echo 'open {{a}}", "unterminated '"}, Refused{"echo \"open", "unterminated \""},
                      Refused{"echo $(open", "unterminated $("}, Refused{"echo {{a}", "unclosed"}));

TEST(ShellReferences, TheFixShowsTheRefusedReference) {
  const auto references = find_shell_references("echo \"$(cat {{ labels.file }})\"");
  ASSERT_FALSE(references);
  EXPECT_NE(references.error().hint.find("v={{ labels.file }}"), std::string::npos) << references.error().hint;
}

TEST(QuoteForShell, SingleQuotesEveryValueAndEscapesItsQuotes) {
  EXPECT_EQ(quote_for_shell("550.127.08", ShellQuoting::unquoted), "'550.127.08'");
  EXPECT_EQ(quote_for_shell("550.127.08", ShellQuoting::single_quoted), "550.127.08");
  EXPECT_EQ(quote_for_shell("550.127.08", ShellQuoting::double_quoted), "\"'550.127.08'\"");
  EXPECT_EQ(quote_for_shell("it's", ShellQuoting::unquoted), "'it'\\''s'");
  EXPECT_EQ(quote_for_shell("it's", ShellQuoting::single_quoted), "it'\\''s");
  EXPECT_EQ(quote_for_shell("", ShellQuoting::unquoted), "''");
  EXPECT_EQ(quote_for_shell("A=1", ShellQuoting::unquoted), "'A=1'");  // never an assignment
}

}  // namespace
}  // namespace gpuctl
