#pragma once
// What gpuctl knows about a node's real state, gathered over a Transport.
// Each fact comes from a command plus a pure parser (facts/parsers.hpp). A fact that could
// not be gathered is "absent" with its reason; it is never silently defaulted.

#include <any>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace gpuctl {

// A value that may be absent, with the reason it is absent ("nvidia-smi: command not found").
template <typename T>
struct Fact {
  std::optional<T> value;
  std::string absent_reason;

  bool present() const { return value.has_value(); }
  static Fact of(T v) { return Fact{std::move(v), {}}; }
  static Fact absent(std::string why) { return Fact{std::nullopt, std::move(why)}; }
};

// The name and type of a fact that a fact file declares outside NodeFacts' own members (a
// probe of facts/fact_catalog's): its public header holds the key, its .cpp parses into it.
template <typename T>
struct FactKey {
  std::string_view name;
};

// The facts declared by fact files, by their keys' names. A fact the batch did not gather
// reads as absent with the reason, never as a default value.
class FactSlots {
 public:
  template <typename T>
  void set(const FactKey<T>& key, Fact<T> fact) {
    m_facts[std::string(key.name)] = std::move(fact);
  }
  template <typename T>
  Fact<T> get(const FactKey<T>& key) const {
    const auto it = m_facts.find(key.name);
    if (it == m_facts.end()) return Fact<T>::absent(std::string(key.name) + ": not probed (this run's batch did not ask)");
    return std::any_cast<const Fact<T>&>(it->second);
  }
  bool contains(std::string_view name) const { return m_facts.find(name) != m_facts.end(); }

 private:
  std::map<std::string, std::any, std::less<>> m_facts;
};

// One GPU as `nvidia-smi --query-gpu` (and `-q`) reported it. A field nvidia-smi printed no
// value for ("[N/A]", "[Unknown Error]", "[GPU is lost]", ...) is unset (empty for text) and its
// raw text is kept in `unreported`, so a check can say what nvidia-smi printed instead of
// silently reading a default.
struct GpuInfo {
  int index = 0;
  std::string name;                    // "NVIDIA H200"
  std::string uuid;                    // "GPU-..."
  std::string serial;
  std::string pci_bus_id;              // "00000000:00:06.0"
  std::optional<std::int64_t> memory_total_mib;
  std::optional<bool> persistence_mode;
  std::optional<bool> ecc_enabled;     // current ECC mode
  std::optional<std::int64_t> ecc_volatile_uncorrected;
  std::optional<std::int64_t> ecc_volatile_corrected;
  std::optional<std::int64_t> ecc_aggregate_uncorrected;
  std::optional<std::int64_t> ecc_aggregate_corrected;
  std::optional<bool> retired_pages_pending;  // "Yes"/"No"; [N/A] on Ampere and later (row remapping)
  std::optional<bool> remapped_rows_pending;
  std::optional<bool> remapped_rows_failure;
  std::optional<int> pcie_gen_current;
  std::optional<int> pcie_gen_max;
  std::optional<int> pcie_width_current;
  std::optional<int> pcie_width_max;
  std::optional<int> temperature_c;
  std::optional<double> power_draw_w;
  std::string driver_version;          // as nvidia-smi reports it
  std::string vbios_version;
  std::optional<std::int64_t> memory_used_mib;
  std::optional<double> power_limit_w;    // current (requested) power limit
  // nvidia-smi's field name ("ecc.mode.current") -> the text it printed instead of a value
  // ("[Unknown Error]"). Only fields that were asked for and came back without a value.
  std::map<std::string, std::string, std::less<>> unreported;

  // What nvidia-smi printed for `field` instead of a value; nullopt when it was not unreported.
  std::optional<std::string> unreported_text(std::string_view field) const;
};

// True for nvidia-smi's ways of saying a field does not apply to this GPU ("[N/A]", "N/A",
// "[Not Supported]"), as opposed to a failure to read it ("[Unknown Error]", "[GPU is lost]",
// "ERR!", ...). Hopper prints "[N/A]" for retired pages because it remaps rows instead.
bool is_not_applicable(std::string_view raw);

struct OsRelease {
  std::string id;                      // "debian"
  std::string version_id;              // "12"
  std::string pretty_name;
};

// Where the node's NVIDIA driver came from, told by who owns its nvidia-smi: dpkg (a driver
// installed by apt: Ubuntu's, Debian's or NVIDIA's repository), NVIDIA's runfile (its
// /usr/bin/nvidia-uninstall or /var/log/nvidia-installer.log are there), nobody (files a vendor
// image or someone copied in), or no nvidia-smi on the host at all (a driver container, e.g. the
// GPU Operator's, when the kernel module is loaded). Ownership is read from dpkg's database
// (`dpkg-query -S`), never guessed from names.
struct DriverOrigin {
  enum class Kind {
    package,        // dpkg owns nvidia-smi: `package` names the owner
    runfile,        // owned by no package, and NVIDIA's runfile left its marks
    unpackaged,     // owned by no package, no runfile marks (a vendor image, copied files)
    no_user_space,  // no nvidia-smi on PATH (nor in /usr/local/nvidia/bin, /usr/sbin, /sbin)
  };
  Kind kind = Kind::unpackaged;
  std::string package;                 // package: "nvidia-utils-580" (no ":amd64"); several: "a, b"
  std::string path;                    // nvidia-smi as found on PATH: "/usr/bin/nvidia-smi"; empty: none
  std::vector<std::string> runfile_marks;  // the runfile's files found, whatever the kind
  std::string note;                    // a dpkg diversion of nvidia-smi, when there is one
};

// "package", "runfile", "unpackaged", "no_user_space": the JSON names.
constexpr std::string_view to_string(DriverOrigin::Kind kind) {
  switch (kind) {
    case DriverOrigin::Kind::package: return "package";
    case DriverOrigin::Kind::runfile: return "runfile";
    case DriverOrigin::Kind::unpackaged: return "unpackaged";
    case DriverOrigin::Kind::no_user_space: return "no_user_space";
  }
  return "unknown";
}

// `nvidia-smi topo -m`: how every pair of devices (GPUs, NICs) is connected.
struct TopologyRow {
  std::string device;                  // "GPU0", "NIC1"
  std::vector<std::string> links;      // one per TopologyMatrix::devices: "X", "NV18", "PIX", "SYS", ...
  std::string cpu_affinity;            // "0-55,112-167"; empty for NICs
  std::string numa_affinity;           // "0"; empty for NICs
  std::string gpu_numa_id;             // "N/A" on most systems
};

struct TopologyMatrix {
  std::vector<std::string> devices;    // the matrix's columns in order: GPU0.., then NIC0..
  std::vector<TopologyRow> rows;       // one per device
  std::map<std::string, std::string> nic_names;  // "NIC0" -> "mlx5_0" (the NIC legend)

  // The entry between two devices ("NV18"); empty when either is not in the matrix.
  std::string link(std::string_view from, std::string_view to) const;
  // The GPU rows' names ("GPU0".."GPU7"), in order.
  std::vector<std::string> gpus() const;
};

// One NVLink of a GPU as `nvidia-smi nvlink -s` reports it.
struct NvlinkLink {
  int link = 0;
  bool active = false;                 // false: "<inactive>"
  std::optional<double> speed_gbs;     // "26.562 GB/s"
};

struct NvlinkGpu {
  int index = 0;
  std::string name;                    // "NVIDIA H100 80GB HBM3"
  std::string uuid;
  std::vector<NvlinkLink> links;       // empty: the GPU reports no NVLink
  std::string note;                    // any other line nvidia-smi printed for this GPU
};

// Why a GPU's clocks are held down now, from `nvidia-smi --query-gpu=clocks_throttle_reasons.*`
// ("Active" / "Not Active"); nullopt where the GPU does not say ("[N/A]", "[Not Supported]").
struct GpuClockEvents {
  std::string pci_bus_id;
  std::optional<bool> hw_slowdown;             // HW slowdown: clocks cut by 2x or more
  std::optional<bool> hw_thermal_slowdown;     // ... because the GPU is too hot
  std::optional<bool> hw_power_brake_slowdown; // ... because the power supply asserted the brake
  std::optional<bool> sw_thermal_slowdown;     // the driver caps clocks above the max operating temperature
};

// A GPU's registration with the NVSwitch fabric, from the `Fabric` section of `nvidia-smi -q`:
// "Not Started" -> "In Progress" -> "Completed"; the status ("Success", or e.g. "Insufficient
// Resources") counts only once completed. "N/A" where there is no fabric. Drivers from R550 add
// the fabric's `Health` subsection (R570 on: its `Summary`, "Healthy" / "Unhealthy" / "Limited
// Capacity"), which a completed registration can still fail (tests/data/nvidia-smi/fabric/).
struct GpuFabric {
  std::string pci_bus_id;
  std::string state;
  std::string status;
  bool state_reported = false;         // false: the state is "N/A", "[Not Supported]", ... (no fabric)
  std::string clique_id{};             // "2"; "N/A" where none; empty: not printed
  std::string cluster_uuid{};
  // The Health subsection's lines as printed, in order: {"Summary", "Unhealthy"}, {"Bandwidth",
  // "Full"}, {"Route Unhealthy", "False"}, ...; empty: this driver prints none.
  std::vector<std::pair<std::string, std::string>> health{};
};

// One Xid the NVIDIA driver logged to the kernel's ring buffer since boot (`dmesg`), or one
// SXid of an NVSwitch (the NVSwitch driver's own error codes, with its Fatal / Non-fatal word):
//   [ 1843.30] NVRM: Xid (PCI:0000:b3:00): 79, pid=0, name=..., GPU has fallen off the bus.
//   [ 6781.40] nvidia-nvswitch0: SXid (PCI:0000:05:00.0): 20034, Fatal, Link 63 LTSSM Fault Up
struct XidEvent {
  std::string pci;                     // "0000:b3:00" as the driver prints it
  int code = 0;
  std::string message;                 // the rest of the line after the code ("pid=..., ...")
  bool nvswitch = false;               // an SXid: `pci` is the NVSwitch's
  std::optional<bool> fatal{};         // SXid: "Fatal" (true) or "Non-fatal" (false)
  std::optional<double> uptime_s{};    // dmesg's "[ 1234.567890]" (seconds since boot); unset without it
  // gpuctl reset this GPU (or the whole board) later in this boot (the node's gpuctl reset
  // record, /var/lib/gpuctl/gpu-resets): the Xid was dealt with. Holds the reset's uptime.
  std::optional<double> cleared_by_reset_at{};
};

// One port of an RDMA device (HCA) as the kernel describes it under
// /sys/class/infiniband/<hca>/ports/<port>/ (docs/facts.md, tests/data/infiniband/). A value the
// kernel did not give (the file unreadable, or a read error) is empty / unset, never a default.
struct InfinibandPort {
  std::string hca;                     // "mlx5_0"
  int port = 0;                        // 1
  std::string state;                   // "ACTIVE" (of "4: ACTIVE"); DOWN, INIT, ARMED, ...
  std::string phys_state;              // "LinkUp" (of "5: LinkUp"); Polling, Disabled, ...
  std::string rate;                    // "400 Gb/sec (4X NDR)", as the kernel wrote it
  std::optional<double> rate_gbps;     // 400
  std::string link_layer;              // "InfiniBand", "Ethernet" (RoCE)
};

// A network interface as the kernel lists it under /sys/class/net (docs/facts.md): its name, its
// RFC 2863 operational state, /sys/class/net/<name>/operstate ("up", "down", "unknown", ...;
// empty when the file could not be read), and its IP addresses as `ip -o addr show` lists them
// (NCCL's socket transport takes only interfaces with an IPv4 or IPv6 address).
struct NetInterface {
  std::string name;                    // "eth0", "bond0", "lo"
  std::string operstate;               // "up"
  // "192.0.2.2/24", "fe80::1/64", in ip's order; nullopt: not read (no `ip` on the node and no
  // /proc/net/if_inet6).
  std::optional<std::vector<std::string>> addresses{};
  // Only the IPv6 addresses were read (/proc/net/if_inet6: the node has no `ip`): IPv4 unknown.
  bool ipv6_only = false;

  // The addresses NCCL's socket transport would take the interface for: IPv4 and IPv6 but the
  // IPv6 loopback ::1, which NCCL skips (its findInterfaces). Empty when none or not read.
  std::vector<std::string> nccl_addresses() const;
  // "eth0 (up, 192.0.2.2/24 +2)", "ib0 (down, no address)", "ib0 (down, no IPv6 address, IPv4
  // unknown)"; "eth0 (up)" when the addresses were not read, "?" for an operstate not read.
  std::string summary() const;
};

// One file of a PCI device's AER statistics (/sys/bus/pci/devices/<dev>/aer_dev_correctable,
// aer_dev_fatal, aer_dev_nonfatal; the kernel's Documentation/ABI/testing/
// sysfs-bus-pci-devices-aer_stats): a count per error the device reported, and the number of
// error messages it sent (TOTAL_ERR_COR / TOTAL_ERR_FATAL / TOTAL_ERR_NONFATAL). One message can
// carry several errors, so the total need not be the sum.
struct AerCounter {
  std::string name;                    // "RxErr", "CmpltTO", "dev_fatal_errs_bit[3]"; older kernels: "Receiver Error"
  std::uint64_t count = 0;
};
struct AerCounts {
  std::vector<AerCounter> errors;      // in the kernel's order
  std::uint64_t total = 0;             // the TOTAL_ERR_* line
  std::uint64_t sum() const;           // of `errors`
};

// The AER statistics of the PCIe port at the other end of a GPU's link: the root port or PCIe
// switch downstream port the GPU hangs off in sysfs. The kernel's ABI document warns that a faulty
// endpoint's own counters may stay at 0 while its link partner counts the errors.
struct PciePortAer {
  std::string bus_id;                  // "0000:17:01.0"
  std::optional<AerCounts> correctable;
  std::optional<AerCounts> fatal;
  std::optional<AerCounts> nonfatal;
};

// The AER statistics of one GPU's PCI function, as sysfs names it ("0000:18:00.0"). A file the
// kernel does not create (no AER capability, a kernel before 4.19 or without CONFIG_PCIEAER) is
// nullopt; a file it created but that could not be read makes the whole fact absent instead.
struct GpuPcieAer {
  std::string bus_id;                  // "0000:18:00.0": sysfs's form, lower case
  bool device_in_sysfs = true;         // false: no /sys/bus/pci/devices/<bus_id> at all
  std::optional<AerCounts> correctable;
  std::optional<AerCounts> fatal;
  std::optional<AerCounts> nonfatal;
  // nullopt: the GPU's parent in sysfs is no PCI function (a host bridge: a GPU on a root
  // complex's own bus, as in many virtual machines), or the GPU is not in sysfs.
  std::optional<PciePortAer> upstream_port;
};

// nvidia-smi's "00000000:18:00.0" in sysfs's form "0000:18:00.0" (a 4-digit domain, lower case);
// empty when `pci_bus_id` is not a bus id.
std::string sysfs_pci_bus_id(std::string_view pci_bus_id);

// Where a fact came from, so a failed check can cite it: the command an operator would type to
// see the same thing, and what it printed (stdout, then stderr under "[stderr]"), cut to
// k_source_output_limit bytes. Only system command output: never file contents gpuctl pushed.
struct FactSource {
  std::string command;                 // "nvidia-smi --query-gpu=... --format=csv,noheader,nounits"
  std::string output;
  int exit_code = 0;
};
inline constexpr std::size_t k_source_output_limit = 4096;

struct NodeFacts {
  std::string node;
  Fact<OsRelease> os;
  Fact<std::string> kernel;            // uname -r
  Fact<std::string> boot_id;           // /proc/sys/kernel/random/boot_id
  Fact<double> uptime_s;
  Fact<std::vector<std::string>> loaded_modules;  // names from /proc/modules
  Fact<std::string> driver_version;    // from /proc/driver/nvidia/version (kernel module)
  Fact<bool> driver_open_kernel_module;  // true: NVIDIA's open kernel module is loaded
  Fact<DriverOrigin> driver_origin;    // who installed nvidia-smi: dpkg, the runfile, nobody, none there
  Fact<std::string> cuda_version;      // nvcc --version / toolkit package
  Fact<std::string> nccl_version;      // libnccl2 package or ldconfig
  Fact<std::vector<GpuInfo>> gpus;     // nvidia-smi --query-gpu
  Fact<TopologyMatrix> topology;       // nvidia-smi topo -m
  Fact<std::vector<NvlinkGpu>> nvlink; // nvidia-smi nvlink -s; empty when no GPU lists a link
  Fact<std::vector<GpuClockEvents>> clock_events;  // verify: why clocks are held down (health checks)
  Fact<std::vector<GpuFabric>> fabric;           // verify on NVSwitch nodes: fabric registration
  Fact<std::vector<XidEvent>> xid_events;        // verify: the driver's Xids and NVSwitch SXids in the kernel log
  // Verify, from the same kernel-log read: the peer-memory module's load errors, as logged
  // ("nvidia_peermem: disagrees about version of symbol ib_register_peer_memory_client").
  Fact<std::vector<std::string>> peermem_kernel_errors;
  // Every port of every RDMA device in sysfs; empty: the node has no HCA ("no HCAs").
  Fact<std::vector<InfinibandPort>> infiniband;
  // Every network interface under /sys/class/net with its operstate (verify's nccl_socket_ifname).
  Fact<std::vector<NetInterface>> net_interfaces;
  // Verify: each GPU's PCIe AER counters, for every GPU the driver lists under
  // /proc/driver/nvidia/gpus; empty when it lists none.
  Fact<std::vector<GpuPcieAer>> pcie_aer;
  std::map<std::string, std::string> packages;  // installed dpkg packages we care about: name -> version
  std::string packages_absent_reason;  // why `packages` is empty when dpkg-query could not run
  std::map<std::string, FactSource> sources{};  // by probe name (facts/collect.hpp); not in facts JSON
  FactSlots declared{};                 // the facts fact files declare (FactKey), by name

  bool module_loaded(std::string_view name) const;
};

}  // namespace gpuctl
