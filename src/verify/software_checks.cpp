// CUDA and NCCL on the node: the toolkit's version, NCCL's presence, /etc/nccl.conf.
#include "check_result.hpp"
#include "check_sources.hpp"

#include <gpuctl/plan/plan.hpp>
#include <gpuctl/verify/catalog.hpp>

#include <fmt/format.h>

namespace gpuctl::verify_detail {
namespace {

constexpr std::string_view k_nccl_conf = "/etc/nccl.conf";

CheckResult cuda_version(const CheckInput& in) {
  const auto& cuda = in.state.facts.cuda_version;
  const auto& wanted = in.inventory.cluster.nvidia.cuda_version;
  if (!cuda.present()) return cannot_run(absent_reason(cuda, "CUDA toolkit"));
  // Whole version components: "12.4" matches 12.4.131, not 12.40.
  const bool same = *cuda.value == wanted || cuda.value->starts_with(wanted + ".");
  return same ? pass(*cuda.value, wanted) : failed(*cuda.value, wanted);
}

// NCCL is there; where the profile pins a build (libnccl2 2.21.5-1+cuda12.4 for the inventory's
// CUDA), that build, held: another build may need a newer CUDA than the driver supports.
CheckResult nccl_present(const CheckInput& in) {
  const auto& nccl = in.state.facts.nccl_version;
  if (!nccl.present()) return failed("absent", "installed", nccl.absent_reason);
  const auto& packages = in.inventory.cluster.packages;
  const auto name = packages.package("nccl");
  const auto wanted = packages.version("nccl");
  if (name.empty() || wanted.empty()) return pass(*nccl.value, "installed");
  const auto& cuda = in.inventory.cluster.nvidia.cuda_version;
  const auto expected = fmt::format("{} {} (built for the inventory's CUDA {}), held", name, wanted, cuda);
  const auto it = in.state.packages.find(name);
  if (it == in.state.packages.end()) return cannot_run(fmt::format("the state probe did not ask dpkg for {}", name));
  const auto& package = it->second;
  if (!package.installed)
    return failed(fmt::format("NCCL {}, not from {}", *nccl.value, name), expected,
                  fmt::format("a libnccl.so that no {} package installed: gpuctl apply installs {}={}", name, name, wanted));
  const auto observed = fmt::format("{} {}{}", name, package.version, package.held ? ", held" : ", not held");
  if (!version_matches(package.version, wanted))
    return failed(observed, expected,
                  fmt::format("another build than the profile's for CUDA {}: gpuctl apply installs {}={} and holds it",
                              cuda, name, wanted));
  if (!package.held)
    return failed(observed, expected, fmt::format("not held: apt may replace it with a build for another CUDA (apt-mark hold {})", name));
  return pass(observed, expected);
}

CheckResult nccl_conf(const CheckInput& in) {
  for (const auto& step : in.program.steps)
    for (const auto& resource : step.resources)
      if (resource.resource.kind == ResourceKind::file && resource.resource.file.path == k_nccl_conf) {
        const auto it = in.state.files.find(std::string(k_nccl_conf));
        if (it == in.state.files.end()) return cannot_run("/etc/nccl.conf was not read");
        if (!it->second.exists) return failed("missing", "rendered from the inventory");
        return it->second.digest == resource.content_digest
                   ? pass("matches the inventory", "rendered from the inventory")
                   : failed("differs", "rendered from the inventory", "run gpuctl plan to see the diff");
      }
  return cannot_run("the program manages no /etc/nccl.conf");
}

void cite_nccl_conf(CheckResult& result, const CheckInput& in) {
  result.command = fmt::format("sha256sum {}", k_nccl_conf);
  const auto it = in.state.files.find(std::string(k_nccl_conf));
  if (it == in.state.files.end()) result.output = "(the state probe did not read it: the program manages no /etc/nccl.conf)";
  else result.output = it->second.exists ? fmt::format("{}  {}", it->second.digest, k_nccl_conf) : "(no such file)";
}

const CheckRegistration k_cuda{{
    .name = "cuda_version",
    .description = "CUDA toolkit of the inventory's version",
    .section = CheckSection::software,
    .facts = {"cuda"},
    .judge = cuda_version,
}};

const CheckRegistration k_nccl{{
    .name = "nccl_present",
    .description = "NCCL installed; where the profile pins one, the build for the inventory's CUDA, held",
    .section = CheckSection::software,
    .facts = {"nccl_libraries"},
    .judge = nccl_present,
}};

const CheckRegistration k_nccl_conf_check{{
    .name = "nccl_conf",
    .description = "/etc/nccl.conf matches the inventory",
    .section = CheckSection::software,
    .judge = nccl_conf,
    .cite = cite_nccl_conf,
    .source = "sha256sum /etc/nccl.conf",
}};

}  // namespace
}  // namespace gpuctl::verify_detail
