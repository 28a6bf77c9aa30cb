// The check catalog (verify/catalog.hpp): every check declared once with what the rest derives
// from it, and the places that derive it (probe selection, playbook validation, --list, docs).
#include <gpuctl/api/inventory_use_case.hpp>
#include <gpuctl/facts/collect.hpp>
#include <gpuctl/playbook/loader.hpp>
#include <gpuctl/report/check_list.hpp>
#include <gpuctl/util/strings.hpp>
#include <gpuctl/verify/catalog.hpp>
#include <gpuctl_build_paths.hpp>

#include "shipped_playbooks.hpp"
#include "temp_dir.hpp"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <fstream>
#include <regex>
#include <set>
#include <sstream>

namespace gpuctl {
namespace {

std::string read_source_file(const std::string& relative) {
  std::ifstream in(std::string(GPUCTL_SOURCE_DIR) + "/" + relative, std::ios::binary);
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

TEST(CheckCatalog, EveryCheckHasADescriptionAJudgeAndACitedSource) {
  const auto catalog = check_catalog();
  ASSERT_GE(catalog.size(), 32u);
  for (const auto* spec : catalog) {
    EXPECT_FALSE(spec->description.empty()) << spec->name;
    EXPECT_TRUE(spec->cite || !spec->facts.empty() || spec->runner == NodeRunner::nccl_nodes)
        << spec->name << " cites nothing when it fails";
    EXPECT_FALSE(spec->source.empty() && spec->facts.empty()) << spec->name;
    EXPECT_TRUE(spec->judge || spec->runner == NodeRunner::nccl_nodes) << spec->name << " has no judge";
    EXPECT_EQ(find_check(spec->name), spec);
  }
  EXPECT_EQ(find_check("gpu_temperatur"), nullptr);
}

TEST(CheckCatalog, EveryFactACheckReadsIsAProbeOfTheFullBatch) {
  const auto probes = facts::probe_names();
  for (const auto* spec : check_catalog())
    for (const auto fact : spec->facts)
      EXPECT_NE(std::ranges::find(probes, fact), probes.end()) << spec->name << " reads unknown probe " << fact;
}

TEST(CheckCatalog, NeedsAreTheUnionOfTheChecksFactsAndRunners) {
  const auto needs = check_needs({"row_remap", "nvlink_topology", "slurmd_registered", "dcgm_diag", "no_such_check"});
  EXPECT_TRUE(needs.probes.contains("remapped_rows"));
  EXPECT_TRUE(needs.probes.contains("topology"));
  EXPECT_TRUE(needs.probes.contains("nvlink"));
  EXPECT_FALSE(needs.probes.contains("pcie_aer"));
  EXPECT_TRUE(needs.needs(NodeRunner::slurm_node_view));
  EXPECT_TRUE(needs.needs(NodeRunner::dcgm_diag));
  EXPECT_FALSE(needs.needs(NodeRunner::nccl_allreduce));
  EXPECT_TRUE(needs.probe_extras().slurm_node_view);
  EXPECT_TRUE(check_needs({}).probes.empty());
}

// docs/verify.md's checks table lists exactly the catalog's checks: none missing, none stale.
TEST(CheckCatalog, TheDocsTableListsEveryCheckAndNoOther) {
  const auto doc = read_source_file("docs/verify.md");
  ASSERT_FALSE(doc.empty());
  const auto begin = doc.find("| check | proves |");
  ASSERT_NE(begin, std::string::npos);
  std::set<std::string> documented;
  const std::regex row(R"(^\| `([a-z0-9_]+)` \|)");
  for (const auto& line : util::split_lines(doc.substr(begin))) {
    if (!line.starts_with("|")) break;
    std::smatch match;
    if (std::regex_search(line, match, row)) documented.insert(match[1]);
  }
  std::set<std::string> catalog;
  for (const auto* spec : check_catalog()) catalog.emplace(spec->name);
  EXPECT_EQ(documented, catalog);
}

TEST(CheckCatalog, ShippedPlaybooksNameOnlyKnownChecks) {
  const auto names = playbook_check_names();
  for (const auto& playbook : testing::shipped_playbooks())
    for (const auto& step : playbook.steps)
      for (const auto& check : step.checks)
        EXPECT_NE(std::ranges::find(names, check), names.end()) << playbook.name << ": " << step.name << ": " << check;
  EXPECT_EQ(std::ranges::count(names, "nccl_allreduce_nodes"), 0) << "verify adds it; no playbook lists it";
}

constexpr std::string_view k_misspelt_playbook =
    "name: custom\n"
    "steps:\n"
    "  - name: thermals\n"
    "    checks: [gpu_count, gpu_temperatur]\n"
    "  - name: one\n"
    "    checks: zz_unheard_of\n";

TEST(PlaybookCheckNames, AnUnknownCheckIsAnErrorAtItsLineWithDidYouMean) {
  const auto result = check_playbook_text(k_misspelt_playbook, "custom.yaml", playbook_rules());
  ASSERT_FALSE(result.ok());
  ASSERT_EQ(result.diagnostics.size(), 2u);
  const auto& first = result.diagnostics[0];
  EXPECT_EQ(first.file, "custom.yaml");
  EXPECT_EQ(first.line, 4);
  EXPECT_EQ(first.column, 25);
  EXPECT_EQ(first.message, "step 'thermals' lists unknown check 'gpu_temperatur'");
  EXPECT_NE(first.hint.find("did you mean 'gpu_temperature'?"), std::string::npos) << first.hint;
  EXPECT_EQ(result.diagnostics[1].line, 6);
  EXPECT_NE(result.diagnostics[1].hint.find("gpuctl verify --list"), std::string::npos);
  // Without the catalog's names (the playbook module alone) the names are not judged.
  EXPECT_TRUE(check_playbook_text(k_misspelt_playbook, "custom.yaml").ok());
}

TEST(PlaybookCheckNames, ValidateRefusesAnInventoryWhosePlaybookNamesAnUnknownCheck) {
  testing::TempDir dir;
  const auto playbook = dir.path() + "/custom.yaml";
  std::ofstream(playbook) << k_misspelt_playbook;
  const auto inventory = std::string(GPUCTL_SOURCE_DIR) + "/docs/examples/cluster.yaml";
  ASSERT_TRUE(run_validate(inventory).ok()) << "the example with the shipped playbooks is valid";
  const auto result = run_validate(inventory, {playbook});
  EXPECT_FALSE(result.ok());
  const auto quoted = std::ranges::find_if(result.diagnostics, [](const Diagnostic& d) {
    return d.to_string().find("custom.yaml:4:25: error: step 'thermals' lists unknown check 'gpu_temperatur'") !=
           std::string::npos;
  });
  EXPECT_NE(quoted, result.diagnostics.end());
  const auto missing = run_validate(inventory, {dir.path() + "/absent.yaml"});
  EXPECT_FALSE(missing.ok());
}

TEST(CheckList, TextListsEveryCheckWithItsDescriptionBySection) {
  const auto text = render_check_list();
  for (const auto* spec : check_catalog()) {
    const auto at = text.find("  " + std::string(spec->name) + " ");
    ASSERT_NE(at, std::string::npos) << spec->name;
    EXPECT_NE(text.find(std::string(spec->description), at), std::string::npos) << spec->name;
  }
  EXPECT_NE(text.find("GPU health:\n"), std::string::npos);
  EXPECT_LT(text.find("nouveau_not_loaded"), text.find("slurmd_active")) << "kernel before Slurm";
}

TEST(CheckList, JsonCarriesNameDescriptionFactsRunnerAndSource) {
  const auto doc = nlohmann::json::parse(check_list_to_json());
  EXPECT_EQ(doc["format_version"], 1);
  ASSERT_EQ(doc["checks"].size(), check_catalog().size());
  for (const auto& check : doc["checks"]) {
    EXPECT_FALSE(check["description"].get<std::string>().empty());
    EXPECT_FALSE(check["source"].get<std::string>().empty()) << check["name"];
    if (check["name"] == "row_remap") {
      EXPECT_EQ(check["facts"][0], "remapped_rows");
      EXPECT_EQ(check["source"], "nvidia-smi -q -d ROW_REMAPPER");
      EXPECT_TRUE(check["runner"].is_null());
    }
    if (check["name"] == "dcgm_diag") {
      EXPECT_EQ(check["runner"], "DCGM diagnostic");
    }
    if (check["name"] == "nccl_allreduce_nodes") {
      EXPECT_FALSE(check["in_playbooks"].get<bool>());
    }
  }
}

}  // namespace
}  // namespace gpuctl
