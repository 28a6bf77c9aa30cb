#pragma once
// A node's program: the playbooks' steps that apply to one node, with every `{{variable}}`
// substituted, every `when:` decided and every file's desired content rendered. Built on the
// control host (reads templates and source files); contacts no node. Secrets come through
// ProgramSources::secret_store: the planner neither reads nor creates the secret store itself.

#include <gpuctl/core/error.hpp>
#include <gpuctl/inventory/inventory.hpp>
#include <gpuctl/playbook/playbook.hpp>
#include <gpuctl/template/renderer.hpp>

#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace gpuctl {

// A resource whose strings are final for this node. For files, `content` is the desired
// content (for secrets: the secret itself, never printed; `content_digest` is what is compared).
struct ResolvedResource {
  Resource resource;
  std::string content;
  std::string content_digest;   // SHA-256 of content
  bool secret = false;
  // A secret the store does not hold yet, under SecretMode::load_only: `content` is empty and
  // apply would generate it (plan says so instead of minting a key).
  bool secret_missing = false;
};

struct ResolvedStep {
  const Step* step = nullptr;                // into the Playbook, which must outlive this
  const Playbook* playbook = nullptr;
  std::vector<ResolvedResource> resources;   // those whose `when` holds
  std::string reboot_unless;                 // Step::reboot_unless, substituted
  std::string reboot_if;                     // Step::reboot_if, substituted
};

struct NodeProgram {
  std::string node;
  std::vector<ResolvedStep> steps;           // only steps whose `when` holds, in playbook order

  // Every check name of the program's steps, first-seen order, no duplicates.
  std::vector<std::string> checks() const;
};

// How secret files get their content: from the secret store, generated on first use (apply);
// from the store without generating (plan, verify: they change nothing, so a CI job with its
// own state directory never mints a cluster key); or masked (empty, never read) for views that
// only show files, like `gpuctl render`.
enum class SecretMode { load_or_create, load_only, masked };

// Where secret files' content comes from: api/ binds both functions to one directory of the
// state module's secret store (state/secret_store.hpp); tests may hand a map. Contract: called
// with a file resource's `secret:` name as substituted, possibly from several threads at once
// (nodes resolve in parallel); an error is returned as it is, in the resource's context
// (playbook, step, node). A function the mode needs but that is empty is an internal error.
struct SecretProvider {
  // SecretMode::load_or_create: the secret `name`, generated and kept on first use.
  std::function<Result<std::string>(const std::string& name)> load_or_create;
  // SecretMode::load_only: the secret `name` as kept, or an empty optional when there is none
  // yet; creates nothing.
  std::function<Result<std::optional<std::string>>(const std::string& name)> load;
  // Where the secrets are, for the message that asks the admin to provide one (generate: false).
  std::string directory{};
};

struct ProgramSources {
  std::string templates_dir;
  SecretProvider secret_store;               // unused under SecretMode::masked
  SecretMode secrets = SecretMode::load_or_create;
  // The inventory-wide template context, prepared once for a run over many nodes (templates
  // then cost the same per node whatever the cluster's size); null: made per render.
  std::shared_ptr<const PreparedClusterContext> cluster_context{};
};

// Builds the program of `node` from `playbooks` (in order). Errors name the playbook, step and
// node: an unknown variable, a template that fails to render, an unreadable source file.
Result<NodeProgram> resolve_program(const Inventory& inventory, const Node& node,
                                    const std::vector<Playbook>& playbooks, const ProgramSources& sources);

// A digest of the templates directory's files (names and contents), for stale-plan checks.
std::string templates_digest(const std::string& templates_dir);

}  // namespace gpuctl
