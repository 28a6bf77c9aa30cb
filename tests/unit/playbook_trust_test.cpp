// What a playbook argument and a playbook's command text may do (issue #16, trust boundary):
// a name never means a file of the working directory, and a `{{name}}` that no quoting could
// make literal is refused when the playbook is loaded, with its position.
#include <gpuctl/playbook/loader.hpp>

#include <gtest/gtest.h>

#include <filesystem>
#include <fmt/format.h>
#include <fstream>
#include <unistd.h>

namespace gpuctl {
namespace {

namespace fs = std::filesystem;

// Runs each test inside a fresh temporary directory and restores the working directory after.
class FindPlaybookInADirectory : public ::testing::Test {
 protected:
  void SetUp() override {
    m_previous = fs::current_path();
    m_dir = fs::temp_directory_path() / ("gpuctl-find-" + std::to_string(::getpid()) + "-" +
                                         ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::remove_all(m_dir);
    fs::create_directories(m_dir);
    fs::current_path(m_dir);
    for (const char* name : {"gpu-node", "head-node", "driver-upgrade"})
      std::ofstream(m_dir / name) << "name: impostor\nsteps: []\n";
    std::ofstream(m_dir / "site.yaml") << "name: site\nsteps: []\n";
  }
  void TearDown() override {
    fs::current_path(m_previous);
    fs::remove_all(m_dir);
  }

  fs::path m_previous;
  fs::path m_dir;
};

TEST_F(FindPlaybookInADirectory, ANameIsTheShippedPlaybookEvenWithAFileOfThatName) {
  for (const std::string& name : std::vector<std::string>{"gpu-node", "head-node", "driver-upgrade"}) {
    const auto path = find_playbook(name);
    ASSERT_TRUE(path) << path.error().to_string();
    EXPECT_EQ(*path, (fs::absolute(default_playbooks_dir()) / (name + ".yaml")).lexically_normal().string());
    const auto playbook = load_playbook(*path);
    ASSERT_TRUE(playbook) << playbook.error().to_string();
    EXPECT_EQ(playbook->name, name);
  }
}

TEST_F(FindPlaybookInADirectory, APathIsAFileAndComesBackAbsolute) {
  EXPECT_EQ(find_playbook("site.yaml").value(), (m_dir / "site.yaml").string());
  EXPECT_EQ(find_playbook("./gpu-node").value(), (m_dir / "gpu-node").string());
  EXPECT_EQ(find_playbook((m_dir / "gpu-node").string()).value(), (m_dir / "gpu-node").string());
  const auto loaded = load_playbooks({"gpu-node", "./site.yaml"});
  ASSERT_TRUE(loaded) << loaded.error().to_string();
  EXPECT_EQ((*loaded)[0].name, "gpu-node");
  EXPECT_EQ((*loaded)[1].path, (m_dir / "site.yaml").string());
}

TEST_F(FindPlaybookInADirectory, AnUnknownNameSaysHowToNameAFile) {
  const auto missing = find_playbook("site");
  ASSERT_FALSE(missing);
  EXPECT_EQ(missing.error().code, ErrorCode::not_found);
  EXPECT_NE(missing.error().message.find("no shipped playbook 'site'"), std::string::npos);
  EXPECT_NE(missing.error().hint.find("./site.yaml"), std::string::npos) << missing.error().hint;
  const auto typo = find_playbook("gpu-nod");
  ASSERT_FALSE(typo);
  EXPECT_NE(typo.error().hint.find("did you mean 'gpu-node'?"), std::string::npos) << typo.error().hint;
  const auto no_file = find_playbook("missing.yml");
  ASSERT_FALSE(no_file);
  EXPECT_NE(no_file.error().message.find("no playbook file 'missing.yml'"), std::string::npos);
}

TEST(PlaybookArguments, APathHasASlashOrAYamlSuffix) {
  EXPECT_FALSE(names_a_playbook_file("gpu-node"));
  EXPECT_FALSE(names_a_playbook_file("gpu-node.yaml.bak"));
  EXPECT_TRUE(names_a_playbook_file("gpu-node.yaml"));
  EXPECT_TRUE(names_a_playbook_file("site.yml"));
  EXPECT_TRUE(names_a_playbook_file("./gpu-node"));
  EXPECT_TRUE(names_a_playbook_file("/etc/gpuctl/site"));
}

Result<Playbook> load_step(std::string_view step_keys) {
  return load_playbook_text(fmt::format("name: t\nsteps:\n  - name: one\n{}", step_keys), "t.yaml");
}

struct Unquotable {
  const char* what;
  const char* step_keys;   // YAML under the step
  const char* message;
  int line;
};

class LoaderRefusesUnquotableReferences : public ::testing::TestWithParam<Unquotable> {};

TEST_P(LoaderRefusesUnquotableReferences, AtTheFieldsPosition) {
  const auto playbook = load_step(GetParam().step_keys);
  ASSERT_FALSE(playbook) << GetParam().what;
  EXPECT_EQ(playbook.error().code, ErrorCode::validation);
  EXPECT_EQ(playbook.error().where.file, "t.yaml");
  EXPECT_EQ(playbook.error().where.line, GetParam().line) << GetParam().what;
  EXPECT_NE(playbook.error().message.find(GetParam().message), std::string::npos) << playbook.error().message;
  EXPECT_FALSE(playbook.error().hint.empty());
}

INSTANTIATE_TEST_SUITE_P(
    Fields, LoaderRefusesUnquotableReferences,
    ::testing::Values(
        Unquotable{"command $( )", "    resources:\n      - command: \"echo $(cat {{nvidia.cuda}})\"\n", "inside $(…)", 5},
        Unquotable{"unless backquotes", "    resources:\n      - command: x\n        unless: \"test `cat {{a}}`\"\n",
                   "inside `…`", 6},
        Unquotable{"reboot_unless comment", "    reboot_unless: \"true # {{a}}\"\n", "inside a comment", 4},
        Unquotable{"here-document", "    resources:\n      - command: |\n          cat <<EOF >/etc/x\n          {{a}}\n"
                                    "          EOF\n",
                   "inside a here-document", 5},
        Unquotable{"backslash", "    resources:\n      - command: \"echo \\\\{{a}}\"\n", "after a backslash", 5},
        Unquotable{"unterminated quote", "    resources:\n      - command: \"echo 'a\"\n", "unterminated '", 5}));

TEST(PlaybookLoader, AcceptsReferencesInEveryQuotingState) {
  const auto playbook = load_step(
      "    reboot_unless: \"grep -q ' {{nvidia.driver_version}} ' /proc/driver/nvidia/version\"\n"
      "    resources:\n      - command: \"echo {{a}} \\\"{{b}}\\\" '{{c}}'\"\n        unless: \"test -e {{d}}\"\n");
  ASSERT_TRUE(playbook) << playbook.error().to_string();
}

TEST(PlaybookLoader, RefusesAReferenceInAHandler) {
  const auto playbook = load_playbook_text(
      "name: t\nhandlers:\n  - name: h\n    run: \"systemctl restart {{labels.unit}}\"\nsteps: []\n", "t.yaml");
  ASSERT_FALSE(playbook);
  EXPECT_NE(playbook.error().message.find("handlers are not substituted"), std::string::npos);
  EXPECT_EQ(playbook.error().where.line, 4);
}

}  // namespace
}  // namespace gpuctl
