#pragma once
// Reading local files (on the control host), with errors that name what the file was for:
// "cannot read template /x/y: No such file or directory".

#include <gpuctl/core/error.hpp>

#include <cstddef>
#include <string>
#include <string_view>

namespace gpuctl::util {

// The most gpuctl reads of one of its own inputs unless a kind says less (a saved plan of
// hundreds of nodes with their diffs stays well below it).
inline constexpr std::size_t k_max_local_file_bytes = std::size_t{64} << 20;

// gpuctl's own inputs (inventory, configuration, saved plan, playbooks, templates, a saved
// verify result), one set of rules (docs/security.md): only a regular file is read (a FIFO
// cannot hang the open, a device is never opened), at most `max_bytes`; a symbolic link is
// followed only to a file every user may read, so that a contributed link cannot make an
// error message quote a private file (/etc/shadow, a key). Errors name the file, `what` it is
// ("playbook") and the fix: not_found, validation (the rules), io. A file whose content goes to
// nodes is read with read_regular_file, which follows no link at all.
Result<std::string> read_local_file(const std::string& path, std::string_view what = "file",
                                    std::size_t max_bytes = k_max_local_file_bytes);

// The most a local file copied to nodes may hold (a playbook's `source:`, e.g. the repository
// key): 1 MiB. A repository keyring is a few KiB.
inline constexpr std::size_t k_max_source_file_bytes = std::size_t{1} << 20;

// Reads a local file without trusting what the path names: a symlink is refused (O_NOFOLLOW), a
// FIFO cannot hang the open (O_NONBLOCK), and the file is fstat'ed before any read: only a
// regular file is read, and only up to `max_bytes` (also enforced while reading, since /proc
// files report size 0). Errors name the file, `what` it is ("repository key file"), what is
// wrong and the fix: not_found (missing), validation (a link, not a regular file, too large),
// io (a read failure).
Result<std::string> read_regular_file(const std::string& path, std::string_view what, std::size_t max_bytes);

}  // namespace gpuctl::util
