// Failed checks cite the node command they read and its output (verify/checks.hpp), from
// facts built by the real probe-output parser (facts/collect.hpp); and the report writers
// carry that evidence into JSON, JUnit and HTML.
#include <gpuctl/facts/collect.hpp>
#include <gpuctl/facts/parsers.hpp>
#include <gpuctl/report/html.hpp>
#include <gpuctl/report/reports.hpp>
#include <gpuctl/report/verify_json.hpp>
#include <gpuctl/util/strings.hpp>
#include <gpuctl/verify/checks.hpp>

#include "probe_capture.hpp"
#include "check_fixture.hpp"
#include "program_builder.hpp"
#include "template_test_inventory.hpp"

#include <gtest/gtest.h>

namespace gpuctl {
namespace {

using facts::ProbeOutput;

// The first `count` GPUs of the synthetic 8-GPU nvidia-smi answer.
std::string gpu_csv(int count) {
  const auto all = testing::read_test_data("nvidia-smi/synthetic-8gpu/query-gpu-noheader-nounits.csv");
  std::string csv;
  for (const auto& line : util::split_lines(all))
    if (count-- > 0) csv += line + "\n";
  return csv;
}

class CheckSources : public testing::SingleCheckTest {
 protected:
  CheckSources() {
    std::map<std::string, ProbeOutput> probes{
        {"modules", {0, "nvidia 104067072 2 nvidia_uvm, Live 0x0 (OE)\nnouveau 2666496 0 - Live 0x0\next4 1 0 - Live 0x0\n", ""}},
        {"gpus", {0, gpu_csv(node.gpu.count - 1), ""}},
        {"cuda", {127, "", "nvcc: command not found"}},
    };
    state.facts = facts::facts_from_probes(node.name, probes);
    state.services["slurmd"] = ObservedService{true, true, false};
    state.slurm_node = ObservedSlurmNode{true, 1, "Node " + node.name + " not found\n"};
  }

};

TEST_F(CheckSources, FactsKeepEachProbesReadableCommandAndOutputWithStderr) {
  const auto& sources = state.facts.sources;
  ASSERT_TRUE(sources.contains("gpus"));
  EXPECT_EQ(sources.at("gpus").command, facts::gpu_query_command());
  EXPECT_EQ(sources.at("modules").command, "cat /proc/modules");
  EXPECT_EQ(sources.at("cuda").command, "nvcc --version");
  EXPECT_EQ(sources.at("cuda").exit_code, 127);
  EXPECT_EQ(sources.at("cuda").output, "[stderr]\nnvcc: command not found");
}

TEST_F(CheckSources, FailedModuleCheckCitesOnlyTheModulesLine) {
  const auto r = run("nouveau_not_loaded");
  ASSERT_EQ(r.status, CheckStatus::fail);
  EXPECT_EQ(r.command, "cat /proc/modules");
  EXPECT_EQ(r.output, "nouveau 2666496 0 - Live 0x0\n");
}

TEST_F(CheckSources, FailedGpuCountCitesTheNvidiaSmiQueryAndItsRows) {
  const auto r = run("gpu_count");
  ASSERT_EQ(r.status, CheckStatus::fail);
  EXPECT_EQ(r.command, facts::gpu_query_command());
  EXPECT_NE(r.output.find("1653724067178"), std::string::npos) << r.output;
  EXPECT_EQ(std::count(r.output.begin(), r.output.end(), '\n'), node.gpu.count - 1);
}

TEST_F(CheckSources, CheckThatCannotRunCitesTheFailedCommandWithItsExitStatus) {
  const auto r = run("cuda_version");
  ASSERT_EQ(r.status, CheckStatus::error);
  EXPECT_EQ(r.command, "nvcc --version");
  EXPECT_NE(r.output.find("command not found"), std::string::npos);
  EXPECT_NE(r.output.find("[exit status 127]"), std::string::npos) << r.output;
}

TEST_F(CheckSources, PassingChecksCiteNothing) {
  const auto r = run("nvidia_loaded");
  ASSERT_EQ(r.status, CheckStatus::pass);
  EXPECT_TRUE(r.command.empty());
  EXPECT_TRUE(r.output.empty());
}

TEST_F(CheckSources, SlurmAndServiceChecksCiteScontrolAndSystemctl) {
  const auto slurm = run("slurmd_registered");
  ASSERT_EQ(slurm.status, CheckStatus::fail);
  EXPECT_EQ(slurm.command, "scontrol show node " + node.name);
  EXPECT_EQ(slurm.output, "Node " + node.name + " not found\n");
  const auto service = run("slurmd_active");
  ASSERT_EQ(service.status, CheckStatus::fail);
  EXPECT_EQ(service.command, "systemctl show -p LoadState,UnitFileState,ActiveState,Result slurmd");
  EXPECT_EQ(service.output, "enabled: yes\nactive: no");
}

TEST(TrimOutput, CutsLongOutputOnALineAndSaysHowMuchIsLeft) {
  std::string text;
  for (int i = 0; i < 1000; ++i) text += "line " + std::to_string(i) + "\n";
  const auto cut = facts::trim_output(text, 4096);
  EXPECT_LE(cut.size(), 4096u + 40);
  EXPECT_TRUE(cut.starts_with("line 0\nline 1\n"));
  EXPECT_NE(cut.find("more bytes)"), std::string::npos);
  EXPECT_EQ(facts::trim_output("short\n", 4096), "short\n");
}

TEST(FactsSources, LongOutputIsTrimmedToTheLimit) {
  std::string modules;
  for (int i = 0; modules.size() < 3 * k_source_output_limit; ++i) modules += "mod" + std::to_string(i) + " 1 0 - Live 0x0\n";
  const auto facts = facts::facts_from_probes("n", {{"modules", {0, modules, ""}}});
  EXPECT_LT(facts.sources.at("modules").output.size(), k_source_output_limit + 64);
}

std::vector<NodeVerifyOutcome> failed_outcome() {
  CheckResult c{"gpu_count", CheckStatus::fail, "7", "8", "a GPU may have fallen off the bus",
                "nvidia-smi --query-gpu=index --format=csv", "0\n1\n<2>\n"};
  return {NodeVerifyOutcome{{"gpu02", exec::NodeStatus::failed, "check gpu_count fail", {}}, {c}}};
}

TEST(CheckEvidence, JsonCarriesCommandAndOutputAndReadsThemBack) {
  const auto json = verify_to_json(failed_outcome());
  EXPECT_NE(json.find("\"command\": \"nvidia-smi --query-gpu=index --format=csv\""), std::string::npos) << json;
  const auto back = verify_from_json(json, "r.json");
  ASSERT_TRUE(back) << back.error().to_string();
  EXPECT_EQ(back->at(0).checks.at(0).command, "nvidia-smi --query-gpu=index --format=csv");
  EXPECT_EQ(back->at(0).checks.at(0).output, "0\n1\n<2>\n");
}

TEST(CheckEvidence, JunitFailureBodyHoldsTheCommandAndEscapedOutput) {
  const auto xml = verify_to_junit(failed_outcome());
  EXPECT_NE(xml.find(">$ nvidia-smi --query-gpu=index --format=csv\n0\n1\n&lt;2&gt;\n</failure>"), std::string::npos) << xml;
}

TEST(CheckEvidence, HtmlShowsTheCommandWithItsOutputFolded) {
  const auto html = render_verify_html(failed_outcome(), {});
  EXPECT_NE(html.find("<details class=\"evidence\"><summary><code class=\"command\">$ nvidia-smi --query-gpu=index "
                      "--format=csv</code></summary><pre class=\"output\">0\n1\n&lt;2&gt;\n</pre></details>"),
            std::string::npos)
      << html;
}

}  // namespace
}  // namespace gpuctl
