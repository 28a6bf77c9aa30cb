// Every file in tests/data/inventories/bad must fail with the diagnostics its "# expect:"
// lines name; every file in good/ must load, with exactly the warnings its "# warn:" lines name.
#include <gpuctl/inventory/loader.hpp>
#include <gpuctl_build_paths.hpp>
#include <gpuctl/util/strings.hpp>

#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <sstream>

namespace fs = std::filesystem;
using namespace gpuctl;

namespace {

std::vector<fs::path> corpus(const char* kind) {
  std::vector<fs::path> files;
  for (const auto& entry : fs::directory_iterator(fs::path(GPUCTL_TEST_DATA_DIR) / "inventories" / kind))
    if (entry.path().extension() == ".yaml") files.push_back(entry.path());
  std::ranges::sort(files);
  return files;
}

// The "# <tag>: L:C: message" lines of a file, as "L:C: message".
std::vector<std::string> expectations(const fs::path& file, const std::string& tag) {
  std::ifstream in(file);
  std::vector<std::string> out;
  for (std::string line; std::getline(in, line);)
    if (line.starts_with("# " + tag + ": ")) out.push_back(line.substr(tag.size() + 4));
  return out;
}

std::string listing(const LoadResult& result) {
  std::string out;
  for (const auto& d : result.diagnostics) out += "  " + d.to_string() + "\n";
  return out;
}

// "L:C: fragment" matches a diagnostic at L:C whose "message (hint)" contains the fragment.
bool matches(const Diagnostic& d, const std::string& expectation) {
  const auto position = std::to_string(d.line) + ":" + std::to_string(d.column) + ": ";
  if (!expectation.starts_with(position)) return false;
  const auto text = d.message + (d.hint.empty() ? "" : " (" + d.hint + ")");
  return text.find(expectation.substr(position.size())) != std::string::npos;
}

std::string test_name(const ::testing::TestParamInfo<fs::path>& info) {
  auto name = info.param.stem().string();
  std::ranges::replace(name, '-', '_');
  return name;
}

class BadInventory : public ::testing::TestWithParam<fs::path> {};

TEST_P(BadInventory, FailsWithTheExpectedDiagnostic) {
  const auto wanted = expectations(GetParam(), "expect");
  ASSERT_FALSE(wanted.empty()) << GetParam() << " has no '# expect:' line";
  const auto result = load_inventory(GetParam().string());
  EXPECT_FALSE(result.ok()) << GetParam();
  for (const auto& expectation : wanted) {
    const bool found = std::ranges::any_of(result.diagnostics, [&](const Diagnostic& d) {
      return d.severity == Severity::error && d.file == GetParam().string() && matches(d, expectation);
    });
    EXPECT_TRUE(found) << "want: " << expectation << "\ngot:\n" << listing(result);
  }
}

INSTANTIATE_TEST_SUITE_P(Corpus, BadInventory, ::testing::ValuesIn(corpus("bad")), test_name);

class GoodInventory : public ::testing::TestWithParam<fs::path> {};

TEST_P(GoodInventory, LoadsWithExactlyTheExpectedWarnings) {
  const auto result = load_inventory(GetParam().string());
  ASSERT_TRUE(result.ok()) << listing(result);
  const auto wanted = expectations(GetParam(), "warn");
  EXPECT_EQ(result.diagnostics.size(), wanted.size()) << listing(result);
  for (const auto& expectation : wanted)
    EXPECT_TRUE(std::ranges::any_of(result.diagnostics, [&](const Diagnostic& d) { return matches(d, expectation); }))
        << "want: " << expectation << "\ngot:\n" << listing(result);
}

INSTANTIATE_TEST_SUITE_P(Corpus, GoodInventory, ::testing::ValuesIn(corpus("good")), test_name);

TEST(InventoryCorpus, HasAtLeastTwentyBadCases) { EXPECT_GE(corpus("bad").size(), 20u); }

}  // namespace
