#pragma once
// The verify report as one self-contained HTML page (inline CSS and JS, no external assets):
// a nodes x checks grid coloured by result, filters by node status and group, and for every
// check that did not pass its observed and expected values, detail, and the node command it
// read with that command's output (folded in a <details>). Pure.

#include <gpuctl/inventory/inventory.hpp>
#include <gpuctl/verify/outcome.hpp>

#include <map>
#include <string>
#include <string_view>
#include <vector>

namespace gpuctl {

struct HtmlReportInfo {
  std::string title = "gpuctl verify";
  std::string cluster;                                          // shown in the header; may be empty
  std::string generated_at;                                     // shown as given, e.g. an ISO 8601 UTC time
  std::map<std::string, std::vector<std::string>> node_groups;  // node -> its groups, for the group filter

  // The cluster's name and every node's groups, from the inventory the report is about.
  void describe_inventory(const Inventory& inventory);
};

// Every node is a row (in the given order), every check seen on any node a column (in first-seen
// order). Cells carry data-status (pass|fail|error|skipped|none); rows carry data-status (the
// node's outcome) and data-groups. All text from outcomes and `info` is HTML-escaped.
std::string render_verify_html(const std::vector<NodeVerifyOutcome>& outcomes, const HtmlReportInfo& info);

// Escapes & < > " ' for text and attribute values.
std::string html_escape(std::string_view text);

}  // namespace gpuctl
