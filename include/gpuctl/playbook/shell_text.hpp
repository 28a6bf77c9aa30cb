#pragma once
// Reads a playbook's shell command text the way a POSIX shell would, only far enough to know
// the quoting state at each `{{name}}`, so the substituter can insert every value as one
// literal word part whatever it contains. Pure, no I/O. Rules: docs/playbooks.md, "Values in
// commands".

#include <gpuctl/core/error.hpp>

#include <string>
#include <string_view>
#include <vector>

namespace gpuctl {

// The quoting state of the shell text at a reference.
enum class ShellQuoting { unquoted, single_quoted, double_quoted };

struct ShellReference {
  std::size_t begin = 0;       // offset of "{{"
  std::size_t end = 0;         // offset just after "}}"
  std::string name;            // the variable's name, spaces trimmed
  ShellQuoting quoting = ShellQuoting::unquoted;
};

// Every `{{name}}` of `command`, in order, with its quoting state. Refuses (ErrorCode::validation,
// the message naming the reference, the fix saying how to write it) a reference where no
// quoting can make a value literal: inside $(…), `…`, ${…}, $((…)), $'…', a here-document or a
// comment; right after a backslash or a `$`; after a `case` inside $(…) (gpuctl cannot follow
// its patterns' parentheses). Also refuses an unclosed `{{` and an unterminated quote.
Result<std::vector<ShellReference>> find_shell_references(std::string_view command);

// Shell text that reads back as exactly `value` where the quoting state is `quoting`:
// unquoted: 'value' (always quoted, so `=`, `~` and globs stay literal); inside '…': the value
// with each ' written '\''; inside "…": the double quotes closed, 'value', and reopened.
// Every ' in the value becomes '\''; nothing else needs escaping inside single quotes.
std::string quote_for_shell(std::string_view value, ShellQuoting quoting);

}  // namespace gpuctl
