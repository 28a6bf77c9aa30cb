#pragma once
// One finding about an input file (an inventory, a playbook), with its position. Loaders that
// check a whole file collect these instead of stopping at the first problem.

#include <string>

namespace gpuctl {

enum class Severity { warning, error };

struct Diagnostic {
  Severity severity = Severity::error;
  std::string file;
  int line = 0;          // 1-based; 0 when unknown
  int column = 0;        // 1-based; 0 when unknown
  std::string message;   // what is wrong, e.g. "unknown key 'hots' in group 'gpu'"
  std::string hint;      // e.g. "did you mean 'hosts'?"

  std::string to_string() const;  // "file:line:col: error: message (hint)"
};

}  // namespace gpuctl
