#pragma once
// The one mapping from a use case's Verdict (api/verdict.hpp) to gpuctl's exit code
// (docs/exit-codes.md). Every command goes through it.

#include "command_registry.hpp"

#include <gpuctl/api/verdict.hpp>

namespace gpuctl::cli {

// `plan --detailed-exitcode` keeps Terraform's rule: 0 no changes, 2 changes, 1 any error
// (a usage error too, so a CI gate never reads a typo as changes pending).
enum class ExitRule { standard, detailed };

// ok 0; changes_pending 0 (2 under ExitRule::detailed); invalid_input 2 (1 under
// ExitRule::detailed); error 1; nodes_failed 3; nodes_unreachable 4; locked 5; interrupted 130.
int exit_code_for(Verdict verdict, ExitRule rule = ExitRule::standard);

}  // namespace gpuctl::cli
