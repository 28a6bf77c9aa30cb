// Package profiles (packages/profile.hpp, playbooks/profiles/): every shipped table is complete
// and cites its sources, the inventory's choice is checked where it is made, and a fresh node's
// plan under each profile names only packages of that profile's table (issue #18).
#include "shipped_playbooks.hpp"

#include <gpuctl/inventory/loader.hpp>
#include <gpuctl/packages/profile.hpp>
#include <gpuctl/plan/node_state.hpp>
#include <gpuctl/plan/plan.hpp>
#include <gpuctl/plan/program.hpp>

#include <gtest/gtest.h>

#include <algorithm>
#include <fstream>
#include <set>

namespace gpuctl {
namespace {

// What each profile stands for, and a driver it ships.
struct Choice {
  std::string profile, os, source, branch, version;
  bool open;
};
const std::vector<Choice>& choices() {
  static const std::vector<Choice> all{
      {"debian12-cuda-repository", "debian12", "cuda-repository", "550", "550.127.08", true},
      {"debian12-distribution", "debian12", "distribution", "535", "535.309.01", false},
      {"ubuntu2204-cuda-repository", "ubuntu2204", "cuda-repository", "550", "550.127.08", true},
      {"ubuntu2204-distribution", "ubuntu2204", "distribution", "550", "550.127.08", true},
      {"ubuntu2404-cuda-repository", "ubuntu2404", "cuda-repository", "580", "580.159.04", true},
      {"ubuntu2404-distribution", "ubuntu2404", "distribution", "580", "580.95.05", false},
  };
  return all;
}

// gpu01 is an 8x H100 HGX node (NVSwitch implied), except where the profile has no fabric
// manager (Debian 12's archive): there it is declared a PCIe server.
std::string inventory_text(const Choice& c, bool dcgm, const std::string& extra_nvidia = "") {
  const std::string gpu = c.profile == "debian12-distribution" ? "{model: H100, count: 8, nvswitch: false}"
                                                               : "{model: H100, count: 8}";
  return "cluster:\n  name: lab\n  os: " + c.os + "\n  nvidia:\n    driver_branch: \"" + c.branch +
         "\"\n    driver_version: \"" + c.version + "\"\n    cuda: \"12.4\"\n    open_kernel_module: " +
         (c.open ? "true" : "false") + "\n    driver_source: " + c.source + "\n" + extra_nvidia +
         "  monitoring:\n    dcgm_exporter: " + (dcgm ? "true" : "false") +
         "\n    node_exporter: true\nhosts:\n  gpu01: {address: 10.0.0.1, gpu: " + gpu + "}\n";
}

// Every package name a profile's table can give, placeholders filled for `c`.
std::set<std::string> table_packages(const PackageProfile& profile, const Choice& c) {
  std::set<std::string> names;
  const PackageChoice choice{c.branch, c.version, "12.4", c.open};
  for (const auto& row : profile.rows)
    for (const auto* name : {&row.name, &row.open, &row.proprietary, &row.renamed_to})
      if (!name->empty()) names.insert(fill_placeholders(*name, choice));
  return names;
}

TEST(PackageProfiles, EveryShippedProfileParsesNamesEveryRowAndCitesHttps) {
  const auto names = shipped_profile_names();
  ASSERT_EQ(names.size(), choices().size());
  for (const auto& name : names) {
    const auto profile = load_profile(name);
    ASSERT_TRUE(profile) << profile.error().to_string();
    EXPECT_EQ(profile->name, name);
    for (const auto& row : profile_row_names()) EXPECT_NE(profile->find_row(row), nullptr) << name << ": " << row;
    for (const auto& [key, url] : profile->references) EXPECT_TRUE(url.starts_with("https://")) << name << ": " << key;
    for (const auto& row : profile->rows)
      if (!row.reference.empty()) {
        EXPECT_TRUE(profile->references.contains(row.reference)) << name << ": " << row.row;
      }
  }
}

TEST(PackageProfiles, TheReferencesAreInTheDocs) {
  std::ifstream in(std::string(GPUCTL_SOURCE_DIR) + "/docs/package-profiles.md");
  const std::string doc((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  ASSERT_FALSE(doc.empty());
  for (const auto& name : shipped_profile_names()) {
    const auto profile = load_profile(name);
    ASSERT_TRUE(profile);
    for (const auto& [key, url] : profile->references)
      EXPECT_NE(doc.find(url), std::string::npos) << name << " cites " << url << ", which docs/package-profiles.md does not";
  }
}

TEST(PackageProfiles, AFreshNodesPlanNamesOnlyPackagesOfItsProfile) {
  // Debian's and Ubuntu's own packages the playbook installs beside the NVIDIA stack.
  const std::set<std::string> os_packages{"curl", "ca-certificates", "prometheus-node-exporter"};
  for (const auto& c : choices()) {
    const bool dcgm = c.source == "cuda-repository";
    auto loaded = load_inventory_text(inventory_text(c, dcgm), "cluster.yaml");
    ASSERT_TRUE(loaded.ok()) << c.profile << ": " << (loaded.diagnostics.empty() ? "" : loaded.diagnostics[0].to_string());
    const auto& inventory = *loaded.inventory;
    EXPECT_EQ(inventory.cluster.profile.name, c.profile);
    ProgramSources sources;
    sources.templates_dir = testing::k_shipped_templates_dir;
    sources.secrets = SecretMode::masked;
    const auto program = resolve_program(inventory, inventory.nodes[0], testing::shipped_playbooks(), sources);
    ASSERT_TRUE(program) << program.error().to_string();
    const auto plan = make_node_plan(*program, NodeState{});
    const auto table = table_packages(inventory.cluster.profile, c);
    std::set<std::string> installed;
    for (const auto& change : plan.changes)
      if (change.resource.starts_with("package:")) installed.insert(change.resource.substr(8));
    EXPECT_TRUE(installed.contains(inventory.cluster.packages.packages.at("driver"))) << c.profile;
    for (const auto& name : installed)
      EXPECT_TRUE(table.contains(name) || os_packages.contains(name)) << c.profile << " plans " << name;
    const bool repository_step = std::ranges::any_of(plan.changes, [](const Change& ch) { return ch.step == "cuda-repository"; });
    EXPECT_EQ(repository_step, c.source == "cuda-repository") << c.profile;
  }
}

TEST(PackageProfiles, TheFlavourPicksTheDriverAndModulePackages) {
  const auto& ubuntu = choices()[2];
  auto open = load_inventory_text(inventory_text(ubuntu, true), "cluster.yaml");
  ASSERT_TRUE(open.ok());
  EXPECT_EQ(open.inventory->cluster.packages.packages.at("driver"), "nvidia-open-550");
  EXPECT_EQ(open.inventory->cluster.packages.packages.at("kernel_module"), "nvidia-dkms-550-open");
  auto closed_choice = ubuntu;
  closed_choice.open = false;
  auto closed = load_inventory_text(inventory_text(closed_choice, true), "cluster.yaml");
  ASSERT_TRUE(closed.ok());
  EXPECT_EQ(closed.inventory->cluster.packages.packages.at("driver"), "cuda-drivers-550");
  EXPECT_EQ(closed.inventory->cluster.packages.packages.at("kernel_module"), "nvidia-dkms-550");
  EXPECT_EQ(closed.inventory->cluster.packages.services.at("dcgm_exporter"), "nvidia-dcgm-exporter");
}

TEST(PackageProfiles, FromBranch580NvidiasFabricManagerHasNoBranchInItsName) {
  auto choice = choices()[4];  // ubuntu2404-cuda-repository, 580
  auto at580 = load_inventory_text(inventory_text(choice, true), "cluster.yaml");
  ASSERT_TRUE(at580.ok());
  EXPECT_EQ(at580.inventory->cluster.packages.packages.at("fabricmanager"), "nvidia-fabricmanager");
  EXPECT_EQ(at580.inventory->cluster.packages.packages.at("nscq"), "libnvidia-nscq");
  choice.branch = "570";
  choice.version = "570.195.03";
  auto at570 = load_inventory_text(inventory_text(choice, true), "cluster.yaml");
  ASSERT_TRUE(at570.ok());
  EXPECT_EQ(at570.inventory->cluster.packages.packages.at("fabricmanager"), "nvidia-fabricmanager-570");
  // Ubuntu's archive keeps the branch in the name.
  auto archive = load_inventory_text(inventory_text(choices()[5], false), "cluster.yaml");
  ASSERT_TRUE(archive.ok());
  EXPECT_EQ(archive.inventory->cluster.packages.packages.at("fabricmanager"), "nvidia-fabricmanager-580");
}

TEST(PackageProfiles, AChoiceTheSourceCannotServeIsAnErrorAtItsLine) {
  auto debian = choices()[1];
  debian.open = true;
  const auto open = load_inventory_text(inventory_text(debian, false), "cluster.yaml");
  ASSERT_FALSE(open.ok());
  EXPECT_EQ(open.diagnostics[0].line, 8);  // open_kernel_module: true
  EXPECT_NE(open.diagnostics[0].message.find("no driver package for NVIDIA's open kernel module"), std::string::npos)
      << open.diagnostics[0].message;
  EXPECT_NE(open.diagnostics[0].hint.find("nvidia-open-kernel-dkms"), std::string::npos) << open.diagnostics[0].hint;

  const auto dcgm = load_inventory_text(inventory_text(choices()[1], true), "cluster.yaml");
  ASSERT_FALSE(dcgm.ok());
  EXPECT_NE(dcgm.diagnostics[0].message.find("has no DCGM exporter package"), std::string::npos);

  const auto repository = load_inventory_text(
      inventory_text(choices()[1], false, "    repository: {url: 'https://example.com/cuda/'}\n"), "cluster.yaml");
  ASSERT_FALSE(repository.ok());
  EXPECT_NE(repository.diagnostics[0].message.find("driver_source is distribution"), std::string::npos);

  const auto unknown_os = load_inventory_text(
      "cluster:\n  name: lab\n  os: ubuntu2004\nhosts:\n  gpu01: {address: 10.0.0.1}\n", "cluster.yaml");
  ASSERT_FALSE(unknown_os.ok());
  EXPECT_EQ(unknown_os.diagnostics[0].line, 3);
}

TEST(PackageProfiles, AnNvswitchNodeNeedsAProfileWithAFabricManager) {
  auto text = inventory_text(choices()[1], false);
  const std::string declared = ", nvswitch: false";
  text.replace(text.find(declared), declared.size(), "");
  const auto hgx = load_inventory_text(text, "cluster.yaml");
  ASSERT_FALSE(hgx.ok());
  EXPECT_NE(hgx.diagnostics[0].message.find("has NVSwitch GPUs (8 x H100), but Debian 12's non-free NVIDIA packages has no "
                                            "fabric manager package"),
            std::string::npos)
      << hgx.diagnostics[0].message;
}

TEST(PackageProfiles, NoRepositoryMeansNvidiasForTheProfilesOs) {
  const auto loaded = load_inventory_text(inventory_text(choices()[4], true), "cluster.yaml");
  ASSERT_TRUE(loaded.ok());
  EXPECT_EQ(loaded.inventory->cluster.nvidia.repository.url,
            "https://developer.download.nvidia.com/compute/cuda/repos/ubuntu2404/x86_64/");
}

TEST(PackageProfiles, ANodeOfAnotherOsIsRefused) {
  const auto profile = load_profile("debian12-cuda-repository");
  ASSERT_TRUE(profile);
  EXPECT_FALSE(os_mismatch(*profile, "debian", "12", "Debian GNU/Linux 12 (bookworm)"));
  const auto why = os_mismatch(*profile, "ubuntu", "24.04", "Ubuntu 24.04.1 LTS");
  ASSERT_TRUE(why);
  EXPECT_NE(why->find("Ubuntu 24.04.1 LTS"), std::string::npos) << *why;
  EXPECT_NE(why->find("set cluster.os"), std::string::npos) << *why;
  EXPECT_TRUE(os_mismatch(*profile, "debian", "13", ""));
}

TEST(PackageProfiles, AProfileFileWithAHoleIsRefusedWithItsLine) {
  const auto missing_reference = parse_profile(
      "name: debian12-distribution\nos: debian12\nos_release: {id: debian, version_id: \"12\"}\n"
      "driver_source: distribution\npackages:\n  driver: {open: x, proprietary: y}\n",
      "p.yaml");
  ASSERT_FALSE(missing_reference);
  EXPECT_NE(missing_reference.error().message.find("p.yaml:6"), std::string::npos) << missing_reference.error().message;
  const auto shell = parse_profile(
      "name: a\npackages:\n  nccl: {name: 'libnccl2; rm -rf /', reference: r}\nreferences: {r: 'https://x'}\n", "p.yaml");
  ASSERT_FALSE(shell);
  EXPECT_NE(shell.error().message.find("is not a package or service name"), std::string::npos) << shell.error().message;
}

}  // namespace
}  // namespace gpuctl

namespace gpuctl {
namespace {

// The real H200 test machine's case: driver 580.159.04 loaded, its nvidia-smi owned by no
// package, no driver package installed (issue #18).
NodeState unpackaged_driver_state(DriverOrigin::Kind kind) {
  NodeState state;
  state.facts.driver_version = Fact<std::string>::of("580.159.04");
  DriverOrigin origin;
  origin.kind = kind;
  origin.path = "/usr/bin/nvidia-smi";
  if (kind == DriverOrigin::Kind::package) origin.package = "nvidia-utils-580";
  if (kind == DriverOrigin::Kind::runfile) origin.runfile_marks = {"/usr/bin/nvidia-uninstall"};
  state.facts.driver_origin = Fact<DriverOrigin>::of(origin);
  return state;
}

std::vector<std::string> driver_step_packages(const NodePlan& plan) {
  std::vector<std::string> names;
  for (const auto& change : plan.changes)
    if (change.step == "driver" && change.resource.starts_with("package:")) names.push_back(change.resource.substr(8));
  return names;
}

std::vector<std::string> step_changes(const NodePlan& plan, std::string_view step) {
  std::vector<std::string> resources;
  for (const auto& change : plan.changes)
    if (change.step == step) resources.push_back(change.resource);
  return resources;
}

NodePlan plan_with_policy(const std::string& policy, DriverOrigin::Kind kind, bool nouveau_loaded = true) {
  const Choice h200{"ubuntu2404-cuda-repository", "ubuntu2404", "cuda-repository", "580", "580.159.04", true};
  auto loaded = load_inventory_text(inventory_text(h200, false, "    unpackaged_driver: " + policy + "\n"), "cluster.yaml");
  EXPECT_TRUE(loaded.ok()) << (loaded.diagnostics.empty() ? "" : loaded.diagnostics[0].to_string());
  ProgramSources sources;
  sources.templates_dir = testing::k_shipped_templates_dir;
  sources.secrets = SecretMode::masked;
  const auto program = resolve_program(*loaded.inventory, loaded.inventory->nodes[0], testing::shipped_playbooks(), sources);
  EXPECT_TRUE(program) << program.error().to_string();
  auto state = unpackaged_driver_state(kind);
  state.changes_reboot["nouveau"] = nouveau_loaded;       // the step's reboot_if
  state.guards_done["update-initramfs -u"] = !nouveau_loaded;  // and its command's guard
  return make_node_plan(*program, state);
}

TEST(UnpackagedDriver, AdoptPlansNoDriverChangeAndSaysWhy) {
  const auto plan = plan_with_policy("adopt", DriverOrigin::Kind::unpackaged);
  EXPECT_TRUE(driver_step_packages(plan).empty());
  // A reboot here is nouveau's blacklist's (a fresh state), never the driver's own.
  EXPECT_TRUE(std::ranges::none_of(plan.changes, [](const Change& c) {
    return c.action == Action::reboot && c.reason.find("this step changed") != std::string::npos;
  }));
  ASSERT_EQ(plan.notes.size(), 2u);
  EXPECT_NE(plan.notes[0].find("driver 580.159.04 is loaded and not from a package"), std::string::npos) << plan.notes[0];
  EXPECT_NE(plan.notes[0].find("/usr/bin/nvidia-smi belongs to no package"), std::string::npos) << plan.notes[0];
  EXPECT_NE(plan.notes[0].find("adopted"), std::string::npos);
  // The persistence daemon is the driver's too (nvidia-compute-utils-580 depends on its
  // libraries): not installed over the adopted driver, and its missing unit is left to it.
  EXPECT_TRUE(step_changes(plan, "persistence").empty());
  EXPECT_NE(plan.notes[1].find("service nvidia-persistenced is not on the node"), std::string::npos) << plan.notes[1];
}

// The real H200 machine: nouveau is not loaded, so writing its blacklist is no reason to reboot,
// and an adopted driver leaves the driver step with nothing at all.
TEST(UnpackagedDriver, AdoptOnANodeWithoutNouveauPlansNoReboot) {
  const auto plan = plan_with_policy("adopt", DriverOrigin::Kind::unpackaged, false);
  EXPECT_TRUE(step_changes(plan, "driver").empty());
  EXPECT_EQ(step_changes(plan, "nouveau"), (std::vector<std::string>{"file:/etc/modprobe.d/blacklist-nouveau.conf"}));
  EXPECT_TRUE(std::ranges::none_of(plan.changes, [](const Change& c) { return c.action == Action::reboot; }));
}

TEST(UnpackagedDriver, InstallPlansThePackagesWithAWarning) {
  const auto plan = plan_with_policy("install", DriverOrigin::Kind::runfile);
  const auto names = driver_step_packages(plan);
  EXPECT_EQ(names, (std::vector<std::string>{"nvidia-dkms-580-open", "nvidia-utils-580", "nvidia-open-580"}));
  EXPECT_EQ(step_changes(plan, "persistence"),
            (std::vector<std::string>{"package:nvidia-compute-utils-580", "service:nvidia-persistenced"}));
  ASSERT_EQ(plan.notes.size(), 1u);
  EXPECT_NE(plan.notes[0].find("NVIDIA's runfile installed it (/usr/bin/nvidia-uninstall)"), std::string::npos) << plan.notes[0];
  EXPECT_NE(plan.notes[0].find("nvidia-uninstall"), std::string::npos);
}

TEST(UnpackagedDriver, AnUnknownOriginIsNeverAdopted) {
  const Choice h200{"ubuntu2404-cuda-repository", "ubuntu2404", "cuda-repository", "580", "580.159.04", true};
  auto loaded = load_inventory_text(inventory_text(h200, false, "    unpackaged_driver: adopt\n"), "cluster.yaml");
  ASSERT_TRUE(loaded.ok());
  ProgramSources sources;
  sources.templates_dir = testing::k_shipped_templates_dir;
  sources.secrets = SecretMode::masked;
  const auto program = resolve_program(*loaded.inventory, loaded.inventory->nodes[0], testing::shipped_playbooks(), sources);
  ASSERT_TRUE(program);
  NodeState state = unpackaged_driver_state(DriverOrigin::Kind::unpackaged);
  state.facts.driver_origin = Fact<DriverOrigin>::absent("dpkg-query: command not found");
  const auto plan = make_node_plan(*program, state);
  EXPECT_EQ(driver_step_packages(plan).size(), 3u);
  ASSERT_EQ(plan.notes.size(), 1u);
  EXPECT_NE(plan.notes[0].find("its origin is unknown: dpkg-query: command not found"), std::string::npos) << plan.notes[0];
}

// The new inventory values are closed sets: anything else is refused where it is written.
TEST(PackageProfiles, HostileChoiceValuesAreRefusedAtTheirLine) {
  const std::vector<std::pair<std::string, std::string>> cases{
      {"  os: \"debian12; touch /tmp/x\"\n", "'os'"},
      {"  nvidia:\n    driver_source: \"../../etc/passwd\"\n", "'driver_source'"},
      {"  nvidia:\n    unpackaged_driver: \"$(reboot)\"\n", "'unpackaged_driver'"},
      {"  nvidia:\n    repository: {url: 'https://x/', existing: \"`id`\"}\n", "'repository.existing'"},
  };
  for (const auto& [text, what] : cases) {
    const auto loaded = load_inventory_text("cluster:\n  name: lab\n" + text + "hosts:\n  gpu01: {address: 10.0.0.1}\n", "c.yaml");
    ASSERT_FALSE(loaded.ok()) << text;
    EXPECT_NE(loaded.diagnostics[0].message.find(what), std::string::npos) << loaded.diagnostics[0].message;
  }
  const auto nvswitch = load_inventory_text(
      "cluster:\n  name: lab\nhosts:\n  gpu01: {address: 10.0.0.1, gpu: {model: H100, count: 8, nvswitch: \"yes; id\"}}\n", "c.yaml");
  ASSERT_FALSE(nvswitch.ok());
  EXPECT_NE(nvswitch.diagnostics[0].message.find("'gpu.nvswitch'"), std::string::npos) << nvswitch.diagnostics[0].message;
}

TEST(UnpackagedDriver, ADriverFromAnotherPackageIsNoCaseForThePolicy) {
  // nvidia-smi owned by a package: an apt driver under other names; plan the profile's as usual.
  const auto plan = plan_with_policy("adopt", DriverOrigin::Kind::package);
  EXPECT_EQ(driver_step_packages(plan).size(), 3u);
  EXPECT_TRUE(plan.notes.empty());
}

}  // namespace
}  // namespace gpuctl
