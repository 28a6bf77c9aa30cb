#pragma once
// Views of a Plan: text for people (like `terraform plan`) and versioned JSON for machines.
// Both render the same value; `plan_from_json` reads back a saved plan. Pure.

#include <gpuctl/core/error.hpp>
#include <gpuctl/plan/plan.hpp>

#include <string>

namespace gpuctl {

enum class ColorMode { never, always };

struct TextOptions {
  ColorMode color = ColorMode::never;
  bool show_diffs = true;
  bool expand = false;  // one block per node; by default nodes with the same changes fold (plan/fold.hpp)
  // Lines of a file's diff shown before "... N more lines"; 0: all. Not applied with expand.
  // A generated file such as prometheus.yml lists every node: 2,000 lines at 512 nodes.
  std::size_t diff_lines = 30;
};

// By default one block per set of nodes with the same changes, headed by their hostlist
// ("gpu[001-512]  512 nodes (12 create, ...)"), so 512 identical nodes read as one; a diff
// longer than diff_lines is cut, and one already shown in an earlier block is named, not repeated.
std::string render_plan_text(const Plan& plan, const TextOptions& options = {});

// One line: "Plan: 4 nodes, 2 with changes (5 to create, 4 to update, ...); 1 unreachable."
std::string render_plan_summary(const Plan& plan);

// Versioned JSON (docs/plan-format.md). Secrets and `source:` files never appear: their diffs
// are empty (a source file is named by digest and size in its reason).
std::string plan_to_json(const Plan& plan);

// Errors: not JSON, wrong format_version, missing fields (ErrorCode::parse, naming the field).
Result<Plan> plan_from_json(std::string_view text, const std::string& path);

}  // namespace gpuctl
