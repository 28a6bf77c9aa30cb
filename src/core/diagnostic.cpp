#include <gpuctl/core/diagnostic.hpp>

#include <fmt/format.h>

namespace gpuctl {

std::string Diagnostic::to_string() const {
  std::string out = file;
  if (line > 0) out += fmt::format(":{}", line);
  if (line > 0 && column > 0) out += fmt::format(":{}", column);
  out += severity == Severity::error ? ": error: " : ": warning: ";
  out += message;
  if (!hint.empty()) out += " (" + hint + ")";
  return out;
}

}  // namespace gpuctl
