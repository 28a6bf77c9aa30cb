#pragma once
// Loading playbooks (playbooks/*.yaml). Reads files; contacts nothing.

#include <gpuctl/core/error.hpp>
#include <gpuctl/playbook/playbook.hpp>

#include <string>
#include <string_view>
#include <vector>

namespace gpuctl {

// Parses and checks a playbook: unknown keys (with a suggestion), a resource that is not
// exactly one of file/package/service/command, a file without exactly one content source,
// bad modes, notify naming no handler, duplicate step names. Errors carry file:line:col.
Result<Playbook> load_playbook(const std::string& path);
Result<Playbook> load_playbook_text(std::string_view text, const std::string& path);

// Finds and loads each playbook (names or paths, in order); the first error stops.
Result<std::vector<Playbook>> load_playbooks(const std::vector<std::string>& names_or_paths);

// Whether a playbook argument names a file (it contains '/' or ends in .yaml/.yml) rather than
// a shipped playbook.
bool names_a_playbook_file(std::string_view argument);

// Resolves a playbook argument to an absolute path: a file when the argument names one, else
// the shipped playbook of that name ("gpu-node" -> <playbooks dir>/gpu-node.yaml). A name is
// never looked up in the working directory.
Result<std::string> find_playbook(const std::string& name_or_path);

// Directory of the shipped playbooks: $GPUCTL_PLAYBOOKS_DIR, the installed share dir, or the
// source tree.
std::string default_playbooks_dir();

// The playbooks `plan`/`apply` use when none is named: every node's site = gpu-node + head-node.
std::vector<std::string> default_playbook_names();

}  // namespace gpuctl
