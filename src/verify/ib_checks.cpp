// InfiniBand/RDMA checks over the `infiniband` fact: ports as the kernel reports them under
// /sys/class/infiniband (state "4: ACTIVE", phys_state "5: LinkUp", rate, link_layer).
#include "check_result.hpp"
#include "check_sources.hpp"

#include <gpuctl/inventory/nccl_ib_hca.hpp>
#include <gpuctl/util/strings.hpp>
#include <gpuctl/verify/catalog.hpp>

#include <fmt/format.h>

#include <algorithm>
#include <vector>

namespace gpuctl::verify_detail {
namespace {

std::string port_label(const InfinibandPort& port) { return fmt::format("{}:{}", port.hca, port.port); }

std::string or_unknown(const std::string& text) { return text.empty() ? std::string("?") : text; }

// What one port looks like, in ibstat's words: "DOWN/Polling, 400 Gb/sec (4X NDR), InfiniBand".
std::string port_text(const InfinibandPort& port) {
  return fmt::format("{} {}/{}, {}, {}", port_label(port), or_unknown(port.state), or_unknown(port.phys_state),
                     or_unknown(port.rate), or_unknown(port.link_layer));
}

// Why a port is not Active/LinkUp, and what an operator does about it. The physical state says
// whether there is a signal at all; the logical state whether the fabric took the port in.
std::string state_fix(const InfinibandPort& port) {
  if (port.phys_state == "Disabled") return "the port is disabled: enable it (mlxlink, ibportstate) or at the switch";
  if (port.phys_state != "LinkUp")
    return fmt::format("no link ({}): check the cable, the transceiver and the switch port", or_unknown(port.phys_state));
  if (port.link_layer == "Ethernet") return "the link is up but the port is not active: bring its network interface up";
  return "the link is up but no subnet manager activated the port: check opensm/UFM on the fabric";
}

struct PortFindings {
  std::vector<std::string> observed;  // each failing port as seen
  std::vector<std::string> fixes;     // the fix per failing port
  std::vector<std::string> unknown;   // values sysfs did not give
};

void judge_port(const InfinibandPort& port, const IbSpec* spec, PortFindings& out) {
  const auto label = port_label(port);
  std::vector<std::string> fixes;
  if (port.state.empty()) out.unknown.push_back(label + " state unreadable");
  if (port.phys_state.empty()) out.unknown.push_back(label + " phys_state unreadable");
  if ((!port.state.empty() && port.state != "ACTIVE") || (!port.phys_state.empty() && port.phys_state != "LinkUp"))
    fixes.push_back(state_fix(port));
  // Without a physical link the kernel's rate is no trained speed ("10 Gb/sec (4X)" on a port
  // that is Polling or Disabled is the idle value): judge only what the port can say.
  const bool link_up = port.phys_state == "LinkUp";
  if (spec && spec->min_rate_gbps && link_up) {
    if (!port.rate_gbps) out.unknown.push_back(label + " rate unreadable");
    else if (*port.rate_gbps < *spec->min_rate_gbps)
      fixes.push_back(fmt::format("the link trained at {} Gb/sec, below {}: reseat or replace the cable, check the switch port's speed",
                                  *port.rate_gbps, *spec->min_rate_gbps));
  }
  if (spec && !spec->link_layer.empty()) {
    if (port.link_layer.empty()) out.unknown.push_back(label + " link_layer unreadable");
    else if (port.link_layer != spec->link_layer)
      fixes.push_back(fmt::format("the port runs {}: set its type with mlxconfig LINK_TYPE_P{} ({}), then reboot", port.link_layer,
                                  port.port, spec->link_layer == "InfiniBand" ? "1 = InfiniBand" : "2 = Ethernet"));
  }
  if (fixes.empty()) return;
  out.observed.push_back(port_text(port));
  out.fixes.push_back(fmt::format("{}: {}", label, util::join(fixes, "; ")));
}

}  // namespace

CheckResult check_ib_ports(const CheckInput& in) {
  const auto& node = in.node;
  if (node.ib_hcas.empty()) return skipped("the node declares no ib_hcas");
  const IbSpec* spec = node.ib ? &*node.ib : nullptr;
  std::vector<std::string> wanted{"ACTIVE/LinkUp"};
  if (spec && spec->min_rate_gbps) wanted.push_back(fmt::format(">= {} Gb/sec", *spec->min_rate_gbps));
  if (spec && !spec->link_layer.empty()) wanted.push_back(spec->link_layer);
  const auto expected = fmt::format("{} {}", util::join(node.ib_hcas, ","), util::join(wanted, ", "));
  const auto& fact = in.state.facts.infiniband;
  if (!fact.present()) return cannot_run(absent_reason(fact, "InfiniBand ports"));

  PortFindings findings;
  std::vector<std::string> missing;  // one fix for all of them: the cause is usually shared
  std::size_t checked = 0;
  for (const auto& item : node.ib_hcas) {
    const auto hca = parse_hca_item(item);
    std::vector<const InfinibandPort*> selected;
    bool present = false;
    for (const auto& port : *fact.value) {
      if (port.hca != hca.name) continue;
      present = true;
      if (!hca.port || port.port == *hca.port) selected.push_back(&port);
    }
    if (!present || selected.empty()) {
      findings.observed.push_back(present ? fmt::format("{} has no port {}", hca.name, *hca.port) : hca.name + " missing");
      missing.push_back(item);
      continue;
    }
    for (const auto* port : selected) {
      ++checked;
      judge_port(*port, spec, findings);
    }
  }
  if (!missing.empty())
    findings.fixes.insert(findings.fixes.begin(),
                          fmt::format("{}: not in /sys/class/infiniband: check that the card is seated, its driver "
                                      "(mlx5_core, mlx5_ib) loaded, and its name (ibv_devices)",
                                      util::join(missing, ", ")));
  if (!findings.observed.empty()) {
    auto detail = util::join(findings.fixes, "; ");
    if (!findings.unknown.empty()) detail += "; also unknown: " + util::join(findings.unknown, ", ");
    return failed(util::join(findings.observed, "; "), expected, std::move(detail));
  }
  if (!findings.unknown.empty())
    return {{}, CheckStatus::error, util::join(findings.unknown, ", "), expected,
            "sysfs gave no value this check needs; an unknown value is never a pass"};
  std::vector<std::string> rates, layers;
  for (const auto& port : *fact.value)
    if (std::ranges::any_of(node.ib_hcas, [&](const std::string& item) { return parse_hca_item(item).name == port.hca; })) {
      if (std::ranges::find(rates, port.rate) == rates.end()) rates.push_back(port.rate);
      if (std::ranges::find(layers, port.link_layer) == layers.end()) layers.push_back(port.link_layer);
    }
  return pass(fmt::format("{} port{} ACTIVE/LinkUp, {}, {}", checked, checked == 1 ? "" : "s", util::join(rates, " / "),
                          util::join(layers, " / ")),
              expected);
}

CheckResult check_nvidia_peermem(const CheckInput& in) {
  if (!in.node.ib || !in.node.ib->gpudirect_rdma) return skipped("ib.gpudirect_rdma is not declared in the inventory");
  const auto& modules = in.state.facts.loaded_modules;
  if (!modules.present()) return cannot_run(absent_reason(modules, "loaded modules"));
  if (in.state.facts.module_loaded("nvidia_peermem")) return pass("loaded", "loaded");
  // Why a modprobe failed is in the kernel log: a module built against another ib_core than the
  // loaded one ("disagrees about version of symbol"), or an ib_core without the peer-memory API
  // ("Unknown symbol ib_register_peer_memory_client" alone: the distribution's inbox RDMA stack).
  const auto& log = in.state.facts.peermem_kernel_errors;
  const auto said = [&](std::string_view words) -> std::string {
    if (!log.present()) return {};
    for (const auto& line : *log.value)
      if (line.find(words) != std::string::npos) return line;
    return {};
  };
  if (const auto line = said("disagrees about version of symbol"); !line.empty())
    return failed("not loaded: " + line, "loaded",
                  "the module was built against another ib_core (MLNX_OFED/DOCA-OFED) than the one loaded, so modprobe "
                  "refuses it: rebuild it for the running stack (reinstall the NVIDIA driver's DKMS module after the "
                  "OFED that runs now, or install the OFED it was built against), then modprobe nvidia-peermem");
  if (const auto line = said("Unknown symbol ib_register_peer_memory_client"); !line.empty())
    return failed("not loaded: " + line, "loaded",
                  "the loaded ib_core has no peer-memory API (the distribution's inbox RDMA stack): install MLNX_OFED "
                  "or DOCA-OFED for this kernel, rebuild nvidia-peermem against it (the NVIDIA driver's DKMS), then "
                  "modprobe nvidia-peermem");
  auto result = failed("not loaded", "loaded",
                       "GPUDirect RDMA needs nvidia-peermem (part of the NVIDIA driver): modprobe nvidia-peermem; the rdma "
                       "step of gpu-node.yaml loads it and lists it in /etc/modules-load.d");
  if (!log.present()) result.detail += "; if modprobe fails, its reason is in the kernel log (" + log.absent_reason + ")";
  return result;
}

CheckResult check_nccl_ib_hca(const CheckInput& in) {
  const auto it = in.inventory.cluster.nccl.find("NCCL_IB_HCA");
  if (it == in.inventory.cluster.nccl.end()) return skipped("cluster.nccl sets no NCCL_IB_HCA");
  const auto list = parse_nccl_ib_hca(it->second);
  const auto expected = list.exclude ? fmt::format("an HCA left after NCCL_IB_HCA={}", it->second)
                                     : fmt::format("every HCA of NCCL_IB_HCA={} on the node", it->second);
  const auto& fact = in.state.facts.infiniband;
  if (!fact.present()) return cannot_run(absent_reason(fact, "InfiniBand ports"));
  std::vector<std::string> ports;
  for (const auto& port : *fact.value) ports.push_back(port_label(port));
  const auto observed = ports.empty() ? std::string("no HCAs") : "ports " + util::join(ports, ",");
  const auto selects = [&](const NcclHca& entry, const InfinibandPort& port) {
    return nccl_hca_matches(list, entry, port.hca, port.port);
  };
  if (list.exclude) {
    const bool left = std::ranges::any_of(*fact.value, [&](const InfinibandPort& port) {
      return std::ranges::none_of(list.hcas, [&](const NcclHca& entry) { return selects(entry, port); });
    });
    if (!left) return failed(observed, expected, "NCCL_IB_HCA excludes every HCA of the node: NCCL falls back to sockets");
    return pass(observed, expected);
  }
  std::vector<std::string> missing;
  for (const auto& entry : list.hcas)
    if (std::ranges::none_of(*fact.value, [&](const InfinibandPort& port) { return selects(entry, port); }))
      missing.push_back(entry.text);
  if (list.hcas.empty()) return failed(observed, expected, "NCCL_IB_HCA names no HCA");
  if (!missing.empty())
    return failed(observed, expected,
                  fmt::format("NCCL_IB_HCA names {}, not on this node: NCCL skips it (with none left it falls back to "
                              "sockets); fix cluster.nccl or the node's HCAs",
                              util::join(missing, ", ")));
  return pass(observed, expected);
}

namespace {

const CheckRegistration k_ib_ports{{
    .name = "ib_ports",
    .description = "every declared HCA present, its ports ACTIVE/LinkUp at ib.rate and ib.link_layer",
    .section = CheckSection::network,
    .facts = {"infiniband"},
    .judge = check_ib_ports,
}};

const CheckRegistration k_peermem{{
    .name = "nvidia_peermem",
    .description = "nvidia-peermem loaded where ib.gpudirect_rdma is declared (GPUDirect RDMA)",
    .section = CheckSection::network,
    .facts = {"modules", "infiniband", "kernel_xids"},
    .judge = check_nvidia_peermem,
    // The kernel log where it says why the module did not load, else /proc/modules.
    .cite = [](CheckResult& r, const CheckInput& in) {
      const auto& log = in.state.facts.peermem_kernel_errors;
      if (log.present() && !log.value->empty()) cite_probe(r, in.state.facts, "kernel_xids");
      else cite_module_lines(r, in.state.facts, "nvidia_peermem");
    },
    .source = "cat /proc/modules (nvidia_peermem's line); dmesg (its load errors)",
}};

const CheckRegistration k_ib_hca{{
    .name = "nccl_ib_hca",
    .description = "the HCAs NCCL_IB_HCA selects exist on the node",
    .section = CheckSection::network,
    .facts = {"infiniband"},
    .judge = check_nccl_ib_hca,
}};

}  // namespace
}  // namespace gpuctl::verify_detail
