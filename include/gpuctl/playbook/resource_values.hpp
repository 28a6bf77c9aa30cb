#pragma once
// Checks of a resource's values after `{{variable}}` substitution, for the fields that are not
// shell text: each must be a value of its kind before it reaches a node (where it is also
// shell-quoted). Defence that does not depend on the inventory's own validation. Pure, no I/O.

#include <gpuctl/core/error.hpp>
#include <gpuctl/playbook/playbook.hpp>

#include <string_view>

namespace gpuctl {

// An absolute, normalised path on a node: starts with '/', no empty, '.' or '..' component, no
// trailing '/', no control character.
Result<void> check_node_path(std::string_view path, std::string_view what);

// Every value of `resource` that reaches a node as a name, path or version: file path (and
// owner, group), command `creates`, package name (Debian: [a-z0-9][a-z0-9+.-]+, optional
// :ARCH) and version (Debian: a digit, then [A-Za-z0-9.+~:-]), service unit name.
Result<void> check_resource_values(const Resource& resource);

}  // namespace gpuctl
