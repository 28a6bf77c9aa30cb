// cluster.monitoring's receivers, Grafana and periods: what validate accepts, and what it refuses
// with the line and the fix (docs/inventory.md#monitoring).
#include <gpuctl/inventory/loader.hpp>

#include <gtest/gtest.h>

#include <algorithm>

using namespace gpuctl;

namespace {

LoadResult load(const std::string& monitoring, const std::string& os = "debian12") {
  return load_inventory_text("cluster:\n  name: c\n  os: " + os + "\n  monitoring:\n" + monitoring + "hosts: {head: , gpu01: }\n",
                             "inv.yaml");
}

// The first error's message and hint, for the expectations below.
std::string first_error(const LoadResult& result) {
  for (const auto& d : result.diagnostics)
    if (d.severity == Severity::error) return d.message + " | " + d.hint;
  return "(no error)";
}

TEST(InventoryMonitoring, ReadsReceiversPortsPeriodAndGrafana) {
  const auto result = load(R"(    prometheus: head
    ports: {prometheus: 9191, alertmanager: 9193}
    verify_interval: 15m
    alertmanager:
      webhook: {url: "https://relay.example.com/gpu", bearer_token: true, severity: critical}
      email: {to: gpu@example.com, from: am@example.com, smarthost: "smtp.example.com:587", auth_username: am, require_tls: false}
      slack: {channel: "#gpu", severity: warning}
    grafana:
      repository: {url: "https://apt.grafana.com", key_url: "https://apt.grafana.com/gpg.key"}
)");
  ASSERT_TRUE(result.ok()) << first_error(result);
  const auto& m = result.inventory->cluster.monitoring;
  EXPECT_EQ(m.prometheus_port, 9191);
  EXPECT_EQ(m.alertmanager_port, 9193);
  EXPECT_EQ(m.verify_interval_seconds, 900);
  EXPECT_TRUE(m.webhook.declared);
  EXPECT_TRUE(m.webhook.bearer_token);
  EXPECT_EQ(m.webhook.severity, "critical");
  EXPECT_EQ(m.email.smarthost, "smtp.example.com:587");
  EXPECT_FALSE(m.email.require_tls);
  EXPECT_EQ(m.email.severity, "all");
  EXPECT_EQ(m.slack.channel, "#gpu");
  EXPECT_TRUE(m.grafana.declared());
}

TEST(InventoryMonitoring, RefusesWhatWouldLeakOrNeverWork) {
  struct Case {
    std::string monitoring, os, says;
  };
  const std::vector<Case> cases{
      {"    alertmanager:\n      webhook: {url: \"https://relay.example.com/x\"}\n", "debian12", "names no node"},
      {"    prometheus: head\n    alertmanager:\n      webhook: {url: \"https://user:pw@relay.example.com/x\"}\n", "debian12",
       "carries a user or password"},
      {"    prometheus: head\n    alertmanager:\n      webhook: {url: \"file:/srv/hook\"}\n", "debian12", "http:// or https://"},
      {"    prometheus: head\n    alertmanager:\n      webhook: {bearer_token: true}\n", "debian12", "needs 'url'"},
      {"    prometheus: head\n    alertmanager:\n      email: {to: a@example.com, from: b@example.com, smarthost: mail.example.com}\n",
       "debian12", "has no port"},
      {"    prometheus: head\n    alertmanager:\n      email: {to: a@example.com, from: b@example.com, smarthost: \"mail:25\", "
       "auth_username: am}\n",
       "ubuntu2204", "cannot read the SMTP password from a file"},
      {"    prometheus: head\n    alertmanager:\n      slack: {channel: gpu}\n", "debian12", "#channel or @user"},
      {"    prometheus: head\n    alertmanager:\n      slack: {channel: \"#gpu\", severity: page}\n", "debian12", "severity"},
      {"    prometheus: head\n    verify_interval: 10s\n", "debian12", "from 1m to 30d"},
      {"    prometheus: head\n    verify_interval: 1w\n", "debian12", "from 1m to 30d"},
      {"    prometheus: head\n    grafana:\n      repository: {url: \"https://apt.grafana.com\"}\n", "debian12", "signing key"},
      {"    prometheus: head\n    alertmanager:\n      pagerduty: {}\n", "debian12", "pagerduty"},
      {"    prometheus: head\n    ports: {alertmanager: 9090}\n", "debian12", "ports.prometheus and ports.alertmanager are both 9090"},
  };
  for (const auto& c : cases) {
    const auto result = load(c.monitoring, c.os);
    EXPECT_FALSE(result.ok()) << c.monitoring;
    EXPECT_NE(first_error(result).find(c.says), std::string::npos) << c.monitoring << " -> " << first_error(result);
  }
}

}  // namespace
