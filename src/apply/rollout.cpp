#include <gpuctl/apply/rollout.hpp>

#include <gpuctl/util/strings.hpp>

#include <charconv>
#include <cmath>
#include <fmt/format.h>

namespace gpuctl {

Result<double> parse_percent(std::string_view text) {
  auto digits = util::trim(text);
  if (digits.ends_with('%')) digits.remove_suffix(1);
  double value = 0;
  const auto [end, ec] = std::from_chars(digits.data(), digits.data() + digits.size(), value);
  if (digits.empty() || ec != std::errc{} || end != digits.data() + digits.size() || value < 0 || value > 100)
    return fail(ErrorCode::invalid_argument, fmt::format("'{}' is not a percentage from 0 to 100", text), {},
                "e.g. --max-fail 25%");
  return value;
}

Result<RolloutPolicy> parse_batch_size(std::string_view text, RolloutPolicy policy) {
  const auto trimmed = util::trim(text);
  if (trimmed.ends_with('%')) {
    auto percent = parse_percent(trimmed);
    if (!percent || *percent <= 0)
      return fail(ErrorCode::invalid_argument, fmt::format("batch size '{}' must be a count or a percentage above 0", text),
                  {}, "e.g. --batch-size 2 or --batch-size 25%");
    policy.batch_size = 0;
    policy.batch_percent = *percent;
    return policy;
  }
  std::size_t count = 0;
  const auto [end, ec] = std::from_chars(trimmed.data(), trimmed.data() + trimmed.size(), count);
  if (trimmed.empty() || ec != std::errc{} || end != trimmed.data() + trimmed.size() || count == 0)
    return fail(ErrorCode::invalid_argument, fmt::format("batch size '{}' must be a count or a percentage above 0", text),
                {}, "e.g. --batch-size 2 or --batch-size 25%");
  policy.batch_size = count;
  policy.batch_percent = 0;
  return policy;
}

std::vector<std::vector<std::size_t>> make_batches(std::size_t node_count, const RolloutPolicy& policy) {
  std::size_t size = policy.batch_size;
  if (size == 0 && policy.batch_percent > 0)
    size = static_cast<std::size_t>(std::ceil(static_cast<double>(node_count) * policy.batch_percent / 100.0));
  if (size == 0 || size > node_count) size = node_count;
  std::vector<std::vector<std::size_t>> batches;
  for (std::size_t start = 0; start < node_count; start += size) {
    std::vector<std::size_t> batch;
    for (std::size_t i = start; i < std::min(node_count, start + size); ++i) batch.push_back(i);
    batches.push_back(std::move(batch));
  }
  return batches;
}

bool rollout_should_stop(std::size_t failed, std::size_t attempted, const RolloutPolicy& policy) {
  if (attempted == 0 || failed == 0) return false;
  return static_cast<double>(failed) * 100.0 / static_cast<double>(attempted) > policy.max_fail_percent;
}

}  // namespace gpuctl
