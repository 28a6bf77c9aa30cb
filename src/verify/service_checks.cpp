// The services of the head and GPU nodes: Slurm's daemons, Prometheus, the exporters.
#include "check_result.hpp"
#include "check_sources.hpp"

#include <gpuctl/util/strings.hpp>
#include <gpuctl/verify/catalog.hpp>

namespace gpuctl::verify_detail {
namespace {

// The exporters the inventory enables, in the order the check reports them.
std::vector<std::string> exporter_services(const Inventory& inventory) {
  std::vector<std::string> services;
  if (inventory.cluster.monitoring.dcgm_exporter) services.push_back(dcgm_exporter_service(inventory));
  if (inventory.cluster.monitoring.node_exporter) services.push_back("prometheus-node-exporter");
  return services;
}

CheckResult exporters_active(const CheckInput& in) {
  const auto services = exporter_services(in.inventory);
  if (services.empty()) return skipped("monitoring disabled in the inventory");
  for (const auto& service : services) {
    auto result = service_active(in, service);
    if (result.status != CheckStatus::pass) return result;
  }
  return pass(util::join(services, ", ") + " running", "running");
}

// The first exporter not running is the one the check reports.
void cite_exporters(CheckResult& result, const CheckInput& in) {
  for (const auto& service : exporter_services(in.inventory)) {
    const auto it = in.state.services.find(service);
    if (it == in.state.services.end() || !it->second.known || !it->second.running) {
      cite_service(result, in.state, service);
      return;
    }
  }
}

const CheckRegistration k_slurmd{{
    .name = "slurmd_active",
    .description = "slurmd running",
    .section = CheckSection::slurm,
    .judge = [](const CheckInput& in) { return service_active(in, "slurmd"); },
    .cite = [](CheckResult& r, const CheckInput& in) { cite_service(r, in.state, "slurmd"); },
    .source = "systemctl show slurmd",
}};

const CheckRegistration k_slurmctld{{
    .name = "slurmctld_active",
    .description = "slurmctld running",
    .section = CheckSection::slurm,
    .judge = [](const CheckInput& in) { return service_active(in, "slurmctld"); },
    .cite = [](CheckResult& r, const CheckInput& in) { cite_service(r, in.state, "slurmctld"); },
    .source = "systemctl show slurmctld",
}};

const CheckRegistration k_prometheus{{
    .name = "prometheus_active",
    .description = "Prometheus running",
    .section = CheckSection::monitoring,
    .judge = [](const CheckInput& in) { return service_active(in, "prometheus"); },
    .cite = [](CheckResult& r, const CheckInput& in) { cite_service(r, in.state, "prometheus"); },
    .source = "systemctl show prometheus",
}};

const CheckRegistration k_alertmanager{{
    .name = "alertmanager_active",
    .description = "Alertmanager running",
    .section = CheckSection::monitoring,
    .judge = [](const CheckInput& in) { return service_active(in, "prometheus-alertmanager"); },
    .cite = [](CheckResult& r, const CheckInput& in) { cite_service(r, in.state, "prometheus-alertmanager"); },
    .source = "systemctl show prometheus-alertmanager",
}};

const CheckRegistration k_grafana{{
    .name = "grafana_active",
    .description = "Grafana running",
    .section = CheckSection::monitoring,
    .judge = [](const CheckInput& in) { return service_active(in, "grafana-server"); },
    .cite = [](CheckResult& r, const CheckInput& in) { cite_service(r, in.state, "grafana-server"); },
    .source = "systemctl show grafana-server",
}};

// Kept for playbooks of one's own; the shipped ones prove the exporters with exporter_metrics.
const CheckRegistration k_exporters{{
    .name = "exporters_active",
    .description = "the DCGM exporter and node-exporter units running (systemd only; exporter_metrics reads their pages)",
    .section = CheckSection::monitoring,
    .judge = exporters_active,
    .cite = cite_exporters,
    .source = "systemctl show of the first exporter not running",
}};

}  // namespace
}  // namespace gpuctl::verify_detail
