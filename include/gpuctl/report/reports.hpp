#pragma once
// Views of apply and verify outcomes: a recap and a nodes x checks table for people, JSON
// and JUnit XML for machines. Pure.

#include <gpuctl/apply/outcome.hpp>
#include <gpuctl/exec/executor.hpp>
#include <gpuctl/verify/outcome.hpp>

#include <string>
#include <vector>

namespace gpuctl {

// Per node: status, failing step, reason, output tail and hint; then a counts line.
std::string render_apply_recap(const std::vector<NodeApplyOutcome>& outcomes);
std::string apply_to_json(const std::vector<NodeApplyOutcome>& outcomes);

struct VerifyTextOptions {
  bool expand = false;  // one row per node, one line per node's failure
};

// By default, readable at hundreds of nodes: checks as rows with how many nodes pass, fail,
// error or skip each; then every failure and error grouped by check and by what it observed
// and expected, naming its nodes by hostlist (plan/fold.hpp: a node's own name or address in a
// message folds as <node> / <address>); unreachable nodes grouped by their error; skips counted.
// expand: nodes as rows, checks as columns (PASS / FAIL / ERR / skip / -), then every non-pass
// of every node on its own line.
std::string render_verify_table(const std::vector<NodeVerifyOutcome>& outcomes, const VerifyTextOptions& options = {});
std::string verify_to_json(const std::vector<NodeVerifyOutcome>& outcomes);
// One testsuite per node, one testcase per check; fail -> <failure>, error -> <error>,
// skipped -> <skipped/>; unreachable nodes get one errored testcase.
std::string verify_to_junit(const std::vector<NodeVerifyOutcome>& outcomes);

struct OutcomeCounts {
  int ok = 0, changed = 0, failed = 0, unreachable = 0, skipped = 0;
};
OutcomeCounts count_outcomes(const std::vector<exec::NodeOutcome>& outcomes);

}  // namespace gpuctl
