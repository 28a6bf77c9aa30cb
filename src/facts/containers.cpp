// The containers fact (facts/containers.hpp): the probe's sections parsed, CDI specs read with
// the YAML front end, and the fact's views. Its shell is src/facts/probes/containers.sh.
#include <gpuctl/facts/containers.hpp>

#include "fact_catalog.hpp"

#include "yaml/yaml_tree.hpp"

#include <gpuctl/util/strings.hpp>

#include <algorithm>
#include <map>
#include <set>

namespace gpuctl::facts {
namespace {

const yaml::YamlNode* child(const yaml::YamlNode& map, std::string_view key) {
  if (!map.is_map()) return nullptr;
  for (const auto& entry : map.entries)
    if (entry.first.value == key) return &entry.second;
  return nullptr;
}

// libnvidia-ml.so.<version> among the hostPaths of one containerEdits (the spec's or a device's).
void nvml_versions_of(const yaml::YamlNode& edits, std::set<std::string>& out) {
  const auto* mounts = child(edits, "mounts");
  if (!mounts || !mounts->is_sequence()) return;
  constexpr std::string_view k_lib = "libnvidia-ml.so.";
  for (const auto& mount : mounts->items) {
    const auto* host = child(mount, "hostPath");
    if (!host || !host->is_scalar()) continue;
    const auto slash = host->value.rfind('/');
    const std::string_view file = std::string_view(host->value).substr(slash == std::string::npos ? 0 : slash + 1);
    if (!file.starts_with(k_lib)) continue;
    const auto version = file.substr(k_lib.size());
    // "libnvidia-ml.so.1" is the soname link, not the driver's version.
    if (version.find('.') != std::string_view::npos) out.insert(std::string(version));
  }
}

std::string text_of(const yaml::YamlNode* node) { return node && node->is_scalar() ? node->value : std::string(); }

std::string stack_text(const ContainerStack& s) {
  std::string out = fmt::format("  containers: nvidia-ctk {}", s.ctk_found ? s.ctk_version : "not installed");
  for (const auto& spec : s.specs)
    out += fmt::format(", CDI spec {} ({} devices{})", spec.path, spec.device_names.size(),
                       spec.nvml_versions.empty() ? "" : ", driver " + util::join(spec.nvml_versions, "/"));
  if (!s.podman_version.empty()) out += ", podman " + s.podman_version;
  if (s.containerd_config) out += s.containerd_nvidia_runtime ? ", containerd: nvidia runtime" : ", containerd: no nvidia runtime";
  if (s.docker_config) out += s.docker_nvidia_runtime ? ", docker: nvidia runtime" : ", docker: no nvidia runtime";
  return out + "\n";
}

const FactRegistration k_registration{{
    .probe = k_container_stack.name,
    .command = "nvidia-ctk --version; cat /etc/cdi/nvidia.yaml /var/run/cdi/nvidia.yaml; grep nvidia-container-runtime "
               "/etc/containerd/config.toml /etc/docker/daemon.json; podman --version; ls -ld /dev/nvidia*; ls -l /dev/char",
    .after_gpus = true,
    .shell = [] { return probe_shell("containers"); },
    .fill = [](NodeFacts& facts, const Probes& probes) {
      facts.declared.set(k_container_stack, parse_fact<ContainerStack>(probes, std::string(k_container_stack.name),
                                                                       "the container stack", parse_container_stack));
    },
    .to_json = [](const NodeFacts& facts, nlohmann::ordered_json& node) {
      const auto fact = facts.declared.get(k_container_stack);
      if (!fact.present()) {
        node["containers"] = {{"absent", fact.absent_reason}};
        return;
      }
      const auto& s = *fact.value;
      auto specs = nlohmann::ordered_json::array();
      for (const auto& spec : s.specs)
        specs.push_back({{"path", spec.path}, {"cdi_version", spec.cdi_version}, {"kind", spec.kind},
                         {"devices", spec.device_names}, {"nvml_versions", spec.nvml_versions}, {"error", spec.error}});
      auto nodes = nlohmann::ordered_json::array();
      for (const auto& d : s.device_nodes)
        nodes.push_back({{"path", d.path}, {"major_minor", d.major_minor}, {"char_link", d.char_link_target},
                         {"char_device", d.is_char_device}});
      node["containers"] = {{"nvidia_ctk", s.ctk_found ? nlohmann::ordered_json(s.ctk_version) : nlohmann::ordered_json(nullptr)},
                            {"cdi_specs", specs},
                            {"containerd", {{"config", s.containerd_config}, {"nvidia_runtime", s.containerd_nvidia_runtime},
                                            {"cdi", s.containerd_cdi}}},
                            {"docker", {{"config", s.docker_config}, {"nvidia_runtime", s.docker_nvidia_runtime}, {"cdi", s.docker_cdi}}},
                            {"podman", s.podman_version.empty() ? nlohmann::ordered_json(nullptr) : nlohmann::ordered_json(s.podman_version)},
                            {"device_nodes", nodes},
                            {"mig_modes", s.mig_modes}};
    },
    // Only where there is a container stack to speak of.
    .to_text = [](const NodeFacts& facts) -> std::string {
      const auto fact = facts.declared.get(k_container_stack);
      if (!fact.present()) return {};
      const auto& s = *fact.value;
      if (!s.ctk_found && s.specs.empty() && s.podman_version.empty() && !s.containerd_config && !s.docker_config) return {};
      return stack_text(s);
    },
}};

}  // namespace

CdiSpec parse_cdi_spec(std::string_view text, const std::string& path) {
  CdiSpec spec;
  spec.path = path;
  auto parsed = yaml::parse_yaml(text, path, "CDI spec");
  if (!parsed.errors.empty()) {
    spec.error = fmt::format("not YAML: {}", parsed.errors.front().message);
    return spec;
  }
  const auto& root = parsed.root;
  if (!root.is_map()) {
    spec.error = root.is_null() ? "empty" : "not a map";
    return spec;
  }
  spec.cdi_version = text_of(child(root, "cdiVersion"));
  spec.kind = text_of(child(root, "kind"));
  if (spec.cdi_version.empty() || spec.kind.empty()) spec.error = "no cdiVersion or kind: not a CDI spec";
  std::set<std::string> versions;
  if (const auto* edits = child(root, "containerEdits")) nvml_versions_of(*edits, versions);
  if (const auto* devices = child(root, "devices"); devices && devices->is_sequence())
    for (const auto& device : devices->items) {
      if (const auto name = text_of(child(device, "name")); !name.empty()) spec.device_names.push_back(name);
      if (const auto* edits = child(device, "containerEdits")) nvml_versions_of(*edits, versions);
    }
  spec.nvml_versions.assign(versions.begin(), versions.end());
  return spec;
}

Result<ContainerStack> parse_container_stack(std::string_view text) {
  ContainerStack stack;
  std::string section, spec_path, spec_text;
  bool devices_seen = false;
  std::map<std::string, std::string> char_links;  // "195:0" -> "/dev/nvidia0"
  const auto end_spec = [&] {
    if (!spec_path.empty()) stack.specs.push_back(parse_cdi_spec(spec_text, spec_path));
    spec_path.clear();
    spec_text.clear();
  };
  for (const auto& line : util::split_lines(text)) {
    if (line.starts_with('@') && (section != "spec" || line == "@containerd" || line == "@docker" || line == "@podman" ||
                                  line == "@devices" || line == "@char" || line == "@mig" || line == "@enroot" || line == "@pyxis" ||
                                  line == "@srun" || line.starts_with("@spec /"))) {
      end_spec();
      const std::string header = line.substr(1);  // split_words keeps views into it
      const auto words = util::split_words(header);
      section = words.empty() ? std::string() : std::string(words.front());
      if (section == "spec" && words.size() > 1) spec_path = std::string(words[1]);
      if (section == "ctk") stack.ctk_found = true;
      if (section == "containerd") stack.containerd_config = true;
      if (section == "docker") stack.docker_config = true;
      if (section == "devices") devices_seen = true;
      if (section == "pyxis") stack.pyxis.package_conf = true;
      if (section == "srun") stack.pyxis.srun_section_seen = true;
      continue;
    }
    if (section == "spec") {
      spec_text += line;
      spec_text += '\n';
    } else if (section == "ctk") {
      constexpr std::string_view k_marker = " version ";
      if (const auto at = line.find(k_marker); at != std::string::npos && stack.ctk_version.empty())
        stack.ctk_version = std::string(util::trim(line.substr(at + k_marker.size())));
    } else if (section == "containerd") {
      if (line.find("nvidia-container-runtime") != std::string::npos) stack.containerd_nvidia_runtime = true;
      const auto trimmed = util::trim(line);
      if (trimmed.starts_with("enable_cdi") && trimmed.find("true") != std::string_view::npos) stack.containerd_cdi = true;
    } else if (section == "docker") {
      if (line.find("nvidia-container-runtime") != std::string::npos) stack.docker_nvidia_runtime = true;
      if (line.find("\"cdi\"") != std::string::npos && line.find("true") != std::string::npos) stack.docker_cdi = true;
    } else if (section == "podman") {
      const auto words = util::split_words(line);
      if (words.size() >= 3 && words[0] == "podman" && words[1] == "version") stack.podman_version = std::string(words[2]);
    } else if (section == "devices") {
      // `ls -ld`: "crw-rw-rw- 1 root root 195,   0 Dec  7 16:06 /dev/nvidia0"; a file that is no device: "-rw-...".
      const auto words = util::split_words(line);
      if (words.size() < 2 || !words.back().starts_with("/dev/")) continue;
      DeviceNode node{std::string(words.back()), {}, {}, line.starts_with('c')};
      for (std::size_t w = 0; node.is_char_device && w + 1 < words.size(); ++w)
        if (words[w].size() > 1 && words[w].ends_with(',')) {
          node.major_minor = fmt::format("{}:{}", words[w].substr(0, words[w].size() - 1), words[w + 1]);
          break;
        }
      stack.device_nodes.push_back(std::move(node));
    } else if (section == "char") {
      // `ls -l /dev/char`: "lrwxrwxrwx 1 root root 10 Dec  7 16:06 195:0 -> ../nvidia0".
      const auto arrow = line.find(" -> ");
      if (arrow == std::string::npos) continue;
      const auto words = util::split_words(std::string_view(line).substr(0, arrow));
      if (words.empty()) continue;
      std::string target = line.substr(arrow + 4);
      if (target.starts_with("../")) target = "/dev/" + target.substr(3);
      else if (!target.starts_with('/')) target = "/dev/char/" + target;
      char_links[std::string(words.back())] = std::move(target);
    } else if (section == "enroot") {
      const auto version = util::trim(line);
      if (version == "no enroot" || version.empty() || stack.pyxis.enroot_found) continue;
      stack.pyxis.enroot_found = true;
      stack.pyxis.enroot_version = std::string(version);
    } else if (section == "pyxis") {
      const auto trimmed = util::trim(line);
      if (!trimmed.empty() && !trimmed.starts_with('#') && stack.pyxis.plugin_line.empty()) stack.pyxis.plugin_line = std::string(trimmed);
    } else if (section == "srun") {
      const auto trimmed = util::trim(line);
      if (trimmed == "no srun") stack.pyxis.srun_no_answer = "srun is not installed (package slurm-client)";
      else if (trimmed == "no slurm.conf") stack.pyxis.srun_no_answer = "no /etc/slurm/slurm.conf (srun would wait a minute for one)";
      // "srun exit N", the probe's own last line: 124 and 137 are the probe's timeout.
      else if (trimmed == "srun exit 124" || trimmed == "srun exit 137") stack.pyxis.srun_no_answer = "srun --help did not answer in time";
      else if (trimmed.starts_with("srun exit ")) continue;
      // "--container-image=[USER@][REGISTRY#]IMAGE[:TAG]|PATH" (pyxis's option); "srun: error: ..."
      // or "srun: fatal: ..." (Slurm's log lines; srun's own "-e, --error=err" has no colon).
      else if (trimmed.starts_with("--container-image")) stack.pyxis.srun_offers_container_image = true;
      else if (trimmed.find("error:") != std::string_view::npos || trimmed.find("fatal:") != std::string_view::npos)
        stack.pyxis.srun_errors.emplace_back(trimmed);
    } else if (section == "mig") {
      if (const auto mode = util::trim(line); !mode.empty()) stack.mig_modes.emplace_back(mode);
    }
  }
  end_spec();
  for (auto& node : stack.device_nodes)
    if (const auto it = char_links.find(node.major_minor); it != char_links.end()) node.char_link_target = it->second;
  if (!devices_seen) return fail(ErrorCode::parse, "no @devices section: the probe stopped early");
  return stack;
}

}  // namespace gpuctl::facts
