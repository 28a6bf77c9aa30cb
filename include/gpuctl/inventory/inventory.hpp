#pragma once
// The resolved cluster inventory: what gpuctl knows about the cluster and each node after
// loading the YAML file and applying precedence (defaults < group vars < host vars).
// Plain values, no I/O; produced by load_inventory() (inventory/loader.hpp).

#include <gpuctl/packages/profile.hpp>

#include <algorithm>
#include <cstdint>
#include <iterator>
#include <map>
#include <optional>
#include <string>
#include <vector>

namespace gpuctl {

enum class HostKeyPolicy { strict, accept_new };
enum class ConnectionKind { ssh, local };

// `gpu.nvlink`: how the node's GPUs must be linked (verify's nvlink_topology check).
struct NvlinkSpec {
  std::string connection;                   // topo -m entry between every GPU pair ("NV18"); empty: not checked
  std::optional<int> links_per_gpu;         // active links every GPU reports in `nvlink -s`
  std::optional<double> min_link_speed_gbs; // GB/s of every active link
};

// `gpu.nccl_allreduce`: a single-node NCCL all-reduce over all GPUs (verify's nccl_allreduce).
struct NcclAllreduceSpec {
  bool enabled = true;
  std::optional<double> min_busbw_gbs;      // bus bandwidth (nccl-tests' busbw) in GB/s
  std::int64_t message_bytes = 256LL << 20; // per GPU
  int iterations = 20;                      // timed, after one warm-up
};

// `gpu.dcgm_diag`: DCGM's diagnostic (`dcgmi diag -r LEVEL`), verify's dcgm_diag check.
struct DcgmDiagSpec {
  bool enabled = true;      // verify runs it
  int level = 1;            // 1 (seconds), 2 (minutes), 3 (about half an hour)
};

struct GpuSpec {
  std::string model;                  // e.g. "H100", "H200", "A100"
  int count = 0;                      // GPUs per node
  std::optional<int> power_watts;     // board power per GPU, for PDU headroom lint
  std::optional<NvlinkSpec> nvlink{};  // absent: nvlink_topology is skipped
  std::optional<NcclAllreduceSpec> nccl_allreduce{};  // absent: nccl_allreduce is skipped
  std::optional<DcgmDiagSpec> dcgm_diag{};  // absent: dcgm_diag is skipped by verify
  // The -r level replace-gpu runs on the new card before the node is resumed; 0: none.
  int replace_gpu_diag_level = 2;
  // The GPUs are linked by NVSwitch (HGX/DGX boards): the fabric manager must run at the driver's
  // version. Absent: implied by the board (has_nvswitch).
  std::optional<bool> nvswitch{};
  // The hottest a GPU may run when verify looks (gpu_temperature); absent: the check is skipped.
  std::optional<int> max_temperature_c{};
};

// Whether a node's GPUs sit on an NVSwitch board: gpu.nvswitch where the inventory says so;
// otherwise 8 GPUs of a model NVIDIA builds 8-GPU HGX/DGX boards of (A100, A800, H100, H800,
// H200, H20, B100, B200, B300), matched by the model word as the inventory or nvidia-smi writes
// it ("H20", "NVIDIA H20", "H100-SXM5-80GB"), PCIe and NVL cards of those models excepted. An
// 8-card PCIe server named only by the model word must say `nvswitch: false` (docs/inventory.md).
// src/inventory/gpu_models.cpp holds the table.
bool has_nvswitch(const GpuSpec& gpu);

// The model words gpuctl knows ("V100, A100, ..."), for validate's unknown-model warning.
std::string known_gpu_models();

// `ib`: what the node's InfiniBand/RoCE ports must be (verify's ib_ports and nvidia_peermem;
// the rdma step of gpu-node.yaml). Which HCAs: `ib_hcas`.
struct IbSpec {
  std::optional<double> min_rate_gbps;      // every checked port at least this rate (400: NDR)
  std::string link_layer;                   // "InfiniBand" or "Ethernet" (RoCE); empty: not checked
  bool gpudirect_rdma = false;              // GPUDirect RDMA: nvidia-peermem loaded
};

// `containers` (a node setting, opt-in per group): the node runs GPU containers. gpu-node.yaml's
// containers step installs the NVIDIA Container Toolkit at cluster.containers.toolkit_version,
// the distribution's runtime, a CDI spec and the /dev/char links (docs/containers.md).
struct ContainerSpec {
  std::string runtime;                // containerd | docker | podman (the distribution's package)
  bool cdi_only = false;              // nvidia-container-toolkit-base only: no legacy hook, no nvidia runtime
  std::string gpu_test_image;         // a local image for verify's container_gpu; empty: that check is skipped
  // `kubernetes.mig_strategy`: the node is handed to Kubernetes (GPU Operator or device plugin);
  // empty: it is not, and k8s_node_ready is skipped.
  std::string kubernetes_mig_strategy;
};

// The distribution's package of a containers.runtime (Debian 12, Ubuntu 22.04 and 24.04 name
// them alike: containerd, docker.io, podman), and the systemd unit that must run ("" for
// podman, which has no daemon).
inline std::string container_runtime_package(std::string_view runtime) {
  return runtime == "docker" ? "docker.io" : std::string(runtime);
}
inline std::string container_runtime_service(std::string_view runtime) {
  return runtime == "podman" ? std::string() : std::string(runtime);
}

// How to reach one node, after precedence.
struct ConnectionSettings {
  ConnectionKind kind = ConnectionKind::ssh;
  std::string address;                // host name or IP; defaults to the node name
  int port = 22;
  std::string user = "root";
  bool become = false;                // wrap commands in `sudo -n` (non-root user)
  std::string identity_file;          // empty: ssh-agent and ~/.ssh defaults
  std::string known_hosts_file;       // empty: ~/.ssh/known_hosts
  HostKeyPolicy host_key_policy = HostKeyPolicy::strict;
  int connect_timeout_s = 10;
  int command_timeout_s = 600;
};

struct Node {
  std::string name;
  std::vector<std::string> groups;    // in inventory order
  ConnectionSettings connection;
  GpuSpec gpu;
  std::vector<std::string> ib_hcas;   // e.g. mlx5_0..mlx5_7; "mlx5_0:1" names port 1
  std::optional<IbSpec> ib{};         // absent: the ports are checked for Active/LinkUp only
  std::optional<ContainerSpec> containers{};  // absent: no containers step, the container checks skip
  std::string rack;
  std::optional<int> pdu_capacity_watts;  // capacity of the PDU feeding this node's rack
  std::map<std::string, std::string> labels;  // free-form `labels:` for templates and playbook conditions
};

struct RepositorySettings {
  std::string url;                    // apt repository base URL (air-gapped mirrors welcome)
  std::string key_url;                // URL of the signing key, or
  std::string key_file;               // a local path to the key (copied to nodes)
  int pin_priority = 600;
  // A node whose NVIDIA's cuda-keyring package already lists this repository (with its own
  // Signed-By): "adopt" keeps that list and writes none of gpuctl's; "replace" removes it.
  std::string existing = "adopt";
};

struct NvidiaSettings {
  std::string driver_branch;          // e.g. "550"
  std::string driver_version;         // exact, e.g. "550.127.08"
  std::string cuda_version;           // e.g. "12.4"
  bool open_kernel_module = true;
  // Where the driver comes from: "cuda-repository" (NVIDIA's) or "distribution" (Debian's
  // non-free, Ubuntu's archive). With cluster.os it names the package profile.
  std::string driver_source = "cuda-repository";
  // A driver loaded at driver_version that no package installed (NVIDIA's runfile, a vendor
  // image): "adopt" leaves it as it is; "install" plans the package anyway, with a warning.
  std::string unpackaged_driver = "install";
  RepositorySettings repository;
};

struct SlurmPartition {
  std::string name;
  std::string nodes;                  // hostlist expression as written
  std::vector<std::string> node_names;  // expanded
  bool is_default = false;
  std::map<std::string, std::string> options;  // MaxTime=..., State=UP, ...
};

struct SlurmSettings {
  bool enabled = false;
  std::string controller;             // node name of slurmctld
  std::string cluster_name;
  std::vector<SlurmPartition> partitions;
  std::map<std::string, std::string> options;  // extra slurm.conf key=value lines
  // What RealMemory leaves of a node's memory (docs/slurm.md): a percentage of it, or a fixed
  // amount in MiB when memory_reserve_mib > 0. "5%" unless the inventory says otherwise.
  int memory_reserve_percent = 5;
  std::int64_t memory_reserve_mib = 0;
  // slurm.health_check_interval: Slurm runs gpuctl's health program (HealthCheckProgram) on each
  // node this often, in seconds; 0: no health program.
  int health_check_interval_s = 0;
};

// Where Alertmanager sends the alerts of one severity (docs/monitoring.md). Each kind of
// receiver is declared at most once; its secret, when it has one, is the admin's, kept in the
// secret store under a fixed name and read by Alertmanager from a file (never in a plan).
struct AlertRoute {
  bool declared = false;
  std::string severity = "all";       // critical | warning | all
};
struct WebhookReceiver : AlertRoute {
  std::string url;                    // no credentials in it: those are the bearer token
  bool bearer_token = false;          // secret alertmanager-webhook-token as `Authorization: Bearer`
};
struct EmailReceiver : AlertRoute {
  std::string to, from;
  std::string smarthost;              // host:port
  std::string auth_username;          // set: the password is secret alertmanager-smtp-password
  bool require_tls = true;
};
struct SlackReceiver : AlertRoute {
  std::string channel;                // #channel or @user; the webhook URL is secret alertmanager-slack-api-url
};

// Grafana from Grafana's own apt repository (or its mirror); absent: the dashboard is still
// rendered, for import by hand.
struct GrafanaSettings {
  std::string url;                    // e.g. https://apt.grafana.com (suite stable, component main)
  std::string key_url;                // its signing key, or
  std::string key_file;               // a local copy of it
  bool declared() const { return !url.empty(); }
};

struct MonitoringSettings {
  std::string prometheus;             // node name running Prometheus and Alertmanager; empty: none
  bool dcgm_exporter = true;
  bool node_exporter = true;
  int dcgm_exporter_port = 9400;
  int node_exporter_port = 9100;
  int prometheus_port = 9090;
  int alertmanager_port = 9093;
  int grafana_port = 3000;
  // The gpuctl-verify timer's period: GpuctlVerifyStale fires after twice it without a run.
  int verify_interval_seconds = 3600;
  WebhookReceiver webhook;
  EmailReceiver email;
  SlackReceiver slack;
  GrafanaSettings grafana;
};

// `cluster.containers`: the toolkit every container node gets, and where from.
struct ContainerSettings {
  std::string toolkit_version;        // upstream, e.g. "1.17.8" (packages "1.17.8-1")
  // NVIDIA's libnvidia-container apt repository (one for every Debian and Ubuntu release) or a mirror.
  std::string repository_url = "https://nvidia.github.io/libnvidia-container/stable/deb/amd64";
  std::string key_url = "https://nvidia.github.io/libnvidia-container/gpgkey";
  std::string key_file;               // instead of key_url: a local copy of the key
  // An apt repository that carries enroot and pyxis built for this cluster's Slurm; empty: the
  // plan says they are not installed.
  std::string slurm_repository_url;
  std::string slurm_repository_key_file;
  // containers.pyxis: pyxis's own plugstack arguments (runtime_path=/run/pyxis, ...), in pyxis's
  // order and spelling; empty: the package's plugstack line, with pyxis's defaults.
  std::vector<std::pair<std::string, std::string>> pyxis_arguments;
};

struct ClusterSettings {
  std::string name;
  std::string os_family = "debian";   // "debian" (apt); "rhel" is reserved for dnf
  std::string os = "debian12";        // debian12, ubuntu2204, ubuntu2404: the nodes' os-release
  NvidiaSettings nvidia;
  // The package profile cluster.os and nvidia.driver_source name, and its rows for this
  // inventory's branch, version and CUDA (packages/profile.hpp).
  PackageProfile profile;
  ResolvedPackages packages;
  std::map<std::string, std::string> nccl;  // NCCL_* settings written to /etc/nccl.conf
  SlurmSettings slurm;
  MonitoringSettings monitoring;
  ContainerSettings containers;
};

struct Group {
  std::string name;
  std::string hosts;                  // hostlist expression as written
  std::vector<std::string> members;   // expanded, in order
};

struct Inventory {
  std::string path;                   // file it was loaded from
  std::string digest;                 // SHA-256 of the file's bytes, for stale-plan checks
  ClusterSettings cluster;
  std::vector<Group> groups;
  std::vector<Node> nodes;            // every host, in first-seen order

  const Node* find_node(std::string_view name) const;
  const Group* find_group(std::string_view name) const;
};

}  // namespace gpuctl
