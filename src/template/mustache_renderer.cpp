// The Mustache adapter: the only file that includes kainjow/mustache.hpp. Templates are
// checked against the context first (template_check.cpp: missing names become errors with a
// line), then rendered by kainjow with HTML escaping turned off: these are config files.
#include "template_check.hpp"

#include <gpuctl/template/context.hpp>
#include <gpuctl/template/renderer.hpp>
#include <gpuctl/util/data_dir.hpp>
#include <gpuctl/util/file_io.hpp>

#include <kainjow/mustache.hpp>

#include <fmt/format.h>

#include <algorithm>
#include <cstdlib>
#include <optional>
#include <exception>
#include <filesystem>
#include <fstream>
#include <sstream>

namespace gpuctl {
namespace {

namespace mustache = kainjow::mustache;

mustache::data to_mustache(const TemplateValue& value) {
  switch (value.kind()) {
    case TemplateValue::Kind::string: return mustache::data(value.as_string());
    case TemplateValue::Kind::boolean: return mustache::data(value.as_bool());
    case TemplateValue::Kind::list: {
      mustache::list list;
      for (const auto& item : value.as_list()) list.push_back(to_mustache(item));
      return mustache::data(list);
    }
    case TemplateValue::Kind::object: break;
  }
  mustache::data object{mustache::data::type::object};
  for (const auto& [key, member] : value.as_object()) object.set(key, to_mustache(member));
  return object;
}

// Kainjow renders a name it cannot find as nothing. template_check catches that before
// rendering; this context is the safety net should the two ever disagree on a lookup.
class StrictContext : public mustache::context<std::string> {
 public:
  using mustache::context<std::string>::context;

  const mustache::data* get(const std::string& name) const override {
    const mustache::data* found = mustache::context<std::string>::get(name);
    if (found == nullptr && m_missing.empty()) m_missing = name;
    return found;
  }
  const mustache::data* get_partial(const std::string& name) const override {
    if (m_missing.empty()) m_missing = ">" + name;
    return nullptr;
  }
  const std::string& missing() const { return m_missing; }

 private:
  mutable std::string m_missing;
};

// The name of a value no config file can hold in a single-line value: one with a line break
// or another control character, which would add a line (a setting, a plugin to load) to the
// file. The inventory loader refuses these in every field; this is the second line of defence.
std::optional<std::string> unsafe_value(const TemplateValue& value, const std::string& name) {
  switch (value.kind()) {
    case TemplateValue::Kind::string:
      if (std::ranges::any_of(value.as_string(), [](unsigned char c) { return c < 0x20 || c == 0x7f; })) return name;
      return std::nullopt;
    case TemplateValue::Kind::boolean: return std::nullopt;
    case TemplateValue::Kind::list:
      for (std::size_t i = 0; i < value.as_list().size(); ++i)
        if (auto found = unsafe_value(value.as_list()[i], fmt::format("{}[{}]", name, i))) return found;
      return std::nullopt;
    case TemplateValue::Kind::object: break;
  }
  for (const auto& [key, member] : value.as_object())
    if (auto found = unsafe_value(member, name.empty() ? key : name + "." + key)) return found;
  return std::nullopt;
}

std::unexpected<Error> template_failure(const std::string& template_name, const Node& node, std::string message) {
  return fail(ErrorCode::template_error, std::move(message), Location{template_name, 0, 0, node.name, ""});
}

}  // namespace

struct PreparedClusterContext::EngineData {
  mustache::data data;
  std::optional<std::string> unsafe;  // found once here, so a render stays O(its node)
};

PreparedClusterContext::PreparedClusterContext(const Inventory& inventory, const SlurmHardwareTable* hardware,
                                               std::vector<Unavailable> unavailable)
    : m_values(build_cluster_context(inventory, hardware)),
      m_unavailable(std::move(unavailable)),
      m_engine_data(std::make_unique<const EngineData>(EngineData{to_mustache(m_values), unsafe_value(m_values, "")})) {}

PreparedClusterContext::~PreparedClusterContext() = default;

Result<std::string> render_template_text(const std::string& template_text, const std::string& template_name,
                                         const Inventory& inventory, const Node& node,
                                         const PreparedClusterContext* cluster) {
  std::unique_ptr<const PreparedClusterContext> own_cluster;
  if (cluster == nullptr) {
    own_cluster = std::make_unique<const PreparedClusterContext>(inventory);
    cluster = own_cluster.get();
  }
  // The node's context is the cluster part and the node part looked up in turn (their names
  // never clash): neither the check nor the render copies the inventory-wide lists.
  // A name the run could not derive: the template that uses it fails with why, not with
  // values that are not the node's.
  for (const auto& [name, reason] : cluster->unavailable())
    if (template_text.find(name) != std::string::npos)
      return template_failure(template_name, node, fmt::format("cannot render {}: {}", name, reason));
  const TemplateValue node_context = build_node_context(node);
  if (auto name = cluster->engine_data().unsafe ? cluster->engine_data().unsafe : unsafe_value(node_context, ""))
    return template_failure(template_name, node,
                            fmt::format("the value of '{}' holds a line break or a control character, which the "
                                        "rendered file cannot hold",
                                        *name));
  if (auto checked = detail::check_template(template_text, template_name, {&cluster->values(), &node_context});
      !checked) {
    Error error = checked.error();
    error.where.node = node.name;
    return std::unexpected(std::move(error));
  }
  try {
    mustache::mustache renderer{template_text};
    if (!renderer.is_valid()) return template_failure(template_name, node, renderer.error_message());
    renderer.set_custom_escape([](const std::string& text) { return text; });
    const mustache::data node_data = to_mustache(node_context);
    StrictContext strict{&cluster->engine_data().data};
    strict.push(&node_data);
    std::string output = renderer.render(strict);
    if (!renderer.is_valid()) return template_failure(template_name, node, renderer.error_message());
    if (!strict.missing().empty())
      return template_failure(template_name, node, fmt::format("missing variable '{}'", strict.missing()));
    return output;
  } catch (const std::exception& e) {
    return template_failure(template_name, node, fmt::format("rendering failed: {}", e.what()));
  }
}

Result<std::string> render_template_file(const std::string& templates_dir, const std::string& template_name,
                                         const Inventory& inventory, const Node& node,
                                         const PreparedClusterContext* cluster) {
  const std::filesystem::path path = std::filesystem::path(templates_dir) / template_name;
  auto text = util::read_local_file(path.string(), "template");
  if (!text) {
    auto error = text.error();
    error.hint = "set GPUCTL_TEMPLATES_DIR to the directory holding gpuctl's templates";
    return std::unexpected(error);
  }
  return render_template_text(*text, template_name, inventory, node, cluster);
}

std::string default_templates_dir() {
  // One rule for every shipped data directory (util/data_dir.hpp), the trust check included.
  return util::data_dir("templates", "GPUCTL_TEMPLATES_DIR");
}

}  // namespace gpuctl
