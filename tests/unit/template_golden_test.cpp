// Golden files: every file the shipped playbooks push, rendered for docs/examples/cluster.yaml,
// must match tests/data/golden/<node>/<destination path> byte for byte, and a node must receive
// exactly the files its golden directory holds. Secrets (the munge key) are masked and have no
// golden.
//
// To regenerate after an intended template change, run from the build directory:
//   GPUCTL_UPDATE_GOLDEN=1 ./tests/gpuctl_unit_tests --gtest_filter='TemplateGolden*'
// then review `git diff tests/data/golden` before committing.
#include "template_test_inventory.hpp"
#include <gpuctl_build_paths.hpp>

#include <gpuctl/inventory/loader.hpp>
#include "shipped_playbooks.hpp"

#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <set>
#include <sstream>

using namespace gpuctl;
namespace fs = std::filesystem;

namespace {

const fs::path k_golden_dir = fs::path(GPUCTL_TEST_DATA_DIR) / "golden";
const std::string k_templates_dir = std::string(GPUCTL_SOURCE_DIR) + "/templates";

bool updating() {
  const char* env = std::getenv("GPUCTL_UPDATE_GOLDEN");
  return env != nullptr && std::string(env) == "1";
}

std::string read_file(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

// The example inventory as the loader reads it: the goldens cover loader + templates.
const Inventory& golden_inventory() {
  static const Inventory inventory = [] {
    auto loaded = load_inventory(std::string(GPUCTL_SOURCE_DIR) + "/docs/examples/cluster.yaml");
    if (!loaded.ok()) throw std::runtime_error("docs/examples/cluster.yaml does not load");
    return *loaded.inventory;
  }();
  return inventory;
}

const Node& node_named(const std::string& name) {
  for (const auto& node : golden_inventory().nodes)
    if (node.name == name) return node;
  throw std::runtime_error("no node " + name);
}

std::set<std::string> golden_files_of(const fs::path& dir) {
  std::set<std::string> files;
  if (!fs::is_directory(dir)) return files;
  for (const auto& entry : fs::recursive_directory_iterator(dir))
    if (entry.is_regular_file()) files.insert("/" + fs::relative(entry.path(), dir).generic_string());
  return files;
}

// The node's files as the shipped playbooks push them, secrets left out (they have no golden).
Result<std::vector<RenderedFile>> render_node_files(const Inventory& inventory, const Node& node,
                                                    const std::string& templates_dir) {
  auto files = gpuctl::testing::shipped_files(inventory, node, templates_dir);
  if (files) std::erase_if(*files, [](const RenderedFile& file) { return file.secret; });
  return files;
}

class TemplateGolden : public ::testing::TestWithParam<std::string> {};

}  // namespace

TEST_P(TemplateGolden, RenderedFilesMatchGoldens) {
  const Node& node = node_named(GetParam());
  const auto files = render_node_files(golden_inventory(), node, k_templates_dir);
  ASSERT_TRUE(files.has_value()) << files.error().to_string();
  const fs::path dir = k_golden_dir / node.name;

  if (updating()) {
    fs::remove_all(dir);
    for (const auto& file : *files) {
      const fs::path path = dir / file.path.substr(1);
      fs::create_directories(path.parent_path());
      std::ofstream(path, std::ios::binary) << file.content;
    }
    GTEST_SKIP() << "goldens rewritten in " << dir;
  }

  std::set<std::string> rendered;
  for (const auto& file : *files) {
    rendered.insert(file.path);
    const fs::path golden = dir / file.path.substr(1);
    ASSERT_TRUE(fs::exists(golden)) << "no golden " << golden << " (regenerate: see this file's header)";
    EXPECT_EQ(file.content, read_file(golden)) << "rendered " << file.template_name << " differs from " << golden;
  }
  EXPECT_EQ(rendered, golden_files_of(dir)) << "the set of files " << node.name << " receives changed";
}

INSTANTIATE_TEST_SUITE_P(ExampleInventory, TemplateGolden, ::testing::Values("head01", "gpu01"));

// Nothing in the shipped templates depends on which GPU node renders them except the node's
// own address (node-exporter listens on it), so one golden directory stands for all eight;
// this keeps that assumption checked.
TEST(TemplateGoldenSet, EveryGpuNodeReceivesTheSameFilesAsGpu01) {
  const Node& gpu01 = node_named("gpu01");
  const auto reference = render_node_files(golden_inventory(), gpu01, k_templates_dir);
  ASSERT_TRUE(reference.has_value()) << reference.error().to_string();
  for (const auto& node : golden_inventory().nodes) {
    if (node.gpu.count == 0) continue;
    const auto files = render_node_files(golden_inventory(), node, k_templates_dir);
    ASSERT_TRUE(files.has_value()) << files.error().to_string();
    ASSERT_EQ(files->size(), reference->size()) << node.name;
    for (std::size_t i = 0; i < files->size(); ++i) {
      EXPECT_EQ((*files)[i].path, (*reference)[i].path);
      std::string expected = (*reference)[i].content;
      const std::string own_address = gpu01.connection.address + ":";
      for (auto at = expected.find(own_address); at != std::string::npos; at = expected.find(own_address, at + 1))
        expected.replace(at, own_address.size(), node.connection.address + ":");
      EXPECT_EQ((*files)[i].content, expected) << node.name << " " << (*files)[i].path;
    }
  }
}

// The in-code copy of the example that the other template tests use must render exactly like
// the YAML file, or those tests would be checking a different cluster.
TEST(TemplateGoldenSet, InCodeExampleRendersLikeTheYamlExample) {
  const Inventory in_code = gpuctl::testing::example_inventory();
  for (const auto& node : golden_inventory().nodes) {
    const Node* twin = nullptr;
    for (const auto& candidate : in_code.nodes)
      if (candidate.name == node.name) twin = &candidate;
    ASSERT_NE(twin, nullptr) << node.name;
    const auto from_yaml = render_node_files(golden_inventory(), node, k_templates_dir);
    const auto from_code = render_node_files(in_code, *twin, k_templates_dir);
    ASSERT_TRUE(from_yaml.has_value() && from_code.has_value());
    ASSERT_EQ(from_yaml->size(), from_code->size()) << node.name;
    for (std::size_t i = 0; i < from_yaml->size(); ++i)
      EXPECT_EQ((*from_yaml)[i].content, (*from_code)[i].content) << node.name << " " << (*from_yaml)[i].path;
  }
}
