#pragma once
// Folding identical node plans for people, as `clush -b` and `dshbak -c` fold outputs: one
// block per set of nodes whose plans read the same, headed by a hostlist. A node that differs
// only by its own name or address (an exporter listening on it, an error naming it) folds with
// the others: where the members' texts differ, the group shows the text with `<node>` and
// `<address>` in their place. Pure; the JSON view stays per node.

#include <gpuctl/plan/plan.hpp>

#include <string>
#include <utility>
#include <vector>

namespace gpuctl {

inline constexpr std::string_view k_node_placeholder = "<node>";
inline constexpr std::string_view k_address_placeholder = "<address>";

struct PlanGroup {
  std::vector<std::size_t> members;  // indexes into Plan::nodes, in plan order
  std::string hostlist;              // hostlist::compress of the members' names
  NodePlanStatus status = NodePlanStatus::planned;
  std::string error;                 // as shown (placeholders where members differ)
  std::vector<Change> changes;       // as shown: the first member's, placeholders where members differ
  std::vector<std::string> notes;    // every member's (nodes fold only with the same notes)
  bool placeholders = false;         // some shown text holds <node> or <address>
};

// Groups in order of each group's first member. Two nodes fold when they have the same status
// and, change by change, the same step, resource and action, and summary, reason and diff that
// are equal as they stand or equal once each node's own name and address are replaced.
std::vector<PlanGroup> fold_node_plans(const Plan& plan);

// The same folding for one text per node (a failed check's line, an unreachable node's error).
struct NodeText {
  std::string node;
  std::string address;
  std::string text;
  // More of the node's own words, each with its placeholder (a GPU's serial: "<serial>").
  std::vector<std::pair<std::string, std::string>> own_words{};
};
struct TextGroup {
  std::vector<std::size_t> members;  // indexes into the items, in order
  std::string hostlist;
  std::string text;                  // as shown: placeholders where the members' texts differ
};
// Two items fold when their texts are equal as they stand or once each node's own name and
// address are replaced. Groups in order of first member.
std::vector<TextGroup> fold_texts(const std::vector<NodeText>& items);

// `text` with whole-word occurrences of `name` and `address` replaced by the placeholders: a
// word boundary is any character other than a letter, digit, '_' or '-' (so "gpu1" is not
// replaced inside "gpu10", nor "10.0.0.1" inside "10.0.0.12").
std::string replace_own_words(std::string_view text, std::string_view name, std::string_view address);

}  // namespace gpuctl
