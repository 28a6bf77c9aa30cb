#pragma once
// Rolling applies: nodes go in batches (`--batch-size N|P%`), and no new batch starts once the
// share of failed nodes passes `--max-fail P%`. Pure.

#include <gpuctl/core/error.hpp>

#include <cstddef>
#include <string_view>
#include <vector>

namespace gpuctl {

struct RolloutPolicy {
  std::size_t batch_size = 0;        // nodes per batch; 0 = all nodes in one batch
  double batch_percent = 0;          // or a share of the nodes (used when batch_size is 0)
  double max_fail_percent = 100;     // stop starting batches once failed/attempted exceeds this
};

// Parses "4" or "25%". Errors: not a number, zero, a percentage outside (0, 100].
Result<RolloutPolicy> parse_batch_size(std::string_view text, RolloutPolicy policy = {});
// Parses "10%" or "10" (a percentage either way), 0..100.
Result<double> parse_percent(std::string_view text);

// Consecutive batches of node indexes 0..node_count-1, each non-empty; a percentage rounds up.
std::vector<std::vector<std::size_t>> make_batches(std::size_t node_count, const RolloutPolicy& policy);

// True when, after `failed` of `attempted` nodes failed, no further batch may start.
bool rollout_should_stop(std::size_t failed, std::size_t attempted, const RolloutPolicy& policy);

}  // namespace gpuctl
