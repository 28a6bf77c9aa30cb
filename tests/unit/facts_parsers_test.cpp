// Parsers on the REAL H200 captures (tests/data/nvidia-smi/h200-1gpu) and on the synthesised
// 8-GPU output (tests/data/nvidia-smi/synthetic-8gpu, see its README).
#include <gpuctl/facts/parsers.hpp>

#include "probe_capture.hpp"

#include <gtest/gtest.h>

using namespace gpuctl;
using namespace gpuctl::facts;
using gpuctl::testing::h200_probe;
using gpuctl::testing::read_test_data;

namespace {
const std::string k_full_query =
    "nvidia-smi --query-gpu=index,name,uuid,serial,pci.bus_id,driver_version,vbios_version,memory.total,"
    "memory.used,persistence_mode,ecc.mode.current,ecc.errors.corrected.volatile.total,"
    "ecc.errors.uncorrected.volatile.total,ecc.errors.uncorrected.aggregate.total,retired_pages.pending,"
    "remapped_rows.pending,remapped_rows.failure,temperature.gpu,power.draw,power.limit,clocks.sm,"
    "clocks.max.sm,pcie.link.gen.current,pcie.link.gen.max,pcie.link.width.current,pcie.link.width.max,"
    "compute_mode,mig.mode.current,gpu_bus_id --format=csv";
const std::string k_short_query =
    "nvidia-smi --query-gpu=index,name,uuid,serial,pci.bus_id,driver_version,memory.total,persistence_mode,"
    "ecc.errors.uncorrected.volatile.total,temperature.gpu,power.draw --format=csv,noheader,nounits";
const std::string k_q_sections = "nvidia-smi -q -d ECC,PERFORMANCE,POWER,TEMPERATURE,CLOCK,PAGE_RETIREMENT,ROW_REMAPPER";
}  // namespace

TEST(GpuQuery, ParsesRealH200CsvWithHeaderAndUnits) {
  const auto probe = h200_probe(k_full_query);
  ASSERT_EQ(probe.exit_code, 0);
  const auto gpus = parse_gpu_query(probe.output);
  ASSERT_TRUE(gpus) << gpus.error().to_string();
  ASSERT_EQ(gpus->size(), 1u);
  const auto& gpu = gpus->front();
  EXPECT_EQ(gpu.index, 0);
  EXPECT_EQ(gpu.name, "NVIDIA H200");
  EXPECT_EQ(gpu.uuid, "GPU-45bfc1e6-e3e5-f4f6-384a-7c4dcf4496d4");
  EXPECT_EQ(gpu.serial, "1653724067178");
  EXPECT_EQ(gpu.pci_bus_id, "00000000:00:06.0");
  EXPECT_EQ(gpu.driver_version, "580.159.04");
  EXPECT_EQ(gpu.vbios_version, "96.00.A5.00.1A");
  EXPECT_EQ(gpu.memory_total_mib, 143771);
  EXPECT_EQ(gpu.memory_used_mib, 0);
  EXPECT_EQ(gpu.persistence_mode, true);
  EXPECT_EQ(gpu.ecc_enabled, true);
  EXPECT_EQ(gpu.ecc_volatile_corrected, 0);
  EXPECT_EQ(gpu.ecc_volatile_uncorrected, 0);
  EXPECT_EQ(gpu.ecc_aggregate_uncorrected, 0);
  EXPECT_FALSE(gpu.ecc_aggregate_corrected.has_value()) << "not in this capture's field list";
  EXPECT_FALSE(gpu.retired_pages_pending.has_value()) << "[N/A] on Hopper";
  EXPECT_EQ(gpu.unreported_text("retired_pages.pending"), "[N/A]");
  EXPECT_EQ(gpu.unreported.size(), 1u) << "every other asked field has a value";
  EXPECT_EQ(gpu.remapped_rows_pending, false);
  EXPECT_EQ(gpu.remapped_rows_failure, false);
  EXPECT_EQ(gpu.temperature_c, 45);
  ASSERT_TRUE(gpu.power_draw_w.has_value());
  EXPECT_DOUBLE_EQ(*gpu.power_draw_w, 128.02);
  EXPECT_EQ(gpu.power_limit_w, 700.0);
  EXPECT_EQ(gpu.pcie_gen_current, 5);
  EXPECT_EQ(gpu.pcie_gen_max, 5);
  EXPECT_EQ(gpu.pcie_width_current, 16);
  EXPECT_EQ(gpu.pcie_width_max, 16);
}

TEST(GpuQuery, ParsesRealH200CsvWithoutHeaderUsingTheGivenFields) {
  const auto probe = h200_probe(k_short_query);
  const std::vector<std::string_view> fields{"index", "name", "uuid", "serial", "pci.bus_id", "driver_version",
                                             "memory.total", "persistence_mode",
                                             "ecc.errors.uncorrected.volatile.total", "temperature.gpu", "power.draw"};
  const auto gpus = parse_gpu_query(probe.output, fields);
  ASSERT_TRUE(gpus) << gpus.error().to_string();
  ASSERT_EQ(gpus->size(), 1u);
  EXPECT_EQ(gpus->front().memory_total_mib, 143771);
  EXPECT_EQ(gpus->front().temperature_c, 45);
  EXPECT_DOUBLE_EQ(gpus->front().power_draw_w.value_or(-1), 126.05);
  EXPECT_FALSE(gpus->front().pcie_gen_max.has_value()) << "a field that was not asked stays unset";
}

TEST(GpuQuery, ParsesSynthesised8GpuCsvWithHeader) {
  const auto gpus = parse_gpu_query(read_test_data("nvidia-smi/synthetic-8gpu/query-gpu.csv"));
  ASSERT_TRUE(gpus) << gpus.error().to_string();
  ASSERT_EQ(gpus->size(), 8u);
  for (int i = 0; i < 8; ++i) EXPECT_EQ((*gpus)[i].index, i);
  EXPECT_EQ((*gpus)[5].pci_bus_id, "00000000:AB:00.0");
  EXPECT_EQ((*gpus)[5].remapped_rows_pending, true);
  EXPECT_EQ((*gpus)[5].ecc_volatile_uncorrected, 2);
  EXPECT_EQ((*gpus)[4].remapped_rows_pending, false);
  EXPECT_EQ((*gpus)[3].persistence_mode, false);
  EXPECT_FALSE((*gpus)[7].power_draw_w.has_value()) << "[Unknown Error] is no value, not zero";
  EXPECT_EQ((*gpus)[7].unreported_text("power.draw"), "[Unknown Error]");
  EXPECT_DOUBLE_EQ((*gpus)[6].power_draw_w.value_or(-1), 122.08);
}

TEST(GpuQuery, ParsesSynthesised8GpuCsvWithoutHeaderInGpuctlsFieldOrder) {
  const auto gpus = parse_gpu_query(read_test_data("nvidia-smi/synthetic-8gpu/query-gpu-noheader-nounits.csv"));
  ASSERT_TRUE(gpus) << gpus.error().to_string();
  ASSERT_EQ(gpus->size(), 8u);
  EXPECT_EQ((*gpus)[7].uuid, "GPU-45bfc1e6-e3e5-f4f6-384a-7c4dcf4496d7");
  EXPECT_EQ((*gpus)[7].pci_bus_id, "00000000:DB:00.0");
  EXPECT_EQ((*gpus)[5].ecc_aggregate_uncorrected, 2);
  EXPECT_EQ((*gpus)[0].ecc_aggregate_corrected, 0);
  EXPECT_EQ((*gpus)[0].pcie_width_max, 16);
  EXPECT_EQ((*gpus)[0].temperature_c, 45);
  EXPECT_EQ((*gpus)[0].power_limit_w, 700.0);
  EXPECT_FALSE((*gpus)[7].power_draw_w.has_value());
}

TEST(GpuQuery, CommandAsksForEveryFieldWithAHeader) {
  const auto command = gpu_query_command();
  EXPECT_TRUE(command.starts_with("nvidia-smi --query-gpu=index,name,"));
  EXPECT_TRUE(command.ends_with(" --format=csv,nounits"));
  for (const auto field : gpu_query_fields()) EXPECT_NE(command.find(field), std::string::npos) << field;
}

// Every way nvidia-smi prints no value, in every kind of field: unset (empty text), never a
// default, with the raw text kept. Real spellings: "[N/A]" and "[Requested functionality has
// been deprecated]" in h200-1gpu/device-2026-12-03/every-field.txt; "[Unknown Error]" in the
// 8-GPU test data and public captures of a failing GPU's row; the rest as nvidia-smi prints
// them (see verify_unknown_values_test.cpp).
TEST(GpuQuery, EveryNoValueFormLeavesTheFieldUnsetAndKeepsTheText) {
  for (const std::string form : {"[N/A]", "N/A", "[Not Supported]", "[Unknown Error]", "[Insufficient Permissions]",
                                 "[GPU is lost]", "[GPU requires reset]", "ERR!", "Not Found",
                                 "[Requested functionality has been deprecated]", ""}) {
    const auto gpus = parse_gpu_query(
        "index, name, memory.total [MiB], persistence_mode, ecc.mode.current, retired_pages.pending, "
        "ecc.errors.uncorrected.volatile.total, pcie.link.width.current, power.draw [W]\n0, " +
        form + ", " + form + ", " + form + ", " + form + ", " + form + ", " + form + ", " + form + ", " + form + "\n");
    ASSERT_TRUE(gpus) << form << ": " << gpus.error().message;
    const auto& gpu = gpus->front();
    EXPECT_EQ(gpu.name, "") << form;
    EXPECT_FALSE(gpu.memory_total_mib.has_value()) << form;
    EXPECT_FALSE(gpu.persistence_mode.has_value()) << form;
    EXPECT_FALSE(gpu.ecc_enabled.has_value()) << form;
    EXPECT_FALSE(gpu.retired_pages_pending.has_value()) << form;
    EXPECT_FALSE(gpu.ecc_volatile_uncorrected.has_value()) << form;
    EXPECT_FALSE(gpu.pcie_width_current.has_value()) << form;
    EXPECT_FALSE(gpu.power_draw_w.has_value()) << form;
    EXPECT_EQ(gpu.unreported.size(), 8u) << form;
    for (const auto& [field, raw] : gpu.unreported) EXPECT_EQ(raw, form) << field;
    EXPECT_TRUE(gpu.unreported.contains("ecc.mode.current"));
    EXPECT_TRUE(gpu.unreported.contains("memory.total")) << "keyed by field name, without the unit";
  }
}

TEST(GpuQuery, NotApplicableIsToldApartFromAFailureToRead) {
  for (const char* raw : {"[N/A]", "N/A", "[Not Supported]"}) EXPECT_TRUE(is_not_applicable(raw)) << raw;
  for (const char* raw : {"[Unknown Error]", "[GPU is lost]", "ERR!", "[Insufficient Permissions]", ""})
    EXPECT_FALSE(is_not_applicable(raw)) << raw;
}

// retired_pages.pending is a flag: "Yes"/"No" (nvidia-smi --help-query-gpu: "Checks if any GPU
// device memory pages are pending retirement"), "[N/A]" on Ampere and later.
TEST(GpuQuery, RetiredPagesPendingIsAYesNoFlag) {
  const auto parse = [](const std::string& value) {
    return parse_gpu_query("index, retired_pages.pending\n0, " + value + "\n");
  };
  EXPECT_EQ(parse("Yes")->front().retired_pages_pending, true);
  EXPECT_EQ(parse("No")->front().retired_pages_pending, false);
  EXPECT_EQ(parse("YES")->front().retired_pages_pending, true) << "NVIDIA's retirement guide spells it so";
  EXPECT_FALSE(parse("[N/A]")->front().retired_pages_pending.has_value());
  EXPECT_FALSE(parse("3")) << "a count is not a flag";
  EXPECT_FALSE(parse("Maybe")) << "not a flag: the output is not what nvidia-smi prints";
}

TEST(GpuQuery, TheIndexMustBeANumber) {
  // A failing GPU's row is "[Unknown Error]" in every column; nvidia-smi then exits non-zero
  // and classify_nvidia_smi_failure() says why, but the parser alone refuses the row too.
  const auto gpus = parse_gpu_query("index, name\n[Unknown Error], [Unknown Error]\n");
  ASSERT_FALSE(gpus);
  EXPECT_NE(gpus.error().message.find("index = '[Unknown Error]'"), std::string::npos) << gpus.error().message;
}

TEST(GpuQuery, RejectsMalformedOutput) {
  const std::vector<std::pair<std::string, std::string>> cases{
      {"", "no rows"},
      {"index, name\n", "no GPU rows"},
      {"index, name\n0, NVIDIA H200, extra\n", "3 columns, expected 2"},
      {"index, memory.total [MiB]\n0, abc MiB\n", "memory.total = 'abc MiB'"},
      {"index, persistence_mode\n0, Maybe\n", "persistence_mode = 'Maybe'"},
      {"index, retired_pages.pending\n0, 2\n", "retired_pages.pending = '2'"},
      {"index, name\nzero, NVIDIA H200\n", "index = 'zero'"},
      {"name, uuid\nNVIDIA H200, GPU-1\n", "no 'index' column"},
  };
  for (const auto& [text, expected] : cases) {
    const auto gpus = parse_gpu_query(text);
    ASSERT_FALSE(gpus) << text;
    EXPECT_EQ(gpus.error().code, ErrorCode::parse);
    EXPECT_NE(gpus.error().message.find(expected), std::string::npos) << gpus.error().message;
  }
}

TEST(MemoryRepair, ParsesRealH200QuerySections) {
  const auto repairs = parse_memory_repair_q(h200_probe(k_q_sections).output);
  ASSERT_TRUE(repairs) << repairs.error().to_string();
  ASSERT_EQ(repairs->size(), 1u);
  const auto& gpu = repairs->at("00000000:00:06.0");
  EXPECT_EQ(gpu.remapped_correctable, 0);
  EXPECT_EQ(gpu.remapped_uncorrectable, 0);
  EXPECT_EQ(gpu.remapped_pending, false);
  EXPECT_EQ(gpu.remapped_failure, false);
  // Hopper: "Retired Pages / Pending Page Blacklist : N/A".
  EXPECT_FALSE(gpu.retired_pending.has_value());
  EXPECT_EQ(gpu.unreported.at("retired_pages.pending"), "N/A");
  EXPECT_EQ(gpu.unreported.at("retired_pages.sbe"), "N/A");
}

TEST(MemoryRepair, ParsesTheRealPageRetirementAndRowRemapperSections) {
  // `nvidia-smi -q -d PAGE_RETIREMENT,ROW_REMAPPER` on a real H200, another day and card.
  const auto text = read_test_data("nvidia-smi/h200-1gpu/device-2026-12-03/q-page-retirement-row-remapper.txt");
  const auto q = gpuctl::testing::captured_probe(text, "nvidia-smi -q -d PAGE_RETIREMENT,ROW_REMAPPER");
  ASSERT_TRUE(q);
  const auto repairs = parse_memory_repair_q(q->output);
  ASSERT_TRUE(repairs) << repairs.error().to_string();
  const auto& gpu = repairs->at("00000000:00:06.0");
  EXPECT_EQ(gpu.remapped_pending, false);
  EXPECT_EQ(gpu.remapped_failure, false);
  EXPECT_EQ(gpu.unreported.at("retired_pages.pending"), "N/A");
}

TEST(MemoryRepair, ReadsRetiredPagesInBothSpellingsAndRemappedRowsNotApplicable) {
  // Before Ampere, as public `nvidia-smi -q` captures of Tesla T4/V100 boards show it (drivers
  // 470-530): "Pending Page Blacklist"; older drivers print "Pending"; NVIDIA's dynamic page
  // retirement guide writes the value "YES".
  for (const char* key : {"Pending Page Blacklist", "Pending"})
    for (const auto& [value, pending] : {std::pair{"No", false}, std::pair{"Yes", true}, std::pair{"YES", true}}) {
      const auto text = std::string("GPU 00000000:00:08.0\n    Retired Pages\n        Single Bit ECC : 2\n"
                                    "        Double Bit ECC : 1\n        ") +
                        key + " : " + value + "\n    Remapped Rows                         : N/A\n    Temperature\n"
                                              "        GPU Current Temp : 38 C\n";
      const auto repairs = parse_memory_repair_q(text);
      ASSERT_TRUE(repairs) << repairs.error().to_string();
      const auto& gpu = repairs->at("00000000:00:08.0");
      EXPECT_EQ(gpu.retired_pending, pending) << key << " " << value;
      EXPECT_EQ(gpu.retired_single_bit, 2);
      EXPECT_EQ(gpu.retired_double_bit, 1);
      EXPECT_FALSE(gpu.remapped_pending.has_value());
      EXPECT_EQ(gpu.unreported.at("remapped_rows.pending"), "N/A");
      EXPECT_EQ(gpu.unreported.at("remapped_rows.failure"), "N/A");
    }
}

TEST(MemoryRepair, KeepsWhatNvidiaSmiPrintedInsteadOfAValue) {
  const auto repairs = parse_memory_repair_q(
      "GPU 00000000:AB:00.0\n    Remapped Rows\n        Correctable Error : 0\n        Uncorrectable Error : 0\n"
      "        Pending : Unknown Error\n        Remapping Failure Occurred : [GPU is lost]\n");
  ASSERT_TRUE(repairs) << repairs.error().to_string();
  const auto& gpu = repairs->at("00000000:AB:00.0");
  EXPECT_FALSE(gpu.remapped_pending.has_value());
  EXPECT_EQ(gpu.unreported.at("remapped_rows.pending"), "Unknown Error");
  EXPECT_EQ(gpu.unreported.at("remapped_rows.failure"), "[GPU is lost]");
}

TEST(MemoryRepair, RejectsAValueOfTheWrongType) {
  const auto repairs = parse_memory_repair_q("GPU 00000000:AB:00.0\n    Retired Pages\n        Pending Page Blacklist : Maybe\n");
  ASSERT_FALSE(repairs);
  EXPECT_NE(repairs.error().message.find("'Pending Page Blacklist' = 'Maybe'"), std::string::npos) << repairs.error().message;
}

TEST(MemoryRepair, FindsThePendingRemapAmongEightGpus) {
  const auto repairs = parse_memory_repair_q(read_test_data("nvidia-smi/synthetic-8gpu/row-remapper-q.txt"));
  ASSERT_TRUE(repairs) << repairs.error().to_string();
  ASSERT_EQ(repairs->size(), 8u);
  EXPECT_EQ(repairs->at("00000000:AB:00.0").remapped_pending, true);
  EXPECT_EQ(repairs->at("00000000:AB:00.0").remapped_uncorrectable, 1);
  EXPECT_EQ(repairs->at("00000000:BA:00.0").remapped_pending, false);
}

TEST(MemoryRepair, RejectsTextWithoutGpuSections) {
  EXPECT_FALSE(parse_memory_repair_q("No devices were found\n"));
}

TEST(MemoryRepair, MergeFillsGpusByBusId) {
  auto gpus = parse_gpu_query(read_test_data("nvidia-smi/synthetic-8gpu/query-gpu-noheader-nounits.csv"));
  const auto repairs = parse_memory_repair_q(read_test_data("nvidia-smi/synthetic-8gpu/row-remapper-q.txt"));
  ASSERT_TRUE(gpus && repairs);
  EXPECT_FALSE((*gpus)[5].remapped_rows_pending.has_value());
  merge_memory_repair(*gpus, *repairs);
  EXPECT_EQ((*gpus)[5].remapped_rows_pending, true);
  EXPECT_EQ((*gpus)[5].remapped_rows_failure, false);
  EXPECT_EQ((*gpus)[0].remapped_rows_pending, false);
}

TEST(MemoryRepair, MergeTakesAValueOverTheCsvsNoValueAndCarriesTheTextOtherwise) {
  auto gpus = parse_gpu_query("index, pci.bus_id, retired_pages.pending\n0, 00000000:00:08.0, [Unknown Error]\n"
                              "1, 00000000:00:09.0, [N/A]\n");
  const auto repairs = parse_memory_repair_q(
      "GPU 00000000:00:08.0\n    Retired Pages\n        Pending Page Blacklist : No\n    Remapped Rows : N/A\n"
      "GPU 00000000:00:09.0\n    Retired Pages\n        Pending Page Blacklist : N/A\n    Remapped Rows : N/A\n");
  ASSERT_TRUE(gpus && repairs);
  merge_memory_repair(*gpus, *repairs);
  EXPECT_EQ((*gpus)[0].retired_pages_pending, false);
  EXPECT_FALSE((*gpus)[0].unreported.contains("retired_pages.pending")) << "the value replaced the CSV's error";
  EXPECT_EQ((*gpus)[0].unreported_text("remapped_rows.pending"), "N/A");
  EXPECT_EQ((*gpus)[1].unreported_text("retired_pages.pending"), "[N/A]") << "the CSV's own text stays";
}

TEST(NvidiaSmiFailure, ClassifiesEveryWayNvidiaSmiFails) {
  const auto bogus = h200_probe("nvidia-smi --query-gpu=bogus.field --format=csv");
  const auto missing = h200_probe("nvidia-smi -i 7 -q");
  struct Case {
    int rc;
    std::string out, err, expected;
  };
  const std::vector<Case> cases{
      {bogus.exit_code, bogus.output, "", "does not know a queried field: Field \"bogus.field\""},
      {missing.exit_code, missing.output, "", "found no GPUs"},
      {9, "NVIDIA-SMI has failed because it couldn't communicate with the NVIDIA driver. Make sure that the latest "
          "NVIDIA driver is installed and running.\n\n", "", "NVIDIA driver is not loaded"},
      {18, "Failed to initialize NVML: Driver/library version mismatch\nNVML library version: 550.127\n", "",
       "kernel module and the installed driver libraries differ"},
      {127, "", "sh: 1: nvidia-smi: command not found\n", "command not found"},
      {124, "", "", "timed out"},
      {15, "", "Unable to determine the device handle for GPU0000:AB:00.0: GPU is lost.\n", "GPU is lost"},
      // One GPU failing among others (the form of public captures: the other rows, this line,
      // then a row of "[Unknown Error]").
      {15, "0, NVIDIA H200, 0\nUnable to determine the device handle for GPU0000:02:00.0: Unknown Error\n"
           "[Unknown Error], [Unknown Error], [Unknown Error]\n", "",
       "cannot reach a GPU: Unable to determine the device handle for GPU0000:02:00.0: Unknown Error"},
      {3, "something odd\n", "", "exited with status 3: something odd"},
      {0, "\n", "", "printed nothing"},
  };
  for (const auto& c : cases) {
    const auto reason = classify_nvidia_smi_failure(c.rc, c.out, c.err);
    ASSERT_TRUE(reason.has_value()) << c.expected;
    EXPECT_NE(reason->find(c.expected), std::string::npos) << *reason;
  }
  const auto good = h200_probe(k_full_query);
  EXPECT_EQ(classify_nvidia_smi_failure(good.exit_code, good.output, ""), std::nullopt);
}

TEST(DriverVersion, ParsesRealOpenKernelModule) {
  const auto module = parse_nvidia_driver_version(h200_probe("cat /proc/driver/nvidia/version").output);
  ASSERT_TRUE(module) << module.error().to_string();
  EXPECT_EQ(module->version, "580.159.04");
  EXPECT_TRUE(module->open);
}

TEST(DriverVersion, ParsesProprietaryModuleAndRejectsGarbage) {
  const auto module = parse_nvidia_driver_version(
      "NVRM version: NVIDIA UNIX x86_64 Kernel Module  550.127.05  Tue Oct  8 02:56:05 UTC 2024\n"
      "GCC version:  gcc version 12.2.0 (Debian 12.2.0-14)\n");
  ASSERT_TRUE(module);
  EXPECT_EQ(module->version, "550.127.05");
  EXPECT_FALSE(module->open);
  EXPECT_FALSE(parse_nvidia_driver_version("NVRM version: NVIDIA UNIX x86_64 Kernel Module\n"));
  EXPECT_FALSE(parse_nvidia_driver_version(""));
}

TEST(NvccVersion, ParsesRealOutputAndReleaseOnly) {
  EXPECT_EQ(parse_nvcc_version(h200_probe("nvcc --version").output).value_or("?"), "13.0.88");
  EXPECT_EQ(parse_nvcc_version("Cuda compilation tools, release 12.4\n").value_or("?"), "12.4");
  EXPECT_FALSE(parse_nvcc_version("nvcc: NVIDIA (R) Cuda compiler driver\n"));
}

TEST(OsRelease, ParsesRealUbuntuAndDebian) {
  const auto ubuntu = parse_os_release(h200_probe("cat /etc/os-release").output);
  ASSERT_TRUE(ubuntu) << ubuntu.error().to_string();
  EXPECT_EQ(ubuntu->id, "ubuntu");
  EXPECT_EQ(ubuntu->version_id, "24.04");
  EXPECT_EQ(ubuntu->pretty_name, "Ubuntu 24.04.3 LTS");
  const auto debian = parse_os_release("# comment\nPRETTY_NAME=\"Debian GNU/Linux 12 (bookworm)\"\nID=debian\nVERSION_ID='12'\n");
  ASSERT_TRUE(debian);
  EXPECT_EQ(debian->id, "debian");
  EXPECT_EQ(debian->version_id, "12");
  EXPECT_EQ(debian->pretty_name, "Debian GNU/Linux 12 (bookworm)");
  EXPECT_FALSE(parse_os_release("NAME=\"Nothing\"\n"));
}

TEST(ProcModules, ListsModuleNamesInOrder) {
  const auto modules = parse_proc_modules(
      "nvidia_uvm 2076672 0 - Live 0x0000000000000000 (OE)\n"
      "nvidia_drm 135168 0 - Live 0x0000000000000000 (OE)\n"
      "nvidia 104067072 2 nvidia_uvm,nvidia_drm, Live 0x0000000000000000 (OE)\n");
  ASSERT_TRUE(modules);
  EXPECT_EQ(*modules, (std::vector<std::string>{"nvidia_uvm", "nvidia_drm", "nvidia"}));
  EXPECT_TRUE(parse_proc_modules("")->empty());
  EXPECT_FALSE(parse_proc_modules("bash: line 1: lsmod: command not found\n"));
}

TEST(KernelRelease, TakesOneWord) {
  // The capture has `uname -a`; its third word is what `uname -r` prints.
  const auto uname_a = h200_probe("uname -a").output;
  EXPECT_EQ(parse_kernel_release("6.18.44-fc-v973-gpu\n").value_or("?"), "6.18.44-fc-v973-gpu");
  EXPECT_NE(uname_a.find("6.18.44-fc-v973-gpu"), std::string::npos);
  EXPECT_FALSE(parse_kernel_release(uname_a));
  EXPECT_FALSE(parse_kernel_release("\n"));
}

TEST(BootId, AcceptsUuidOnly) {
  EXPECT_EQ(parse_boot_id("3F2504E0-4F89-41D3-9A0C-0305E82C3301\n").value_or("?"), "3f2504e0-4f89-41d3-9a0c-0305e82c3301");
  EXPECT_FALSE(parse_boot_id("3f2504e0-4f89-41d3-9a0c-0305e82c330\n"));
  EXPECT_FALSE(parse_boot_id("3f2504e0x4f89-41d3-9a0c-0305e82c3301\n"));
}

TEST(Uptime, ReadsFirstNumber) {
  EXPECT_DOUBLE_EQ(parse_uptime("350735.47 234388.90\n").value_or(-1), 350735.47);
  EXPECT_FALSE(parse_uptime("cat: /proc/uptime: No such file or directory\n"));
  EXPECT_FALSE(parse_uptime(""));
}

TEST(DpkgQuery, KeepsOnlyInstalledPackages) {
  const auto packages = parse_dpkg_query(
      "libnccl2\t2.21.5-1+cuda12.4\tinstall ok installed\n"
      "nvidia-driver-550\t550.127.05-0ubuntu1\tdeinstall ok config-files\n"
      "cuda-toolkit-12-4\t12.4.1-1\thold ok installed\n"
      "dpkg-query: no packages found matching slurm*\n");
  ASSERT_TRUE(packages) << packages.error().to_string();
  EXPECT_EQ(packages->size(), 2u);
  EXPECT_EQ(packages->at("libnccl2"), "2.21.5-1+cuda12.4");
  EXPECT_EQ(packages->at("cuda-toolkit-12-4"), "12.4.1-1");
  EXPECT_FALSE(parse_dpkg_query("libnccl2 2.21.5-1 install ok installed\n"));
}

TEST(NcclVersion, FromPackageOrLibraryFileName) {
  EXPECT_EQ(nccl_version_from_packages({{"libnccl2", "2.21.5-1+cuda12.4"}}), "2.21.5");
  EXPECT_EQ(nccl_version_from_packages({{"libnccl-dev", "2.21.5-1+cuda12.4"}}), std::nullopt);
  EXPECT_EQ(nccl_version_from_library_paths("/lib/x86_64-linux-gnu/libnccl.so.2\n"), std::nullopt);
  EXPECT_EQ(nccl_version_from_library_paths("/usr/lib/x86_64-linux-gnu/libnccl.so.2.4.10\n"
                                            "/usr/lib/x86_64-linux-gnu/libnccl.so.2.28.9\n"),
            "2.28.9");
}
