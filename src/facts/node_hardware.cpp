// The node_hardware probe (facts/node_hardware.hpp): its script, parser and one round trip.
#include <gpuctl/facts/node_hardware.hpp>

#include "fact_catalog.hpp"

#include <gpuctl/util/strings.hpp>

#include <charconv>
#include <fmt/format.h>
#include <set>

namespace gpuctl::facts {
namespace {

struct Section {
  int exit_code = -1;
  std::string text;
};

// "@@ NAME rc=N" opens a section; the lines up to the next one are its output.
std::map<std::string, Section> split_sections(std::string_view output) {
  std::map<std::string, Section> sections;
  Section* current = nullptr;
  for (const auto& line : util::split_lines(output)) {
    if (line.starts_with("@@ ")) {
      const auto words = util::split_words(std::string_view(line).substr(3));
      if (words.size() == 2 && words[1].starts_with("rc=")) {
        current = &sections[std::string(words[0])];
        const auto rc = words[1].substr(3);
        std::from_chars(rc.data(), rc.data() + rc.size(), current->exit_code);
        continue;
      }
    }
    if (current) current->text += line + "\n";
  }
  return sections;
}

std::optional<long long> to_number(std::string_view text) {
  long long value = 0;
  const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (ec != std::errc{} || end != text.data() + text.size() || value < 0) return std::nullopt;
  return value;
}

// The first line of what a tool said, for an error.
std::string said(const Section& section) {
  const auto lines = util::split_lines(section.text);
  return lines.empty() ? fmt::format("exit {}, no output", section.exit_code)
                       : fmt::format("exit {}: {}", section.exit_code, util::trim(lines.front()));
}

// `lscpu -p=CPU,CORE,SOCKET`: "# ..." comment lines, then "cpu,core,socket" per online CPU.
Result<void> read_cpu_layout(const Section& lscpu, NodeHardware& hardware, SlurmHardware& counted) {
  if (lscpu.exit_code != 0) return fail(ErrorCode::parse, fmt::format("lscpu -p failed ({})", said(lscpu)));
  std::set<int> sockets;
  std::set<std::pair<int, int>> cores;  // (socket, core)
  for (const auto& line : util::split_lines(lscpu.text)) {
    if (line.empty() || line.starts_with('#')) continue;
    const auto fields = util::split(line, ',');
    std::optional<long long> cpu, core, socket;
    if (fields.size() == 3) cpu = to_number(fields[0]), core = to_number(fields[1]), socket = to_number(fields[2]);
    if (!cpu || !core || !socket)
      return fail(ErrorCode::parse, fmt::format("lscpu -p printed '{}', not CPU,CORE,SOCKET numbers", line));
    hardware.core_of_cpu[static_cast<int>(*cpu)] = static_cast<int>(*core);
    sockets.insert(static_cast<int>(*socket));
    cores.insert({static_cast<int>(*socket), static_cast<int>(*core)});
  }
  if (hardware.core_of_cpu.empty()) return fail(ErrorCode::parse, "lscpu -p listed no CPU");
  counted.cpus = static_cast<std::int64_t>(hardware.core_of_cpu.size());
  counted.boards = 1;
  counted.sockets_per_board = static_cast<std::int64_t>(sockets.size());
  counted.cores_per_socket = static_cast<std::int64_t>(cores.size() / sockets.size());
  counted.threads_per_core = counted.cpus / static_cast<std::int64_t>(cores.size());
  return {};
}

// "MemTotal:       24683772 kB" -> MiB, rounded down as slurmd rounds its page count.
Result<std::int64_t> read_memory_mib(const Section& meminfo) {
  const auto words = util::split_words(meminfo.text);
  if (meminfo.exit_code != 0 || words.size() != 3 || words[0] != "MemTotal:" || words[2] != "kB")
    return fail(ErrorCode::parse, fmt::format("/proc/meminfo gave no 'MemTotal: N kB' ({})", said(meminfo)));
  const auto kib = to_number(words[1]);
  if (!kib) return fail(ErrorCode::parse, fmt::format("/proc/meminfo's MemTotal '{}' is not a number", words[1]));
  return static_cast<std::int64_t>(*kib / 1024);
}

Result<std::vector<PciGpu>> read_gpus(const Section& gpus) {
  std::vector<PciGpu> out;
  for (const auto& line : util::split_lines(gpus.text)) {
    const auto words = util::split_words(line);
    if (words.empty()) continue;
    PciGpu gpu{std::string(words[0]), {}};
    if (words.size() > 1) {
      auto cpus = parse_cpu_list(words[1]);
      if (!cpus) return fail(ErrorCode::parse, fmt::format("GPU {}: local_cpulist {}", gpu.pci_address, cpus.error().message));
      gpu.cpus = std::move(*cpus);
    }
    out.push_back(std::move(gpu));
  }
  return out;
}

}  // namespace

std::string node_hardware_script() {
  return "gpuctl_node_hardware() {\n" + probe_shell("node_hardware") +
         "\n}\nT=; command -v timeout >/dev/null 2>&1 && T='timeout 20'\ngpuctl_node_hardware\n";
}

Result<std::vector<int>> parse_cpu_list(std::string_view text) {
  std::vector<int> cpus;
  for (const auto& word : util::split(util::trim(text), ',')) {
    const auto dash = word.find('-');
    const auto first = to_number(std::string_view(word).substr(0, dash));
    const auto last = dash == std::string::npos ? first : to_number(std::string_view(word).substr(dash + 1));
    if (!first || !last || *first > *last || *last > 1'000'000)
      return fail(ErrorCode::parse, fmt::format("'{}' is not a CPU list such as 0-55,112-167", text));
    for (auto cpu = *first; cpu <= *last; ++cpu) cpus.push_back(static_cast<int>(cpu));
  }
  return cpus;
}

Result<NodeHardware> parse_node_hardware(std::string_view output) {
  const auto sections = split_sections(output);
  const auto section = [&](const char* name) {
    const auto it = sections.find(name);
    return it == sections.end() ? Section{-1, "no output"} : it->second;
  };
  NodeHardware hardware;
  SlurmHardware counted;
  const auto layout = read_cpu_layout(section("lscpu"), hardware, counted);
  const auto slurmd = section("slurmd");
  if (slurmd.exit_code == 0) {
    auto values = parse_slurmd_hardware(slurmd.text);
    if (!values) return std::unexpected(values.error());
    hardware.slurm = *values;
    hardware.source = "slurmd -C";
  } else {
    if (!layout) return std::unexpected(layout.error());
    auto memory = read_memory_mib(section("meminfo"));
    if (!memory) return std::unexpected(memory.error());
    counted.real_memory_mib = *memory;
    hardware.slurm = counted;
    hardware.source = "lscpu -p, /proc/meminfo";
  }
  auto gpus = read_gpus(section("gpus"));
  if (!gpus) return std::unexpected(gpus.error());
  hardware.gpus = std::move(*gpus);
  return hardware;
}

Result<NodeHardware> read_node_hardware(Transport& transport) {
  CommandOptions options;
  options.timeout = std::chrono::seconds(30);
  options.stdin_data = node_hardware_script();
  auto run = transport.run("sh -s", options);
  if (!run) return std::unexpected(run.error());
  if (run->exit_code != 0)
    return fail(ErrorCode::io,
                fmt::format("the hardware probe exited {}: {}", run->exit_code, util::trim(run->err)));
  auto parsed = parse_node_hardware(run->out);
  if (!parsed) {
    auto error = parsed.error();
    error.message = "the hardware probe: " + error.message;
    return std::unexpected(error);
  }
  return parsed;
}

}  // namespace gpuctl::facts
