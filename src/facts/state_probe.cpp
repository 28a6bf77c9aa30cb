#include <gpuctl/facts/state_probe.hpp>

#include <gpuctl/facts/collect.hpp>
#include <gpuctl/util/strings.hpp>

#include <chrono>
#include <fmt/format.h>

namespace gpuctl::facts {

Result<StateProbeOutput> run_state_probe(Transport& transport, const std::string& script, bool become) {
  auto facts = collect_facts(transport);
  if (!facts) return std::unexpected(facts.error());
  auto probe = transport.run("sh -s", CommandOptions{std::chrono::seconds(120), script, become});
  if (!probe) return std::unexpected(probe.error());
  if (!probe->ok())
    return fail(ErrorCode::transport, fmt::format("state probe exited {}: {}", probe->exit_code, util::tail_lines(probe->err, 5)));
  StateProbeOutput out{std::move(*facts), std::move(probe->out)};
  out.facts.node = transport.node();
  return out;
}

}  // namespace gpuctl::facts
