#pragma once
// Reads back what `gpuctl verify --json` wrote (format_version 1), so a saved result can be
// rendered again (HTML, Prometheus) without contacting a node. Pure.

#include <gpuctl/core/error.hpp>
#include <gpuctl/verify/outcome.hpp>

#include <string>
#include <string_view>
#include <vector>

namespace gpuctl {

// Fails (ErrorCode::parse) on malformed JSON, an unknown format_version, or an unknown status,
// naming `where`.
Result<std::vector<NodeVerifyOutcome>> verify_from_json(std::string_view text, const std::string& where);

}  // namespace gpuctl
