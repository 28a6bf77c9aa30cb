#include <gpuctl/facts/state_probe.hpp>

#include <gpuctl/util/strings.hpp>

#include <fmt/format.h>

namespace gpuctl::facts {

Result<StateProbeOutput> run_state_probe(Transport& transport, const CollectOptions& options, bool become) {
  auto batch = run_probe_batch(transport, options, become);
  if (!batch) return std::unexpected(batch.error());
  auto& probes = batch->probes;
  const auto state = probes.find(std::string(k_state_probe));
  if (state == probes.end()) return fail(ErrorCode::transport, "the state probe did not run: the batch stopped before it");
  if (state->second.exit_code != 0)
    return fail(ErrorCode::transport, fmt::format("state probe exited {}: {}", state->second.exit_code,
                                                  util::tail_lines(state->second.err, 5)));
  StateProbeOutput out;
  out.output = std::move(state->second.out);
  if (const auto packages = probes.find("packages"); packages != probes.end()) out.package_lines = packages->second.out;
  out.duration = batch->duration;
  probes.erase(state);
  out.facts = facts_from_probes(transport.node(), probes);
  return out;
}

}  // namespace gpuctl::facts
