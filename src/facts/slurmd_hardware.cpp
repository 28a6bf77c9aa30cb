// The slurmd_hardware fact (facts/slurmd_hardware.hpp): `slurmd -C` on the node, parsed, with
// its facts views. Its shell is src/facts/probes/slurmd_hardware.sh.
#include <gpuctl/facts/slurmd_hardware.hpp>

#include "fact_catalog.hpp"

#include <gpuctl/util/strings.hpp>

#include <charconv>
#include <map>

namespace gpuctl::facts {
namespace {

// Every Key=Value word of the text (both tools print them space-separated, several per line).
std::map<std::string, std::string, std::less<>> key_values(std::string_view text) {
  std::map<std::string, std::string, std::less<>> values;
  for (const auto& word : util::split_words(text))
    if (const auto eq = word.find('='); eq != std::string::npos && eq > 0) values.emplace(word.substr(0, eq), word.substr(eq + 1));
  return values;
}

Result<SlurmHardware> hardware_from(std::string_view text, std::string_view tool, std::string_view cpus,
                                    std::string_view sockets) {
  const auto values = key_values(text);
  SlurmHardware hardware;
  const std::pair<std::string_view, std::int64_t*> fields[] = {
      {cpus, &hardware.cpus},
      {"Boards", &hardware.boards},
      {sockets, &hardware.sockets_per_board},
      {"CoresPerSocket", &hardware.cores_per_socket},
      {"ThreadsPerCore", &hardware.threads_per_core},
      {"RealMemory", &hardware.real_memory_mib}};
  for (const auto& [key, out] : fields) {
    const auto it = values.find(key);
    if (it == values.end()) return fail(ErrorCode::parse, fmt::format("{} printed no {}=", tool, key));
    const auto& value = it->second;
    const auto [end, ec] = std::from_chars(value.data(), value.data() + value.size(), *out);
    if (ec != std::errc{} || end != value.data() + value.size() || *out < 0)
      return fail(ErrorCode::parse, fmt::format("{} printed {}={}, not a number", tool, key, value));
  }
  return hardware;
}

std::string hardware_text(const SlurmHardware& h) {
  return fmt::format("CPUs={} Boards={} SocketsPerBoard={} CoresPerSocket={} ThreadsPerCore={} RealMemory={}", h.cpus,
                     h.boards, h.sockets_per_board, h.cores_per_socket, h.threads_per_core, h.real_memory_mib);
}

const FactRegistration k_registration{{
    .probe = k_slurmd_hardware.name,
    .command = "slurmd -C",
    .shell = [] { return probe_shell("slurmd_hardware"); },
    .fill = [](NodeFacts& facts, const Probes& probes) {
      facts.declared.set(k_slurmd_hardware, parse_fact<SlurmHardware>(probes, std::string(k_slurmd_hardware.name),
                                                                      "slurmd -C", parse_slurmd_hardware));
    },
    .to_json = [](const NodeFacts& facts, nlohmann::ordered_json& node) {
      const auto fact = facts.declared.get(k_slurmd_hardware);
      if (!fact.present()) {
        node["slurmd_hardware"] = {{"absent", fact.absent_reason}};
        return;
      }
      const auto& h = *fact.value;
      node["slurmd_hardware"] = {{"cpus", h.cpus},
                                 {"boards", h.boards},
                                 {"sockets_per_board", h.sockets_per_board},
                                 {"cores_per_socket", h.cores_per_socket},
                                 {"threads_per_core", h.threads_per_core},
                                 {"real_memory_mib", h.real_memory_mib}};
    },
    // Only where slurmd answered: most nodes of `gpuctl facts` have no Slurm to speak of.
    .to_text = [](const NodeFacts& facts) -> std::string {
      const auto fact = facts.declared.get(k_slurmd_hardware);
      return fact.present() ? fmt::format("  slurmd -C: {}\n", hardware_text(*fact.value)) : std::string();
    },
}};

}  // namespace

Result<SlurmHardware> parse_slurmd_hardware(std::string_view text) {
  return hardware_from(text, "slurmd -C", "CPUs", "SocketsPerBoard");
}

Result<SlurmHardware> parse_scontrol_hardware(std::string_view text) {
  return hardware_from(text, "scontrol show node", "CPUTot", "Sockets");
}

}  // namespace gpuctl::facts
