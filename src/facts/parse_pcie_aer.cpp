// The pcie_aer probe: the PCIe AER statistics in sysfs of each GPU and of the port above it, in
// the form the kernel prints them (drivers/pci/pcie/aer.c, aer_stats_dev_attr;
// Documentation/ABI/testing/sysfs-bus-pci-devices-aer_stats; tests/data/pcie-aer/, with sources).
#include <gpuctl/facts/parsers.hpp>
#include <gpuctl/util/strings.hpp>

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <charconv>
#include <map>

namespace gpuctl::facts {
namespace {

constexpr std::string_view k_devices = "/sys/bus/pci/devices/";

// The three files and the name of each one's total line ("TOTAL_%s", aer.c).
struct AerFile {
  std::string_view file;
  std::string_view total;
};
constexpr std::array<AerFile, 3> k_files{{{"aer_dev_correctable", "TOTAL_ERR_COR"},
                                          {"aer_dev_fatal", "TOTAL_ERR_FATAL"},
                                          {"aer_dev_nonfatal", "TOTAL_ERR_NONFATAL"}}};

std::optional<std::size_t> file_index(std::string_view file) {
  for (std::size_t i = 0; i < k_files.size(); ++i)
    if (k_files[i].file == file) return i;
  return std::nullopt;
}

// What the probe said of one file of one PCI function, while reading.
struct FileState {
  bool absent = false;
  bool total_seen = false;
  bool lines_seen = false;
  AerCounts counts;
};

// One PCI function the probe named: a GPU ("gpu <bus id>") or the port above one
// ("port <GPU's bus id> <port's bus id>"); a port above several GPUs is read once.
struct FunctionState {
  std::string bus_id;
  bool is_port = false;
  bool device_in_sysfs = true;
  std::optional<std::string> port;  // a GPU's: the port above it
  std::array<FileState, 3> files;
};

Result<std::uint64_t> count_of(std::string_view text, std::string_view line) {
  std::uint64_t count = 0;
  const auto [ptr, ec] = std::from_chars(text.data(), text.data() + text.size(), count);
  if (text.empty() || ec != std::errc{} || ptr != text.data() + text.size())
    return fail(ErrorCode::parse, fmt::format("'{}' does not end in a count", line));
  return count;
}

// "<name> <count>" of one file: the counter's line, or the file's TOTAL_ line (its last).
Result<void> read_counter(FileState& state, const AerFile& file, std::string_view content, std::string_view line) {
  const auto space = content.rfind(' ');
  if (space == std::string_view::npos || space == 0)
    return fail(ErrorCode::parse, fmt::format("'{}' is not '<error> <count>'", line));
  const auto name = util::trim(content.substr(0, space));
  auto count = count_of(content.substr(space + 1), line);
  if (!count) return std::unexpected(count.error());
  if (state.total_seen) return fail(ErrorCode::parse, fmt::format("'{}' comes after the {} line", line, file.total));
  state.lines_seen = true;
  if (name.starts_with("TOTAL_")) {
    if (name != file.total)
      return fail(ErrorCode::parse, fmt::format("'{}': {} has no {} line (its total is {})", line, file.file, name, file.total));
    state.counts.total = *count;
    state.total_seen = true;
    return {};
  }
  state.counts.errors.push_back({std::string(name), *count});
  return {};
}

// The three files of one function as read: nullopt where the kernel did not create one. Every file
// the kernel creates ends in its TOTAL_ line: without it the read was cut short.
Result<std::array<std::optional<AerCounts>, 3>> counts_of(FunctionState& function) {
  std::array<std::optional<AerCounts>, 3> counts;
  if (!function.device_in_sysfs) return counts;
  for (std::size_t i = 0; i < k_files.size(); ++i) {
    auto& state = function.files[i];
    if (state.absent) continue;
    if (!state.total_seen)
      return fail(ErrorCode::parse, fmt::format("{}{}/{} has no {} line (the read was cut short)", k_devices,
                                                function.bus_id, k_files[i].file, k_files[i].total));
    counts[i] = std::move(state.counts);
  }
  return counts;
}

}  // namespace

Result<std::vector<GpuPcieAer>> parse_pcie_aer(std::string_view text) {
  std::vector<FunctionState> functions;  // GPUs in the driver's order, and the ports above them
  const auto find = [&](std::string_view bus_id) {
    return std::ranges::find_if(functions, [&](const FunctionState& function) { return function.bus_id == bus_id; });
  };
  const auto find_gpu = [&](std::string_view bus_id) {
    const auto function = find(bus_id);
    return function != functions.end() && !function->is_port ? function : functions.end();
  };
  for (const auto& raw : util::split_lines(text)) {
    const std::string_view line = util::trim(raw);
    if (line.empty() || line == "no_nvidia_gpus") continue;
    if (line.starts_with("gpu ")) {
      const auto bus_id = line.substr(4);
      if (bus_id.empty() || bus_id.find(' ') != std::string_view::npos || find(bus_id) != functions.end())
        return fail(ErrorCode::parse, fmt::format("'{}' is not 'gpu <bus id>' of a new GPU", line));
      functions.push_back(FunctionState{std::string(bus_id), false, true, std::nullopt, {}});
      continue;
    }
    if (line.starts_with("port ")) {
      const auto fields = util::split(line, ' ');
      if (fields.size() != 3 || fields[2].empty() || find_gpu(fields[1]) == functions.end() ||
          find_gpu(fields[1])->port || find_gpu(fields[2]) != functions.end())
        return fail(ErrorCode::parse, fmt::format("'{}' is not 'port <GPU> <port>' of a GPU named before", line));
      find_gpu(fields[1])->port = std::string(fields[2]);
      if (find(fields[2]) == functions.end())
        functions.push_back(FunctionState{std::string(fields[2]), true, true, std::nullopt, {}});
      continue;
    }
    if (line.starts_with("no_device ") || line.starts_with("absent ")) {
      const auto fields = util::split(line, ' ');
      const bool no_device = fields[0] == "no_device";
      const auto function = fields.size() == (no_device ? 2u : 3u)
                                ? (no_device ? find_gpu(fields[1]) : find(fields[1]))
                                : functions.end();
      const auto index = no_device ? std::optional<std::size_t>(0) : fields.size() == 3 ? file_index(fields[2]) : std::nullopt;
      if (function == functions.end() || !index) return fail(ErrorCode::parse, fmt::format("unexpected line '{}'", line));
      if (no_device) function->device_in_sysfs = false;
      else function->files[*index].absent = true;
      continue;
    }
    // grep's "<path>:<line>" of a file that exists.
    if (!line.starts_with(k_devices)) return fail(ErrorCode::parse, fmt::format("unexpected line '{}'", line));
    const auto path = line.substr(k_devices.size());
    const auto slash = path.find('/');
    const auto colon = slash == std::string_view::npos ? std::string_view::npos : path.find(':', slash);
    if (colon == std::string_view::npos) return fail(ErrorCode::parse, fmt::format("'{}' is not '<file>:<line>'", line));
    const auto function = find(path.substr(0, slash));
    const auto index = file_index(path.substr(slash + 1, colon - slash - 1));
    if (function == functions.end() || !index)
      return fail(ErrorCode::parse, fmt::format("'{}' is not a line of an AER file the probe named", line));
    auto& state = function->files[*index];
    if (state.absent) return fail(ErrorCode::parse, fmt::format("'{}': the probe said the file is absent", line));
    const auto content = util::trim(path.substr(colon + 1));
    if (content.empty()) continue;
    if (auto read = read_counter(state, k_files[*index], content, line); !read) return std::unexpected(read.error());
  }
  std::map<std::string, PciePortAer> ports;
  for (auto& function : functions) {
    if (!function.is_port) continue;
    auto counts = counts_of(function);
    if (!counts) return std::unexpected(counts.error());
    auto& [correctable, fatal, nonfatal] = *counts;
    ports[function.bus_id] = {function.bus_id, std::move(correctable), std::move(fatal), std::move(nonfatal)};
  }
  std::vector<GpuPcieAer> result;
  for (auto& function : functions) {
    if (function.is_port) continue;
    auto counts = counts_of(function);
    if (!counts) return std::unexpected(counts.error());
    auto& [correctable, fatal, nonfatal] = *counts;
    GpuPcieAer gpu{function.bus_id, function.device_in_sysfs, std::move(correctable), std::move(fatal), std::move(nonfatal), {}};
    if (function.port) gpu.upstream_port = ports.at(*function.port);
    result.push_back(std::move(gpu));
  }
  return result;
}

}  // namespace gpuctl::facts
