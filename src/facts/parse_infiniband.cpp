// The infiniband probe: the sysfs attributes of every RDMA port, in the forms the kernel prints
// (drivers/infiniband/core/sysfs.c; real values in tests/data/infiniband/, with their sources).
#include <gpuctl/facts/parsers.hpp>
#include <gpuctl/util/strings.hpp>

#include "parse_util.hpp"

#include <fmt/format.h>

#include <charconv>

namespace gpuctl::facts {
namespace {

// "4: ACTIVE" -> "ACTIVE", "5: LinkUp" -> "LinkUp", "7: Phy Test" -> "Phy Test": the number is
// the enum the name spells; the name is what an operator reads in ibstat.
Result<std::string> numbered_name(std::string_view key, std::string_view value) {
  const auto colon = value.find(": ");
  if (colon == std::string_view::npos || colon == 0 || !detail::to_int(value.substr(0, colon)) ||
      colon + 2 >= value.size())
    return fail(ErrorCode::parse, fmt::format("{} '{}' is not '<number>: <name>'", key, value));
  return std::string(value.substr(colon + 2));
}

// "400 Gb/sec (4X NDR)", "2.5 Gb/sec (1X SDR)", "10 Gb/sec (4X)" (kernels before the SDR name)
// -> Gb/s. The part in brackets names width and speed; only the number is compared.
Result<double> rate_gbps(std::string_view value) {
  const auto space = value.find(' ');
  if (space == std::string_view::npos || !value.substr(space + 1).starts_with("Gb/sec"))
    return fail(ErrorCode::parse, fmt::format("rate '{}' is not '<number> Gb/sec (...)'", value));
  double gbps = 0;
  const auto number = value.substr(0, space);
  const auto [ptr, ec] = std::from_chars(number.data(), number.data() + number.size(), gbps);
  if (ec != std::errc{} || ptr != number.data() + number.size() || gbps < 0)
    return fail(ErrorCode::parse, fmt::format("rate '{}' does not start with a number", value));
  return gbps;
}

}  // namespace

Result<std::vector<InfinibandPort>> parse_infiniband_ports(std::string_view text) {
  std::vector<InfinibandPort> ports;
  for (const auto& raw : util::split_lines(text)) {
    const std::string_view line = util::trim(raw);
    if (line.empty() || line == "no_infiniband") continue;
    if (line.starts_with("port ")) {
      const auto fields = util::split(line.substr(5), ' ');
      const auto number = fields.size() == 2 ? detail::to_int(fields[1]) : std::nullopt;
      if (!number || fields[0].empty())
        return fail(ErrorCode::parse, fmt::format("'{}' is not 'port <hca> <number>'", line));
      ports.push_back({fields[0], static_cast<int>(*number), {}, {}, {}, {}, {}});
      continue;
    }
    const auto eq = line.find('=');
    if (ports.empty() || eq == std::string_view::npos)
      return fail(ErrorCode::parse, fmt::format("unexpected line '{}'", line));
    const auto key = line.substr(0, eq);
    const auto value = util::trim(line.substr(eq + 1));
    auto& port = ports.back();
    if (key != "state" && key != "phys_state" && key != "rate" && key != "link_layer")
      return fail(ErrorCode::parse, fmt::format("unknown attribute '{}'", key));
    if (value.empty()) continue;  // unreadable: stays unknown
    if (key == "state") {
      auto name = numbered_name(key, value);
      if (!name) return std::unexpected(name.error());
      port.state = std::move(*name);
    } else if (key == "phys_state") {
      auto name = numbered_name(key, value);
      if (!name) return std::unexpected(name.error());
      port.phys_state = std::move(*name);
    } else if (key == "rate") {
      auto gbps = rate_gbps(value);
      if (!gbps) return std::unexpected(gbps.error());
      port.rate = std::string(value);
      port.rate_gbps = *gbps;
    } else {
      port.link_layer = std::string(value);
    }
  }
  return ports;
}

}  // namespace gpuctl::facts
