// From probe outputs to NodeFacts, and the one round trip that gathers them.
#include <gpuctl/facts/collect.hpp>
#include <gpuctl/facts/parsers.hpp>
#include <gpuctl/util/strings.hpp>

#include "fact_catalog.hpp"
#include "parse_util.hpp"

#include <fmt/format.h>
#include <random>

namespace gpuctl::facts {
namespace {

void fill_driver(NodeFacts& facts, const Probes& probes) {
  const auto it = probes.find("driver");
  if (it != probes.end() && it->second.exit_code != 0 && it->second.err.find("No such file") != std::string::npos) {
    const std::string why = "no NVIDIA kernel module is loaded (/proc/driver/nvidia/version does not exist)";
    facts.driver_version = Fact<std::string>::absent(why);
    facts.driver_open_kernel_module = Fact<bool>::absent(why);
    return;
  }
  const auto module = parse_fact<NvidiaKernelModule>(probes, "driver", "/proc/driver/nvidia/version",
                                                     parse_nvidia_driver_version);
  if (!module.present()) {
    facts.driver_version = Fact<std::string>::absent(module.absent_reason);
    facts.driver_open_kernel_module = Fact<bool>::absent(module.absent_reason);
    return;
  }
  facts.driver_version = Fact<std::string>::of(module.value->version);
  facts.driver_open_kernel_module = Fact<bool>::of(module.value->open);
}

// Who installed nvidia-smi. A probe that could not answer (no dpkg-query, dpkg failing, output
// cut off) leaves the fact absent with why: never a guess from what is left.
void fill_driver_origin(NodeFacts& facts, const Probes& probes) {
  if (auto failure = probe_failure(probes, "driver_origin", "driver origin")) {
    facts.driver_origin = Fact<DriverOrigin>::absent(std::move(*failure));
    return;
  }
  auto origin = parse_driver_origin(probes.at("driver_origin").out);
  if (!origin) {
    facts.driver_origin = Fact<DriverOrigin>::absent("driver origin: " + origin.error().message);
    return;
  }
  facts.driver_origin = Fact<DriverOrigin>::of(std::move(*origin));
}

void fill_packages(NodeFacts& facts, const Probes& probes) {
  const auto it = probes.find("packages");
  // dpkg-query exits 1 when some pattern matches no package; that is not a failure.
  const bool ran = it != probes.end() && (it->second.exit_code == 0 || it->second.exit_code == 1);
  if (!ran) {
    facts.packages_absent_reason = probe_failure(probes, "packages", "dpkg-query").value_or("dpkg-query failed");
    return;
  }
  auto packages = parse_dpkg_query(it->second.out);
  if (!packages) {
    facts.packages_absent_reason = "dpkg-query: unexpected output: " + packages.error().message;
    return;
  }
  facts.packages = std::move(*packages);
}

// The toolkit's version.json when it has one, else what nvcc printed.
Result<std::string> parse_cuda_probe(std::string_view text) {
  if (util::trim(text).starts_with("{")) return parse_cuda_version_json(text);
  return parse_nvcc_version(text);
}

void fill_cuda(NodeFacts& facts, const Probes& probes) {
  const auto it = probes.find("cuda");
  const auto what = it == probes.end() ? std::string("CUDA toolkit") : cuda_probe_command(it->second.out);
  facts.cuda_version = parse_fact<std::string>(probes, "cuda", what, parse_cuda_probe);
  if (facts.cuda_version.present()) return;
  // No version.json and no nvcc on PATH or in /usr/local/cuda/bin: the toolkit's nvcc package
  // still says which CUDA.
  for (const auto& [name, version] : facts.packages)
    if (name.starts_with("cuda-nvcc-")) {
      facts.cuda_version = Fact<std::string>::of(version.substr(0, version.find('-')));
      return;
    }
}

void fill_nccl(NodeFacts& facts, const Probes& probes) {
  if (auto version = nccl_version_from_packages(facts.packages)) {
    facts.nccl_version = Fact<std::string>::of(std::move(*version));
    return;
  }
  if (const auto it = probes.find("nccl_libraries"); it != probes.end())
    if (auto version = nccl_version_from_library_paths(it->second.out)) {
      facts.nccl_version = Fact<std::string>::of(std::move(*version));
      return;
    }
  facts.nccl_version = Fact<std::string>::absent(
      "NCCL not found: libnccl2 is not installed and no versioned libnccl.so.X.Y.Z is in the linker's directories");
}

void fill_gpus(NodeFacts& facts, const Probes& probes) {
  const auto it = probes.find("gpus");
  if (it == probes.end()) {
    facts.gpus = Fact<std::vector<GpuInfo>>::absent("nvidia-smi: the probe's output is missing from the batch");
    return;
  }
  if (auto failure = classify_nvidia_smi_failure(it->second.exit_code, it->second.out, it->second.err)) {
    facts.gpus = Fact<std::vector<GpuInfo>>::absent(std::move(*failure));
    return;
  }
  auto gpus = parse_gpu_query(it->second.out);
  if (!gpus) {
    facts.gpus = Fact<std::vector<GpuInfo>>::absent("nvidia-smi --query-gpu: unexpected output: " + gpus.error().message);
    return;
  }
  // Remapped rows are a refinement: when that probe fails, those two fields stay unset.
  if (const auto rows_it = probes.find("remapped_rows"); rows_it != probes.end() && rows_it->second.exit_code == 0)
    if (const auto repairs = parse_memory_repair_q(rows_it->second.out)) merge_memory_repair(*gpus, *repairs);
  facts.gpus = Fact<std::vector<GpuInfo>>::of(std::move(*gpus));
}

std::string random_nonce() {
  std::random_device device;
  return fmt::format("{:08x}{:08x}", device(), device());
}

// Every probe's command and output, for checks to cite (verify/checks.hpp).
void fill_sources(NodeFacts& facts, const Probes& probes) {
  for (const auto& [name, probe] : probes) {
    if (name == k_state_probe) continue;  // the planner's: file contents, never a check's source
    std::string output = probe.out;
    if (!util::trim(probe.err).empty()) output += (output.empty() || output.ends_with('\n') ? "" : "\n") + std::string("[stderr]\n") + probe.err;
    const auto command = name == "cuda" ? cuda_probe_command(probe.out) : probe_command(name);
    facts.sources[name] = {command, trim_output(output, k_source_output_limit), probe.exit_code};
  }
}

}  // namespace

NodeFacts facts_from_probes(std::string node, const Probes& probes) {
  NodeFacts facts;
  facts.node = std::move(node);
  facts.os = parse_fact<OsRelease>(probes, "os_release", "/etc/os-release", parse_os_release);
  facts.kernel = parse_fact<std::string>(probes, "kernel", "/proc/sys/kernel/osrelease", parse_kernel_release);
  facts.boot_id = parse_fact<std::string>(probes, "boot_id", "/proc/sys/kernel/random/boot_id", parse_boot_id);
  facts.uptime_s = parse_fact<double>(probes, "uptime", "/proc/uptime", parse_uptime);
  facts.loaded_modules = parse_fact<std::vector<std::string>>(probes, "modules", "/proc/modules", parse_proc_modules);
  fill_driver(facts, probes);
  fill_driver_origin(facts, probes);
  fill_packages(facts, probes);
  fill_cuda(facts, probes);
  fill_nccl(facts, probes);
  fill_gpus(facts, probes);
  for (const auto* fact : fact_catalog())
    if (fact->fill) fact->fill(facts, probes);
  fill_sources(facts, probes);
  return facts;
}

Result<ProbeBatch> run_probe_batch(Transport& transport, const CollectOptions& options, bool become) {
  const auto nonce = options.marker_nonce.empty() ? random_nonce() : options.marker_nonce;
  CommandOptions command_options;
  command_options.timeout = options.script_timeout;
  command_options.stdin_data = build_probe_script(nonce, options);
  command_options.become = become;
  // sh, not the login shell: a POSIX shell whatever the account's shell is, and no profile.
  auto result = transport.run("sh -s", command_options);
  if (!result) return std::unexpected(result.error());
  auto probes = split_probe_output(result->out, nonce, result->err);
  if (!probes) {
    auto error = probes.error();
    error.where.node = transport.node();
    return std::unexpected(error);
  }
  if (probes->empty()) {
    Location where;
    where.node = transport.node();
    return fail(ErrorCode::parse,
                fmt::format("the facts script printed no probe output (exit status {}): {}", result->exit_code,
                            util::tail_lines(result->err.empty() ? result->out : result->err, 3)),
                where, "the node needs a POSIX /bin/sh on the account's PATH as `sh`");
  }
  return ProbeBatch{std::move(*probes), result->duration};
}

Result<NodeFacts> collect_facts(Transport& transport, const CollectOptions& options) {
  auto batch = run_probe_batch(transport, options);
  if (!batch) return std::unexpected(batch.error());
  return facts_from_probes(transport.node(), batch->probes);
}

}  // namespace gpuctl::facts
