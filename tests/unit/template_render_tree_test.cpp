// Writing rendered files as per-node trees: modes kept, previous trees replaced whole, and a
// failed write leaving the previous trees as they were.
#include <gpuctl/template/render_tree.hpp>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <filesystem>
#include <fstream>
#include <sstream>

#include <unistd.h>

using namespace gpuctl;
namespace fs = std::filesystem;

namespace {

class RenderTree : public ::testing::Test {
 protected:
  void SetUp() override {
    m_dir = fs::temp_directory_path() / ("gpuctl-render-tree-" + std::to_string(::getpid()));
    fs::remove_all(m_dir);
  }
  void TearDown() override { fs::remove_all(m_dir); }

  static std::string read(const fs::path& path) {
    std::ifstream in(path);
    std::ostringstream text;
    text << in.rdbuf();
    return text.str();
  }

  fs::path m_dir;
};

RenderedFile file(std::string path, std::string content, std::uint32_t mode = 0644) {
  return RenderedFile{"t.mustache", std::move(path), std::move(content), mode, false};
}

}  // namespace

TEST_F(RenderTree, WritesOneTreePerNodeWithModes) {
  const std::vector<NodeFiles> rendered{{"gpu01", {file("/etc/nccl.conf", "A=1\n"), file("/etc/secret", "s", 0600)}},
                                        {"head01", {}}};
  ASSERT_TRUE(write_node_trees(m_dir.string(), rendered).has_value());
  EXPECT_EQ(read(m_dir / "gpu01/etc/nccl.conf"), "A=1\n");
  EXPECT_EQ(fs::status(m_dir / "gpu01/etc/secret").permissions() & fs::perms::all, static_cast<fs::perms>(0600));
  EXPECT_TRUE(fs::is_directory(m_dir / "head01"));
  for (const auto& entry : fs::directory_iterator(m_dir))
    EXPECT_FALSE(entry.path().filename().string().starts_with(".gpuctl-render")) << "staging left behind";
}

TEST_F(RenderTree, ReplacesThePreviousTreeOfANode) {
  ASSERT_TRUE(write_node_trees(m_dir.string(), {{"gpu01", {file("/etc/old.conf", "old")}}}).has_value());
  ASSERT_TRUE(write_node_trees(m_dir.string(), {{"gpu01", {file("/etc/new.conf", "new")}}}).has_value());
  EXPECT_FALSE(fs::exists(m_dir / "gpu01/etc/old.conf"));
  EXPECT_EQ(read(m_dir / "gpu01/etc/new.conf"), "new");
}

TEST_F(RenderTree, FailedWriteLeavesPreviousTreesUntouched) {
  ASSERT_TRUE(write_node_trees(m_dir.string(), {{"gpu01", {file("/etc/a.conf", "v1")}}}).has_value());
  // /etc/x is a file, so /etc/x/y cannot be written: the whole write must fail.
  const std::vector<NodeFiles> broken{{"gpu01", {file("/etc/a.conf", "v2")}},
                                      {"gpu02", {file("/etc/x", "f"), file("/etc/x/y", "g")}}};
  const auto written = write_node_trees(m_dir.string(), broken);
  ASSERT_FALSE(written.has_value());
  EXPECT_EQ(written.error().code, ErrorCode::io);
  EXPECT_EQ(read(m_dir / "gpu01/etc/a.conf"), "v1");
  EXPECT_FALSE(fs::exists(m_dir / "gpu02"));
}

TEST(FormatNodeFiles, ShowsHeadersAndHidesSecrets) {
  std::vector<NodeFiles> rendered{{"gpu01", {RenderedFile{"n.mustache", "/etc/nccl.conf", "A=1", 0644, false},
                                             RenderedFile{"", "/etc/munge/munge.key", "KEY", 0400, true}}},
                                  {"head01", {}}};
  EXPECT_EQ(format_node_files(rendered),
            "==> gpu01:/etc/nccl.conf (n.mustache, 0644)\nA=1\n"
            "==> gpu01:/etc/munge/munge.key (generated, 0400)\n(secret, not shown)\n"
            "==> head01: no files\n");
}

// A file several nodes get byte for byte is listed once under their hostlist; one that differs
// (a node's own address in it) is listed per node; expand lists every node's.
TEST(FormatNodeFiles, ListsAFileTheNodesShareOnceUnderTheirHostlist) {
  const auto exporter = [](int n) {
    return RenderedFile{"e.mustache", "/etc/default/exporter", "ARGS=10.0.0." + std::to_string(n), 0644, false};
  };
  std::vector<NodeFiles> rendered;
  for (int n = 1; n <= 3; ++n)
    rendered.push_back({"gpu0" + std::to_string(n), {RenderedFile{"n.mustache", "/etc/nccl.conf", "A=1\n", 0644, false}, exporter(n)}});
  rendered.push_back({"head01", {}});
  rendered.push_back({"head02", {}});
  EXPECT_EQ(format_node_files(rendered),
            "==> gpu[01-03]:/etc/nccl.conf (n.mustache, 0644)\nA=1\n"
            "==> gpu01:/etc/default/exporter (e.mustache, 0644)\nARGS=10.0.0.1\n"
            "==> gpu02:/etc/default/exporter (e.mustache, 0644)\nARGS=10.0.0.2\n"
            "==> gpu03:/etc/default/exporter (e.mustache, 0644)\nARGS=10.0.0.3\n"
            "==> head[01-02]: no files\n");
  const auto each = format_node_files(rendered, true);
  EXPECT_NE(each.find("==> gpu03:/etc/nccl.conf (n.mustache, 0644)\nA=1\n"), std::string::npos) << each;
}

namespace {

// render --json: per node, never folded; a secret is a marker only, even were its content handed in.
TEST(RenderJson, PerNodeFilesWithModeOwnerAndNoSecretContent) {
  RenderedFile key{"", "/etc/munge/munge.key", "KEY-BYTES", 0400, true, "munge", "munge"};
  const std::vector<NodeFiles> rendered{{"gpu01", {file("/etc/nccl.conf", "A=1\n"), key}},
                                        {"gpu02", {file("/etc/nccl.conf", "A=1\n")}},
                                        {"head01", {}}};
  const auto text = node_files_to_json(rendered);
  EXPECT_EQ(text.find("KEY-BYTES"), std::string::npos) << text;
  const auto doc = nlohmann::json::parse(text);
  EXPECT_EQ(doc["format_version"], 1);
  ASSERT_EQ(doc["nodes"].size(), 3u);  // gpu01 and gpu02 share a file byte for byte, still two entries
  const auto& nccl = doc["nodes"][0]["files"][0];
  EXPECT_EQ(nccl["path"], "/etc/nccl.conf");
  EXPECT_EQ(nccl["template"], "t.mustache");
  EXPECT_EQ(nccl["mode"], "0644");
  EXPECT_EQ(nccl["owner"], "root");
  EXPECT_EQ(nccl["group"], "root");
  EXPECT_EQ(nccl["secret"], false);
  EXPECT_EQ(nccl["content"], "A=1\n");
  const auto& secret = doc["nodes"][0]["files"][1];
  EXPECT_EQ(secret["secret"], true);
  EXPECT_TRUE(secret["content"].is_null());
  EXPECT_EQ(secret["mode"], "0400");
  EXPECT_EQ(secret["owner"], "munge");
  EXPECT_EQ(doc["nodes"][1]["node"], "gpu02");
  EXPECT_EQ(doc["nodes"][2]["node"], "head01");
  EXPECT_TRUE(doc["nodes"][2]["files"].empty());
}

}  // namespace

// render -o writes only where it may (issue #37): never through a symbolic link, and it
// replaces only the node trees it wrote itself; someone else's files stay.
TEST_F(RenderTree, NeverWritesThroughALinkAndReplacesOnlyItsOwnTrees) {
  const std::vector<NodeFiles> rendered{{"gpu01", {file("/etc/nccl.conf", "A=1\n")}}};
  const auto victim = m_dir / "victim";
  fs::create_directories(victim / "gpu01");
  std::ofstream(victim / "gpu01" / "keep") << "data\n";
  fs::create_directory_symlink(victim, m_dir / "out-link");
  const auto through = write_node_trees((m_dir / "out-link").string(), rendered);
  ASSERT_FALSE(through);
  EXPECT_NE(through.error().message.find("is a symbolic link"), std::string::npos) << through.error().message;
  EXPECT_TRUE(fs::exists(victim / "gpu01" / "keep"));
  // A directory of that name that render did not write is kept, and the render refused.
  const auto beside = write_node_trees(victim.string(), rendered);
  ASSERT_FALSE(beside);
  EXPECT_NE(beside.error().message.find("was not written by gpuctl render"), std::string::npos) << beside.error().message;
  EXPECT_EQ(read(victim / "gpu01" / "keep"), "data\n");
  // Its own earlier tree it replaces.
  const auto out = m_dir / "out";
  ASSERT_TRUE(write_node_trees(out.string(), rendered));
  ASSERT_TRUE(write_node_trees(out.string(), {{"gpu01", {file("/etc/nccl.conf", "A=2\n")}}}));
  EXPECT_EQ(read(out / "gpu01" / "etc" / "nccl.conf"), "A=2\n");
  // A node tree swapped for a link since is refused, the link's target untouched.
  fs::remove_all(out / "gpu01");
  fs::create_directory_symlink(victim / "gpu01", out / "gpu01");
  EXPECT_FALSE(write_node_trees(out.string(), rendered));
  EXPECT_EQ(read(victim / "gpu01" / "keep"), "data\n");
}
