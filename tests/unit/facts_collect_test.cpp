// collect_facts over a FakeTransport answering the batch with text assembled from the real
// H200 capture, and the batch script itself run by this host's /bin/sh.
#include <gpuctl/facts/collect.hpp>
#include <gpuctl/facts/parsers.hpp>

#include "fake_transport.hpp"
#include "probe_capture.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdio>
#include <fstream>
#include <unistd.h>

using namespace gpuctl;
using namespace gpuctl::facts;
using gpuctl::testing::FakeTransport;
using gpuctl::testing::h200_probe;

namespace {

constexpr std::string_view k_nonce = "test0nonce";

// Formats probe outputs exactly as the batch script prints them.
std::string batch_output(const std::map<std::string, ProbeOutput>& probes) {
  std::string text = "Welcome to node01 (a login banner the splitter must ignore)\n";
  const std::string m = "@@gpuctl-" + std::string(k_nonce);
  for (const auto& [name, p] : probes) {
    auto err = p.err;
    while (!err.empty() && err.back() == '\n') err.pop_back();  // $(...) strips trailing newlines
    text += m + " begin " + name + "\n" + p.out + "\n" + m + " end " + name + " rc=" + std::to_string(p.exit_code) +
            "\n" + err + "\n" + m + " stderr-end " + name + "\n";
  }
  return text;
}

const std::string k_modules =
    "nvidia_uvm 2076672 0 - Live 0x0000000000000000 (OE)\n"
    "nvidia 104067072 2 nvidia_uvm, Live 0x0000000000000000 (OE)\n"
    "overlay 212992 0 - Live 0x0000000000000000\n";

// A healthy H200 node: every probe's text from the real capture where it has one.
std::map<std::string, ProbeOutput> h200_probes() {
  const auto csv = h200_probe(
      "nvidia-smi --query-gpu=index,name,uuid,serial,pci.bus_id,driver_version,vbios_version,memory.total,"
      "memory.used,persistence_mode,ecc.mode.current,ecc.errors.corrected.volatile.total,"
      "ecc.errors.uncorrected.volatile.total,ecc.errors.uncorrected.aggregate.total,retired_pages.pending,"
      "remapped_rows.pending,remapped_rows.failure,temperature.gpu,power.draw,power.limit,clocks.sm,"
      "clocks.max.sm,pcie.link.gen.current,pcie.link.gen.max,pcie.link.width.current,pcie.link.width.max,"
      "compute_mode,mig.mode.current,gpu_bus_id --format=csv");
  const auto q = h200_probe("nvidia-smi -q -d ECC,PERFORMANCE,POWER,TEMPERATURE,CLOCK,PAGE_RETIREMENT,ROW_REMAPPER");
  return {
      {"os_release", {0, h200_probe("cat /etc/os-release").output, ""}},
      {"kernel", {0, "6.18.44-fc-v973-gpu\n", ""}},
      {"boot_id", {0, "0b5c8d1e-2f3a-4b6c-9d7e-8f9a0b1c2d3e\n", ""}},
      {"uptime", {0, "350735.47 234388.90\n", ""}},
      {"modules", {0, k_modules, ""}},
      {"driver", {0, h200_probe("cat /proc/driver/nvidia/version").output, ""}},
      // The H200's dpkg lists no nvidia-* package: what the probe prints where none owns nvidia-smi
      // (the form, not a capture).
      {"driver_origin", {0,
                         "nvidia_smi_path=/usr/bin/nvidia-smi\nsame_file=/bin/nvidia-smi\n"
                         "dpkg-query: no path found matching pattern /usr/bin/nvidia-smi\n"
                         "dpkg-query: no path found matching pattern /bin/nvidia-smi\ndpkg_query_rc=1\n",
                         ""}},
      {"cuda", {0, h200_probe("nvcc --version").output, ""}},
      {"packages", {1, "linux-image-6.8.0-45-generic\t6.8.0-45.45\tinstall ok installed\n",
                    "dpkg-query: no packages found matching slurm*\n"}},
      {"nccl_libraries", {0, "/usr/lib/x86_64-linux-gnu/libnccl.so.2.28.9\n", ""}},
      {"gpus", {csv.exit_code, csv.output, ""}},
      {"remapped_rows", {q.exit_code, q.output, ""}},
  };
}

Result<NodeFacts> collect_from(const std::map<std::string, ProbeOutput>& probes, FakeTransport& node) {
  node.on_command("@@gpuctl-" + std::string(k_nonce), CommandResult{0, batch_output(probes), "", {}});
  CollectOptions options;
  options.marker_nonce = std::string(k_nonce);
  return collect_facts(node, options);
}

}  // namespace

TEST(CollectFacts, GathersEveryFactOfARealH200NodeInOneRoundTrip) {
  FakeTransport node("gpu01");
  const auto facts = collect_from(h200_probes(), node);
  ASSERT_TRUE(facts) << facts.error().to_string();
  EXPECT_EQ(node.commands.size(), 1u) << "all probes must go in one batch";
  EXPECT_EQ(facts->node, "gpu01");
  ASSERT_TRUE(facts->os.present());
  EXPECT_EQ(facts->os.value->id, "ubuntu");
  EXPECT_EQ(facts->kernel.value, "6.18.44-fc-v973-gpu");
  EXPECT_EQ(facts->boot_id.value, "0b5c8d1e-2f3a-4b6c-9d7e-8f9a0b1c2d3e");
  EXPECT_EQ(facts->uptime_s.value, 350735.47);
  EXPECT_TRUE(facts->module_loaded("nvidia"));
  EXPECT_FALSE(facts->module_loaded("nouveau"));
  EXPECT_EQ(facts->driver_version.value, "580.159.04");
  EXPECT_EQ(facts->driver_open_kernel_module.value, true);
  ASSERT_TRUE(facts->driver_origin.present()) << facts->driver_origin.absent_reason;
  EXPECT_EQ(facts->driver_origin.value->kind, DriverOrigin::Kind::unpackaged);
  EXPECT_EQ(facts->driver_origin.value->path, "/usr/bin/nvidia-smi");
  EXPECT_EQ(facts->cuda_version.value, "13.0.88");
  EXPECT_EQ(facts->nccl_version.value, "2.28.9");
  EXPECT_EQ(facts->packages.at("linux-image-6.8.0-45-generic"), "6.8.0-45.45");
  EXPECT_TRUE(facts->packages_absent_reason.empty());
  ASSERT_TRUE(facts->gpus.present()) << facts->gpus.absent_reason;
  ASSERT_EQ(facts->gpus.value->size(), 1u);
  EXPECT_EQ(facts->gpus.value->front().uuid, "GPU-45bfc1e6-e3e5-f4f6-384a-7c4dcf4496d4");
  EXPECT_EQ(facts->gpus.value->front().remapped_rows_pending, false);
}

TEST(CollectFacts, NodeWithoutDriverOrToolsGivesAbsentFactsWithReasons) {
  auto probes = h200_probes();
  probes["driver"] = {1, "", "cat: /proc/driver/nvidia/version: No such file or directory\n"};
  probes["gpus"] = {127, "", "nvidia-smi: command not found\n"};
  probes["driver_origin"] = {0, "nvidia_smi_path=\n", ""};
  probes["remapped_rows"] = {125, "", "skipped: the GPU query failed\n"};
  probes["cuda"] = {127, "", "nvcc: command not found\n"};
  probes["packages"] = {127, "", "dpkg-query: command not found\n"};
  probes["nccl_libraries"] = {0, "", ""};
  probes["modules"] = {0, "overlay 212992 0 - Live 0x0000000000000000\n", ""};
  FakeTransport node;
  const auto facts = collect_from(probes, node);
  ASSERT_TRUE(facts) << facts.error().to_string();
  EXPECT_TRUE(facts->os.present()) << "the facts that could be gathered still are";
  EXPECT_FALSE(facts->driver_version.present());
  EXPECT_NE(facts->driver_version.absent_reason.find("no NVIDIA kernel module is loaded"), std::string::npos);
  EXPECT_FALSE(facts->gpus.present());
  EXPECT_NE(facts->gpus.absent_reason.find("command not found"), std::string::npos);
  ASSERT_TRUE(facts->driver_origin.present()) << facts->driver_origin.absent_reason;
  EXPECT_EQ(facts->driver_origin.value->kind, DriverOrigin::Kind::no_user_space);
  EXPECT_FALSE(facts->cuda_version.present());
  EXPECT_NE(facts->cuda_version.absent_reason.find("nvcc: command not found"), std::string::npos);
  EXPECT_FALSE(facts->nccl_version.present());
  EXPECT_NE(facts->nccl_version.absent_reason.find("NCCL not found"), std::string::npos);
  EXPECT_TRUE(facts->packages.empty());
  EXPECT_NE(facts->packages_absent_reason.find("dpkg-query: command not found"), std::string::npos);
  EXPECT_FALSE(facts->module_loaded("nvidia"));
}

TEST(CollectFacts, DriverNotLoadedOrMismatchedMakesGpusAbsentWithNvidiaSmisReason) {
  const std::vector<std::pair<ProbeOutput, std::string>> cases{
      {{9, "NVIDIA-SMI has failed because it couldn't communicate with the NVIDIA driver. Make sure that the "
           "latest NVIDIA driver is installed and running.\n\n", ""},
       "NVIDIA driver is not loaded"},
      {{18, "Failed to initialize NVML: Driver/library version mismatch\nNVML library version: 580.159\n", ""},
       "differ (reboot or reload the module)"},
      {{124, "", ""}, "timed out"},
      {{0, "index, name\n0, NVIDIA H200, junk\n", ""}, "unexpected output"},
  };
  for (const auto& [gpus, expected] : cases) {
    auto probes = h200_probes();
    probes["gpus"] = gpus;
    FakeTransport node;
    const auto facts = collect_from(probes, node);
    ASSERT_TRUE(facts);
    EXPECT_FALSE(facts->gpus.present());
    EXPECT_NE(facts->gpus.absent_reason.find(expected), std::string::npos) << facts->gpus.absent_reason;
  }
}

TEST(CollectFacts, NccLComesFromThePackageBeforeTheLibraryFileName) {
  auto probes = h200_probes();
  probes["packages"] = {0, "libnccl2\t2.21.5-1+cuda12.4\tinstall ok installed\n", ""};
  FakeTransport node;
  EXPECT_EQ(collect_from(probes, node)->nccl_version.value, "2.21.5");
}

TEST(CollectFacts, MissingProbeIsAbsentNotDefaulted) {
  auto probes = h200_probes();
  probes.erase("kernel");
  FakeTransport node;
  const auto facts = collect_from(probes, node);
  ASSERT_TRUE(facts);
  EXPECT_FALSE(facts->kernel.present());
  EXPECT_NE(facts->kernel.absent_reason.find("not probed"), std::string::npos) << facts->kernel.absent_reason;
}

TEST(CollectFacts, TransportErrorIsAnError) {
  FakeTransport node;
  node.fail_commands_with(Error{ErrorCode::transport, "connection refused", {}, {}});
  const auto facts = collect_facts(node);
  ASSERT_FALSE(facts);
  EXPECT_EQ(facts.error().code, ErrorCode::transport);
}

TEST(CollectFacts, OutputWithoutMarkersOrCutOffIsAParseError) {
  FakeTransport node;
  node.on_command("@@gpuctl-", CommandResult{127, "", "fish: Unknown command: sh\n", {}});
  const auto none = collect_facts(node);
  ASSERT_FALSE(none);
  EXPECT_EQ(none.error().code, ErrorCode::parse);
  EXPECT_NE(none.error().message.find("fish: Unknown command"), std::string::npos);

  const auto full = batch_output(h200_probes());
  const auto cut = split_probe_output(full.substr(0, full.size() / 2), k_nonce);
  ASSERT_FALSE(cut);
  EXPECT_NE(cut.error().message.find("cut off"), std::string::npos);
}

TEST(ProbeScript, AvoidsToolsUbuntu2404Lacks) {
  const auto script = build_probe_script("n");
  // lsmod only where /proc/modules is missing (kernels without modules, the sandbox).
  EXPECT_NE(script.find("if [ -r /proc/modules ]; then cat /proc/modules; else lsmod; fi"), std::string::npos);
  EXPECT_EQ(script.find("systemctl"), std::string::npos);
  EXPECT_NE(script.find(gpu_query_command()), std::string::npos);
  EXPECT_NE(script.find("'libnccl*'"), std::string::npos);
}

// Issue #20: the batch spawns a process only where a tool must answer. No uname, ldconfig,
// nvcc (where version.json answers), no $(...) per probe; files through the shell's read.
TEST(ProbeScript, SpawnsNoHelperProcesses) {
  const auto script = build_probe_script("n");
  for (const auto* helper : {"uname", "ldconfig", "readlink", "| sort", "| sed", "| awk", "| head", "$(", "`"})
    EXPECT_EQ(script.find(helper), std::string::npos) << helper;
  // One awk, the packages reader, with dpkg-query behind it for a dpkg mid-transaction.
  EXPECT_EQ(script.find("awk '"), script.rfind("awk '"));
  EXPECT_NE(script.find("awk '"), std::string::npos);
  EXPECT_NE(script.find("/var/lib/dpkg/updates/[0-9]*"), std::string::npos);
  EXPECT_NE(script.find("if [ -r /usr/local/cuda/version.json ]; then show /usr/local/cuda/version.json; else"),
            std::string::npos);
  const auto names = probe_names();
  EXPECT_EQ(std::count(names.begin(), names.end(), "remapped_rows"), 1);

  CollectOptions plan;
  plan.optional_probes.emplace();
  plan.exact_packages = {"munge", "slurmd"};
  const auto lean = build_probe_script("n", plan);
  EXPECT_EQ(lean.find("ROW_REMAPPER"), std::string::npos);
  EXPECT_EQ(lean.find("topo -m"), std::string::npos);
  EXPECT_EQ(lean.find("nvlink -s"), std::string::npos);
  EXPECT_EQ(lean.find("dmesg"), std::string::npos) << "the kernel log is verify's";
  EXPECT_NE(lean.find("'ibverbs-*' munge slurmd"), std::string::npos) << "one package read for facts and program";
  // One nvidia-smi start: the GPU query.
  std::size_t starts = 0;
  for (auto at = lean.find("$T nvidia-smi"); at != std::string::npos; at = lean.find("$T nvidia-smi", at + 1)) ++starts;
  EXPECT_EQ(starts, 1u);
}

TEST(CollectFacts, CudaComesFromVersionJsonBeforeNvcc) {
  auto probes = h200_probes();
  probes["cuda"] = {0, gpuctl::testing::read_test_data("cuda/version-11.5.json"), ""};
  FakeTransport node;
  auto facts = collect_from(probes, node);
  ASSERT_TRUE(facts);
  EXPECT_EQ(facts->cuda_version.value, "11.5.119") << "cuda_nvcc's version, the one nvcc prints";
  EXPECT_EQ(facts->sources.at("cuda").command, "cat /usr/local/cuda/version.json");

  probes["cuda"] = {0, "{\"cuda\": {\"name\": \"CUDA SDK\"}}\n", ""};
  FakeTransport other;
  facts = collect_from(probes, other);
  ASSERT_TRUE(facts);
  EXPECT_FALSE(facts->cuda_version.present());
  EXPECT_NE(facts->cuda_version.absent_reason.find("cat /usr/local/cuda/version.json: unexpected output"),
            std::string::npos) << facts->cuda_version.absent_reason;
}

TEST(SplitProbeOutput, StderrComesFromItsOwnStreamBetweenTheSameMarkers) {
  const std::string m = "@@gpuctl-n1";
  const std::string out = m + " begin gpus\n\n" + m + " end gpus rc=9\n" + m + " begin kernel\n6.1.0\n" + m +
                          " end kernel rc=0\n";
  const std::string err = "bash: warning: setlocale\n" + m + " begin gpus\nNVIDIA-SMI has failed because it couldn't "
                          "communicate with the NVIDIA driver.\n\n" + m + " end gpus\n" + m + " begin kernel\n\n" + m +
                          " end kernel\n";
  const auto probes = split_probe_output(out, "n1", err);
  ASSERT_TRUE(probes) << probes.error().to_string();
  EXPECT_EQ(probes->at("gpus").exit_code, 9);
  EXPECT_EQ(probes->at("gpus").err, "NVIDIA-SMI has failed because it couldn't communicate with the NVIDIA driver.");
  EXPECT_EQ(probes->at("kernel").out, "6.1.0");
  EXPECT_EQ(probes->at("kernel").err, "");
}

// The real script under this host's /bin/sh (dash on Debian): every probe reports, even with
// tools missing, and the local facts are consistent with the host. Reads /proc only.
TEST(ProbeScript, RunsUnderThisHostsShellWithToolsMissing) {
  char path[] = "/tmp/gpuctl-probe-XXXXXX";
  const int fd = mkstemp(path);
  ASSERT_GE(fd, 0);
  close(fd);
  std::ofstream(path) << build_probe_script("local1");
  const std::string err_path = std::string(path) + ".err";
  // A PATH without nvidia-smi or nvcc, whatever this host has installed; stderr apart.
  const std::string command = std::string("env PATH=/usr/bin:/bin /bin/sh ") + path + " 2>" + err_path;
  std::string output;
  if (FILE* pipe = popen(command.c_str(), "r")) {
    char buffer[4096];
    while (const auto n = fread(buffer, 1, sizeof buffer, pipe)) output.append(buffer, n);
    pclose(pipe);
  }
  std::ifstream err_file(err_path);
  const std::string err((std::istreambuf_iterator<char>(err_file)), std::istreambuf_iterator<char>());
  unlink(path);
  unlink(err_path.c_str());
  const auto probes = split_probe_output(output, "local1", err);
  ASSERT_TRUE(probes) << probes.error().to_string() << "\n" << output;
  for (const auto& name : probe_names()) EXPECT_TRUE(probes->contains(name)) << name << "\n" << output;
  const auto facts = facts_from_probes("local", *probes);
  EXPECT_TRUE(facts.kernel.present()) << facts.kernel.absent_reason;
  EXPECT_TRUE(facts.boot_id.present()) << facts.boot_id.absent_reason;
  EXPECT_TRUE(facts.uptime_s.present()) << facts.uptime_s.absent_reason;
  // Kernels without module support have no /proc/modules, so lsmod fails too: then the
  // fact must be absent with a reason, never an empty list.
  if (access("/proc/modules", R_OK) == 0) {
    EXPECT_TRUE(facts.loaded_modules.present()) << facts.loaded_modules.absent_reason;
  } else {
    EXPECT_FALSE(facts.loaded_modules.present());
    EXPECT_FALSE(facts.loaded_modules.absent_reason.empty());
  }
  if (access("/usr/local/nvidia/bin/nvidia-smi", X_OK) != 0 && access("/usr/sbin/nvidia-smi", X_OK) != 0 &&
      access("/usr/bin/nvidia-smi", X_OK) != 0) {
    EXPECT_FALSE(facts.gpus.present());
    EXPECT_NE(facts.gpus.absent_reason.find("command not found"), std::string::npos) << facts.gpus.absent_reason;
    EXPECT_EQ(probes->at("remapped_rows").exit_code, 125);
  }
}

namespace {

std::string run_shell(const std::string& command) {
  std::string output;
  if (FILE* pipe = popen(command.c_str(), "r")) {
    char buffer[4096];
    while (const auto n = fread(buffer, 1, sizeof buffer, pipe)) output.append(buffer, n);
    pclose(pipe);
  }
  return output;
}

// The lines both readers print for packages dpkg knows a state of: dpkg-query also lists names
// it only met in other packages' dependencies ("unknown ok not-installed"), which the planner
// reads as absent anyway (read_package_lines).
std::vector<std::string> known_package_lines(const std::string& text) {
  std::vector<std::string> lines;
  std::size_t at = 0;
  while (at < text.size()) {
    auto end = text.find('\n', at);
    if (end == std::string::npos) end = text.size();
    auto line = text.substr(at, end - at);
    if (!line.empty() && !line.ends_with("\tunknown ok not-installed")) lines.push_back(line);
    at = end + 1;
  }
  std::ranges::sort(lines);
  return lines;
}

bool have_dpkg_query() { return access("/usr/bin/dpkg-query", X_OK) == 0; }

}  // namespace

// The status-file reader against dpkg-query on the same file (dpkg-query --admindir): held,
// config-files, a multi-arch pair, a continuation line that reads like a field, no blank line
// at the end.
TEST(DpkgStatusReader, PrintsWhatDpkgQueryPrintsOnACapturedStatusFile) {
  const std::string data = std::string(GPUCTL_TEST_DATA_DIR) + "/dpkg";
  const std::vector<std::string> patterns{"slurm*", "munge", "libc*", "dpkg", "nosuch", "not-a*"};
  const auto awk = run_shell(dpkg_status_awk_command(data + "/status-debian12", patterns));
  const std::vector<std::string> expected{
      "dpkg\t1.21.22\tinstall ok installed",
      "libc6\t2.36-9+deb12u14\tinstall ok installed",
      "libc6\t2.36-9+deb12u14\tinstall ok installed",
      "munge\t0.5.15-2+deb12u1\thold ok installed",
      "slurmd\t22.05.8-4+deb12u3\tdeinstall ok config-files",
  };
  EXPECT_EQ(known_package_lines(awk), expected) << awk;
  if (!have_dpkg_query()) GTEST_SKIP() << "no dpkg-query on this host to compare with";
  char dir[] = "/tmp/gpuctl-dpkg-XXXXXX";
  ASSERT_NE(mkdtemp(dir), nullptr);
  const std::string admin = dir;
  run_shell("cp " + data + "/status-debian12 " + admin + "/status");
  const auto query = run_shell("dpkg-query --admindir=" + admin +
                               " -W -f='${Package}\\t${Version}\\t${Status}\\n' 'slurm*' munge 'libc*' dpkg nosuch 'not-a*' 2>/dev/null");
  run_shell("rm -r " + admin);
  EXPECT_EQ(known_package_lines(query), expected) << query;
}

// The same comparison on this host's own database, with the patterns the probe really sends.
TEST(DpkgStatusReader, PrintsWhatDpkgQueryPrintsOnThisHost) {
  if (!have_dpkg_query() || access("/var/lib/dpkg/status", R_OK) != 0) GTEST_SKIP() << "not a dpkg host";
  CollectOptions options;
  options.exact_packages = {"dpkg", "libc6", "base-files"};
  auto patterns = options.package_patterns;
  patterns.insert(patterns.end(), options.exact_packages.begin(), options.exact_packages.end());
  std::string quoted;
  for (const auto& pattern : patterns) quoted += " '" + pattern + "'";
  const auto awk = known_package_lines(run_shell(dpkg_status_awk_command("/var/lib/dpkg/status", patterns)));
  const auto query =
      known_package_lines(run_shell("dpkg-query -W -f='${Package}\\t${Version}\\t${Status}\\n'" + quoted + " 2>/dev/null"));
  EXPECT_EQ(awk, query);
  EXPECT_GE(awk.size(), 3u) << "dpkg, libc6 and base-files are on every Debian host";
}

// A pattern the reader cannot match as dpkg's fnmatch would (?, [...], an inner '*') sends
// the whole probe to dpkg-query; with no patterns at all the reader prints every package.
TEST(DpkgStatusReader, LeavesGlobsItCannotMatchToDpkgQuery) {
  CollectOptions options;
  options.package_patterns = {"nvidia-*", "lib?cuda*"};
  const auto script = build_probe_script("n", options);
  EXPECT_EQ(script.find("awk '"), std::string::npos);
  EXPECT_NE(script.find("dpkg-query -W"), std::string::npos);

  const auto all = known_package_lines(
      run_shell(dpkg_status_awk_command(std::string(GPUCTL_TEST_DATA_DIR) + "/dpkg/status-debian12", {})));
  EXPECT_EQ(all.size(), 7u);  // every stanza, the i386 libc6 included
}
