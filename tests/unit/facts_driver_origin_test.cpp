// The driver_origin fact: who installed nvidia-smi (dpkg, NVIDIA's runfile, nobody, or none is
// there). The parser on the forms `dpkg-query -S` really prints, the fact from the probe's
// output and failures, its JSON and text, and the probe itself under this host's /bin/sh.
#include <gpuctl/facts/collect.hpp>
#include <gpuctl/facts/json.hpp>
#include <gpuctl/facts/parsers.hpp>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <unistd.h>

using namespace gpuctl;
using namespace gpuctl::facts;
using Kind = DriverOrigin::Kind;

namespace {

DriverOrigin parsed(std::string_view text) {
  auto origin = parse_driver_origin(text);
  EXPECT_TRUE(origin) << origin.error().to_string() << "\n" << text;
  return origin ? *origin : DriverOrigin{};
}

std::string parse_error(std::string_view text) {
  const auto origin = parse_driver_origin(text);
  EXPECT_FALSE(origin) << "parsed as " << (origin ? to_string(origin->kind) : "") << "\n" << text;
  return origin ? std::string() : origin.error().message;
}

}  // namespace

// Ubuntu 24.04 (merged /usr): nvidia-utils-580 ships /usr/bin/nvidia-smi; dpkg knows no
// /bin/nvidia-smi, so it says so and exits 1.
TEST(DriverOriginParser, UbuntuPackageOwnsUsrBinNvidiaSmi) {
  const auto origin = parsed(
      "nvidia_smi_path=/usr/bin/nvidia-smi\n"
      "same_file=/bin/nvidia-smi\n"
      "nvidia-utils-580: /usr/bin/nvidia-smi\n"
      "dpkg-query: no path found matching pattern /bin/nvidia-smi\n"
      "dpkg_query_rc=1\n");
  EXPECT_EQ(origin.kind, Kind::package);
  EXPECT_EQ(origin.package, "nvidia-utils-580");
  EXPECT_EQ(origin.path, "/usr/bin/nvidia-smi");
  EXPECT_TRUE(origin.runfile_marks.empty());
  EXPECT_TRUE(origin.note.empty());
}

// The form `dpkg-query -S /usr/bin/nvidia-smi` prints where the package `nvidia-smi` ships it,
// alone (exit 0).
TEST(DriverOriginParser, DebianNvidiaSmiPackage) {
  const auto origin = parsed(
      "nvidia_smi_path=/usr/bin/nvidia-smi\n"
      "nvidia-smi: /usr/bin/nvidia-smi\n"
      "dpkg_query_rc=0\n");
  EXPECT_EQ(origin.kind, Kind::package);
  EXPECT_EQ(origin.package, "nvidia-smi");
}

// Debian's own driver packages (and NVIDIA's for Debian): /usr/bin/nvidia-smi is an
// update-alternatives link no package owns, to /usr/lib/nvidia/current/nvidia-smi, which the
// package nvidia-smi owns. The probe names the link's target as the same file.
TEST(DriverOriginParser, DebianAlternativesLinkIsOwnedThroughItsTarget) {
  const auto origin = parsed(
      "nvidia_smi_path=/usr/bin/nvidia-smi\n"
      "symlink=yes\n"
      "same_file=/bin/nvidia-smi\n"
      "same_file=/usr/lib/nvidia/current/nvidia-smi\n"
      "dpkg-query: no path found matching pattern /usr/bin/nvidia-smi\n"
      "dpkg-query: no path found matching pattern /bin/nvidia-smi\n"
      "nvidia-smi: /usr/lib/nvidia/current/nvidia-smi\n"
      "dpkg_query_rc=1\n");
  EXPECT_EQ(origin.kind, Kind::package);
  EXPECT_EQ(origin.package, "nvidia-smi");
  EXPECT_EQ(origin.path, "/usr/bin/nvidia-smi");
}

// Debian 12 and later (merged /usr, PATH with /bin before /usr/bin, as root's may be): nvidia-smi
// is found as /bin/nvidia-smi, which dpkg knows only by its /usr/bin name.
TEST(DriverOriginParser, MergedUsrOtherNameIsAskedWhenTheFirstIsUnknown) {
  const auto origin = parsed(
      "nvidia_smi_path=/bin/nvidia-smi\n"
      "same_file=/usr/bin/nvidia-smi\n"
      "dpkg-query: no path found matching pattern /bin/nvidia-smi\n"
      "nvidia-utils-550-server: /usr/bin/nvidia-smi\n"
      "dpkg_query_rc=1\n");
  EXPECT_EQ(origin.kind, Kind::package);
  EXPECT_EQ(origin.package, "nvidia-utils-550-server");
  EXPECT_EQ(origin.path, "/bin/nvidia-smi");
}

TEST(DriverOriginParser, MultiArchQualifierAndSeveralOwners) {
  EXPECT_EQ(parsed("nvidia_smi_path=/usr/bin/nvidia-smi\nnvidia-utils-580:amd64: /usr/bin/nvidia-smi\ndpkg_query_rc=0\n")
                .package,
            "nvidia-utils-580");
  EXPECT_EQ(parsed("nvidia_smi_path=/usr/bin/nvidia-smi\nnvidia-utils-580, nvidia-smi-shim: /usr/bin/nvidia-smi\n"
                   "dpkg_query_rc=0\n")
                .package,
            "nvidia-utils-580, nvidia-smi-shim");
}

// NVIDIA's .run installer: nothing in dpkg, nvidia-uninstall and the installer's log left behind.
TEST(DriverOriginParser, RunfileUnpackagedAndNoUserSpace) {
  const std::string not_found =
      "same_file=/bin/nvidia-smi\n"
      "dpkg-query: no path found matching pattern /usr/bin/nvidia-smi\n"
      "dpkg-query: no path found matching pattern /bin/nvidia-smi\n"
      "dpkg_query_rc=1\n";
  const auto runfile = parsed(
      "nvidia_smi_path=/usr/bin/nvidia-smi\n"
      "runfile_mark=/usr/bin/nvidia-uninstall\n"
      "runfile_mark=/var/log/nvidia-installer.log\n" +
      not_found);
  EXPECT_EQ(runfile.kind, Kind::runfile);
  EXPECT_EQ(runfile.runfile_marks,
            (std::vector<std::string>{"/usr/bin/nvidia-uninstall", "/var/log/nvidia-installer.log"}));
  EXPECT_TRUE(runfile.package.empty());

  // A vendor image's or copied nvidia-smi: no owner, no marks.
  const auto unpackaged = parsed("nvidia_smi_path=/usr/bin/nvidia-smi\n" + not_found);
  EXPECT_EQ(unpackaged.kind, Kind::unpackaged);
  EXPECT_EQ(unpackaged.path, "/usr/bin/nvidia-smi");

  // Outside the packaged names (no same_file): dpkg is asked about the one name.
  const auto local = parsed(
      "nvidia_smi_path=/usr/local/bin/nvidia-smi\n"
      "dpkg-query: no path found matching pattern /usr/local/bin/nvidia-smi\n"
      "dpkg_query_rc=1\n");
  EXPECT_EQ(local.kind, Kind::unpackaged);
  EXPECT_EQ(local.path, "/usr/local/bin/nvidia-smi");

  // No nvidia-smi on the host: the probe does not ask dpkg. The runfile's log may outlive an
  // uninstall: it is kept, the kind stays.
  const auto container = parsed("nvidia_smi_path=\nrunfile_mark=/var/log/nvidia-installer.log\n");
  EXPECT_EQ(container.kind, Kind::no_user_space);
  EXPECT_TRUE(container.path.empty());
  EXPECT_EQ(container.runfile_marks, std::vector<std::string>{"/var/log/nvidia-installer.log"});
  EXPECT_EQ(parsed("nvidia_smi_path=\n").kind, Kind::no_user_space);
}

// A package owning nvidia-smi wins over runfile marks (a runfile install removed, then apt's
// driver installed: the installer's log stays); the marks are kept for the reader.
TEST(DriverOriginParser, PackageWinsOverRunfileMarksWhichAreKept) {
  const auto origin = parsed(
      "nvidia_smi_path=/usr/bin/nvidia-smi\n"
      "runfile_mark=/var/log/nvidia-installer.log\n"
      "nvidia-utils-580: /usr/bin/nvidia-smi\n"
      "dpkg_query_rc=0\n");
  EXPECT_EQ(origin.kind, Kind::package);
  EXPECT_EQ(origin.runfile_marks, std::vector<std::string>{"/var/log/nvidia-installer.log"});
}

// dpkg-query -S on a diverted file prints the diversion before the owners (dpkg's querycmd):
// "diversion by PKG from: PATH", "diversion by PKG to: PATH.real", then "a, b: PATH".
TEST(DriverOriginParser, DiversionsDecideWhoseFileIsAtTheName) {
  // The diverting package ships its own nvidia-smi (a wrapper): the file there is its.
  const auto wrapper = parsed(
      "nvidia_smi_path=/usr/bin/nvidia-smi\n"
      "diversion by gpu-wrapper from: /usr/bin/nvidia-smi\n"
      "diversion by gpu-wrapper to: /usr/bin/nvidia-smi.real\n"
      "nvidia-utils-580, gpu-wrapper: /usr/bin/nvidia-smi\n"
      "dpkg_query_rc=0\n");
  EXPECT_EQ(wrapper.kind, Kind::package);
  EXPECT_EQ(wrapper.package, "gpu-wrapper");
  EXPECT_NE(wrapper.note.find("gpu-wrapper diverts the other packages' /usr/bin/nvidia-smi to /usr/bin/nvidia-smi.real"),
            std::string::npos) << wrapper.note;

  // The admin moved the packaged one away (dpkg-divert --local --rename): what is there is nobody's.
  const auto local = parsed(
      "nvidia_smi_path=/usr/bin/nvidia-smi\n"
      "runfile_mark=/usr/bin/nvidia-uninstall\n"
      "local diversion from: /usr/bin/nvidia-smi\n"
      "local diversion to: /usr/bin/nvidia-smi.distrib\n"
      "nvidia-utils-580: /usr/bin/nvidia-smi\n"
      "dpkg_query_rc=0\n");
  EXPECT_EQ(local.kind, Kind::runfile);
  EXPECT_TRUE(local.package.empty());
  EXPECT_NE(local.note.find("a local dpkg diversion moved the packaged /usr/bin/nvidia-smi to /usr/bin/nvidia-smi.distrib"),
            std::string::npos) << local.note;

  // A package diverts it without shipping a replacement: nobody's either.
  const auto away = parsed(
      "nvidia_smi_path=/usr/bin/nvidia-smi\n"
      "diversion by gpu-wrapper from: /usr/bin/nvidia-smi\n"
      "diversion by gpu-wrapper to: /usr/bin/nvidia-smi.real\n"
      "nvidia-utils-580: /usr/bin/nvidia-smi\n"
      "dpkg_query_rc=0\n");
  EXPECT_EQ(away.kind, Kind::unpackaged);
}

// dpkg's warnings on an intact answer do not matter; its failure does, quoted.
TEST(DriverOriginParser, DpkgWarningsAreIgnoredAndItsFailureIsAnError) {
  EXPECT_EQ(parsed("nvidia_smi_path=/usr/bin/nvidia-smi\n"
                   "dpkg-query: warning: files list file for package 'libfoo1' missing; assuming package has no files "
                   "currently installed\n"
                   "nvidia-utils-580: /usr/bin/nvidia-smi\n"
                   "dpkg_query_rc=0\n")
                .package,
            "nvidia-utils-580");
  const auto error = parse_error(
      "nvidia_smi_path=/usr/bin/nvidia-smi\n"
      "dpkg-query: error: parsing file '/var/lib/dpkg/status' near line 5 package 'libc6':\n"
      " 'Version' field value '2.36-9': version number does not start with digit\n"
      "dpkg_query_rc=2\n");
  EXPECT_EQ(error,
            "dpkg-query -S /usr/bin/nvidia-smi failed (exit status 2): dpkg-query: error: parsing file "
            "'/var/lib/dpkg/status' near line 5 package 'libc6': 'Version' field value '2.36-9': version number does "
            "not start with digit");
  // A line starting with a space continues dpkg's message; with no message before it, it is no line of either.
  EXPECT_NE(parse_error("nvidia_smi_path=/usr/bin/nvidia-smi\n 'Version' field\ndpkg_query_rc=2\n").find("not a line"),
            std::string::npos);
}

TEST(DriverOriginParser, OutputThatIsNotTheProbesIsAnErrorNeverAGuess) {
  EXPECT_NE(parse_error("").find("no nvidia_smi_path= line"), std::string::npos);
  // Cut off before dpkg-query answered.
  EXPECT_NE(parse_error("nvidia_smi_path=/usr/bin/nvidia-smi\n").find("cut off"), std::string::npos);
  EXPECT_NE(parse_error("nvidia_smi_path=/usr/bin/nvidia-smi\ndpkg_query_rc=x\n").find("not a number"), std::string::npos);
  EXPECT_NE(parse_error("nvidia_smi_path=/usr/bin/nvidia-smi\nNot A Package: /usr/bin/nvidia-smi\ndpkg_query_rc=0\n")
                .find("not a line of the probe or of dpkg-query -S: 'Not A Package: /usr/bin/nvidia-smi'"),
            std::string::npos);
  EXPECT_NE(parse_error("nvidia_smi_path=/a\nnvidia_smi_path=/b\n").find("two nvidia_smi_path= lines"), std::string::npos);
  // dpkg exited 0 but said nothing about nvidia-smi: no owner is read into that.
  EXPECT_NE(parse_error("nvidia_smi_path=/usr/bin/nvidia-smi\ndpkg_query_rc=0\n")
                .find("named neither an owner of /usr/bin/nvidia-smi nor 'no path found'"),
            std::string::npos);
  // A link no package owns, to a file by none of the packaged names: its owner was not asked.
  EXPECT_NE(parse_error("nvidia_smi_path=/usr/local/bin/nvidia-smi\nsymlink=yes\n"
                        "dpkg-query: no path found matching pattern /usr/local/bin/nvidia-smi\ndpkg_query_rc=1\n")
                .find("/usr/local/bin/nvidia-smi is a symbolic link that no package owns"),
            std::string::npos);
}

// ---- the fact from the batch ---------------------------------------------------------------

namespace {

std::map<std::string, ProbeOutput> with_origin(ProbeOutput origin) {
  return {{"driver", {0, "NVRM version: NVIDIA UNIX Open Kernel Module for x86_64  580.159.04  Release Build\n", ""}},
          {"driver_origin", std::move(origin)}};
}

}  // namespace

TEST(DriverOriginFact, IsParsedFromItsProbe) {
  const auto facts = facts_from_probes(
      "gpu01", with_origin({0,
                            "nvidia_smi_path=/usr/bin/nvidia-smi\nsame_file=/bin/nvidia-smi\n"
                            "nvidia-utils-580: /usr/bin/nvidia-smi\n"
                            "dpkg-query: no path found matching pattern /bin/nvidia-smi\ndpkg_query_rc=1\n",
                            ""}));
  ASSERT_TRUE(facts.driver_origin.present()) << facts.driver_origin.absent_reason;
  EXPECT_EQ(facts.driver_origin.value->kind, Kind::package);
  EXPECT_EQ(facts.driver_origin.value->package, "nvidia-utils-580");
  EXPECT_EQ(facts.sources.at("driver_origin").exit_code, 0);
  EXPECT_NE(facts.sources.at("driver_origin").command.find("dpkg-query -S"), std::string::npos);
}

// A probe that failed leaves the fact absent with why: never a guess at the origin.
TEST(DriverOriginFact, IsAbsentWithTheReasonWhenTheProbeFails) {
  // No dpkg (not a Debian node): which package owns nvidia-smi cannot be asked.
  auto facts = facts_from_probes(
      "gpu01", with_origin({127, "nvidia_smi_path=/usr/bin/nvidia-smi\n",
                            "dpkg-query: command not found (no dpkg to ask which package owns /usr/bin/nvidia-smi)\n"}));
  EXPECT_FALSE(facts.driver_origin.present());
  EXPECT_EQ(facts.driver_origin.absent_reason,
            "driver origin: dpkg-query: command not found (no dpkg to ask which package owns /usr/bin/nvidia-smi)");

  facts = facts_from_probes("gpu01", with_origin({0,
                                                  "nvidia_smi_path=/usr/bin/nvidia-smi\n"
                                                  "dpkg-query: error: dpkg status database is locked by another process\n"
                                                  "dpkg_query_rc=2\n",
                                                  ""}));
  EXPECT_FALSE(facts.driver_origin.present());
  EXPECT_EQ(facts.driver_origin.absent_reason,
            "driver origin: dpkg-query -S /usr/bin/nvidia-smi failed (exit status 2): dpkg-query: error: dpkg status "
            "database is locked by another process");

  facts = facts_from_probes("gpu01", with_origin({0, "nvidia_smi_path=/usr/bin/nvidia-smi\n", ""}));
  EXPECT_NE(facts.driver_origin.absent_reason.find("cut off"), std::string::npos) << facts.driver_origin.absent_reason;

  auto probes = with_origin({});
  probes.erase("driver_origin");
  facts = facts_from_probes("gpu01", probes);
  EXPECT_FALSE(facts.driver_origin.present());
  EXPECT_NE(facts.driver_origin.absent_reason.find("not probed"), std::string::npos) << facts.driver_origin.absent_reason;
}

// ---- JSON and text -------------------------------------------------------------------------

namespace {

NodeFacts node_with(Fact<DriverOrigin> origin, bool module_loaded = true) {
  NodeFacts facts;
  facts.node = "gpu01";
  if (module_loaded) {
    facts.driver_version = Fact<std::string>::of("580.159.04");
    facts.driver_open_kernel_module = Fact<bool>::of(true);
  } else {
    facts.driver_version = Fact<std::string>::absent("no NVIDIA kernel module is loaded");
    facts.driver_open_kernel_module = Fact<bool>::absent("no NVIDIA kernel module is loaded");
  }
  facts.driver_origin = std::move(origin);
  facts.cuda_version = Fact<std::string>::of("13.0.88");
  facts.nccl_version = Fact<std::string>::of("2.28.3");
  facts.gpus = Fact<std::vector<GpuInfo>>::absent("not asked");
  return facts;
}

std::string driver_line(const NodeFacts& facts) {
  const auto text = render_facts_text(facts);
  const auto at = text.find("  driver ");
  return at == std::string::npos ? text : text.substr(at + 2, text.find('\n', at) - at - 2);
}

}  // namespace

TEST(DriverOriginFact, JsonHasKindPackagePathMarksAndNote) {
  DriverOrigin origin{Kind::package, "nvidia-utils-580", "/usr/bin/nvidia-smi", {"/var/log/nvidia-installer.log"}, ""};
  auto j = nlohmann::json::parse(facts_to_json(node_with(Fact<DriverOrigin>::of(origin))));
  EXPECT_EQ(j["driver_origin"], nlohmann::json::parse(R"({"kind": "package", "package": "nvidia-utils-580",
      "path": "/usr/bin/nvidia-smi", "runfile_marks": ["/var/log/nvidia-installer.log"], "note": ""})"));

  j = nlohmann::json::parse(facts_to_json(node_with(Fact<DriverOrigin>::of({Kind::no_user_space, "", "", {}, ""}))));
  EXPECT_EQ(j["driver_origin"]["kind"], "no_user_space");
  EXPECT_EQ(j["driver_origin"]["path"], "");

  j = nlohmann::json::parse(facts_to_json(node_with(Fact<DriverOrigin>::absent("driver origin: dpkg-query: command not found"))));
  EXPECT_EQ(j["driver_origin"], nlohmann::json::parse(R"({"absent": "driver origin: dpkg-query: command not found"})"));

  const std::string text = facts_to_json(node_with(Fact<DriverOrigin>::of(origin)));
  EXPECT_LT(text.find("\"driver_open_kernel_module\""), text.find("\"driver_origin\""));
  EXPECT_LT(text.find("\"driver_origin\""), text.find("\"cuda_version\""));
}

TEST(DriverOriginFact, TextSaysWhereTheDriverCameFromOnTheDriverLine) {
  EXPECT_EQ(driver_line(node_with(Fact<DriverOrigin>::of({Kind::package, "nvidia-driver-550-open", "/usr/bin/nvidia-smi", {}, ""}))),
            "driver 580.159.04 (open), from package nvidia-driver-550-open, CUDA 13.0.88, NCCL 2.28.3");
  EXPECT_EQ(driver_line(node_with(Fact<DriverOrigin>::of({Kind::unpackaged, "", "/usr/bin/nvidia-smi", {}, ""}))),
            "driver 580.159.04 (open), not from a package (nvidia-smi at /usr/bin/nvidia-smi is owned by no dpkg "
            "package), CUDA 13.0.88, NCCL 2.28.3");
  EXPECT_EQ(driver_line(node_with(Fact<DriverOrigin>::of(
                {Kind::runfile, "", "/usr/bin/nvidia-smi", {"/usr/bin/nvidia-uninstall", "/var/log/nvidia-installer.log"}, ""}))),
            "driver 580.159.04 (open), from NVIDIA's runfile (/usr/bin/nvidia-smi is owned by no dpkg package; "
            "/usr/bin/nvidia-uninstall and /var/log/nvidia-installer.log exist), CUDA 13.0.88, NCCL 2.28.3");
  EXPECT_EQ(driver_line(node_with(Fact<DriverOrigin>::of({Kind::no_user_space, "", "", {}, ""}))),
            "driver 580.159.04 (open), no nvidia-smi on the host (the kernel module is loaded: a driver container, "
            "such as the GPU Operator's?), CUDA 13.0.88, NCCL 2.28.3");
  EXPECT_EQ(driver_line(node_with(Fact<DriverOrigin>::of({Kind::no_user_space, "", "", {}, ""}), false)),
            "driver absent (no NVIDIA kernel module is loaded), no nvidia-smi on the host, CUDA 13.0.88, NCCL 2.28.3");
  EXPECT_EQ(driver_line(node_with(Fact<DriverOrigin>::absent("driver origin: dpkg-query: command not found"))),
            "driver 580.159.04 (open), origin absent (driver origin: dpkg-query: command not found), CUDA 13.0.88, "
            "NCCL 2.28.3");
  EXPECT_EQ(driver_line(node_with(Fact<DriverOrigin>::of(
                {Kind::unpackaged, "", "/usr/bin/nvidia-smi", {},
                 "a local dpkg diversion moved the packaged /usr/bin/nvidia-smi to /usr/bin/nvidia-smi.distrib"}))),
            "driver 580.159.04 (open), not from a package (nvidia-smi at /usr/bin/nvidia-smi is owned by no dpkg "
            "package; a local dpkg diversion moved the packaged /usr/bin/nvidia-smi to /usr/bin/nvidia-smi.distrib), "
            "CUDA 13.0.88, NCCL 2.28.3");
}

// ---- the probe -----------------------------------------------------------------------------

TEST(DriverOriginProbe, IsPartOfEveryBatchAndSpawnsOnlyDpkgQuery) {
  const auto names = probe_names();
  EXPECT_EQ(std::count(names.begin(), names.end(), "driver_origin"), 1);
  CollectOptions plan;  // plan's lean batch asks it too: the planner reads the fact
  plan.optional_probes.emplace();
  const auto lean = probe_names(plan);
  EXPECT_EQ(std::count(lean.begin(), lean.end(), "driver_origin"), 1);

  const auto script = build_probe_script("n");
  const auto body_at = script.find("p_driver_origin() {");
  ASSERT_NE(body_at, std::string::npos);
  const auto body = script.substr(body_at, script.find("\n}\n", body_at) - body_at);
  EXPECT_NE(script.find("probe driver_origin p_driver_origin"), std::string::npos);
  // One process, dpkg-query, and only once nvidia-smi was found; the lookup is the shell's.
  EXPECT_EQ(body.find("dpkg-query -S"), body.rfind("dpkg-query -S"));
  EXPECT_LT(body.find("[ -n \"$o_s\" ] || return 0"), body.find("dpkg-query -S"));
  for (const auto* helper : {"$(", "`", "readlink", " ls ", " | ", "stat ", "realpath"}) EXPECT_EQ(body.find(helper), std::string::npos) << helper;
  EXPECT_NE(body.find("/usr/bin/nvidia-uninstall /var/log/nvidia-installer.log"), std::string::npos);
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

// The batch under this host's /bin/sh with PATH=<dir>:/usr/bin:/bin; the driver_origin probe.
ProbeOutput run_batch_with_path(const std::string& dir) {
  const std::string script_path = dir + "/probe.sh";
  std::ofstream(script_path) << build_probe_script("origin1");
  const std::string err_path = dir + "/probe.err";
  const auto out = run_shell("env PATH=" + dir + ":/usr/bin:/bin /bin/sh " + script_path + " 2>" + err_path);
  std::ifstream err_file(err_path);
  const std::string err((std::istreambuf_iterator<char>(err_file)), std::istreambuf_iterator<char>());
  const auto probes = split_probe_output(out, "origin1", err);
  EXPECT_TRUE(probes) << probes.error().to_string();
  if (!probes || !probes->contains("driver_origin")) return {};
  return probes->at("driver_origin");
}

}  // namespace

// The real probe under this host's shell and dpkg: an nvidia-smi in a scratch directory is
// owned by no package; a symbolic link there to a packaged file of another name is asked about
// by its name only, so the fact is absent rather than a guess. Reads dpkg's database only.
TEST(DriverOriginProbe, RunsUnderThisHostsShell) {
  char dir_template[] = "/tmp/gpuctl-origin-XXXXXX";
  ASSERT_NE(mkdtemp(dir_template), nullptr);
  const std::string dir = dir_template;
  const std::string smi = dir + "/nvidia-smi";
  std::ofstream(smi) << "#!/bin/sh\nexit 9\n";
  std::filesystem::permissions(smi, std::filesystem::perms::owner_all);

  const bool have_dpkg = access("/usr/bin/dpkg-query", X_OK) == 0 || access("/bin/dpkg-query", X_OK) == 0;
  auto probe = run_batch_with_path(dir);
  const auto facts = facts_from_probes("local", {{"driver_origin", probe}});
  if (have_dpkg) {
    ASSERT_TRUE(facts.driver_origin.present()) << facts.driver_origin.absent_reason << "\n" << probe.out;
    const auto& origin = *facts.driver_origin.value;
    EXPECT_TRUE(origin.kind == Kind::unpackaged || origin.kind == Kind::runfile) << to_string(origin.kind);
    EXPECT_EQ(origin.path, smi);
    EXPECT_NE(probe.out.find("dpkg-query: no path found matching pattern " + smi), std::string::npos) << probe.out;
    EXPECT_NE(probe.out.find("dpkg_query_rc=1"), std::string::npos) << probe.out;
  } else {
    EXPECT_EQ(probe.exit_code, 127);
    EXPECT_NE(facts.driver_origin.absent_reason.find("dpkg-query: command not found"), std::string::npos);
  }

  // A link to a file dpkg knows by another name (false: the batch's GPU query fails at once).
  std::filesystem::remove(smi);
  std::filesystem::create_symlink("/bin/false", smi);
  probe = run_batch_with_path(dir);
  const auto linked = facts_from_probes("local", {{"driver_origin", probe}});
  EXPECT_FALSE(linked.driver_origin.present()) << probe.out;
  if (have_dpkg) {
    EXPECT_NE(linked.driver_origin.absent_reason.find("is a symbolic link that no package owns"), std::string::npos)
        << linked.driver_origin.absent_reason;
  }
  std::filesystem::remove_all(dir);
}
