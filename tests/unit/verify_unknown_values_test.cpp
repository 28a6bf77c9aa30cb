// A value nvidia-smi did not give is never a pass. Each case starts from the REAL H200 capture
// (tests/data/nvidia-smi/h200-1gpu/probe.txt: the --query-gpu CSV and the -q text), puts one of
// nvidia-smi's no-value forms where a check reads, parses it with the real parsers and runs
// the check: `error` with what nvidia-smi printed as the observed value, or `fail`.
//
// The forms, as nvidia-smi prints them: "[N/A]" and "[Requested functionality has been
// deprecated]" (both in tests/data/nvidia-smi/h200-1gpu/device-2026-12-03/every-field.txt, a
// real H200), "[Not Supported]" (older drivers' --query-gpu, e.g. enkore/i3pystatus pull 776),
// "[Unknown Error]" (a failing GPU's CSV row and fan.speed, enkore/i3pystatus pull 850; the
// 8-GPU test data's power.draw), "[Insufficient Permissions]", "[GPU is lost]",
// "[GPU requires reset]", `-q`'s "N/A" (same capture) and the summary table's "ERR!".
#include <gpuctl/facts/parsers.hpp>
#include <gpuctl/util/strings.hpp>
#include <gpuctl/verify/checks.hpp>

#include "probe_capture.hpp"
#include "program_builder.hpp"
#include "template_test_inventory.hpp"

#include <fmt/format.h>
#include <gtest/gtest.h>

namespace gpuctl {
namespace {

const std::vector<std::string> k_no_value_forms{
    "[N/A]", "N/A", "[Not Supported]", "[Unknown Error]", "[Insufficient Permissions]", "[GPU is lost]",
    "ERR!", "[Requested functionality has been deprecated]", "[GPU requires reset]", "Not Found", ""};

// The real H200 --query-gpu=... --format=csv capture as (header cell, value) columns.
class QueryCsv {
 public:
  QueryCsv() {
    const auto lines = util::split_lines(testing::h200_probe(k_command).output);
    const auto header = util::split(lines.at(0), ',');
    const auto row = util::split(lines.at(1), ',');
    for (std::size_t i = 0; i < header.size(); ++i)
      m_columns.emplace_back(std::string(util::trim(header[i])), std::string(util::trim(row.at(i))));
  }
  QueryCsv& set(std::string_view field, std::string value) {
    column(field).second = std::move(value);
    return *this;
  }
  QueryCsv& drop(std::string_view field) {
    std::erase_if(m_columns, [&](const auto& c) { return is(c.first, field); });
    return *this;
  }
  std::string text() const {
    std::vector<std::string> header, row;
    for (const auto& [name, value] : m_columns) header.push_back(name), row.push_back(value);
    return util::join(header, ", ") + "\n" + util::join(row, ", ") + "\n";
  }

  static constexpr const char* k_command =
      "nvidia-smi --query-gpu=index,name,uuid,serial,pci.bus_id,driver_version,vbios_version,memory.total,"
      "memory.used,persistence_mode,ecc.mode.current,ecc.errors.corrected.volatile.total,"
      "ecc.errors.uncorrected.volatile.total,ecc.errors.uncorrected.aggregate.total,retired_pages.pending,"
      "remapped_rows.pending,remapped_rows.failure,temperature.gpu,power.draw,power.limit,clocks.sm,"
      "clocks.max.sm,pcie.link.gen.current,pcie.link.gen.max,pcie.link.width.current,pcie.link.width.max,"
      "compute_mode,mig.mode.current,gpu_bus_id --format=csv";

 private:
  static bool is(std::string_view header, std::string_view field) {
    return header == field || header.starts_with(std::string(field) + " [");
  }
  std::pair<std::string, std::string>& column(std::string_view field) {
    for (auto& c : m_columns)
      if (is(c.first, field)) return c;
    ADD_FAILURE() << "no column " << field;
    return m_columns.front();
  }
  std::vector<std::pair<std::string, std::string>> m_columns;
};

// The real `-q -d ...,PAGE_RETIREMENT,ROW_REMAPPER` text, with `line` (its trimmed start)
// given another value.
std::string h200_q_with(std::string_view section, std::string_view key, std::string_view value) {
  std::string out;
  bool in_section = false;
  for (const auto& line : util::split_lines(testing::h200_probe("nvidia-smi -q -d ECC,PERFORMANCE,POWER,TEMPERATURE,"
                                                                "CLOCK,PAGE_RETIREMENT,ROW_REMAPPER")
                                                 .output)) {
    const auto content = util::trim(line);
    if (line.starts_with("    ") && !line.starts_with("     ")) in_section = content == section;
    if (in_section && line.starts_with("        ") && !line.starts_with("         ") && content.starts_with(key) &&
        util::trim(content.substr(0, content.find(':'))) == key) {
      out += line.substr(0, line.find(':') + 1) + " " + std::string(value) + "\n";
      continue;
    }
    out += line + "\n";
  }
  return out;
}

class UnknownValues : public ::testing::Test {
 protected:
  UnknownValues() : inventory(testing::example_inventory()), node(inventory.nodes[1]) {
    node.gpu.model = "H200";
    node.gpu.count = 1;
  }

  CheckResult run(const std::string& check, const std::string& csv, const std::string& q = {}) {
    auto gpus = facts::parse_gpu_query(csv);
    EXPECT_TRUE(gpus) << gpus.error().message;
    if (!gpus) return {};
    if (!q.empty()) {
      const auto repairs = facts::parse_memory_repair_q(q);
      EXPECT_TRUE(repairs) << repairs.error().message;
      if (repairs) facts::merge_memory_repair(*gpus, *repairs);
    }
    state.facts.gpus = Fact<std::vector<GpuInfo>>::of(*gpus);
    return run_checks({check}, CheckInput{inventory, node, fixture.program, state}).at(0);
  }

  Inventory inventory;
  Node& node;
  NodeState state;
  testing::ProgramFixture fixture{std::vector<testing::StepSpec>{}};
};

TEST_F(UnknownValues, TheRealH200CapturePassesEveryGpuCheck) {
  const auto csv = QueryCsv().text();
  for (const char* check : {"gpu_model", "ecc_errors", "row_remap", "pcie_link", "persistence_mode"}) {
    const auto r = run(check, csv);
    EXPECT_EQ(r.status, CheckStatus::pass) << check << ": " << r.observed << " " << r.detail;
  }
}

// Every field a per-GPU check reads, in every no-value form: an error quoting the form.
TEST_F(UnknownValues, EveryNoValueFormInEveryFieldAChecksReadsIsAnErrorQuotingIt) {
  const std::pair<const char*, const char*> reads[] = {
      {"gpu_model", "name"},
      {"ecc_errors", "ecc.mode.current"},
      {"ecc_errors", "ecc.errors.uncorrected.volatile.total"},
      {"pcie_link", "pcie.link.width.current"},
      {"pcie_link", "pcie.link.width.max"},
      {"persistence_mode", "persistence_mode"},
      {"row_remap", "remapped_rows.pending"},
      {"row_remap", "remapped_rows.failure"},
  };
  for (const auto& [check, field] : reads)
    for (const auto& form : k_no_value_forms) {
      // For row_remap the capture's retired_pages.pending stays [N/A] (Hopper): it must not
      // stand in for remapped rows nvidia-smi did not give.
      const auto r = run(check, QueryCsv().set(field, form).text());
      const auto quoted = fmt::format("{} = {}", field, form.empty() ? "(empty)" : form);
      EXPECT_EQ(r.status, CheckStatus::error) << check << " " << field << " '" << form << "': " << r.observed;
      EXPECT_NE(r.observed.find(quoted), std::string::npos) << check << ": " << r.observed;
      EXPECT_NE(r.observed.find("GPU 0 (1653724067178)"), std::string::npos) << r.observed;
      EXPECT_EQ(r.expected.empty(), false) << check;
    }
}

TEST_F(UnknownValues, EccModeUnknownErrorWithZeroCountersIsNotEccOn) {
  const auto r = run("ecc_errors", QueryCsv().set("ecc.mode.current", "[Unknown Error]").text());
  EXPECT_EQ(r.status, CheckStatus::error);
  EXPECT_EQ(r.observed, "GPU 0 (1653724067178): ecc.mode.current = [Unknown Error]");
  EXPECT_EQ(r.expected, "ECC on, 0 uncorrectable volatile errors");
}

TEST_F(UnknownValues, EccDisabledFailsAndNamesTheUnknownCounterInTheDetail) {
  const auto r = run("ecc_errors", QueryCsv()
                                       .set("ecc.mode.current", "Disabled")
                                       .set("ecc.errors.uncorrected.volatile.total", "[N/A]")
                                       .text());
  EXPECT_EQ(r.status, CheckStatus::fail);
  EXPECT_EQ(r.observed, "GPU 0 (1653724067178): ECC disabled");
  EXPECT_NE(r.detail.find("ecc.errors.uncorrected.volatile.total = [N/A]"), std::string::npos) << r.detail;
}

// Memory repair: the CSV without the remapped_rows columns (gpuctl asks for those through -q).
QueryCsv repair_csv(std::string retired_pending) {
  QueryCsv csv;
  csv.drop("remapped_rows.pending").drop("remapped_rows.failure").set("retired_pages.pending", std::move(retired_pending));
  return csv;
}

// A GPU before Ampere, as -q prints it there (format of public `nvidia-smi -q` captures of a
// Tesla T4 and V100 with drivers 470-530): retired pages, and "Remapped Rows : N/A" on one line.
std::string pre_ampere_q(std::string_view pending_key, std::string_view pending) {
  return fmt::format(
      "GPU 00000000:00:06.0\n"
      "    Retired Pages\n"
      "        Single Bit ECC                    : 0\n"
      "        Double Bit ECC                    : 0\n"
      "        {:<34}: {}\n"
      "    Remapped Rows                         : N/A\n",
      pending_key, pending);
}

TEST_F(UnknownValues, RowRemapOnTheRealH200PassesWithRetiredPagesNotApplicable) {
  const auto q = testing::h200_probe("nvidia-smi -q -d ECC,PERFORMANCE,POWER,TEMPERATURE,CLOCK,PAGE_RETIREMENT,ROW_REMAPPER").output;
  const auto r = run("row_remap", repair_csv("[N/A]").text(), q);
  EXPECT_EQ(r.status, CheckStatus::pass) << r.observed;
}

TEST_F(UnknownValues, RowRemapIsNeverAPassWhenTheRemappedRowsAreUnknown) {
  for (const auto& form : k_no_value_forms) {
    if (form.empty()) continue;  // -q has no empty values
    for (const char* key : {"Pending", "Remapping Failure Occurred"}) {
      const auto r = run("row_remap", repair_csv("[N/A]").text(), h200_q_with("Remapped Rows", key, form));
      EXPECT_EQ(r.status, CheckStatus::error) << key << " " << form;
      EXPECT_NE(r.observed.find(form), std::string::npos) << r.observed;
    }
  }
  // The -q probe gave nothing: neither mechanism is known.
  const auto r = run("row_remap", repair_csv("[N/A]").text());
  EXPECT_EQ(r.status, CheckStatus::error);
  EXPECT_EQ(r.observed, "GPU 0 (1653724067178): remapped_rows.pending not reported, remapped_rows.failure not reported, "
                        "retired_pages.pending = [N/A]");
}

TEST_F(UnknownValues, RowRemapFailsOnAPendingRemapOrFailureFromTheRealQText) {
  auto r = run("row_remap", repair_csv("[N/A]").text(), h200_q_with("Remapped Rows", "Pending", "Yes"));
  EXPECT_EQ(r.status, CheckStatus::fail);
  EXPECT_EQ(r.observed, "GPU 0 (1653724067178): row remap pending: reset the GPU or reboot");
  r = run("row_remap", repair_csv("[N/A]").text(), h200_q_with("Remapped Rows", "Remapping Failure Occurred", "Yes"));
  EXPECT_EQ(r.status, CheckStatus::fail);
}

// retired_pages.pending prints "Yes"/"No" in the CSV (NVIDIA's help-query-gpu.txt: "Checks if
// any GPU device memory pages are pending retirement"), and -q "Pending Page Blacklist : No"
// (older drivers "Pending : No").
TEST_F(UnknownValues, RetiredPagesPendingYesFailsAndNoPassesBeforeAmpere) {
  for (const char* key : {"Pending Page Blacklist", "Pending"}) {
    auto r = run("row_remap", repair_csv("Yes").text(), pre_ampere_q(key, "Yes"));
    EXPECT_EQ(r.status, CheckStatus::fail) << key;
    EXPECT_EQ(r.observed, "GPU 0 (1653724067178): retired pages pending: reboot");
    r = run("row_remap", repair_csv("No").text(), pre_ampere_q(key, "No"));
    EXPECT_EQ(r.status, CheckStatus::pass) << key << ": " << r.observed;
    // Only -q says it (the CSV field unknown): still read.
    r = run("row_remap", repair_csv("[Unknown Error]").text(), pre_ampere_q(key, "Yes"));
    EXPECT_EQ(r.status, CheckStatus::fail) << key;
  }
}

TEST_F(UnknownValues, RetiredPagesUnknownBeforeAmpereIsAnError) {
  for (const auto& form : k_no_value_forms) {
    const auto r = run("row_remap", repair_csv(form).text(), pre_ampere_q("Pending Page Blacklist", form.empty() ? "N/A" : form));
    EXPECT_EQ(r.status, CheckStatus::error) << "'" << form << "': " << r.observed;
    EXPECT_NE(r.observed.find("remapped_rows.pending = N/A"), std::string::npos) << r.observed;
  }
}

TEST_F(UnknownValues, RetiredPagesFailingToReadIsAnErrorEvenWhenRowsAreKnown) {
  const auto q = testing::h200_probe("nvidia-smi -q -d ECC,PERFORMANCE,POWER,TEMPERATURE,CLOCK,PAGE_RETIREMENT,ROW_REMAPPER").output;
  const auto r = run("row_remap", repair_csv("[Unknown Error]").text(), q);
  EXPECT_EQ(r.status, CheckStatus::error);
  EXPECT_EQ(r.observed, "GPU 0 (1653724067178): retired_pages.pending = [Unknown Error]");
}

TEST_F(UnknownValues, GpuModelIsMatchedExactlyNotAsASubstring) {
  const std::tuple<const char*, const char*, CheckStatus> cases[] = {
      {"H20", "NVIDIA H200", CheckStatus::fail},       {"H200", "NVIDIA H200", CheckStatus::pass},
      {"A10", "NVIDIA A100-PCIE-40GB", CheckStatus::fail}, {"A100", "NVIDIA A100-PCIE-40GB", CheckStatus::pass},
      {"L4", "NVIDIA L40S", CheckStatus::fail},        {"L40S", "NVIDIA L40S", CheckStatus::pass},
      {"H100", "NVIDIA H100 80GB HBM3", CheckStatus::pass},
  };
  for (const auto& [model, name, status] : cases) {
    node.gpu.model = model;
    const auto r = run("gpu_model", QueryCsv().set("name", name).text());
    EXPECT_EQ(r.status, status) << model << " vs " << name;
    if (status == CheckStatus::fail) {
      EXPECT_EQ(r.observed, fmt::format("GPU 0 (1653724067178): {}", name));
    }
  }
}

}  // namespace
}  // namespace gpuctl
