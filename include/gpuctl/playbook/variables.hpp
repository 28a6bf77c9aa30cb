#pragma once
// The variables a playbook can use for one node, as flat dotted names ("gpu.count",
// "nvidia.driver_version", "is_slurm_controller"), plus `{{name}}` substitution and `when:`
// conditions over them. Pure, no I/O.

#include <gpuctl/core/error.hpp>
#include <gpuctl/inventory/inventory.hpp>

#include <map>
#include <string>

namespace gpuctl {

using Variables = std::map<std::string, std::string>;

// Every variable of `node`: cluster.name, node.name, node.address, gpu.model, gpu.count,
// nvidia.driver_branch, nvidia.driver_version, nvidia.cuda, nvidia.cuda_dashed ("12-4"),
// nvidia.repository.*, cluster.os, profile.name, profile.driver_source, package.<row> and
// service.<row> (the package profile's rows: packages/profile.hpp), slurm.enabled, slurm.controller, monitoring.*, is_gpu_node,
// is_slurm_controller, is_prometheus, labels.<key>. Booleans are "true"/"false".
Variables node_variables(const Inventory& inventory, const Node& node);

// Replaces each `{{name}}` in `text` with the value as it is, for fields that never reach a
// shell as text (paths, names, versions, reasons: each is checked or quoted where it is used).
// An unknown name is an error that suggests the closest one.
Result<std::string> substitute(std::string_view text, const Variables& variables);

// For shell command fields (a command's `command` and `unless`, a step's `reboot_unless`):
// each value is quoted for the quoting state at its reference (playbook/shell_text.hpp), so it
// reaches the command as exactly its text, whatever it contains. Refuses a reference where no
// quoting can do that ($(…), here-documents, comments...) and a value with a NUL byte.
Result<std::string> substitute_shell(std::string_view command, const Variables& variables);

// Evaluates a condition: clauses joined by ` and ` / ` or ` (and binds tighter), each
// `[not] NAME [OP VALUE]` with OP one of == != < <= > >= (numeric when both sides are numbers).
// A bare NAME is true when its value is neither empty, "false" nor "0". Empty text is true.
Result<bool> evaluate_condition(std::string_view condition, const Variables& variables);

}  // namespace gpuctl
