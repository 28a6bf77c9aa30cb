// The container stack: the CDI spec parser on a real nvidia-ctk capture, the containers probe's
// parser, and the container checks' judgements (stale spec, missing links, the container's GPUs).
#include <gpuctl/facts/containers.hpp>
#include <gpuctl/verify/container_run.hpp>

#include "check_fixture.hpp"
#include "shipped_playbooks.hpp"

#include <gpuctl/inventory/loader.hpp>
#include <gpuctl/plan/plan.hpp>
#include <gpuctl/plan/program.hpp>
#include "probe_capture.hpp"

#include <gtest/gtest.h>

#include <optional>

namespace gpuctl {
namespace {

using testing::read_test_data;

TEST(CdiSpec, ReadsTheDevicesAndDriverLibrariesOfARealNvidiaCtkSpec) {
  const auto spec = facts::parse_cdi_spec(read_test_data("containers/nvidia-ctk-1.17.8-cdi-575.64.03.yaml"), "/etc/cdi/nvidia.yaml");
  EXPECT_EQ(spec.error, "");
  EXPECT_EQ(spec.cdi_version, "0.5.0");
  EXPECT_EQ(spec.kind, "nvidia.com/gpu");
  EXPECT_EQ(spec.device_names, (std::vector<std::string>{"0", "GPU-520e01f2-cf30-6396-abef-e8e9a5233b0e", "all"}));
  EXPECT_EQ(spec.nvml_versions, std::vector<std::string>{"575.64.03"});
}

TEST(CdiSpec, SaysWhyTextIsNoSpec) {
  EXPECT_NE(facts::parse_cdi_spec("", "/etc/cdi/nvidia.yaml").error, "");
  EXPECT_NE(facts::parse_cdi_spec("a: [", "/etc/cdi/nvidia.yaml").error, "");
  EXPECT_NE(facts::parse_cdi_spec("devices: []\n", "/etc/cdi/nvidia.yaml").error, "");
}

std::string probe_output(const std::string& spec) {
  return "@ctk\nNVIDIA Container Toolkit CLI version 1.17.8\ncommit: f202b80a9b9d0db00d9b1d73c0128c8962c55f4d\n"
         "@spec /etc/cdi/nvidia.yaml\n" + spec +
         "\n@containerd\n            BinaryName = \"/usr/bin/nvidia-container-runtime\"\n    enable_cdi = true\n"
         "@podman\npodman version 4.3.1\n@devices\ncrw-rw-rw- 1 root root 195,   0 Dec  7 16:06 /dev/nvidia0\n"
         "crw-rw-rw- 1 root root 195, 255 Dec  7 16:06 /dev/nvidiactl\n@char\n"
         "lrwxrwxrwx 1 root root 10 Dec  7 16:06 10:200 -> ../net/tun\nlrwxrwxrwx 1 root root 10 Dec  7 16:06 195:0 -> ../nvidia0\n"
         "@mig\nDisabled\n";
}

TEST(ContainerStack, ParsesEverySectionOfTheProbe) {
  const auto stack = facts::parse_container_stack(probe_output(read_test_data("containers/nvidia-ctk-1.17.8-cdi-575.64.03.yaml")));
  ASSERT_TRUE(stack) << stack.error().message;
  EXPECT_TRUE(stack->ctk_found);
  EXPECT_EQ(stack->ctk_version, "1.17.8");
  ASSERT_EQ(stack->specs.size(), 1u);
  EXPECT_EQ(stack->specs[0].device_names.size(), 3u);
  EXPECT_TRUE(stack->containerd_config);
  EXPECT_TRUE(stack->containerd_nvidia_runtime);
  EXPECT_TRUE(stack->containerd_cdi);
  EXPECT_FALSE(stack->docker_config);
  EXPECT_EQ(stack->podman_version, "4.3.1");
  ASSERT_EQ(stack->device_nodes.size(), 2u);
  EXPECT_EQ(stack->device_nodes[0].major_minor, "195:0");
  EXPECT_EQ(stack->device_nodes[0].char_link_target, "/dev/nvidia0");
  EXPECT_EQ(stack->device_nodes[1].major_minor, "195:255");
  EXPECT_EQ(stack->device_nodes[1].char_link_target, "");
  EXPECT_EQ(stack->mig_modes, std::vector<std::string>{"Disabled"});
}

TEST(ContainerStack, AProbeThatStoppedEarlyIsNoFact) {
  EXPECT_FALSE(facts::parse_container_stack("@ctk\nNVIDIA Container Toolkit CLI version 1.17.8\n"));
}

TEST(ContainerRun, QuotesTheImageAndReadsTheUuidsNvidiaSmiLists) {
  ContainerSpec spec{"podman", false, "localhost/gpu-test:1", ""};
  EXPECT_EQ(container_gpu_command(spec),
            "podman run --rm --network=host --device nvidia.com/gpu=all -- localhost/gpu-test:1 nvidia-smi -L");
  spec.gpu_test_image = "localhost/a b";  // never a grammar's value, quoted all the same
  EXPECT_EQ(container_gpu_command(spec), "podman run --rm --network=host --device nvidia.com/gpu=all -- 'localhost/a b' nvidia-smi -L");
  // Docker 20.10 and containerd 1.6 (Debian 12's) reach the GPUs through the nvidia runtime.
  spec.gpu_test_image = "localhost/gpu-test:1";
  spec.runtime = "docker";
  EXPECT_EQ(container_gpu_command(spec),
            "docker run --rm --network=host --runtime=nvidia -e NVIDIA_VISIBLE_DEVICES=all -- localhost/gpu-test:1 nvidia-smi -L");
  spec.runtime = "containerd";
  EXPECT_EQ(container_gpu_command(spec), "ctr run --rm --runc-binary=/usr/bin/nvidia-container-runtime "
                                         "--env NVIDIA_VISIBLE_DEVICES=nvidia.com/gpu=all localhost/gpu-test:1 gpuctl-container-gpu nvidia-smi -L");
  spec.gpu_test_image.clear();
  EXPECT_EQ(container_gpu_command(spec), "");
  EXPECT_EQ(listed_gpu_uuids("GPU 0: NVIDIA H200 (UUID: GPU-aa)\nGPU 1: NVIDIA H200 (UUID: GPU-bb)\n"),
            (std::vector<std::string>{"GPU-aa", "GPU-bb"}));
}

class ContainerChecks : public testing::SingleCheckTest {
 protected:
  ContainerChecks() {
    inventory.cluster.containers.toolkit_version = "1.17.8";
    inventory.cluster.packages = resolve_packages(inventory.cluster.profile, {"550", "550.127.08", "12.4", true, "1.17.8"}).value();
    node.containers = ContainerSpec{"podman", false, "localhost/gpu-test:1", ""};
    state.facts.driver_version = Fact<std::string>::of("575.64.03");
    GpuInfo gpu;
    gpu.index = 0;
    gpu.uuid = "GPU-520e01f2-cf30-6396-abef-e8e9a5233b0e";
    state.facts.gpus = Fact<std::vector<GpuInfo>>::of({gpu});
    set_stack(read_test_data("containers/nvidia-ctk-1.17.8-cdi-575.64.03.yaml"));
  }
  void set_stack(const std::string& spec) {
    auto stack = facts::parse_container_stack(probe_output(spec));
    state.facts.declared.set(facts::k_container_stack, Fact<facts::ContainerStack>::of(*stack));
  }
};

TEST_F(ContainerChecks, ACurrentSpecPassesAndAStaleOneFailsAfterADriverUpgrade) {
  EXPECT_EQ(run("cdi_spec").status, CheckStatus::pass);
  state.facts.driver_version = Fact<std::string>::of("580.95.05");
  const auto stale = run("cdi_spec");
  EXPECT_EQ(stale.status, CheckStatus::fail);
  EXPECT_NE(stale.observed.find("stale"), std::string::npos) << stale.observed;
}

TEST_F(ContainerChecks, ASpecWithoutAGpuOfTheNodeFails) {
  GpuInfo second;
  second.index = 1;
  second.uuid = "GPU-ffffffff-0000-0000-0000-000000000000";
  state.facts.gpus.value->push_back(second);
  const auto result = run("cdi_spec");
  EXPECT_EQ(result.status, CheckStatus::fail);
  EXPECT_NE(result.observed.find("GPU 1"), std::string::npos) << result.observed;
}

TEST_F(ContainerChecks, UnknownFactsAreNeverAPass) {
  state.facts.driver_version = Fact<std::string>::absent("no driver");
  EXPECT_EQ(run("cdi_spec").status, CheckStatus::error);
  state.facts.declared.set(facts::k_container_stack, Fact<facts::ContainerStack>::absent("probe failed"));
  EXPECT_EQ(run("dev_char_symlinks").status, CheckStatus::error);
  EXPECT_EQ(run("container_runtime").status, CheckStatus::error);
}

TEST_F(ContainerChecks, AMissingCharLinkFails) {
  const auto result = run("dev_char_symlinks");
  EXPECT_EQ(result.status, CheckStatus::fail);
  EXPECT_NE(result.observed.find("/dev/nvidiactl"), std::string::npos) << result.observed;
}

TEST_F(ContainerChecks, PodmanWithCdiSupportPasses) { EXPECT_EQ(run("container_runtime").status, CheckStatus::pass); }

TEST_F(ContainerChecks, TheToolkitMustBeTheInventorysVersionAndHeld) {
  for (const auto* name : {"nvidia-container-toolkit-base", "libnvidia-container1", "libnvidia-container-tools", "nvidia-container-toolkit"})
    state.packages[name] = {true, "1.17.8-1", true};
  EXPECT_EQ(run("container_toolkit").status, CheckStatus::pass);
  state.packages["nvidia-container-toolkit"] = {true, "1.17.7-1", true};
  EXPECT_EQ(run("container_toolkit").status, CheckStatus::fail);
  state.packages["nvidia-container-toolkit"] = {true, "1.17.8-1", false};
  EXPECT_EQ(run("container_toolkit").status, CheckStatus::fail);
}

TEST_F(ContainerChecks, SkippedWithoutContainers) {
  node.containers.reset();
  for (const auto* name : {"container_toolkit", "cdi_spec", "container_runtime", "dev_char_symlinks", "container_gpu", "k8s_node_ready"})
    EXPECT_EQ(run(name).status, CheckStatus::skipped) << name;
}

TEST_F(ContainerChecks, TheKubernetesContractNeedsContainerd) {
  node.containers->kubernetes_mig_strategy = "none";
  EXPECT_EQ(run("k8s_node_ready").status, CheckStatus::fail);
}

// The probe's pyxis sections around srun's answer: `srun --help` filtered as the probe filters it.
std::string pyxis_probe(const std::string& srun) {
  return "@ctk\nNVIDIA Container Toolkit CLI version 1.17.8\n@devices\n@char\n"
         "@enroot\n3.5.0\n@pyxis\nrequired /usr/lib/x86_64-linux-gnu/slurm/spank_pyxis.so\n\n@srun\n" + srun + "@mig\nDisabled\n";
}

TEST(PyxisStack, ReadsEnrootThePluginLineAndWhatSrunSaid) {
  const auto loaded = facts::parse_container_stack(pyxis_probe(read_test_data("containers/srun-help-22.05-plugin-loaded.txt")));
  ASSERT_TRUE(loaded) << loaded.error().message;
  EXPECT_TRUE(loaded->pyxis.package_conf);
  EXPECT_EQ(loaded->pyxis.plugin_line, "required /usr/lib/x86_64-linux-gnu/slurm/spank_pyxis.so");
  EXPECT_TRUE(loaded->pyxis.enroot_found);
  EXPECT_EQ(loaded->pyxis.enroot_version, "3.5.0");
  EXPECT_TRUE(loaded->pyxis.srun_section_seen);
  EXPECT_TRUE(loaded->pyxis.srun_offers_container_image);
  EXPECT_TRUE(loaded->pyxis.srun_errors.empty());
  EXPECT_EQ(loaded->mig_modes, std::vector<std::string>{"Disabled"});  // the sections after it still read

  const auto missing = facts::parse_container_stack(pyxis_probe(read_test_data("containers/srun-help-22.05-plugin-missing.txt")));
  ASSERT_TRUE(missing);
  EXPECT_FALSE(missing->pyxis.srun_offers_container_image);
  ASSERT_EQ(missing->pyxis.srun_errors.size(), 4u);
  EXPECT_EQ(missing->pyxis.srun_errors.back(), "srun: error: Plug-in initialization failed");

  const auto unconfigured = facts::parse_container_stack(pyxis_probe(read_test_data("containers/srun-help-22.05-no-config.txt")));
  ASSERT_TRUE(unconfigured);
  EXPECT_EQ(unconfigured->pyxis.srun_errors.back(), "srun: fatal: Unable to process configuration file");

  const auto no_srun = facts::parse_container_stack(pyxis_probe("no srun\n"));
  ASSERT_TRUE(no_srun);
  EXPECT_NE(no_srun->pyxis.srun_no_answer.find("slurm-client"), std::string::npos);
  const auto timed_out = facts::parse_container_stack(pyxis_probe("srun exit 124\n"));
  ASSERT_TRUE(timed_out);
  EXPECT_NE(timed_out->pyxis.srun_no_answer.find("in time"), std::string::npos);
  const auto answered = facts::parse_container_stack(pyxis_probe("srun exit 0\n"));
  ASSERT_TRUE(answered);
  EXPECT_EQ(answered->pyxis.srun_no_answer, "");
  EXPECT_TRUE(answered->pyxis.srun_errors.empty());

  const auto without = facts::parse_container_stack(probe_output(""));
  ASSERT_TRUE(without);
  EXPECT_FALSE(without->pyxis.package_conf);
  EXPECT_FALSE(without->pyxis.srun_section_seen);
}

class PyxisCheck : public ContainerChecks {
 protected:
  PyxisCheck() {
    inventory.cluster.containers.slurm_repository_url = "https://repo.example/slurm-containers";
    state.packages["enroot"] = {true, "3.5.0-1", false};
    state.packages["nvslurm-plugin-pyxis"] = {true, "0.21.0-1", false};
    set_srun(read_test_data("containers/srun-help-22.05-plugin-loaded.txt"));
  }
  void set_srun(const std::string& srun) {
    auto stack = facts::parse_container_stack(pyxis_probe(srun));
    state.facts.declared.set(facts::k_container_stack, Fact<facts::ContainerStack>::of(*stack));
  }
};

TEST_F(PyxisCheck, PassesWhereSrunOffersPyxisOption) {
  const auto result = run("slurm_pyxis");
  EXPECT_EQ(result.status, CheckStatus::pass) << result.detail;
  EXPECT_NE(result.observed.find("nvslurm-plugin-pyxis 0.21.0-1"), std::string::npos) << result.observed;
  EXPECT_NE(result.observed.find("enroot 3.5.0"), std::string::npos) << result.observed;
}

TEST_F(PyxisCheck, APyxisSlurmCannotLoadFailsWithSlurmsWords) {
  for (const auto* capture : {"containers/srun-help-22.05-plugin-missing.txt", "containers/pyxis-20.02-undefined-symbol.txt"}) {
    set_srun(read_test_data(capture));
    const auto result = run("slurm_pyxis");
    EXPECT_EQ(result.status, CheckStatus::fail) << capture;
    EXPECT_NE(result.observed.find("error: plugin_load_from_file: dlopen("), std::string::npos) << result.observed;  // the cause
    EXPECT_NE(result.detail.find("libslurm-dev"), std::string::npos) << result.detail;
  }
  set_srun("");  // srun answered, without pyxis's option and without an error: not in the stack
  const auto absent = run("slurm_pyxis");
  EXPECT_EQ(absent.status, CheckStatus::fail);
  EXPECT_NE(absent.detail.find("plugstack.conf.d/pyxis.conf"), std::string::npos) << absent.detail;
}

TEST_F(PyxisCheck, APyxisThatRefusesItsArgumentsFailsWithPyxissWordsNotARebuild) {
  set_srun(read_test_data("containers/srun-help-22.05-pyxis-refuses-argument.txt"));
  const auto refused = run("slurm_pyxis");
  EXPECT_EQ(refused.status, CheckStatus::fail);
  EXPECT_NE(refused.observed.find("srun: error: pyxis: unknown configuration option: importer=/usr/bin/x"), std::string::npos)
      << refused.observed;
  EXPECT_NE(refused.detail.find("containers.pyxis"), std::string::npos) << refused.detail;
  EXPECT_EQ(refused.detail.find("libslurm-dev"), std::string::npos) << refused.detail;  // it loaded: no rebuild
  // Only Slurm's line (a plugin whose init failed without saying why): the same judgement.
  set_srun("srun: error: spank: required plugin spank_pyxis.so: init() failed with rc=-1\nsrun: error: Plug-in initialization failed\n");
  const auto init = run("slurm_pyxis");
  EXPECT_EQ(init.status, CheckStatus::fail);
  EXPECT_NE(init.observed.find("init() failed with rc=-1"), std::string::npos) << init.observed;
  EXPECT_NE(init.detail.find("containers.pyxis"), std::string::npos) << init.detail;
  // Only pyxis's line (Slurm's after it cut off): still pyxis's refusal, not "before its plugins".
  set_srun("srun: error: pyxis: container_scope: invalid value: node\n");
  const auto alone = run("slurm_pyxis");
  EXPECT_EQ(alone.status, CheckStatus::fail) << alone.detail;
  EXPECT_NE(alone.observed.find("container_scope: invalid value: node"), std::string::npos) << alone.observed;
}

TEST_F(PyxisCheck, MissingPackagesFailAndUnknownsAreNeverAPass) {
  state.packages["nvslurm-plugin-pyxis"] = {false, "", false};
  EXPECT_EQ(run("slurm_pyxis").status, CheckStatus::fail);
  state.packages.erase("nvslurm-plugin-pyxis");
  EXPECT_EQ(run("slurm_pyxis").status, CheckStatus::error);
  state.packages["nvslurm-plugin-pyxis"] = {true, "0.21.0-1", false};
  set_srun("no slurm.conf\n");
  EXPECT_EQ(run("slurm_pyxis").status, CheckStatus::error);
  set_srun("srun exit 124\n");  // the probe's timeout: no answer, not "pyxis is not in the stack"
  EXPECT_EQ(run("slurm_pyxis").status, CheckStatus::error);
  // srun failed before its plugins (no readable slurm.conf): pyxis is not judged.
  set_srun(read_test_data("containers/srun-help-22.05-no-config.txt"));
  const auto unconfigured = run("slurm_pyxis");
  EXPECT_EQ(unconfigured.status, CheckStatus::error);
  EXPECT_NE(unconfigured.detail.find("Unable to process configuration file"), std::string::npos) << unconfigured.detail;
  state.facts.declared.set(facts::k_container_stack, Fact<facts::ContainerStack>::absent("probe failed"));
  EXPECT_EQ(run("slurm_pyxis").status, CheckStatus::error);
}

TEST_F(PyxisCheck, SkippedWhereTheStepDoesNotRun) {
  inventory.cluster.containers.slurm_repository_url.clear();
  EXPECT_EQ(run("slurm_pyxis").status, CheckStatus::skipped);
  inventory.cluster.containers.slurm_repository_url = "https://repo.example/slurm-containers";
  inventory.cluster.slurm.enabled = false;
  EXPECT_EQ(run("slurm_pyxis").status, CheckStatus::skipped);
  inventory.cluster.slurm.enabled = true;
  node.containers.reset();
  EXPECT_EQ(run("slurm_pyxis").status, CheckStatus::skipped);
}

std::string container_inventory(const std::string& cluster_extra, const std::string& containers) {
  return "cluster:\n  name: lab\n  os: ubuntu2404\n  nvidia:\n    driver_branch: \"580\"\n    driver_version: \"580.95.05\"\n"
         "  monitoring: {dcgm_exporter: false, node_exporter: false}\n" + cluster_extra +
         "groups:\n  gpu:\n    hosts: gpu01\n    vars:\n      containers: " + containers +
         "\nhosts:\n  gpu01: {address: 10.0.0.1, gpu: {model: H100, count: 1}}\n";
}

TEST(ContainersStep, PlansTheProfilesToolkitPackagesAtTheVersionAndTheDistributionsRuntime) {
  auto loaded = load_inventory_text(container_inventory("  containers: {toolkit_version: \"1.17.8\"}\n", "{runtime: containerd}"),
                                    "cluster.yaml");
  ASSERT_TRUE(loaded.ok()) << (loaded.diagnostics.empty() ? "" : loaded.diagnostics[0].to_string());
  ProgramSources sources;
  sources.templates_dir = testing::k_shipped_templates_dir;
  sources.secrets = SecretMode::masked;
  const auto program = resolve_program(*loaded.inventory, loaded.inventory->nodes[0], testing::shipped_playbooks(), sources);
  ASSERT_TRUE(program) << program.error().to_string();
  const auto plan = make_node_plan(*program, NodeState{});
  std::vector<std::string> containers;
  for (const auto& change : plan.changes)
    if (change.step == "containers") containers.push_back(change.resource);
  for (const auto* want : {"package:containerd", "package:runc", "package:nvidia-container-toolkit-base", "package:libnvidia-container1",
                           "package:libnvidia-container-tools", "package:nvidia-container-toolkit",
                           "command:nvidia-ctk runtime configure --runtime=containerd", "service:containerd",
                           "command:nvidia-ctk cdi generate --output=/etc/cdi/nvidia.yaml",
                           "command:nvidia-ctk system create-dev-char-symlinks --create-all"})
    EXPECT_NE(std::ranges::find(containers, want), containers.end()) << want;
  const bool repository = std::ranges::any_of(plan.changes, [](const Change& c) {
    return c.step == "container-repository" && c.resource == "file:/etc/apt/sources.list.d/gpuctl-nvidia-container-toolkit.list";
  });
  EXPECT_TRUE(repository);
}

// The shipped playbooks resolved for the inventory's first node; nullopt (and a test failure)
// when the inventory or the program does not load.
std::optional<NodeProgram> first_node_program(const std::string& inventory_text) {
  auto loaded = load_inventory_text(inventory_text, "cluster.yaml");
  EXPECT_TRUE(loaded.ok()) << (loaded.diagnostics.empty() ? "" : loaded.diagnostics[0].to_string());
  if (!loaded.ok()) return std::nullopt;
  ProgramSources sources;
  sources.templates_dir = testing::k_shipped_templates_dir;
  sources.secrets = SecretMode::masked;
  auto program = resolve_program(*loaded.inventory, loaded.inventory->nodes[0], testing::shipped_playbooks(), sources);
  EXPECT_TRUE(program) << program.error().to_string();
  if (!program) return std::nullopt;
  return std::move(*program);
}

// cluster: lines of a Slurm cluster with the site's repository of enroot and pyxis, plus `extra`
// under cluster.containers.
std::string slurm_containers_cluster(const std::string& extra = "") {
  const std::string key = std::string(GPUCTL_SOURCE_DIR) + "/tests/data/openpgp/repository-key.asc";
  return "  slurm: {controller: gpu01}\n  containers:\n    toolkit_version: \"1.17.8\"\n"
         "    slurm_repository: {url: \"https://repo.example/slurm\", key_file: \"" + key + "\"}\n" + extra;
}

std::vector<std::string> planned(const std::string& inventory_text, const std::string& step, std::vector<std::string>* notes = nullptr) {
  const auto program = first_node_program(inventory_text);
  if (!program) return {};
  const auto plan = make_node_plan(*program, NodeState{});
  if (notes) *notes = plan.notes;
  std::vector<std::string> resources;
  for (const auto& change : plan.changes)
    if (change.step == step) resources.push_back(change.resource);
  return resources;
}

TEST(SlurmContainersStep, InstallsEnrootAndPyxisFromTheSiteRepositoryAndPutsPyxisInTheStack) {
  const std::string slurm = "  slurm: {controller: gpu01}\n";
  const auto with = planned(container_inventory(slurm_containers_cluster(), "{runtime: podman}"), "slurm-containers");
  EXPECT_EQ(with, (std::vector<std::string>{"file:/etc/apt/keyrings/gpuctl-slurm-containers.asc",
                                            "file:/etc/apt/sources.list.d/gpuctl-slurm-containers.list", "package:enroot",
                                            "package:nvslurm-plugin-pyxis", "file:/etc/slurm/plugstack.conf.d/pyxis.conf",
                                            "handler:restart-slurmd"}));
  std::vector<std::string> notes;
  const auto without = planned(container_inventory(slurm + "  containers: {toolkit_version: \"1.17.8\"}\n", "{runtime: podman}"),
                               "slurm-containers", &notes);
  EXPECT_TRUE(without.empty());
  EXPECT_TRUE(std::ranges::any_of(notes, [](const std::string& n) { return n.find("enroot and pyxis are not installed") != std::string::npos; }));
}

// The plugstack file the slurm-containers step writes, for an inventory with `pyxis_yaml` under
// cluster.containers ("" for none).
std::string pyxis_plugstack(const std::string& pyxis_yaml) {
  const auto program = first_node_program(container_inventory(slurm_containers_cluster(pyxis_yaml), "{runtime: podman}"));
  if (!program) return {};
  for (const auto& step : program->steps)
    for (const auto& r : step.resources)
      if (r.resource.kind == ResourceKind::file && r.resource.file.path == "/etc/slurm/plugstack.conf.d/pyxis.conf") return r.content;
  ADD_FAILURE() << "no plugstack.conf.d/pyxis.conf planned";
  return {};
}

TEST(SlurmContainersStep, WritesPyxisArgumentsOnThePluginLineInPyxisOrder) {
  const auto defaults = pyxis_plugstack("");
  EXPECT_NE(defaults.find("\ninclude /usr/share/pyxis/pyxis.conf\n"), std::string::npos) << defaults;
  EXPECT_EQ(defaults.find("required "), std::string::npos) << defaults;
  // Declared in another order: written in pyxis's order.
  const auto declared = pyxis_plugstack("    pyxis: {sbatch_support: false, container_scope: job, runtime_path: /run/pyxis-jobs, execute_entrypoint: true}\n");
  EXPECT_NE(declared.find("\nrequired /usr/lib/x86_64-linux-gnu/slurm/spank_pyxis.so runtime_path=/run/pyxis-jobs "
                          "execute_entrypoint=true container_scope=job sbatch_support=false\n"),
            std::string::npos)
      << declared;
  EXPECT_EQ(declared.find("include "), std::string::npos) << declared;
}

TEST(SlurmContainersStep, ValidateRefusesPyxisArgumentsPyxisWouldRefuse) {
  const auto with = [](const std::string& pyxis) {
    return load_inventory_text(container_inventory(slurm_containers_cluster("    pyxis: " + pyxis + "\n"), "{runtime: podman}"),
                               "cluster.yaml");
  };
  // Each would stop slurmd ("pyxis: unknown configuration option", "invalid value") or split
  // the plugin line.
  for (const std::string bad : {"{importer_typo: /usr/bin/x}", "{container_scope: node}", "{sbatch_support: maybe}",
                                "{runtime_path: run/pyxis}", "{runtime_path: \"/run/py xis\"}", "{runtime_path: \"/run/pyxis #x\"}",
                                "{runtime_path: \"/run/pyxis\\nrequired /tmp/evil.so\"}", "{container_scope: [job]}", "[job]"}) {
    const auto loaded = with(bad);
    EXPECT_FALSE(loaded.ok()) << bad;
    if (loaded.ok() || loaded.diagnostics.empty()) continue;
    EXPECT_NE(loaded.diagnostics[0].to_string().find("cluster.yaml:"), std::string::npos) << loaded.diagnostics[0].to_string();
  }
  const auto scope = with("{container_scope: node}");
  ASSERT_FALSE(scope.diagnostics.empty());
  EXPECT_NE(scope.diagnostics[0].to_string().find("job"), std::string::npos) << scope.diagnostics[0].to_string();
  const auto unknown = with("{importer_typo: /usr/bin/x}");
  ASSERT_FALSE(unknown.diagnostics.empty());
  EXPECT_NE(unknown.diagnostics[0].to_string().find("container_scope"), std::string::npos) << unknown.diagnostics[0].to_string();
  EXPECT_TRUE(with("{container_scope: global, use_enroot_load: false}").ok());
}

TEST(ContainersStep, ValidateRefusesWhatTheStepCannotServe) {
  const auto no_version = load_inventory_text(container_inventory("", "{runtime: podman}"), "cluster.yaml");
  ASSERT_FALSE(no_version.ok());
  EXPECT_NE(no_version.diagnostics[0].message.find("toolkit_version"), std::string::npos) << no_version.diagnostics[0].message;
  const auto bad_runtime = load_inventory_text(container_inventory("  containers: {toolkit_version: \"1.17.8\"}\n", "{runtime: lxc}"),
                                               "cluster.yaml");
  EXPECT_FALSE(bad_runtime.ok());
  const auto hostile = load_inventory_text(
      container_inventory("  containers: {toolkit_version: \"1.17.8\"}\n", "{runtime: podman, gpu_test_image: \"x;reboot\"}"),
      "cluster.yaml");
  EXPECT_FALSE(hostile.ok());
  const auto unquoted = load_inventory_text(container_inventory("  containers: {toolkit_version: 1.17}\n", "{runtime: podman}"),
                                            "cluster.yaml");
  EXPECT_FALSE(unquoted.ok());
}

}  // namespace
}  // namespace gpuctl
