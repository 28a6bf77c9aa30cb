// {{name}} in shell commands (playbook/variables.hpp substitute_shell): whatever a value holds,
// the command a real shell runs receives exactly that value and runs nothing else. Each case
// runs the substituted command with /bin/sh (and bash, when present) in a temporary directory;
// a canary file there shows whether anything in a value was executed.
#include <gpuctl/playbook/variables.hpp>
#include <gpuctl/util/strings.hpp>

#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <unistd.h>

namespace gpuctl {
namespace {

namespace fs = std::filesystem;

class ShellSubstitution : public ::testing::Test {
 protected:
  void SetUp() override {
    m_dir = fs::temp_directory_path() / ("gpuctl-shell-" + std::to_string(::getpid()) + "-" +
                                         ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::remove_all(m_dir);
    fs::create_directories(m_dir);
    // Files a glob in a value would expand to, if it were not quoted.
    for (const char* name : {"a1", "a2", "-n"}) std::ofstream(m_dir / name) << "x\n";
  }
  void TearDown() override { fs::remove_all(m_dir); }

  fs::path canary() const { return m_dir / "canary"; }

  // Values that would run `touch CANARY` (or change the command) if pasted unquoted.
  std::vector<std::string> hostile_values() const {
    const std::string c = canary().string();
    return {"550.127.08'; touch " + c + "; echo '",
            "\"; touch " + c + "; echo \"",
            "$(touch " + c + ")",
            "`touch " + c + "`",
            "; touch " + c,
            "&& touch " + c,
            "| touch " + c,
            "\ntouch " + c + "\n",
            "'\"$(touch " + c + ")\"'",
            "\\'; touch " + c + "; '",
            "x\\",
            "\\",
            "'",
            "\"",
            "''",
            "{{gpu.count}}",
            "-n",
            "--help",
            "  two  spaces\tand a tab  ",
            "*",
            "a?",
            "[a-z]*",
            "~root",
            "A=1",
            "$HOME ${PATH} $1 $@",
            "#not a comment",
            "%s %d %%",
            "caf\xc3\xa9 \r",
            ""};
  }

  // Runs `commands` (one script) with `shell` in the temporary directory; command i writes
  // ./out<i>. Returns what each wrote (nullopt: nothing).
  std::vector<std::optional<std::string>> run(const std::string& shell, const std::vector<std::string>& commands) {
    const auto script = m_dir / "script.sh";
    {
      std::ofstream out(script);
      out << "cd " << util::shell_quote(m_dir.string()) << " || exit 99\n";
      for (const auto& command : commands) out << command << "\n";
    }
    const int status = std::system((shell + " " + util::shell_quote(script.string()) + " >/dev/null 2>&1").c_str());
    (void)status;
    std::vector<std::optional<std::string>> outputs;
    for (std::size_t i = 0; i < commands.size(); ++i) {
      const auto file = m_dir / ("out" + std::to_string(i));
      std::ifstream in(file, std::ios::binary);
      if (!in) {
        outputs.emplace_back();
        continue;
      }
      std::ostringstream content;
      content << in.rdbuf();
      outputs.emplace_back(content.str());
      fs::remove(file);
    }
    return outputs;
  }

  // The template with OUT naming ./out<index>, substituted.
  static std::string command_for(std::string text, std::size_t index, const Variables& variables) {
    for (auto at = text.find("OUT"); at != std::string::npos; at = text.find("OUT"))
      text.replace(at, 3, "out" + std::to_string(index));
    auto command = substitute_shell(text, variables);
    EXPECT_TRUE(command) << command.error().to_string();
    return command.value_or("false");
  }

  static std::vector<std::string> shells() {
    std::vector<std::string> found{"/bin/sh"};
    if (fs::exists("/bin/bash")) found.emplace_back("/bin/bash");
    return found;
  }

  fs::path m_dir;
};

struct Context {
  const char* command;   // with {{v}}; writes ./OUT
  std::string before;    // what the output holds before the value
  std::string after;     // and after it
  int copies = 1;        // how many times the value appears, separated by `|`
};

const std::vector<Context> k_contexts{
    {"printf '%s' {{v}} > OUT", "", ""},
    {"printf '%s' x{{v}}y > OUT", "x", "y"},
    {"printf '%s' 'a {{v}} b' > OUT", "a ", " b"},
    {"printf '%s' ' {{v}} ' > OUT", " ", " "},
    {"printf '%s' \"a {{v}} b\" > OUT", "a ", " b"},
    {"printf '%s' \"it's \"{{v}}'\"' > OUT", "it's ", "\""},
    {"printf '%s|' {{v}} '{{v}}' \"{{v}}\" > OUT; printf 'end' >> OUT", "", "|end", 3},
    {"v={{v}}; printf '%s' \"$v\" > OUT", "", ""},
    {"( printf '%s' {{v}} > OUT ) </dev/null", "", ""},
    {"cat <<EOF > OUT; printf '%s' {{v}} >> OUT\nfrom a here-document\nEOF", "from a here-document\n", ""},
};

std::string expected_output(const Context& context, const std::string& value) {
  std::string values = value;
  for (int i = 1; i < context.copies; ++i) values += "|" + value;
  return context.before + values + context.after;
}

TEST_F(ShellSubstitution, EveryContextPassesTheValueLiterallyAndRunsNothing) {
  for (const auto& shell : shells()) {
    for (const auto& value : hostile_values()) {
      const Variables variables{{"v", value}, {"gpu.count", "8"}};
      std::vector<std::string> commands;
      for (std::size_t i = 0; i < k_contexts.size(); ++i) commands.push_back(command_for(k_contexts[i].command, i, variables));
      const auto outputs = run(shell, commands);
      for (std::size_t i = 0; i < k_contexts.size(); ++i) {
        ASSERT_TRUE(outputs[i]) << shell << " wrote nothing for " << commands[i];
        EXPECT_EQ(*outputs[i], expected_output(k_contexts[i], value)) << shell << " ran: " << commands[i];
      }
      EXPECT_FALSE(fs::exists(canary())) << shell << " executed part of the value " << value;
    }
  }
}

TEST_F(ShellSubstitution, AValueInCommandPositionIsOneCommandName) {
  for (const auto& shell : shells()) {
    std::vector<std::string> commands;
    for (const auto& value : hostile_values())
      commands.push_back(command_for("{{v}} && printf ran > OUT", commands.size(), Variables{{"v", value}}));
    const auto outputs = run(shell, commands);
    for (std::size_t i = 0; i < commands.size(); ++i) EXPECT_FALSE(outputs[i]) << shell << " ran: " << commands[i];
    EXPECT_FALSE(fs::exists(canary())) << shell << " executed part of a value";
  }
}

TEST_F(ShellSubstitution, AGrepGuardMatchesExactlyTheValue) {
  std::ofstream(m_dir / "version") << "NVRM version: NVIDIA UNIX x86_64 Kernel Module  550.127.08  Tue Oct 22 2024\n";
  std::vector<std::string> commands;
  for (const std::string& version : std::vector<std::string>{"550.127.08", "550.127.0", "' version; touch " + canary().string() + "; true '"})
    commands.push_back(command_for("grep -q ' {{nvidia.driver_version}} ' version && printf done > OUT", commands.size(),
                                   Variables{{"nvidia.driver_version", version}}));
  const auto outputs = run("/bin/sh", commands);
  EXPECT_TRUE(outputs[0]);
  EXPECT_FALSE(outputs[1]);
  EXPECT_FALSE(outputs[2]);
  EXPECT_FALSE(fs::exists(canary()));
}

TEST(SubstituteShell, KeepsCommandsOfNormalValuesAsTheyWere) {
  const Variables variables{{"nvidia.driver_version", "550.127.08"}, {"nvidia.driver_branch", "550"}};
  EXPECT_EQ(substitute_shell("grep -q ' {{nvidia.driver_version}} ' /proc/driver/nvidia/version", variables).value(),
            "grep -q ' 550.127.08 ' /proc/driver/nvidia/version");
  EXPECT_EQ(substitute_shell("grep -vx 'nvidia-driver-{{nvidia.driver_branch}}'", variables).value(),
            "grep -vx 'nvidia-driver-550'");
  EXPECT_EQ(substitute_shell("echo {{nvidia.driver_branch}} \"v{{ nvidia.driver_branch }}\"", variables).value(),
            "echo '550' \"v\"'550'\"\"");
}

TEST(SubstituteShell, RefusesUnknownNamesUnplaceableReferencesAndNulBytes) {
  const Variables variables{{"v", "x"}, {"nul", std::string("a\0b", 3)}};
  const auto unknown = substitute_shell("echo {{w}}", variables);
  ASSERT_FALSE(unknown);
  EXPECT_NE(unknown.error().message.find("unknown variable 'w'"), std::string::npos);
  EXPECT_FALSE(substitute_shell("echo $(cat {{v}})", variables));
  const auto nul = substitute_shell("echo {{nul}}", variables);
  ASSERT_FALSE(nul);
  EXPECT_NE(nul.error().message.find("NUL"), std::string::npos);
}

}  // namespace
}  // namespace gpuctl
