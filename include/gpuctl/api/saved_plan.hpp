#pragma once
// Saved plans (`gpuctl plan -o FILE`, `gpuctl apply FILE`): what a plan binds besides its
// changes, and the one rule a saved plan is applied by: a plan made again now, from the inputs
// the saved plan names and the nodes' fresh state, must be the same plan, digest for digest and
// change for change (docs/plan-format.md#applying-a-saved-plan).

#include <gpuctl/core/error.hpp>
#include <gpuctl/plan/plan.hpp>
#include <gpuctl/plan/program.hpp>
#include <gpuctl/playbook/playbook.hpp>

#include <string>
#include <vector>

namespace gpuctl {

// Records in `plan` what decides its changes besides the inventory and the nodes: this gpuctl's
// version; the playbooks as they were named (`playbook_names`, parallel to `playbooks`; a
// missing name is the path), their resolved paths and digests; every file of `templates_dir`;
// every source file and secret that `programs` read, by SHA-256 of their contents (never the
// contents). Reads the templates directory; contacts no node.
void bind_plan_inputs(Plan& plan, const std::vector<Playbook>& playbooks,
                      const std::vector<std::string>& playbook_names, const std::string& templates_dir,
                      const std::vector<const NodeProgram*>& programs);

// Each regular file under `templates_dir`: its name relative to the directory and the SHA-256
// of its contents, sorted by name. Empty when the directory cannot be read. Reads files.
std::vector<BoundInput> template_digests(const std::string& templates_dir);

// Ok when `fresh`, made now from the inputs `saved` names, is the same plan as `saved`: same
// gpuctl version, inventory, node selection, playbooks (names, paths, digests), templates,
// source files and secrets, and per node the same status, state fingerprint and changes; and
// each saved node's changes still match the digest recorded with them. Otherwise
// Error{stale_plan} whose message names the differences ("the inventory changed", "playbook
// gpu-node changed (path ...)", "secret munge.key changed", "node gpu03: the changes differ:
// ...", "node gpu03: the changes array was edited (digest mismatch)"), at most
// k_listed_differences of them, then how many more. Pure; `created_at` is not compared.
inline constexpr std::size_t k_listed_differences = 8;
Result<void> check_saved_plan(const Plan& saved, const Plan& fresh);

// The part of check_saved_plan that needs no node: `local` holds what this run read from local
// files only (bind_plan_inputs without programs, and the inventory's path and digest). Apply
// checks it before it contacts any node, so that a playbook or inventory changed since the
// review (a handler's command, a step's guard) never runs, not even as a guard while planning.
// Same errors.
Result<void> check_saved_plan_inputs(const Plan& saved, const Plan& local);

// One digest of everything a plan binds (gpuctl's version, the inventory, selection,
// playbooks, templates, source files, secrets, the Slurm nodes' hardware, and each node's status,
// state fingerprint and changes): `plan` prints it last, and `apply --plan-digest` refuses a
// saved plan whose fresh plan does not have it, however the plan file was edited. Pure.
std::string plan_digest(const Plan& plan);

}  // namespace gpuctl
