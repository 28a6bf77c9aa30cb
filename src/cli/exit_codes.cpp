#include "exit_codes.hpp"

namespace gpuctl::cli {

int exit_code_for(Verdict verdict, ExitRule rule) {
  const bool detailed = rule == ExitRule::detailed;
  switch (verdict) {
    case Verdict::ok: return k_exit_ok;
    case Verdict::changes_pending: return detailed ? k_exit_changes : k_exit_ok;
    case Verdict::invalid_input: return detailed ? k_exit_error : k_exit_usage;
    case Verdict::error: return k_exit_error;
    case Verdict::nodes_failed: return k_exit_nodes_failed;
    case Verdict::nodes_unreachable: return k_exit_nodes_unreachable;
    case Verdict::locked: return k_exit_locked;
    case Verdict::interrupted: return k_exit_interrupted;
    // As terraform's "Apply cancelled": a script reading 0 would take a no for a done.
    case Verdict::declined: return k_exit_error;
  }
  return k_exit_error;
}

}  // namespace gpuctl::cli
