#pragma once
// Reading local files (on the control host), with errors that name what the file was for:
// "cannot read template /x/y: No such file or directory".

#include <gpuctl/core/error.hpp>

#include <cstddef>
#include <string>
#include <string_view>

namespace gpuctl::util {

// ErrorCode::not_found when the file cannot be opened, io when reading fails. `what` names
// the kind of file ("playbook", "template"). For gpuctl's own inputs (playbooks, templates);
// a file whose content goes to nodes is read with read_regular_file.
Result<std::string> read_local_file(const std::string& path, std::string_view what = "file");

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
