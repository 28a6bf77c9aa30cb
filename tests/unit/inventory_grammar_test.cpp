// Every inventory field that reaches a command, a rendered file or a path refuses each class of
// hostile text at validate, with the position of the value: a table of fields times a table of
// payloads, built on a valid inventory in which "@@" marks where the field's text goes.
#include <gpuctl/inventory/loader.hpp>

#include <gtest/gtest.h>

#include <algorithm>
#include <string>
#include <vector>

using namespace gpuctl;

namespace {

struct FieldCase {
  const char* field;
  const char* valid;       // a value the field accepts; payloads are appended to it
  const char* yaml;        // a valid inventory with "@@" where a double-quoted value goes
  bool spaces_allowed = false;
  bool leading_dash_allowed = false;  // values that only land in a config file, never a command line
};

const std::vector<FieldCase> k_fields{
    {"cluster.name", "hopper", "cluster: {name: @@}\nhosts: {a1: }\n"},
    {"driver_branch", "550", "cluster:\n  name: c\n  nvidia: {driver_branch: @@}\nhosts: {a1: }\n"},
    {"driver_version", "550.127.08", "cluster:\n  name: c\n  nvidia: {driver_version: @@}\nhosts: {a1: }\n"},
    {"cuda", "12.4", "cluster:\n  name: c\n  nvidia: {cuda: @@}\nhosts: {a1: }\n"},
    {"repository.url", "https://example.com/cuda/",
     "cluster:\n  name: c\n  nvidia:\n    repository: {url: @@}\nhosts: {a1: }\n"},
    {"repository.key_url", "https://example.com/cuda/key.pub",
     "cluster:\n  name: c\n  nvidia:\n    repository: {url: 'https://e.com/', key_url: @@}\nhosts: {a1: }\n"},
    {"repository.key_file", "/etc/gpuctl/cuda.gpg",
     "cluster:\n  name: c\n  nvidia:\n    repository: {url: 'file:/srv/cuda/', key_file: @@}\nhosts: {a1: }\n"},
    {"identity_file", "/home/ops/.ssh/id", "cluster: {name: c}\ndefaults: {identity_file: @@}\nhosts: {a1: }\n"},
    {"known_hosts", "~/.ssh/known_hosts", "cluster: {name: c}\nhosts:\n  a1: {known_hosts: @@}\n"},
    {"slurm.cluster_name", "hopper",
     "cluster:\n  name: c\n  slurm: {controller: a1, cluster_name: @@}\nhosts: {a1: }\n"},
    {"slurm.memory_reserve", "5%",
     "cluster:\n  name: c\n  slurm: {controller: a1, memory_reserve: @@}\nhosts: {a1: }\n"},
    {"slurm hardware pin label", "1900000", "cluster: {name: c}\nhosts:\n  a1: {labels: {slurm.RealMemory: @@}}\n"},
    {"slurm.options key", "MaxJobCount",
     "cluster:\n  name: c\n  slurm:\n    controller: a1\n    options: {@@: 10}\nhosts: {a1: }\n"},
    {"slurm.options value", "10",
     "cluster:\n  name: c\n  slurm:\n    controller: a1\n    options: {MaxJobCount: @@}\nhosts: {a1: }\n", false, true},
    {"partition name", "gpu",
     "cluster:\n  name: c\n  slurm:\n    controller: a1\n    partitions:\n      - {name: @@, nodes: a1}\nhosts: {a1: }\n"},
    {"partition option key", "MaxTime",
     "cluster:\n  name: c\n  slurm:\n    controller: a1\n    partitions:\n      - name: gpu\n        nodes: a1\n"
     "        options: {@@: UNLIMITED}\nhosts: {a1: }\n"},
    {"partition option value", "01:00:00",
     "cluster:\n  name: c\n  slurm:\n    controller: a1\n    partitions:\n      - name: gpu\n        nodes: a1\n"
     "        options: {MaxTime: @@}\nhosts: {a1: }\n", false, true},
    {"nccl key", "NCCL_DEBUG", "cluster:\n  name: c\n  nccl: {@@: WARN}\nhosts: {a1: }\n"},
    {"nccl value", "=bond0", "cluster:\n  name: c\n  nccl: {NCCL_SOCKET_IFNAME: @@}\nhosts: {a1: }\n", false, true},
    {"group name", "gpu", "cluster: {name: c}\ngroups:\n  @@: {hosts: a1}\n"},
    {"host name", "gpu01", "cluster: {name: c}\nhosts:\n  @@:\n"},
    {"address", "10.0.0.1", "cluster: {name: c}\nhosts:\n  a1: {address: @@}\n"},
    {"user", "admin", "cluster: {name: c}\nhosts:\n  a1: {user: @@}\n"},
    {"rack", "r1", "cluster: {name: c}\nhosts:\n  a1: {rack: @@}\n"},
    {"gpu.model", "H100", "cluster: {name: c}\nhosts:\n  a1: {gpu: {model: @@, count: 8}}\n"},
    {"ib_hcas item", "mlx5_0", "cluster: {name: c}\nhosts:\n  a1: {ib_hcas: [mlx5_1, @@]}\n"},
    {"label name", "role", "cluster: {name: c}\nhosts:\n  a1: {labels: {@@: x}}\n"},
    {"label value", "train", "cluster: {name: c}\nhosts:\n  a1: {labels: {role: @@}}\n", true},
    {"slurm label value", "hopper", "cluster: {name: c}\nhosts:\n  a1: {labels: {slurm.Features: @@}}\n", false, true},
    // Alertmanager's receivers and Grafana's repository: values of alertmanager.yml, apt lines, curl.
    {"alertmanager.webhook.url", "https://relay.example.com/gpu",
     "cluster:\n  name: c\n  monitoring:\n    prometheus: a1\n    alertmanager:\n      webhook: {url: @@}\nhosts: {a1: }\n"},
    {"alertmanager.email.to", "gpu-team@example.com",
     "cluster:\n  name: c\n  monitoring:\n    prometheus: a1\n    alertmanager:\n      email: {to: @@, from: a@example.com, smarthost: 'mail:25'}\nhosts: {a1: }\n"},
    {"alertmanager.email.from", "alertmanager@example.com",
     "cluster:\n  name: c\n  monitoring:\n    prometheus: a1\n    alertmanager:\n      email: {from: @@, to: a@example.com, smarthost: 'mail:25'}\nhosts: {a1: }\n"},
    {"alertmanager.email.smarthost", "smtp.example.com:587",
     "cluster:\n  name: c\n  monitoring:\n    prometheus: a1\n    alertmanager:\n      email: {smarthost: @@, to: a@example.com, from: b@example.com}\nhosts: {a1: }\n"},
    {"alertmanager.email.auth_username", "alertmanager",
     "cluster:\n  name: c\n  monitoring:\n    prometheus: a1\n    alertmanager:\n      email: {auth_username: @@, to: a@example.com, from: b@example.com, smarthost: 'mail:25'}\nhosts: {a1: }\n"},
    {"alertmanager.slack.channel", "#gpu-alerts", "cluster:\n  name: c\n  monitoring:\n    prometheus: a1\n    alertmanager:\n      slack: {channel: @@}\nhosts: {a1: }\n"},
    {"grafana.repository.url", "https://apt.grafana.com",
     "cluster:\n  name: c\n  monitoring:\n    prometheus: a1\n    grafana:\n      repository: {url: @@, key_url: 'https://e.com/k'}\nhosts: {a1: }\n"},
    {"grafana.repository.key_url", "https://apt.grafana.com/gpg.key",
     "cluster:\n  name: c\n  monitoring:\n    prometheus: a1\n    grafana:\n      repository: {key_url: @@, url: 'https://e.com/'}\nhosts: {a1: }\n"},
};

struct Payload {
  const char* name;
  const char* yaml_text;  // inside a double-quoted YAML scalar (escapes allowed)
  bool whole = false;     // the whole value rather than appended to a valid one
};

const std::vector<Payload> k_payloads{
    {"command substitution", "$(id)"},
    {"backticks", "`id`"},
    {"single quote", "'"},
    {"double quote", "\\\""},
    {"line break", "\\nNCCL_NET_PLUGIN=/tmp/x.so"},
    {"carriage return", "\\rx"},
    {"terminal escape", "\\e[31m"},
    {"template delimiters", "{{x}}"},
    {"parent directory", "/../x"},
    {"parent directory alone", "../x", true},
    {"leading dash", "-oProxyCommand=x", true},
    {"space", " x"},
    {"comment", "#x"},
    {"semicolon", ";reboot"},
};

std::string replaced(const std::string& yaml, const std::string& value) {
  std::string out = yaml;
  out.replace(out.find("@@"), 2, "\"" + value + "\"");
  return out;
}

// 1-based line and column of "@@" in `yaml`.
std::pair<int, int> marker_position(const std::string& yaml) {
  const auto at = yaml.find("@@");
  const auto line_start = yaml.rfind('\n', at);
  const int line = 1 + static_cast<int>(std::count(yaml.begin(), yaml.begin() + static_cast<long>(at), '\n'));
  const int column = static_cast<int>(at - (line_start == std::string::npos ? 0 : line_start + 1)) + 1;
  return {line, column};
}

std::string listing(const LoadResult& result) {
  std::string out;
  for (const auto& d : result.diagnostics) out += "  " + d.to_string() + "\n";
  return out;
}

TEST(InventoryGrammar, EveryFieldAcceptsItsValidExample) {
  for (const auto& field : k_fields) {
    const auto result = load_inventory_text(replaced(field.yaml, field.valid), "inv.yaml");
    EXPECT_TRUE(result.ok()) << field.field << "\n" << listing(result);
  }
}

TEST(InventoryGrammar, EveryFieldRefusesEveryHostilePayloadAtItsPosition) {
  for (const auto& field : k_fields) {
    const auto [line, column] = marker_position(field.yaml);
    for (const auto& payload : k_payloads) {
      const std::string name = payload.name;
      if (field.spaces_allowed && name == "space") continue;
      if (field.leading_dash_allowed && name == "leading dash") continue;
      const std::string value = payload.whole ? payload.yaml_text : field.valid + std::string(payload.yaml_text);
      const auto result = load_inventory_text(replaced(field.yaml, value), "inv.yaml");
      const bool refused_here = std::ranges::any_of(result.diagnostics, [&](const Diagnostic& d) {
        return d.severity == Severity::error && d.line == line && d.column == column;
      });
      EXPECT_FALSE(result.ok()) << field.field << " accepted " << name;
      EXPECT_TRUE(refused_here) << field.field << " / " << name << ": want an error at " << line << ":" << column
                                << "\n" << listing(result);
    }
  }
}

TEST(InventoryGrammar, DiagnosticsShowControlCharactersEscaped) {
  const auto result = load_inventory_text("cluster:\n  name: c\n  nccl: {NCCL_DEBUG: \"WARN\\nNCCL_NET_PLUGIN=x\\e[2J\"}\nhosts: {a1: }\n",
                                          "inv.yaml");
  ASSERT_FALSE(result.ok());
  const auto text = result.diagnostics.front().to_string();
  EXPECT_EQ(text.find('\n'), std::string::npos) << text;
  EXPECT_EQ(text.find('\x1b'), std::string::npos) << text;
  EXPECT_NE(text.find("inv.yaml:3:22: error: value 'WARN\\nNCCL_NET_PLUGIN=x\\x1b[2J' of 'NCCL_DEBUG' in 'cluster.nccl' "
                      "contains a line break"),
            std::string::npos)
      << text;
}

}  // namespace

// A node's address is an IP address or a DNS name, nothing else (issue #37): "host:port" passed
// as IPv6 before, "::" and 0.0.0.0 connect to the local machine, and "010.0.0.1" is 8.0.0.1 to
// inet_aton.
TEST(InventoryGrammar, AddressesAreIpAddressesOrHostNamesOnly) {
  const auto load = [](const std::string& address) {
    return load_inventory_text("cluster: {name: c}\nhosts:\n  a1: {address: \"" + address + "\"}\n", "inv.yaml");
  };
  for (const auto* good : {"10.0.0.1", "gpu01.example.com", "2001:db8::1", "fe80::1", "::1", "::ffff:10.0.0.1"})
    EXPECT_TRUE(load(good).ok()) << good << "\n" << listing(load(good));
  for (const auto* bad : {"10.0.0.1:22", "gpu01:22", "::", "0.0.0.0", "010.0.0.1", "1:2:3", "2001:db8::1::2", "[::1]", "10.0.0"}) {
    const auto result = load(bad);
    EXPECT_FALSE(result.ok()) << bad;
    const bool at_value = std::ranges::any_of(result.diagnostics, [](const Diagnostic& d) { return d.line == 3 && d.column > 0; });
    EXPECT_TRUE(at_value) << bad << "\n" << listing(result);
  }
  EXPECT_NE(listing(load("10.0.0.1:22")).find("a port goes in 'port:'"), std::string::npos) << listing(load("10.0.0.1:22"));
  EXPECT_NE(listing(load("::")).find("the unspecified address"), std::string::npos);
}
