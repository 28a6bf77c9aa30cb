#pragma once
// Pure parsers: the text a probe command printed -> a fact value, or an Error saying why the
// text is not what the command prints. No I/O. Each parser is table-tested on the real H200
// captures in tests/data/nvidia-smi/ (docs/facts.md lists every fact, command and parser).
//
// A parser's Error means "this output is malformed"; whether the probe could run at all
// (tool missing, driver not loaded) is decided before parsing, from the exit code and the
// output, by classify_nvidia_smi_failure() and friends, and becomes an absent fact.

#include <gpuctl/core/error.hpp>
#include <gpuctl/facts/facts.hpp>

#include <map>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace gpuctl::facts {

// ---- nvidia-smi --query-gpu ------------------------------------------------------------

// The --query-gpu fields gpuctl asks for, in the order of gpu_query_command().
std::span<const std::string_view> gpu_query_fields();

// `nvidia-smi --query-gpu=<gpu_query_fields()> --format=csv,nounits` (with a header, so the
// columns are mapped by name, whatever the driver's field order).
std::string gpu_query_command();

// Parses `--query-gpu` CSV output, with or without header, with or without units
// ("143771 MiB", "128.02 W"). With a header the columns are named by it (aliases such as
// gpu_bus_id and units in brackets are understood; unknown columns are ignored); without a
// header, `fields` names the columns. A value nvidia-smi did not give ("[N/A]",
// "[Not Supported]", "[Unknown Error]", "[GPU is lost]", any "[...]", "N/A", "ERR!", an empty
// cell) leaves the field unset, never a default, and is kept as GpuInfo::unreported[field].
// Errors: a row with the wrong number of columns, an index that is not a number, a value that
// does not parse as its field's type (e.g. "abc MiB" for memory.total, "Maybe" for a flag),
// no rows at all.
Result<std::vector<GpuInfo>> parse_gpu_query(std::string_view text,
                                             std::span<const std::string_view> fields = gpu_query_fields());

// Memory repair state of one GPU from `nvidia-smi -q`: row remapping (Ampere and later) and
// page retirement (before Ampere; Ampere and later print N/A there).
struct GpuMemoryRepair {
  std::optional<std::int64_t> remapped_correctable;
  std::optional<std::int64_t> remapped_uncorrectable;
  std::optional<bool> remapped_pending;   // a remap waits for a GPU reset
  std::optional<bool> remapped_failure;   // remapping failed: the GPU needs service
  std::optional<std::int64_t> retired_single_bit;
  std::optional<std::int64_t> retired_double_bit;
  std::optional<bool> retired_pending;    // pages wait for a reboot to be retired
  // As GpuInfo::unreported, keyed by --query-gpu name ("remapped_rows.pending" -> "N/A").
  std::map<std::string, std::string, std::less<>> unreported;
};

// Parses `nvidia-smi -q -d ROW_REMAPPER,PAGE_RETIREMENT` (or any `-q` text holding "Remapped
// Rows" / "Retired Pages" sections, as `-q` prints them):
//   Retired Pages                                  Remapped Rows
//       Single Bit ECC              : 0                Correctable Error          : 0
//       Double Bit ECC              : 0                Uncorrectable Error        : 0
//       Pending Page Blacklist      : No               Pending                    : No
//                                                      Remapping Failure Occurred : No
// ("Pending" instead of "Pending Page Blacklist" on old drivers; "Remapped Rows : N/A" on one
// line before Ampere). PCI bus id as printed ("00000000:00:06.0") -> state. A value nvidia-smi
// did not give ("N/A", "[Unknown Error]") is left unset and kept in `unreported`. GPUs without
// either section are left out. Errors: no "GPU <bus id>" section at all; a value that is not
// of its field's type ("Pending : Maybe").
Result<std::map<std::string, GpuMemoryRepair>> parse_memory_repair_q(std::string_view text);

// Applies memory repair states to the matching GPUs (by PCI bus id), filling
// remapped_rows_pending/failure and retired_pages_pending where the CSV left them unset, and
// carrying the -q text of values neither reported into GpuInfo::unreported.
void merge_memory_repair(std::vector<GpuInfo>& gpus, const std::map<std::string, GpuMemoryRepair>& repairs);

// Why nvidia-smi gave no usable output, when it did not: "command not found", "the NVIDIA
// driver is not loaded (...)", "NVML driver/library version mismatch (...)", "no GPUs found",
// "timed out". std::nullopt when the exit code is 0 and the output looks like data.
std::optional<std::string> classify_nvidia_smi_failure(int exit_code, std::string_view stdout_text,
                                                       std::string_view stderr_text);

// ---- NVLink and topology --------------------------------------------------------------

// Parses `nvidia-smi topo -m`: the header names the device columns (GPU0.., NIC0..) and then
// "CPU Affinity", "NUMA Affinity", "GPU NUMA ID"; each row is a device, its entry for every
// column ("X" for itself, "NV18", "PIX", "PXB", "PHB", "NODE", "SYS"), then its affinities
// (empty for NICs). Terminal escapes (the underlined header) are ignored, and so is the
// legend, except the "NIC Legend" names. Errors: no header, a row with fewer entries than
// columns, a device that is not a column, an entry that is not in the legend.
Result<TopologyMatrix> parse_topology_matrix(std::string_view text);

// Parses `nvidia-smi nvlink -s`: "GPU 0: NAME (UUID: GPU-...)" then one "Link N: 26.562 GB/s"
// or "Link N: <inactive>" line per link. Empty output (a GPU without NVLink, as the single
// H200 of tests/data shows) gives no GPUs. Other lines under a GPU are kept as its note.
// Errors: a link line before any GPU line, a link line that does not parse.
Result<std::vector<NvlinkGpu>> parse_nvlink_status(std::string_view text);

// ---- InfiniBand / RDMA ports ----------------------------------------------------------

// Parses the infiniband probe (docs/facts.md): "no_infiniband" alone (no /sys/class/infiniband:
// no HCAs, an empty list), or per port a "port <hca> <n>" line then KEY=VALUE lines of the port's
// sysfs files, each value as the kernel wrote it:
//   port mlx5_0 1
//   state=4: ACTIVE                 "<n>: NOP|DOWN|INIT|ARMED|ACTIVE|ACTIVE_DEFER"
//   phys_state=5: LinkUp            "<n>: Sleep|Polling|Disabled|...|LinkUp|..."
//   rate=400 Gb/sec (4X NDR)        "<Gb/s>[.5] Gb/sec (<w>X[ <speed>])"
//   link_layer=InfiniBand           InfiniBand, Ethernet, Unknown
// An empty value (the file unreadable) leaves the field empty. Errors: a line before any port,
// an unknown key, a port line without a number, a state or rate not of the kernel's form.
Result<std::vector<InfinibandPort>> parse_infiniband_ports(std::string_view text);

// ---- network interfaces --------------------------------------------------------------

// Parses the net_interfaces probe (docs/facts.md): one "iface <name> <operstate>" line per entry
// of /sys/class/net, the operstate as the kernel wrote it ("up", "down", "unknown", ...; empty
// when the file could not be read), then `ip -o addr show`'s lines ("2: eth0    inet
// 192.0.2.2/24 brd ... scope global eth0\ ..."), whose inet and inet6 addresses go to their
// interface, or "no_ip_command" (addresses unknown: nullopt). Interface names hold no whitespace
// (the kernel's dev_valid_name). Errors: a line of neither form, a line without a name, no
// interface at all (every network namespace has lo: an empty list means the directory could not
// be listed).
Result<std::vector<NetInterface>> parse_net_interfaces(std::string_view text);

// ---- kernel module and toolkit versions ------------------------------------------------

struct NvidiaKernelModule {
  std::string version;        // "580.159.04"
  bool open = false;          // "NVIDIA UNIX Open Kernel Module" vs the proprietary one
};

// Parses /proc/driver/nvidia/version ("NVRM version: NVIDIA UNIX Open Kernel Module for
// x86_64  580.159.04  Release Build ..."). Error: no NVRM line or no version in it.
Result<NvidiaKernelModule> parse_nvidia_driver_version(std::string_view text);

// Parses `nvcc --version` ("Cuda compilation tools, release 13.0, V13.0.88") -> "13.0.88";
// "13.0" when only the release is printed. Error: no such line.
Result<std::string> parse_nvcc_version(std::string_view text);

// Parses the CUDA toolkit's version.json (CUDA 11.1 and later): the "cuda_nvcc" component's
// version (the same as nvcc's "V" version, e.g. "11.5.119"), else the SDK's ("cuda").
// Error: not JSON, or neither entry has a dotted version.
Result<std::string> parse_cuda_version_json(std::string_view text);

// ---- driver origin ---------------------------------------------------------------------

// Parses the driver_origin probe (docs/facts.md), lines of its own and dpkg-query's:
//   nvidia_smi_path=/usr/bin/nvidia-smi     nvidia-smi as found on PATH; empty: none there
//   runfile_mark=/var/log/nvidia-installer.log   each of NVIDIA's runfile's files that exists
//   symlink=yes                             nvidia-smi on PATH is a symbolic link
//   same_file=/bin/nvidia-smi               each name packages give nvidia-smi that is the same
//                                           file (the merged-/usr name; the target of Debian's
//                                           alternatives link /usr/lib/nvidia/current/nvidia-smi)
//   <what `dpkg-query -S PATH SAME_FILE... 2>&1` printed>
//   dpkg_query_rc=1
// dpkg-query prints "nvidia-utils-580: /usr/bin/nvidia-smi" (several owners "a, b: PATH", a
// Multi-Arch one "pkg:amd64: PATH"), "dpkg-query: no path found matching pattern PATH" (exit 1
// when any name is unknown), and for a diverted file "diversion by PKG from: PATH" / "diversion
// by PKG to: PATH.distrib" ("local diversion from: ..." for the admin's) before the owners.
// The owner of a name is the package that owns the file there, unless a diversion moved that
// package's file away: then only the diverting package can own it, and a local diversion
// leaves it owned by nobody. The name on PATH is asked first, then the same_file names. Owned
// -> package; else runfile marks -> runfile; else unpackaged; no nvidia-smi -> no_user_space
// (dpkg is not asked). Errors: no nvidia_smi_path= line, no dpkg_query_rc= line after a path
// (cut off), dpkg-query failing (exit 2 and up: its message), a line that is none of these,
// dpkg-query naming neither an owner nor "no path found" for a name, and a symbolic link no
// package owns to a file by none of the packaged names (its owner was not asked).
Result<DriverOrigin> parse_driver_origin(std::string_view text);

// ---- operating system ------------------------------------------------------------------

// Parses /etc/os-release (KEY=value, values optionally quoted, `#` comments). Error: no ID.
Result<OsRelease> parse_os_release(std::string_view text);

// Parses /proc/modules -> module names in file order. Error: a line without a name/size pair.
Result<std::vector<std::string>> parse_proc_modules(std::string_view text);

// Parses `uname -r`: one non-empty line without spaces. Error otherwise.
Result<std::string> parse_kernel_release(std::string_view text);

// Parses /proc/sys/kernel/random/boot_id: a lower-case 8-4-4-4-12 hex UUID. Error otherwise.
Result<std::string> parse_boot_id(std::string_view text);

// Parses /proc/uptime ("350735.47 234388.90") -> seconds since boot. Error: not a finite,
// non-negative number ("nan", "inf", "-1").
Result<double> parse_uptime(std::string_view text);

// ---- packages --------------------------------------------------------------------------

// Parses `dpkg-query -W -f='${Package}\t${Version}\t${Status}\n'` output -> name -> version
// of the packages whose status is "install ok installed" (removed-but-configured and
// half-installed packages are left out). Lines dpkg-query prints for unmatched patterns
// ("dpkg-query: no packages found matching ...") are ignored. Error: a line without tabs.
Result<std::map<std::string, std::string>> parse_dpkg_query(std::string_view text);

// NCCL version from the libnccl2 package ("2.21.5-1+cuda12.4" -> "2.21.5"); nullopt when
// the package is not installed.
std::optional<std::string> nccl_version_from_packages(const std::map<std::string, std::string>& packages);

// NCCL version from resolved library paths, one per line ("/usr/lib/x86_64-linux-gnu/
// libnccl.so.2.28.9" -> "2.28.9"); the highest when several are installed. nullopt when no
// path carries a full version.
std::optional<std::string> nccl_version_from_library_paths(std::string_view text);

// ---- health (verify only) ---------------------------------------------------------------

// The clock-event query: `nvidia-smi --query-gpu=pci.bus_id,clocks_throttle_reasons.hw_slowdown,
// ...hw_thermal_slowdown,...hw_power_brake_slowdown,...sw_thermal_slowdown --format=csv,noheader`
// (the clocks_throttle_reasons names: every driver since R418 takes them; R535 added the
// clocks_event_reasons aliases).
std::string clock_events_command();
// Its rows. Error: a row with another number of cells, a value that is neither "Active" nor
// "Not Active" nor a bracketed "[N/A]"-like one, no rows.
Result<std::vector<GpuClockEvents>> parse_clock_events(std::string_view text);

// `nvidia-smi -q`, of which parse_fabric reads each GPU's `Fabric` section (state, status,
// CliqueId, ClusterUUID, Health). A GPU without one (drivers before the fabric fields) reads as
// state "N/A", not reported. The probe's "@@smi-rc N" line, where present, is nvidia-smi's exit
// status. Error: a non-zero one, no `GPU <bus id>` section, a Fabric line without ':'.
std::string fabric_command();
Result<std::vector<GpuFabric>> parse_fabric(std::string_view text);

// A PCI address as the driver's Xid lines print it: lowercase, a 4-digit domain
// ("00000000:B3:00.0" -> "0000:b3:00.0", "0000:B3:00" -> "0000:b3:00"). Pure.
std::string pci_address_form(std::string_view pci);

// The kernel-log probe's output: `dmesg` lines holding "NVRM: Xid", NVSwitch "SXid"s and the
// peer-memory module's, then "@@dmesg-rc N". An SXid is one event over several lines (its
// Fatal/Non-fatal line, then "Severity ..." and "Data {...}"); only the first is kept.
// Lines in dmesg's and journalctl's forms are read alike ("[  12.3] NVRM: Xid (PCI:...): 79,
// ..." and "May 18 19:02:39 host kernel: NVRM: Xid (...)"). Error: no rc line (the probe was
// cut short), or a non-zero rc: the kernel refused the read (dmesg_restrict without root).
Result<std::vector<XidEvent>> parse_kernel_xids(std::string_view text);

// The same output's lines of the peer-memory module (nvidia_peermem, or the older nv_peer_mem)
// failing to load: "disagrees about version of symbol X", "Unknown symbol X (err -22)", without
// the timestamp. Error: as parse_kernel_xids.
Result<std::vector<std::string>> parse_peermem_kernel_errors(std::string_view text);

// ---- PCIe AER (verify only) -----------------------------------------------------------

// Parses the pcie_aer probe (docs/facts.md): "no_nvidia_gpus" alone (the driver lists no GPU:
// an empty list), or per GPU the driver lists under /proc/driver/nvidia/gpus a "gpu <bus id>"
// line, "no_device <bus id>" where sysfs has no such PCI device, "absent <bus id> <file>" per
// AER file the kernel did not create, then grep's "<path>:<line>" for every line of the files
// that exist, each as the kernel prints it (drivers/pci/pcie/aer.c, "%s %llu\n"):
//   /sys/bus/pci/devices/0000:18:00.0/aer_dev_fatal:CmpltTO 0
//   /sys/bus/pci/devices/0000:18:00.0/aer_dev_fatal:TOTAL_ERR_FATAL 0
// A name may hold spaces (kernels before the short names: "Receiver Error 2"); the count is the
// last word. Errors: a line of a GPU not announced, a count that is no number, a TOTAL_ line of
// another file, a file neither absent nor ending in its TOTAL_ line (cut short).
Result<std::vector<GpuPcieAer>> parse_pcie_aer(std::string_view text);

}  // namespace gpuctl::facts
