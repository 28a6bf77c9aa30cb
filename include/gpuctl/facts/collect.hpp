#pragma once
// Gathering a node's facts in ONE round trip: one POSIX shell script runs every probe and
// prints each one's stdout, exit code and stderr between markers that carry a per-run nonce;
// the output is split and every probe is parsed by its pure parser (facts/parsers.hpp).
//
// The script works when tools are missing (no nvidia-smi, nvcc, dpkg-query, lsmod,
// systemctl): each missing tool makes one fact absent with the reason, never an error.

#include <gpuctl/core/error.hpp>
#include <gpuctl/facts/facts.hpp>
#include <gpuctl/transport/transport.hpp>

#include <chrono>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <vector>

namespace gpuctl::facts {

// The probe that runs a caller's script inside the batch (facts::run_state_probe).
inline constexpr std::string_view k_state_probe = "state";

struct CollectOptions {
  std::string marker_nonce;                         // empty: a random one per call (tests fix it)
  std::chrono::seconds nvidia_smi_timeout{60};      // per nvidia-smi call, when `timeout` exists
  std::chrono::seconds script_timeout{180};         // the whole batch
  // dpkg-query patterns of the packages gpuctl reports; empty: every installed package.
  std::vector<std::string> package_patterns{
      "nvidia-*", "libnvidia-*", "cuda-*", "cuda", "libcuda*", "libnccl*", "libcudnn*",
      "datacenter-gpu-manager*", "slurm*", "munge", "prometheus-node-exporter", "linux-image-*",
      "linux-headers-*", "dkms", "rdma-core", "infiniband-diags", "ibverbs-*"};
  // Package names asked in the same dpkg-query (a program's packages, for the planner).
  std::vector<std::string> exact_packages;
  // The optional probes the batch runs, by name (each declared once with its fact:
  // src/facts/fact_catalog.hpp; e.g. "remapped_rows", "topology", "nvlink", "clock_events",
  // "fabric", "kernel_xids", "infiniband", "net_interfaces", "pcie_aer"). nullopt: every one
  // (`gpuctl facts`); plan asks for none; verify for those its checks read.
  std::optional<std::set<std::string>> optional_probes;
  // A POSIX sh function body run last in the batch as probe k_state_probe (empty: none).
  std::string state_script;
};

// What one probe of the batch printed.
struct ProbeOutput {
  int exit_code = -1;
  std::string out;
  std::string err;
};

// The names of the probes, in the order the script runs them.
std::vector<std::string> probe_names(const CollectOptions& options = {});

// The command an operator would type to see what probe `name` saw (pure); the probe's own
// shell text when it has no simpler form, empty for an unknown name.
std::string probe_command(std::string_view name, const CollectOptions& options = {});

// The command behind the "cuda" probe's output: version.json's or nvcc's (pure).
std::string cuda_probe_command(std::string_view output);

// The awk that reads dpkg's status file in place of `dpkg-query -W` (the packages probe):
// exposed for tests that run it on captured status files.
std::string dpkg_status_awk_command(std::string_view status_file, const std::vector<std::string>& patterns);

// `text` cut to at most `limit` bytes on a line boundary where one is near, with a note of
// how much was left out (pure).
std::string trim_output(std::string_view text, std::size_t limit);

// The batch script for `sh -s` (pure). Each probe prints on stdout
//   @@gpuctl-<nonce> begin NAME\n<stdout>\n@@gpuctl-<nonce> end NAME rc=N
// and on stderr
//   @@gpuctl-<nonce> begin NAME\n<stderr>\n@@gpuctl-<nonce> end NAME
std::string build_probe_script(std::string_view nonce, const CollectOptions& options = {});

// Splits the batch's stdout and stderr into probes (pure). Error: a probe's stdout block is
// cut off or its exit code is not a number. Text outside the blocks (login banners) is
// ignored. Also reads the older form with each probe's stderr inline on stdout, closed by
// "@@gpuctl-<nonce> stderr-end NAME".
Result<std::map<std::string, ProbeOutput>> split_probe_output(std::string_view text, std::string_view nonce,
                                                              std::string_view err = {});

// Turns probe outputs into facts (pure): each fact is parsed from its probe, or absent with
// the reason (probe missing, tool missing, driver not loaded, unparsable output).
NodeFacts facts_from_probes(std::string node, const std::map<std::string, ProbeOutput>& probes);

// What one batch returned: every probe's output, and how long the round trip took.
struct ProbeBatch {
  std::map<std::string, ProbeOutput> probes;
  std::chrono::milliseconds duration{0};
};

// Runs the batch on the node: one Transport::run of `sh -s` with the script on stdin, through
// sudo with `become`. Does I/O. Errors: the transport's (unreachable, timeout, auth), or
// ErrorCode::parse when the output holds no probe at all (no /bin/sh, or something ate it).
Result<ProbeBatch> run_probe_batch(Transport& transport, const CollectOptions& options = {}, bool become = false);

// run_probe_batch, then facts_from_probes. Does I/O.
Result<NodeFacts> collect_facts(Transport& transport, const CollectOptions& options = {});

}  // namespace gpuctl::facts
