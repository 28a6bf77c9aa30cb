#pragma once
// DCGM's diagnostic behind verify's dcgm_diag check: one command on the node runs
// `dcgmi diag -r LEVEL -j` under a timeout; the parser reads both JSON layouts dcgmi writes
// (3.x: "DCGM GPU Diagnostic", per-GPU "gpu_id"; 4.x: "DCGM Diagnostic", "entity_id",
// "test_summary"), see tests/data/dcgm/README.md. The parsers are pure.

#include <gpuctl/core/error.hpp>
#include <gpuctl/transport/transport.hpp>
#include <gpuctl/verify/dcgm_run.hpp>

#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace gpuctl {

enum class DcgmStatus { pass, fail, warn, skip, unknown };
std::string_view to_string(DcgmStatus status);

// One test's verdict for one GPU (gpu empty: the test's result for all GPUs, as 3.x's
// Deployment tests and 4.x's test_summary give it).
struct DcgmGpuResult {
  std::optional<int> gpu;
  DcgmStatus status = DcgmStatus::unknown;
  std::string status_text;           // as dcgmi wrote it ("Fail"), for an unknown word
  std::vector<std::string> warnings; // the messages of "warnings"
  std::vector<std::string> info;
};

struct DcgmTestResult {
  std::string category;              // "Deployment", "Hardware", ...
  std::string name;                  // "software", "memory" (4.x); "Denylist", "GPU Memory" (3.x)
  std::vector<DcgmGpuResult> results;
  std::optional<DcgmGpuResult> summary;  // 4.x's test_summary
  // The test's verdict: the worst of its results and summary (fail > warn > unknown > skip > pass);
  // unknown when it has none.
  DcgmStatus status() const;
};

struct DcgmDiagReport {
  std::string dcgm_version;          // "4.2.3"; empty when dcgmi did not say
  std::string driver_version;
  std::vector<DcgmTestResult> tests;
};

// Parses dcgmi's JSON output. Text before the first '{' (dcgmi 3.x may print a line first) is
// ignored. Errors: no JSON at all (the message quotes the output's last lines: "Error: unable to
// establish a connection..."), JSON that is not a diagnostic, a "runtime_error" (the diagnostic
// could not run: its message), or a document without any test.
Result<DcgmDiagReport> parse_dcgm_diag(std::string_view output);

// The POSIX sh script verify runs on the node for `level` (1 to 3; pure). It prints "@@dcgm
// key value" marker lines around dcgmi's own output. `gpu_ids` (DCGM's GPU ids): `-i` limits
// the run to them; empty: every GPU.
std::string dcgm_diag_script(int level, const std::vector<int>& gpu_ids = {});

// DCGM's GPU id of each GPU UUID in `dcgmi discovery -l` (pure). Both layouts dcgmi prints:
// the table of DCGM 3 and 4 ("| 0      | Name: ...", "|        | Device UUID: GPU-...") and
// the plain list of later 4.x releases ("GPU ID: 0", "Device UUID: GPU-...");
// tests/data/dcgm/README.md. DCGM's ids are its own, not nvidia-smi's indexes. Error: no GPU
// found in the text (the message quotes its last lines: dcgmi's connection error).
Result<std::vector<std::pair<std::string, int>>> parse_dcgm_discovery(std::string_view output);

// How long the script lets dcgmi run at `level`, in seconds.
int dcgm_diag_timeout_s(int level);

// Splits the script's output into an ObservedDcgmDiag (pure). The problem names the fix when
// dcgmi is missing. Error: output without any marker (not the script's).
Result<ObservedDcgmDiag> parse_dcgm_diag_run(std::string_view output, int level);

// The package profile's names of DCGM, for the fixes; empty: not packaged by the profile.
struct DcgmNames {
  std::string package;
  std::string service;
};

// The report of a run, or why there is none: dcgmi missing (ErrorCode::not_found, the fix names
// `names`), the run's problem, a timeout, dcgmi's connection error (DCGM's host engine not
// running: start `names.service`), or output that does not parse.
Result<DcgmDiagReport> dcgm_diag_result(const ObservedDcgmDiag& run, const DcgmNames& names);

// Runs the script on the node (one Transport::run, not through sudo; with GPUs named, one more
// first for `dcgmi discovery -l`, to find their DCGM ids). Does I/O. A GPU DCGM does not list
// is the run's problem, not an error. Errors: the transport's (unreachable, timeout).
Result<ObservedDcgmDiag> run_dcgm_diag(Transport& transport, const DcgmDiagRequest& request);

}  // namespace gpuctl
