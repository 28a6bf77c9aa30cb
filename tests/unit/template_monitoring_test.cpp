// The monitoring stack's rendered files agree with each other: every DCGM field the alert rules
// and the dashboard read is in the counters CSV gpuctl gives dcgm-exporter (so the exporter
// exports it), every field exporter_metrics requires is one a rule reads, Prometheus sends its
// alerts to the Alertmanager beside it, and Alertmanager's receivers hold no secret.
#include <gpuctl/inventory/loader.hpp>
#include <gpuctl/monitoring/dcgm_exporter_fields.hpp>
#include <gpuctl/util/strings.hpp>
#include <gpuctl_build_paths.hpp>
#include "shipped_playbooks.hpp"

#include <gtest/gtest.h>

#include <fstream>
#include <map>
#include <sstream>
#include <regex>
#include <set>

namespace gpuctl {
namespace {

// Every file the example inventory's nodes receive, by node then path.
std::map<std::string, std::map<std::string, std::string>> rendered(const std::string& inventory_text = {}) {
  std::map<std::string, std::map<std::string, std::string>> out;
  auto loaded = inventory_text.empty() ? load_inventory(std::string(GPUCTL_SOURCE_DIR) + "/docs/examples/cluster.yaml")
                                       : load_inventory_text(inventory_text, "test.yaml");
  EXPECT_TRUE(loaded.ok());
  if (!loaded.ok()) return out;
  for (const auto& node : loaded.inventory->nodes) {
    auto files = testing::shipped_files(*loaded.inventory, node);
    EXPECT_TRUE(files) << node.name;
    if (!files) continue;
    for (const auto& file : *files) out[node.name][file.path] = file.content;
  }
  return out;
}

std::set<std::string> dcgm_fields_in(const std::string& text) {
  std::set<std::string> fields;
  const std::regex field("DCGM_FI_[A-Z0-9_]+");
  for (auto it = std::sregex_iterator(text.begin(), text.end(), field); it != std::sregex_iterator(); ++it)
    fields.insert(it->str());
  return fields;
}

TEST(MonitoringFiles, EveryFieldTheRulesAndDashboardReadIsInTheCountersFile) {
  auto files = rendered();
  const auto& head = files.at("head01");
  const auto& gpu = files.at("gpu01");
  const auto csv = gpu.at("/etc/dcgm-exporter/gpuctl-counters.csv");
  std::set<std::string> exported;
  for (const auto& line : util::split_lines(csv)) {
    if (line.empty() || line.starts_with("#")) continue;
    const auto columns = util::split(line, ',');
    ASSERT_EQ(columns.size(), 3u) << "dcgm-exporter takes exactly 3 columns: " << line;
    exported.insert(std::string(util::trim(columns[0])));
    const auto type = util::trim(columns[1]);
    EXPECT_TRUE(type == "gauge" || type == "counter" || type == "label") << line;
  }
  const auto rules = dcgm_fields_in(head.at("/etc/prometheus/gpu-alerts.yml"));
  const auto dashboard = dcgm_fields_in(head.at("/etc/prometheus/gpuctl-grafana-dashboard.json"));
  EXPECT_GE(rules.size(), 9u);
  std::set<std::string> aliases;
  for (const auto& field : monitoring::dcgm_exporter_fields())
    if (field.need == monitoring::FieldNeed::alias) aliases.emplace(field.name);
  for (const auto& field : rules)
    EXPECT_TRUE(exported.contains(field) || aliases.contains(field)) << field << " is read by a rule, not exported";
  for (const auto& alias : aliases) EXPECT_FALSE(exported.contains(alias)) << alias << ": an alias is not exported";
  for (const auto& field : dashboard) EXPECT_TRUE(exported.contains(field)) << field << " is charted, not exported";
  // exporter_metrics holds nodes to exactly what the rules read.
  for (const auto& field : monitoring::dcgm_exporter_fields()) {
    if (field.need == monitoring::FieldNeed::alias) continue;  // read by a rule, never required
    const bool required =
        field.need == monitoring::FieldNeed::alerted || field.need == monitoring::FieldNeed::alerted_nvlink;
    EXPECT_EQ(required, rules.contains(std::string(field.name))) << field.name;
  }
  // The exporter reads gpuctl's file, on the node's own address.
  const auto dropin = gpu.at("/etc/systemd/system/nvidia-dcgm-exporter.service.d/gpuctl.conf");
  EXPECT_NE(dropin.find("ExecStart=\n"), std::string::npos);
  EXPECT_NE(dropin.find("-f /etc/dcgm-exporter/gpuctl-counters.csv -a 10.10.1.1:9400"), std::string::npos) << dropin;
}

TEST(MonitoringFiles, PrometheusAlertsTheAlertmanagerBesideItAndKeepsVerifysNodeLabel) {
  auto files = rendered();
  const auto& head = files.at("head01");
  const auto prometheus = head.at("/etc/prometheus/prometheus.yml");
  EXPECT_NE(prometheus.find("alerting:\n  alertmanagers:\n    - static_configs:\n        - targets: ['10.10.0.1:9093']"),
            std::string::npos)
      << prometheus;
  EXPECT_NE(prometheus.find("honor_labels: true"), std::string::npos);
  EXPECT_NE(head.at("/etc/default/prometheus").find("--web.listen-address=10.10.0.1:9090"), std::string::npos);
  EXPECT_NE(head.at("/etc/default/prometheus-alertmanager").find("--cluster.listen-address="), std::string::npos);
  // No receiver declared: alerts stay in Alertmanager, routed nowhere.
  const auto alertmanager = head.at("/etc/prometheus/alertmanager.yml");
  EXPECT_NE(alertmanager.find("receiver: gpuctl-unrouted"), std::string::npos);
  EXPECT_EQ(alertmanager.find("routes:"), std::string::npos);
  EXPECT_FALSE(files.at("gpu01").contains("/etc/prometheus/prometheus.yml"));
}


std::string example_with(const std::string& monitoring_extra) {
  std::ifstream in(std::string(GPUCTL_SOURCE_DIR) + "/docs/examples/cluster.yaml");
  std::stringstream text;
  text << in.rdbuf();
  auto yaml = text.str();
  const std::string anchor = "    node_exporter: true\n";
  yaml.replace(yaml.find(anchor), anchor.size(), anchor + monitoring_extra);
  return yaml;
}

TEST(MonitoringFiles, AlertmanagerRoutesEachSeverityToItsReceiversWithSecretsInFiles) {
  auto files = rendered(example_with(R"(    alertmanager:
      webhook: {url: "https://relay.example.com/gpu?team=hpc", bearer_token: true, severity: critical}
      email: {to: gpu-team@example.com, from: alertmanager@example.com, smarthost: "smtp.example.com:587", auth_username: alertmanager}
      slack: {channel: "#gpu-alerts", severity: warning}
)"));
  const auto& head = files.at("head01");
  const auto alertmanager = head.at("/etc/prometheus/alertmanager.yml");
  EXPECT_NE(alertmanager.find("    - receiver: webhook\n      matchers: ['severity=~\"critical\"']"), std::string::npos) << alertmanager;
  EXPECT_NE(alertmanager.find("    - receiver: email\n      matchers: ['severity=~\"critical|warning\"']"), std::string::npos);
  EXPECT_NE(alertmanager.find("    - receiver: slack\n      matchers: ['severity=~\"warning\"']"), std::string::npos);
  EXPECT_NE(alertmanager.find("- url: 'https://relay.example.com/gpu?team=hpc'"), std::string::npos);
  EXPECT_NE(alertmanager.find("credentials_file: /etc/prometheus/alertmanager-secrets/webhook-token"), std::string::npos);
  EXPECT_NE(alertmanager.find("auth_password_file: /etc/prometheus/alertmanager-secrets/smtp-password"), std::string::npos);
  EXPECT_NE(alertmanager.find("api_url_file: /etc/prometheus/alertmanager-secrets/slack-api-url"), std::string::npos);
  // The secrets are files of their own, from the store (masked here), readable by Alertmanager.
  for (const char* path : {"/etc/prometheus/alertmanager-secrets/webhook-token", "/etc/prometheus/alertmanager-secrets/smtp-password",
                           "/etc/prometheus/alertmanager-secrets/slack-api-url"})
    EXPECT_TRUE(head.contains(path)) << path;
}

TEST(MonitoringFiles, GrafanaGetsItsRepositoryDataSourceAndDashboardOnlyWhenDeclared) {
  EXPECT_FALSE(rendered().at("head01").contains("/etc/grafana/provisioning/datasources/gpuctl.yaml"));
  auto files = rendered(example_with(R"(    grafana:
      repository: {url: "https://apt.grafana.com", key_url: "https://apt.grafana.com/gpg.key"}
)"));
  const auto& head = files.at("head01");
  EXPECT_EQ(head.at("/etc/apt/sources.list.d/gpuctl-grafana.list").substr(head.at("/etc/apt/sources.list.d/gpuctl-grafana.list").rfind("deb ")),
            "deb [signed-by=/etc/apt/keyrings/gpuctl-grafana.asc] https://apt.grafana.com stable main\n");
  EXPECT_NE(head.at("/etc/grafana/provisioning/datasources/gpuctl.yaml").find("url: http://10.10.0.1:9090"), std::string::npos);
  EXPECT_NE(head.at("/etc/grafana/provisioning/dashboards/gpuctl.yaml").find("path: /etc/grafana/dashboards/gpuctl"), std::string::npos);
  EXPECT_EQ(head.at("/etc/grafana/dashboards/gpuctl/gpuctl-gpus.json"), head.at("/etc/prometheus/gpuctl-grafana-dashboard.json"));
}

}  // namespace
}  // namespace gpuctl
