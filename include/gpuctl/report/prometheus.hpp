#pragma once
// Verify results as Prometheus text exposition (version 0.0.4) for node_exporter's textfile
// collector. Pure; the caller writes the text atomically (the collector may read at any time).

#include <gpuctl/verify/outcome.hpp>

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace gpuctl {

// Series:
//   gpuctl_check_status{node,check}       1 pass, 0 fail or error (skipped checks are left out)
//   gpuctl_node_up{node}                  1 when the node was reached, else 0
//   gpuctl_node_verify_ok{node}           1 when every check passed
//   gpuctl_verify_last_run_timestamp_seconds   `unix_time` (seconds since the epoch)
// Nodes never started (skipped, e.g. interrupted) get no series at all.
std::string verify_to_prometheus(const std::vector<NodeVerifyOutcome>& outcomes, std::int64_t unix_time);

// Escapes a label value: backslash, double quote and newline.
std::string prometheus_label_escape(std::string_view text);

}  // namespace gpuctl
