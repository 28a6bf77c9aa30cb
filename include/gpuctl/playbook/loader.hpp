#pragma once
// Loading playbooks (playbooks/*.yaml). Reads files; contacts nothing.

#include <gpuctl/core/diagnostic.hpp>
#include <gpuctl/core/error.hpp>
#include <gpuctl/playbook/playbook.hpp>

#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace gpuctl {

// Every finding about one playbook, not only the first.
struct PlaybookLoadResult {
  std::optional<Playbook> playbook;       // set when there are no errors
  std::vector<Diagnostic> diagnostics;    // in file order, each with file:line:col
  bool syntax_error = false;              // the text is not YAML (the diagnostics say where)

  bool ok() const { return playbook.has_value(); }
};

// What a playbook is checked against beyond its own grammar. The check catalog is verify's
// (verify/catalog.hpp), a layer above: the use cases pass its names in.
struct PlaybookRules {
  // The names a step's `checks:` may list; empty: not checked. An unknown one is an error at
  // its line and column, with "did you mean".
  std::vector<std::string> check_names;
};

// Parses and checks a playbook through the YAML front end the inventory uses, and reports
// EVERY error: YAML syntax, unknown keys (with a suggestion), duplicate keys, wrong types, a
// resource that is not exactly one of file/package/service/command, a file without exactly one
// content source, bad modes, package states and reboot policies, notify naming no handler,
// duplicate step names, a handler without exactly one of run/service or with a `{{`, shell
// text where no quoting makes a `{{value}}` literal (shell_text.hpp). Never throws; no I/O.
PlaybookLoadResult check_playbook_text(std::string_view text, const std::string& path, const PlaybookRules& rules = {});

// The errors of a failed check as one Error: the first error's message, position and hint;
// when there are more, each further one on a line of its own ("\nfile:line:col: message (hint)")
// and the first one's hint inside its message, so Error::to_string() shows them all. Code:
// ErrorCode::parse for YAML syntax, else ErrorCode::validation.
Error playbook_error(const PlaybookLoadResult& result);

// check_playbook_text / reading the file first, as a Result: the playbook, or playbook_error().
// A missing or unreadable file is ErrorCode::not_found / io.
Result<Playbook> load_playbook(const std::string& path, const PlaybookRules& rules = {});
Result<Playbook> load_playbook_text(std::string_view text, const std::string& path, const PlaybookRules& rules = {});

// Finds and loads each playbook (names or paths, in order); the first error stops.
Result<std::vector<Playbook>> load_playbooks(const std::vector<std::string>& names_or_paths, const PlaybookRules& rules = {});

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
