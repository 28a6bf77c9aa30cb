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
#include <string>
#include <string_view>
#include <vector>

namespace gpuctl::facts {

struct CollectOptions {
  std::string marker_nonce;                         // empty: a random one per call (tests fix it)
  std::chrono::seconds nvidia_smi_timeout{60};      // per nvidia-smi call, when `timeout` exists
  std::chrono::seconds script_timeout{180};         // the whole batch
  // dpkg-query patterns of the packages gpuctl reports; empty: every installed package.
  std::vector<std::string> package_patterns{
      "nvidia-*", "libnvidia-*", "cuda-*", "cuda", "libcuda*", "libnccl*", "libcudnn*",
      "datacenter-gpu-manager*", "slurm*", "munge", "prometheus-node-exporter", "linux-image-*",
      "linux-headers-*", "dkms", "rdma-core", "infiniband-diags", "ibverbs-*"};
};

// What one probe of the batch printed.
struct ProbeOutput {
  int exit_code = -1;
  std::string out;
  std::string err;
};

// The names of the probes, in the order the script runs them.
std::vector<std::string> probe_names();

// The command an operator would type to see what probe `name` saw (pure); the probe's own
// shell text when it has no simpler form, empty for an unknown name.
std::string probe_command(std::string_view name, const CollectOptions& options = {});

// `text` cut to at most `limit` bytes on a line boundary where one is near, with a note of
// how much was left out (pure).
std::string trim_output(std::string_view text, std::size_t limit);

// The batch script (pure). Each probe prints:
//   @@gpuctl-<nonce> begin NAME\n<stdout>\n@@gpuctl-<nonce> end NAME rc=N\n<stderr>\n@@gpuctl-<nonce> stderr-end NAME
std::string build_probe_script(std::string_view nonce, const CollectOptions& options = {});

// Splits the batch's output into probes (pure). Error: a probe's block is cut off or its
// exit code is not a number. Text outside the blocks (login banners) is ignored.
Result<std::map<std::string, ProbeOutput>> split_probe_output(std::string_view text, std::string_view nonce);

// Turns probe outputs into facts (pure): each fact is parsed from its probe, or absent with
// the reason (probe missing, tool missing, driver not loaded, unparsable output).
NodeFacts facts_from_probes(std::string node, const std::map<std::string, ProbeOutput>& probes);

// Runs the batch on the node (one Transport::run) and parses it. Does I/O. Errors: the
// transport's (unreachable, timeout, auth), or ErrorCode::parse when the output holds no
// probe at all (the login shell is not a POSIX shell, or something ate the output).
Result<NodeFacts> collect_facts(Transport& transport, const CollectOptions& options = {});

}  // namespace gpuctl::facts
