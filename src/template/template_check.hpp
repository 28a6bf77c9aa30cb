#pragma once
// Static check of a Mustache template against the data it will be rendered with: every tag
// must name something the context holds, following the sections the data really enters
// (a section over an empty list or `false` is not entered, as when rendering). Kainjow renders
// an unknown name as an empty string, and gives only byte offsets for syntax errors; this
// check runs first so both become errors with a line number. Pure, no I/O.

#include <gpuctl/core/error.hpp>
#include <gpuctl/template/context.hpp>

#include <string>
#include <string_view>
#include <vector>

namespace gpuctl::detail {

// Errors (ErrorCode::template_error, where.file = template_name, where.line set): a name the
// context lacks (with a "did you mean"), a list or object used as a plain variable, an
// unclosed tag, an unopened/unclosed/mismatched section, partials and delimiter changes
// (not supported). where.node is left for the caller to fill.
// The context is made of layers looked up in turn, last first (as a renderer that stacks them
// does): {cluster, node} checks against the node's context without merging the two.
Result<void> check_template(std::string_view text, const std::string& template_name,
                            const std::vector<const TemplateValue*>& layers);

}  // namespace gpuctl::detail
