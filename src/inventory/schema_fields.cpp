#include "schema_fields.hpp"

#include "formats.hpp"
#include "names.hpp"
#include "values.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <cstdlib>

namespace gpuctl::inventory_detail {

namespace grammar {
const Grammar name{check_name, "write letters, digits, '_', '-' and '.', starting with a letter, digit or '_', e.g. gpu-a"};
const Grammar hca{check_hca, "write the device name, e.g. mlx5_0 (letters, digits, '_', '-', '.', ':')"};
const Grammar label_key{check_label_key, "write names of letters, digits, '_', '-' and '.', optionally joined by '/', e.g. topology/zone"};
const Grammar label_value{check_label_value,
                          "write printable ASCII without quotes, '\\', '`', '$', '<', '>', ';', '&', '|' or '{{', e.g. storage"};
const Grammar host_name{check_hostname, "write letters, digits, '-' and '.', e.g. gpu01"};
const Grammar address{check_address, "write a host name, an IPv4 or an IPv6 address"};
const Grammar user{check_user, "write a POSIX user name, e.g. admin"};
const Grammar local_file{[](std::string_view text) { return check_path(text, HomePrefix::refused); },
                         "write an absolute path without '..', '//' or spaces, e.g. /etc/gpuctl/cuda-keyring.gpg"};
const Grammar directory{[](std::string_view text) { return check_path(text, HomePrefix::refused); },
                        "write an absolute path without '..', '//' or spaces, e.g. /run/pyxis"};
const Grammar ssh_file{[](std::string_view text) { return check_path(text, HomePrefix::allowed); },
                       "write an absolute path or one under ~/, without '..', '//' or spaces, e.g. ~/.ssh/id_ed25519"};
const Grammar url{check_url, "write https://host/path, http://host/path or file:/absolute/path, without spaces or quotes"};
const Grammar driver_branch{check_driver_branch, "write the branch's digits, e.g. \"550\""};
const Grammar driver_version{check_driver_version, "write numbers separated by dots, e.g. \"550.127.08\""};
const Grammar cuda_version{check_cuda_version, "write major.minor, e.g. \"12.4\""};
const Grammar slurm_key{check_slurm_key, "write a slurm.conf parameter name, e.g. MaxTime"};
const Grammar slurm_value{check_slurm_value, "write one word without spaces, '#' or quotes, e.g. 01:00:00 or task/cgroup,task/affinity"};
const Grammar nccl_key{check_nccl_key, "write NCCL_ then upper-case letters, digits and '_', e.g. NCCL_IB_HCA"};
const Grammar email{check_email_address, "write one address, e.g. gpu-oncall@example.com"};
const Grammar email_user{[](std::string_view text) {
                            return text.find('@') == std::string_view::npos ? check_user(text) : check_email_address(text);
                          },
                          "write the SMTP user name or address, e.g. alertmanager@example.com"};
const Grammar host_port{check_host_port, "write host:port, e.g. smtp.example.com:587"};
const Grammar chat_channel{check_chat_channel, "write #channel or @user, e.g. #gpu-alerts"};
const Grammar toolkit_version{check_toolkit_version,
                              "write the toolkit's major.minor.patch, e.g. \"1.17.8\""};
// An image reference as podman, docker and ctr read it: lower-case name components, a tag or
// digest; one word, never an option (it reaches a command line quoted, and after `--`).
const Grammar image_ref{[](std::string_view text) -> std::optional<std::string> {
                          if (text.empty()) return "is empty";
                          if (text.size() > 255) return "is longer than 255 characters";
                          const auto first = text.front();
                          if (!((first >= 'a' && first <= 'z') || (first >= '0' && first <= '9'))) return "must start with a lower-case letter or digit";
                          for (const char c : text)
                            if (!((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
                                  std::string_view("._-/:@").find(c) != std::string_view::npos))
                              return fmt::format("has '{}': image references take letters, digits and . _ - / : @", c);
                          return std::nullopt;
                        },
                        "write a local image, e.g. localhost/gpuctl-gpu-test:1"};
const Grammar nccl_value{check_nccl_value, "write one word without spaces, '#', quotes or shell metacharacters, e.g. =bond0"};
}  // namespace grammar

bool accepted(Decoder& d, const YamlNode& at, const std::string& text, std::string_view what, const Grammar& g) {
  if (auto why = g.check(text)) {
    d.error(at, fmt::format("{} '{}' {}", what, text, *why), std::string(g.fix));
    return false;
  }
  return true;
}

std::optional<std::string> checked(Decoder& d, const YamlNode& node, std::string_view what, const Grammar& g) {
  auto text = d.string(node, fmt::format("'{}'", what));
  if (!text || !accepted(d, node, *text, what, g)) return std::nullopt;
  return text;
}

std::vector<MapEntry> scalar_map(Decoder& d, const YamlNode& node, std::string_view what) {
  std::vector<MapEntry> out;
  auto view = d.map(node, what, {});
  if (!view) return out;
  for (const auto& entry : view->entries())
    if (auto text = d.string(*entry.value, fmt::format("'{}' in {}", entry.key, what)))
      out.push_back({entry.key, *text, pos_of(*entry.key_node), pos_of(*entry.value)});
  return out;
}

std::optional<double> positive_number(Decoder& d, const YamlNode& node, std::string_view what, std::string_view unit) {
  auto text = d.string(node, what);
  if (!text) return std::nullopt;
  char* end = nullptr;
  const double value = std::strtod(text->c_str(), &end);
  if (end != text->c_str() + text->size() || !(value > 0) || value > 1e6) {
    d.error(node, fmt::format("{} must be a positive number of {} (got '{}')", what, unit, *text));
    return std::nullopt;
  }
  return value;
}

std::optional<std::int64_t> byte_size(Decoder& d, const YamlNode& node, std::string_view what) {
  auto text = d.string(node, what);
  if (!text) return std::nullopt;
  std::string digits = *text;
  std::int64_t unit = 1;
  constexpr std::string_view k_units = "KMG";
  if (const auto u = digits.empty() ? std::string_view::npos : k_units.find(static_cast<char>(std::toupper(digits.back())));
      u != std::string_view::npos) {
    unit = std::int64_t{1} << (10 * (1 + static_cast<int>(u)));
    digits.pop_back();
  }
  const bool numeric = !digits.empty() && digits.size() <= 12 && std::ranges::all_of(digits, [](char c) { return c >= '0' && c <= '9'; });
  const std::int64_t bytes = numeric ? std::stoll(digits) * unit : 0;
  if (bytes < 4 || bytes > (std::int64_t{16} << 30)) {
    d.error(node, fmt::format("{} must be a size from 4 bytes to 16G, like 256M or 1G (got '{}')", what, *text));
    return std::nullopt;
  }
  return bytes;
}

}  // namespace gpuctl::inventory_detail
