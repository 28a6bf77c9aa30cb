#include <gpuctl/plan/program.hpp>

#include <gpuctl/plan/source_files.hpp>
#include <gpuctl/playbook/resource_values.hpp>
#include <gpuctl/playbook/variables.hpp>
#include <gpuctl/template/renderer.hpp>
#include <gpuctl/util/file_io.hpp>
#include <gpuctl/util/sha256.hpp>

#include <algorithm>
#include <filesystem>
#include <fmt/format.h>
#include <fstream>
#include <sstream>

namespace gpuctl {
namespace {

Error in_context(Error error, const Playbook& playbook, const Step& step, const Node& node, int line) {
  if (error.where.file.empty()) {
    error.where.file = playbook.path;
    error.where.line = line;
  }
  error.where.node = node.name;
  error.where.step = step.name;
  return error;
}

// Substitutes every string field a resource has, in place: shell command text with each value
// quoted for where it stands, the other fields as they are and then checked as paths, names
// and versions (playbook/resource_values.hpp).
Result<void> substitute_resource(Resource& r, const Variables& vars) {
  for (auto* field : {&r.command.run, &r.command.unless, &r.file.unless}) {
    auto command = substitute_shell(*field, vars);
    if (!command) return std::unexpected(command.error());
    *field = std::move(*command);
  }
  std::vector<std::string*> fields{&r.when, &r.file.path, &r.file.template_name, &r.file.source, &r.file.secret,
                                   &r.file.owner, &r.file.group, &r.package.name, &r.package.version,
                                   &r.package.unpackaged_driver,
                                   &r.service.name, &r.service.unpackaged_driver, &r.command.creates, &r.command.reason};
  for (auto* field : fields) {
    auto value = substitute(*field, vars);
    if (!value) return std::unexpected(value.error());
    *field = std::move(*value);
  }
  return check_resource_values(r);
}

std::unexpected<Error> no_secret_store(const std::string& name) {
  return fail(ErrorCode::internal, fmt::format("no secret store to take secret '{}' from", name));
}

Result<ResolvedResource> resolve_resource(const Resource& source, const Inventory& inventory, const Node& node,
                                          const Variables& vars, const ProgramSources& sources) {
  ResolvedResource resolved{source, {}, {}, false};
  if (auto ok = substitute_resource(resolved.resource, vars); !ok) return std::unexpected(ok.error());
  if (source.kind != ResourceKind::file) return resolved;
  const auto& file = resolved.resource.file;
  Result<std::string> content = std::string{};
  if (!file.template_name.empty()) {
    content = render_template_file(sources.templates_dir, file.template_name, inventory, node,
                                   sources.cluster_context.get());
  } else if (!file.source.empty()) {
    content = read_source_file(file, inventory);  // checked; the plan shows only its digest
  } else {
    resolved.secret = true;
    if (!file.generate_secret && sources.secrets != SecretMode::masked) {
      // The admin's secret: never generated, so missing is an error in every mode but render's.
      if (!sources.secret_store.load) return no_secret_store(file.secret);
      auto stored = sources.secret_store.load(file.secret);
      if (!stored) return std::unexpected(stored.error());
      if (!stored->has_value())
        return fail(ErrorCode::validation, fmt::format("{}: secret '{}' is not in the secret store {}", file.path, file.secret,
                                                       sources.secret_store.directory.empty() ? "(no directory)" : sources.secret_store.directory),
                    {}, fmt::format("it is yours to provide: write it with `install -m 0600 /dev/stdin {}/{}` (then Ctrl-D)",
                                    sources.secret_store.directory, file.secret));
      content = std::move(**stored);
    } else if (sources.secrets == SecretMode::masked) {
      content = std::string{};
    } else if (sources.secrets == SecretMode::load_only) {
      if (!sources.secret_store.load) return no_secret_store(file.secret);
      auto stored = sources.secret_store.load(file.secret);
      if (!stored) return std::unexpected(stored.error());
      resolved.secret_missing = !stored->has_value();
      content = stored->value_or(std::string{});
    } else {
      if (!sources.secret_store.load_or_create) return no_secret_store(file.secret);
      content = sources.secret_store.load_or_create(file.secret);
    }
  }
  if (!content) return std::unexpected(content.error());
  resolved.content = std::move(*content);
  // No digest for a secret not generated yet: it then matches no file a node has (an empty
  // munge.key there must not read as "already in place").
  resolved.content_digest = resolved.secret_missing ? std::string{} : util::sha256_hex(resolved.content);
  return resolved;
}

}  // namespace

std::vector<std::string> NodeProgram::checks() const {
  std::vector<std::string> names;
  for (const auto& step : steps)
    for (const auto& check : step.step->checks)
      if (std::ranges::find(names, check) == names.end()) names.push_back(check);
  return names;
}

Result<NodeProgram> resolve_program(const Inventory& inventory, const Node& node,
                                    const std::vector<Playbook>& playbooks, const ProgramSources& sources) {
  const auto vars = node_variables(inventory, node);
  NodeProgram program{node.name, {}};
  for (const auto& playbook : playbooks) {
    for (const auto& step : playbook.steps) {
      auto applies = evaluate_condition(step.when, vars);
      if (!applies) return std::unexpected(in_context(applies.error(), playbook, step, node, step.line));
      if (!*applies) continue;
      ResolvedStep resolved{&step, &playbook, {}, {}, {}};
      auto reboot_unless = substitute_shell(step.reboot_unless, vars);
      if (!reboot_unless) return std::unexpected(in_context(reboot_unless.error(), playbook, step, node, step.line));
      resolved.reboot_unless = std::move(*reboot_unless);
      auto reboot_if = substitute_shell(step.reboot_if, vars);
      if (!reboot_if) return std::unexpected(in_context(reboot_if.error(), playbook, step, node, step.line));
      resolved.reboot_if = std::move(*reboot_if);
      for (const auto& resource : step.resources) {
        auto wanted = evaluate_condition(resource.when, vars);
        if (!wanted) return std::unexpected(in_context(wanted.error(), playbook, step, node, resource.line));
        if (!*wanted) continue;
        auto r = resolve_resource(resource, inventory, node, vars, sources);
        if (!r) return std::unexpected(in_context(r.error(), playbook, step, node, resource.line));
        resolved.resources.push_back(std::move(*r));
      }
      program.steps.push_back(std::move(resolved));
    }
  }
  return program;
}

std::string templates_digest(const std::string& templates_dir) {
  namespace fs = std::filesystem;
  std::vector<fs::path> files;
  std::error_code ec;
  for (fs::recursive_directory_iterator it(templates_dir, ec), end; !ec && it != end; it.increment(ec))
    if (it->is_regular_file()) files.push_back(it->path());
  std::ranges::sort(files);
  std::string combined;
  for (const auto& file : files) {
    auto content = util::read_local_file(file.string());
    combined += fs::relative(file, templates_dir).string() + '\0' + util::sha256_hex(content.value_or("")) + '\n';
  }
  return util::sha256_hex(combined);
}

}  // namespace gpuctl
