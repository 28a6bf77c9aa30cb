// verify's container checks (docs/containers.md): the toolkit at the inventory's version, the
// runtime that knows the nvidia runtime or CDI, a CDI spec that is current for the loaded driver
// and lists every GPU, the /dev/char links runc needs, a real container through CDI, and the
// node-side contract of a Kubernetes GPU node. Each is skipped on a node without `containers`.
#include "check_result.hpp"
#include "check_sources.hpp"

#include <gpuctl/facts/collect.hpp>
#include <gpuctl/facts/containers.hpp>
#include <gpuctl/plan/plan.hpp>
#include <gpuctl/util/strings.hpp>
#include <gpuctl/verify/catalog.hpp>
#include <gpuctl/verify/container_run.hpp>

#include <fmt/format.h>

#include <algorithm>
#include <charconv>
#include <set>

namespace gpuctl::verify_detail {
namespace {

constexpr std::string_view k_not_declared = "the node declares no containers";
constexpr std::string_view k_generate = "nvidia-ctk cdi generate --output=/etc/cdi/nvidia.yaml";

// The toolkit's packages the containers step installs, in its order.
std::vector<std::string> toolkit_rows(const ContainerSpec& spec) {
  if (spec.cdi_only) return {"container_toolkit_base"};
  return {"container_toolkit_base", "libnvidia_container", "libnvidia_container_tools", "container_toolkit"};
}

CheckResult container_toolkit(const CheckInput& in) {
  if (!in.node.containers) return skipped(std::string(k_not_declared));
  const auto& wanted = in.inventory.cluster.containers.toolkit_version;
  const auto& packages = in.inventory.cluster.packages;
  std::vector<std::string> seen;
  std::string main_package;
  for (const auto& row : toolkit_rows(*in.node.containers)) {
    const auto name = packages.package(row);
    if (name.empty()) return cannot_run(fmt::format("the package profile names no {} package", row));
    main_package = name;
    const auto it = in.state.packages.find(name);
    if (it == in.state.packages.end()) return cannot_run(fmt::format("the state probe did not ask dpkg for {}", name));
    const auto& p = it->second;
    const auto expected = fmt::format("{} {}, held", name, wanted);
    if (!p.installed) return failed(fmt::format("{} not installed", name), expected, "gpuctl apply installs it (the containers step)");
    const auto observed = fmt::format("{} {}{}", name, p.version, p.held ? ", held" : ", not held");
    if (!version_matches(p.version, wanted))
      return failed(observed, expected, fmt::format("another version than the inventory's: gpuctl apply installs {} and holds it", wanted));
    if (!p.held) return failed(observed, expected, fmt::format("not held: an apt upgrade may move it (apt-mark hold {})", name));
    seen.push_back(observed);
  }
  const auto stack = in.state.facts.declared.get(facts::k_container_stack);
  if (!stack.present()) return cannot_run(absent_reason(stack, "the container stack"));
  const auto expected = fmt::format("NVIDIA Container Toolkit {} ({}), held; nvidia-ctk {}", wanted, main_package, wanted);
  if (!stack.value->ctk_found)
    return failed(util::join(seen, "; ") + "; no nvidia-ctk on the PATH", expected, "reinstall the toolkit's base package");
  const auto observed = fmt::format("{}; nvidia-ctk {}", util::join(seen, "; "), stack.value->ctk_version);
  if (stack.value->ctk_version != wanted) return failed(observed, expected, "nvidia-ctk is not the packages' version: another copy on the PATH?");
  return pass(observed, expected);
}

// Why a CDI spec does not serve the node's GPUs on the loaded driver; empty when it does.
std::string spec_problem(const facts::CdiSpec& spec, const std::vector<GpuInfo>& gpus, const std::string& driver) {
  if (!spec.error.empty()) return fmt::format("{}: {}", spec.path, spec.error);
  if (spec.kind != "nvidia.com/gpu") return fmt::format("{}: kind {}, not nvidia.com/gpu", spec.path, spec.kind);
  std::vector<std::string> missing;
  for (const auto& gpu : gpus)
    if (std::ranges::find(spec.device_names, gpu.uuid) == spec.device_names.end())
      missing.push_back(fmt::format("GPU {} {}", gpu.index, gpu.uuid));
  if (!missing.empty()) return fmt::format("{} lists no device for {}", spec.path, util::join(missing, ", "));
  if (std::ranges::find(spec.device_names, "all") == spec.device_names.end())
    return fmt::format("{} has no device 'all' (nvidia.com/gpu=all)", spec.path);
  if (spec.nvml_versions.empty()) return fmt::format("{} mounts no libnvidia-ml.so.<version>", spec.path);
  if (spec.nvml_versions != std::vector<std::string>{driver})
    return fmt::format("{} mounts libnvidia-ml.so.{} but driver {} is loaded: stale (generated before a driver change)",
                       spec.path, util::join(spec.nvml_versions, ", .so."), driver);
  return {};
}

CheckResult cdi_spec(const CheckInput& in) {
  if (!in.node.containers) return skipped(std::string(k_not_declared));
  const auto stack = in.state.facts.declared.get(facts::k_container_stack);
  if (!stack.present()) return cannot_run(absent_reason(stack, "the container stack"));
  const auto& driver = in.state.facts.driver_version;
  if (!driver.present()) return cannot_run(absent_reason(driver, "the loaded driver's version"));
  const auto& gpus = in.state.facts.gpus;
  if (!gpus.present()) return cannot_run(absent_reason(gpus, "GPUs"));
  if (gpus.value->empty()) return cannot_run("nvidia-smi lists no GPU: the spec cannot be held to the node's");
  const auto expected = fmt::format("a CDI spec (nvidia.com/gpu) with every GPU's UUID and 'all', mounting the libraries of "
                                    "driver {}",
                                    *driver.value);
  const auto fix = fmt::format("gpuctl apply regenerates it ({})", k_generate);
  if (stack.value->specs.empty()) return failed("no /etc/cdi/nvidia.yaml or /var/run/cdi/nvidia.yaml", expected, fix);
  std::vector<std::string> problems, paths;
  for (const auto& spec : stack.value->specs) {
    paths.push_back(fmt::format("{} ({} devices, driver {})", spec.path, spec.device_names.size(),
                                spec.nvml_versions.empty() ? "?" : util::join(spec.nvml_versions, "/")));
    if (auto problem = spec_problem(spec, *gpus.value, *driver.value); !problem.empty()) problems.push_back(std::move(problem));
  }
  if (!problems.empty()) return failed(util::join(problems, "; "), expected, fix);
  return pass(util::join(paths, "; "), expected);
}

// "4.3.1" >= 4.1: podman reads CDI specs itself from 4.1 on (its --device NAME=... form).
bool podman_knows_cdi(std::string_view version) {
  int major = 0, minor = 0;
  const auto dot = version.find('.');
  if (dot == std::string_view::npos) return false;
  std::from_chars(version.data(), version.data() + dot, major);
  std::from_chars(version.data() + dot + 1, version.data() + version.size(), minor);
  return major > 4 || (major == 4 && minor >= 1);
}

CheckResult container_runtime(const CheckInput& in) {
  if (!in.node.containers) return skipped(std::string(k_not_declared));
  const auto stack = in.state.facts.declared.get(facts::k_container_stack);
  if (!stack.present()) return cannot_run(absent_reason(stack, "the container stack"));
  const auto& s = *stack.value;
  const auto& spec = *in.node.containers;
  if (spec.runtime == "podman") {
    const std::string expected = "podman 4.1 or later (it reads CDI specs itself)";
    if (s.podman_version.empty()) return failed("podman not installed", expected, "gpuctl apply installs it (package podman)");
    const auto observed = "podman " + s.podman_version;
    return podman_knows_cdi(s.podman_version) ? pass(observed, expected)
                                              : failed(observed, expected, "this podman has no CDI support: upgrade it");
  }
  const bool containerd = spec.runtime == "containerd";
  const bool config = containerd ? s.containerd_config : s.docker_config;
  const bool knows = spec.cdi_only && containerd ? s.containerd_cdi : (containerd ? s.containerd_nvidia_runtime : s.docker_nvidia_runtime);
  const auto file = containerd ? "/etc/containerd/config.toml" : "/etc/docker/daemon.json";
  const auto expected = fmt::format("{} running, {} {}", spec.runtime, file,
                                    spec.cdi_only && containerd ? "with enable_cdi = true" : "naming the nvidia runtime");
  const auto fix = fmt::format("gpuctl apply runs nvidia-ctk runtime configure --runtime={}{} and restarts it", spec.runtime,
                               spec.cdi_only && containerd ? " --cdi.enabled" : "");
  if (!config) return failed(fmt::format("no {}", file), expected, fix);
  if (!knows) return failed(fmt::format("{} {}", file, spec.cdi_only && containerd ? "does not enable CDI" : "has no nvidia runtime"), expected, fix);
  auto running = service_active(in, container_runtime_service(spec.runtime));
  if (running.status != CheckStatus::pass) return running.status == CheckStatus::fail ? failed(running.observed, expected, fix) : running;
  return pass(fmt::format("{} running, {} {}", spec.runtime, file, spec.cdi_only && containerd ? "enables CDI" : "names the nvidia runtime"),
              expected);
}

CheckResult dev_char_symlinks(const CheckInput& in) {
  if (!in.node.containers) return skipped(std::string(k_not_declared));
  const auto stack = in.state.facts.declared.get(facts::k_container_stack);
  if (!stack.present()) return cannot_run(absent_reason(stack, "the container stack"));
  const std::string expected = "every /dev/nvidia* character device has its /dev/char/MAJOR:MINOR link";
  const std::string fix = "gpuctl apply runs nvidia-ctk system create-dev-char-symlinks --create-all (and writes the udev rule "
                          "that makes them at every driver load)";
  const auto& nodes = stack.value->device_nodes;
  std::vector<std::string> missing, not_char;
  int chars = 0;
  for (const auto& node : nodes) {
    if (!node.is_char_device) {
      not_char.push_back(node.path);
      continue;
    }
    ++chars;
    if (node.char_link_target != node.path) missing.push_back(fmt::format("{} ({})", node.path, node.major_minor));
  }
  if (!not_char.empty())
    return failed(fmt::format("{} not a character device", util::join(not_char, ", ")), expected,
                  "the driver's device nodes are wrong (nvidia-modprobe, or udev, makes them)");
  if (chars == 0) return failed("no /dev/nvidia* device node", expected, "the NVIDIA driver is not loaded, or nothing made its nodes");
  if (!missing.empty())
    return failed(fmt::format("no /dev/char link for {}", util::join(missing, ", ")), expected,
                  fix + "; without them a systemctl daemon-reload takes the GPUs from running containers "
                        "(\"Failed to initialize NVML: Unknown Error\")");
  return pass(fmt::format("{} device nodes, each linked from /dev/char", chars), expected);
}

CheckResult container_gpu(const CheckInput& in) {
  if (!in.node.containers) return skipped(std::string(k_not_declared));
  if (in.node.containers->gpu_test_image.empty()) return skipped("no containers.gpu_test_image declared");
  if (!in.container_run) return skipped("runs only in gpuctl verify");
  const auto& run = *in.container_run;
  if (!run.problem.empty()) return cannot_run(fmt::format("the container could not be started: {}", run.problem));
  const auto& gpus = in.state.facts.gpus;
  if (!gpus.present()) return cannot_run(absent_reason(gpus, "the node's GPUs"));
  std::vector<std::string> node_uuids;
  for (const auto& gpu : *gpus.value) node_uuids.push_back(gpu.uuid);
  const auto expected = fmt::format("nvidia-smi -L in a container of {} lists the node's {} GPUs", in.node.containers->gpu_test_image,
                                    node_uuids.size());
  if (run.exit_code != 0)
    return failed(fmt::format("exit status {}: {}", run.exit_code, util::trim(util::tail_lines(run.err.empty() ? run.out : run.err, 3))),
                  expected, "see the runtime's message (a missing image: load it into the node's runtime; no CDI device: cdi_spec)");
  auto seen = listed_gpu_uuids(run.out);
  auto want = node_uuids;
  std::ranges::sort(seen);
  std::ranges::sort(want);
  const auto observed = fmt::format("the container lists {} GPUs", seen.size());
  if (seen != want) {
    std::vector<std::string> extra, lacking;
    std::ranges::set_difference(seen, want, std::back_inserter(extra));
    std::ranges::set_difference(want, seen, std::back_inserter(lacking));
    return failed(observed, expected,
                  fmt::format("{}{}", lacking.empty() ? "" : "missing in the container: " + util::join(lacking, ", ") + " ",
                              extra.empty() ? "" : "not the node's: " + util::join(extra, ", ")));
  }
  return pass(fmt::format("{} (the node's: {})", observed, util::join(want, ", ")), expected);
}

void cite_container_run(CheckResult& result, const CheckInput& in) {
  if (!in.container_run) {
    result.command = "(not run)";
    result.output = "(the container runs only in gpuctl verify, with containers.gpu_test_image)";
    return;
  }
  result.command = in.container_run->command;
  result.output = facts::trim_output(in.container_run->problem.empty() ? in.container_run->out + in.container_run->err
                                                                        : in.container_run->problem,
                                     k_source_output_limit);
}

// What the GPU Operator (driver.enabled=false, toolkit.enabled=false) and the device plugin
// expect of a node whose driver and toolkit are preinstalled.
CheckResult k8s_node_ready(const CheckInput& in) {
  if (!in.node.containers) return skipped(std::string(k_not_declared));
  const auto& strategy = in.node.containers->kubernetes_mig_strategy;
  if (strategy.empty()) return skipped("the node is not handed to Kubernetes (containers.kubernetes)");
  const auto expected = fmt::format("driver loaded, toolkit's nvidia-container-runtime, containerd with the nvidia runtime "
                                    "(RuntimeClass handler nvidia), a current CDI spec, /dev/char links, MIG modes fit "
                                    "mig.strategy={}",
                                    strategy);
  if (in.node.containers->runtime != "containerd")
    return failed(fmt::format("runtime {}", in.node.containers->runtime), expected,
                  "kubelet talks CRI: containerd (docker needs cri-dockerd; podman is no CRI runtime). Set containers.runtime: containerd");
  for (const auto judge : {container_runtime, cdi_spec, dev_char_symlinks}) {
    auto part = judge(in);
    if (part.status == CheckStatus::error) return part;
    if (part.status == CheckStatus::fail) return failed(part.observed, expected, part.detail);
  }
  const auto stack = in.state.facts.declared.get(facts::k_container_stack);
  if (!stack.present()) return cannot_run(absent_reason(stack, "the container stack"));
  const auto& modes = stack.value->mig_modes;
  if (modes.empty()) return cannot_run("nvidia-smi did not report the GPUs' MIG modes");
  const auto enabled = std::ranges::count(modes, std::string("Enabled"));
  const auto observed = fmt::format("containerd with the nvidia runtime, CDI spec current, MIG enabled on {} of {} GPUs", enabled, modes.size());
  if (strategy == "none" && enabled > 0)
    return failed(observed, expected, "mig.strategy=none hands out whole GPUs: disable MIG, or declare single or mixed");
  if (strategy == "single" && enabled != static_cast<long>(modes.size()))
    return failed(observed, expected, "mig.strategy=single needs MIG on every GPU with one profile: enable it, or declare mixed");
  return pass(observed, expected);
}

const CheckRegistration k_toolkit{{
    .name = "container_toolkit",
    .description = "NVIDIA Container Toolkit at cluster.containers.toolkit_version, held; nvidia-ctk of that version",
    .section = CheckSection::containers,
    .facts = {facts::k_container_stack.name},
    .judge = container_toolkit,
    .source = "dpkg-query of the toolkit's packages; nvidia-ctk --version",
}};

const CheckRegistration k_cdi_spec{{
    .name = "cdi_spec",
    .description = "the CDI spec lists every GPU by UUID and mounts the loaded driver's libraries (stale after a driver change)",
    .section = CheckSection::containers,
    .facts = {facts::k_container_stack.name},
    .judge = cdi_spec,
    .source = "cat /etc/cdi/nvidia.yaml /var/run/cdi/nvidia.yaml",
}};

const CheckRegistration k_runtime{{
    .name = "container_runtime",
    .description = "the container runtime knows the nvidia runtime or CDI (podman: 4.1 or later) and runs",
    .section = CheckSection::containers,
    .facts = {facts::k_container_stack.name},
    .judge = container_runtime,
    .source = "grep nvidia-container-runtime /etc/containerd/config.toml /etc/docker/daemon.json; podman --version",
}};

const CheckRegistration k_dev_char{{
    .name = "dev_char_symlinks",
    .description = "every /dev/nvidia* device has its /dev/char link (else containers lose their GPUs at a daemon-reload)",
    .section = CheckSection::containers,
    .facts = {facts::k_container_stack.name},
    .judge = dev_char_symlinks,
    .source = "ls -ld /dev/nvidia*; ls -l /dev/char",
}};

const CheckRegistration k_container_gpu{{
    .name = "container_gpu",
    .description = "a container of containers.gpu_test_image run through CDI (nvidia.com/gpu=all) sees exactly the node's GPUs",
    .section = CheckSection::containers,
    .facts = {"gpus"},
    .runner = NodeRunner::container_gpu,
    .judge = container_gpu,
    .cite = cite_container_run,
    .source = "podman run --rm --device nvidia.com/gpu=all IMAGE nvidia-smi -L (docker, ctr: through the nvidia runtime)",
}};

const CheckRegistration k_k8s{{
    .name = "k8s_node_ready",
    .description = "the node-side contract of the GPU Operator (driver and toolkit preinstalled) and the device plugin",
    .section = CheckSection::containers,
    .facts = {facts::k_container_stack.name, "gpus"},
    .judge = k8s_node_ready,
    .source = "the container stack (nvidia-smi --query-gpu=mig.mode.current, containerd's config, the CDI spec)",
}};

}  // namespace
}  // namespace gpuctl::verify_detail
