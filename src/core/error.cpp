#include <gpuctl/core/error.hpp>

#include <fmt/format.h>

namespace gpuctl {

std::string_view to_string(ErrorCode code) {
  switch (code) {
    case ErrorCode::invalid_argument: return "invalid argument";
    case ErrorCode::parse: return "parse error";
    case ErrorCode::validation: return "invalid";
    case ErrorCode::io: return "I/O error";
    case ErrorCode::not_found: return "not found";
    case ErrorCode::template_error: return "template error";
    case ErrorCode::transport: return "transport error";
    case ErrorCode::auth: return "authentication failed";
    case ErrorCode::host_key: return "host key rejected";
    case ErrorCode::timeout: return "timed out";
    case ErrorCode::stale_plan: return "stale plan";
    case ErrorCode::locked: return "locked";
    case ErrorCode::interrupted: return "interrupted";
    case ErrorCode::internal: return "internal error";
  }
  return "error";
}

std::string Error::to_string() const {
  std::string out;
  if (!where.file.empty()) {
    out += where.file;
    if (where.line > 0) out += fmt::format(":{}", where.line);
    if (where.column > 0) out += fmt::format(":{}", where.column);
    out += ": ";
  }
  if (!where.node.empty()) out += where.node + ": ";
  if (!where.step.empty()) out += "step '" + where.step + "': ";
  out += message.empty() ? std::string(gpuctl::to_string(code)) : message;
  if (!hint.empty()) out += " (" + hint + ")";
  return out;
}

}  // namespace gpuctl
