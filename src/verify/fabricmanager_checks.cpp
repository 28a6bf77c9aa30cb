// NVSwitch boards' fabric manager: running, and at exactly the loaded driver's version.
#include "check_result.hpp"
#include "check_sources.hpp"

#include <gpuctl/plan/plan.hpp>
#include <gpuctl/util/strings.hpp>
#include <gpuctl/verify/catalog.hpp>

namespace gpuctl::verify_detail {
namespace {

CheckResult no_nvswitch() { return skipped("no NVSwitch on this node (gpu.nvswitch, or not an 8-GPU HGX board)"); }

std::string fabricmanager_service(const Inventory& inventory) { return inventory.cluster.packages.service("fabricmanager"); }

// Failed, never enabled and not installed have different fixes: say which.
CheckResult fabricmanager_active(const CheckInput& in) {
  if (!has_nvswitch(in.node.gpu)) return no_nvswitch();
  const auto service = fabricmanager_service(in.inventory);
  auto result = service_active(in, service);
  const auto consequence = "without it the GPUs never join the NVLink fabric and CUDA fails (error 802)";
  // systemd counts "activating" as running; a fabric manager stuck there (a restart loop, or a
  // start waiting on NVSwitches it cannot reach) has registered no GPU.
  if (result.status == CheckStatus::pass && in.state.services.at(service).active_state == "activating")
    return failed(fmt::format("{} activating (still starting, or restarting after a failure)", service), "running",
                  fmt::format("wait and verify again; if it stays so, read journalctl -u {} and /var/log/fabricmanager.log; "
                              "{}{}",
                              service, consequence, fabricmanager_log_says(in.state.facts)));
  if (result.status != CheckStatus::fail) return result;
  const auto& unit = in.state.services.at(service);
  if (unit.load_state == "not-found")
    result.detail = fmt::format("the fabric manager is not installed: install {} at the driver's version (gpuctl apply); {}",
                                in.inventory.cluster.packages.package("fabricmanager"), consequence);
  else if (unit.load_state == "masked")
    result.detail = fmt::format("someone masked it: systemctl unmask {0} && systemctl enable --now {0}; {1}", service, consequence);
  else if (unit.active_state == "failed")
    result.detail = fmt::format("it started and failed: read why in journalctl -u {} and /var/log/fabricmanager.log (a "
                                "version other than the driver's, see fabricmanager_version; NVLSM missing on B200 and "
                                "later), fix that, then systemctl restart {} and reset the GPUs",
                                service, service);
  else if (!unit.active_state.empty() && !unit.enabled)
    result.detail = fmt::format("it was never enabled: systemctl enable --now {} (gpuctl apply does); {}", service, consequence);
  else
    result.detail = fmt::format("it is enabled but not running: systemctl start {}, then see journalctl -u {} if it "
                                "stops again; {}",
                                service, service, consequence);
  result.detail += fabricmanager_log_says(in.state.facts);
  return result;
}

// On NVSwitch boards CUDA initialises only when the fabric manager runs at exactly the loaded
// driver's version (error 802 otherwise): the one failure an upgrade of the driver alone leaves.
CheckResult fabricmanager_version(const CheckInput& in) {
  if (!has_nvswitch(in.node.gpu)) return no_nvswitch();
  const auto& loaded = in.state.facts.driver_version;
  if (!loaded.present()) return cannot_run(absent_reason(loaded, "loaded driver"));
  const auto package = in.inventory.cluster.packages.package("fabricmanager");
  const auto it = in.state.packages.find(package);
  const bool installed = it != in.state.packages.end() && it->second.installed;
  const auto observed = fmt::format("{} {}, driver {}", package, installed ? it->second.version : "not installed", *loaded.value);
  if (!installed)
    return failed(observed, *loaded.value,
                  fmt::format("install {} at {} (gpuctl apply): without it CUDA fails to initialise (error 802)", package,
                              *loaded.value));
  if (!version_matches(it->second.version, *loaded.value))
    return failed(observed, *loaded.value,
                  "the fabric manager must be the loaded driver's version, or it does not start and CUDA fails (error 802): "
                  "upgrade them together (driver-upgrade does)");
  return pass(observed, *loaded.value);
}

// The package's line of dpkg's answer, then the loaded driver's version file.
void cite_package_and_driver(CheckResult& result, const CheckInput& in) {
  const auto package = in.inventory.cluster.packages.package("fabricmanager");
  result.command = fmt::format("dpkg-query -W {}; cat /proc/driver/nvidia/version", package);
  const auto it = in.state.packages.find(package);
  std::string output = it != in.state.packages.end() && it->second.installed
                           ? fmt::format("{}\t{}{}\n", package, it->second.version, it->second.held ? " (held)" : "")
                           : fmt::format("dpkg-query: no packages found matching {}\n", package);
  CheckResult driver;
  cite_probe(driver, in.state.facts, "driver");
  result.output = output + (driver.output.empty() ? "(/proc/driver/nvidia/version was not read)" : driver.output);
}

const CheckRegistration k_active{{
    .name = "fabricmanager_active",
    .description = "NVSwitch boards: the fabric manager running",
    .section = CheckSection::fabric,
    .facts = {"fabricmanager_log"},  // why it stopped, for the detail; the citation is systemd's
    .judge = fabricmanager_active,
    .cite = [](CheckResult& r, const CheckInput& in) { cite_service(r, in.state, fabricmanager_service(in.inventory)); },
    .source = "systemctl show nvidia-fabricmanager",
}};

const CheckRegistration k_version{{
    .name = "fabricmanager_version",
    .description = "NVSwitch boards: the fabric manager's package at the loaded driver's version",
    .section = CheckSection::fabric,
    .facts = {"driver"},
    .judge = fabricmanager_version,
    .cite = cite_package_and_driver,
    .source = "dpkg-query -W <fabric manager package>; cat /proc/driver/nvidia/version",
}};

}  // namespace
}  // namespace gpuctl::verify_detail
