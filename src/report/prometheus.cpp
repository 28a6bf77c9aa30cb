#include <gpuctl/report/prometheus.hpp>

#include <fmt/format.h>

namespace gpuctl {

std::string prometheus_label_escape(std::string_view text) {
  std::string out;
  out.reserve(text.size());
  for (char c : text) {
    if (c == '\\') out += "\\\\";
    else if (c == '"') out += "\\\"";
    else if (c == '\n') out += "\\n";
    else out += c;
  }
  return out;
}

std::string verify_to_prometheus(const std::vector<NodeVerifyOutcome>& outcomes, std::int64_t unix_time) {
  const auto node_label = [](const NodeVerifyOutcome& o) { return prometheus_label_escape(o.outcome.node); };
  // The format wants every sample of a metric family together, under its HELP and TYPE.
  std::string out =
      "# HELP gpuctl_check_status Whether a gpuctl verify check passed on a node (1 pass, 0 fail or error).\n"
      "# TYPE gpuctl_check_status gauge\n";
  for (const auto& o : outcomes)
    for (const auto& c : o.checks) {
      if (c.status == CheckStatus::skipped) continue;
      out += fmt::format("gpuctl_check_status{{node=\"{}\",check=\"{}\"}} {}\n", node_label(o),
                         prometheus_label_escape(c.name), c.status == CheckStatus::pass ? 1 : 0);
    }
  out += "# HELP gpuctl_node_up Whether gpuctl verify reached the node (1) or not (0).\n"
         "# TYPE gpuctl_node_up gauge\n";
  for (const auto& o : outcomes)
    if (o.outcome.status != exec::NodeStatus::skipped)
      out += fmt::format("gpuctl_node_up{{node=\"{}\"}} {}\n", node_label(o),
                         o.outcome.status == exec::NodeStatus::unreachable ? 0 : 1);
  out += "# HELP gpuctl_node_verify_ok Whether every gpuctl verify check passed on the node.\n"
         "# TYPE gpuctl_node_verify_ok gauge\n";
  for (const auto& o : outcomes)
    if (o.outcome.status != exec::NodeStatus::skipped)
      out += fmt::format("gpuctl_node_verify_ok{{node=\"{}\"}} {}\n", node_label(o),
                         o.outcome.status == exec::NodeStatus::ok || o.outcome.status == exec::NodeStatus::changed ? 1 : 0);
  out += "# HELP gpuctl_verify_last_run_timestamp_seconds When gpuctl verify last ran (Unix time).\n"
         "# TYPE gpuctl_verify_last_run_timestamp_seconds gauge\n";
  out += fmt::format("gpuctl_verify_last_run_timestamp_seconds {}\n", unix_time);
  return out;
}

}  // namespace gpuctl
