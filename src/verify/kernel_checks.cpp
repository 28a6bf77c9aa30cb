// The kernel's side of the driver: nouveau gone, nvidia loaded, at the inventory's version.
#include "check_result.hpp"
#include "check_sources.hpp"

#include <gpuctl/plan/plan.hpp>
#include <gpuctl/verify/catalog.hpp>

#include <algorithm>

namespace gpuctl::verify_detail {
namespace {

bool module_loaded(const NodeFacts& facts, std::string_view name) {
  return std::ranges::find(*facts.loaded_modules.value, name) != facts.loaded_modules.value->end();
}

CheckResult nouveau_not_loaded(const CheckInput& in) {
  const auto& modules = in.state.facts.loaded_modules;
  if (!modules.present()) return cannot_run(absent_reason(modules, "loaded modules"));
  return module_loaded(in.state.facts, "nouveau")
             ? failed("nouveau loaded", "not loaded", "blacklist it and rebuild the initramfs, then reboot")
             : pass("not loaded", "not loaded");
}

CheckResult nvidia_loaded(const CheckInput& in) {
  const auto& modules = in.state.facts.loaded_modules;
  if (!modules.present()) return cannot_run(absent_reason(modules, "loaded modules"));
  return module_loaded(in.state.facts, "nvidia") ? pass("loaded", "loaded") : failed("not loaded", "loaded");
}

CheckResult driver_version(const CheckInput& in) {
  const auto& wanted = in.inventory.cluster.nvidia.driver_version;
  const auto& loaded = in.state.facts.driver_version;
  if (!loaded.present()) return cannot_run(absent_reason(loaded, "loaded driver"));
  const auto package = in.inventory.cluster.packages.package("driver");
  const auto it = in.state.packages.find(package);
  const std::string installed = it != in.state.packages.end() && it->second.installed ? it->second.version : "";
  const auto observed = fmt::format("loaded {}, package {}", *loaded.value, installed.empty() ? "not installed" : installed);
  if (*loaded.value != wanted) return failed(observed, wanted, "the loaded module differs from the inventory");
  if (!installed.empty() && !version_matches(installed, wanted))
    return failed(observed, wanted, "the installed package differs from the loaded module: reboot");
  return pass(observed, wanted);
}

const CheckRegistration k_nouveau{{
    .name = "nouveau_not_loaded",
    .description = "the nouveau module is not loaded",
    .section = CheckSection::kernel,
    .facts = {"modules"},
    .judge = nouveau_not_loaded,
    .cite = [](CheckResult& r, const CheckInput& in) { cite_module_lines(r, in.state.facts, "nouveau"); },
    .source = "cat /proc/modules (nouveau's line)",
}};

const CheckRegistration k_nvidia{{
    .name = "nvidia_loaded",
    .description = "the nvidia module is loaded",
    .section = CheckSection::kernel,
    .facts = {"modules"},
    .judge = nvidia_loaded,
    .cite = [](CheckResult& r, const CheckInput& in) { cite_module_lines(r, in.state.facts, "nvidia"); },
    .source = "cat /proc/modules (nvidia's line)",
}};

const CheckRegistration k_driver_version{{
    .name = "driver_version",
    .description = "loaded driver = installed package = inventory",
    .section = CheckSection::kernel,
    .facts = {"driver"},
    .judge = driver_version,
}};

}  // namespace
}  // namespace gpuctl::verify_detail
