#pragma once
// File operations built on Transport::run, shared by every transport that speaks POSIX sh
// (SshTransport, LocalTransport): each operation is ONE command on the node, so a file costs
// one round trip. Paths are shell-quoted; `become` runs the command through `sudo -n`.

#include <gpuctl/transport/transport.hpp>

#include <string>

namespace gpuctl::transport {

// The sh script that atomically replaces `path` with `size` bytes read from stdin: mktemp in
// the destination directory, cat, size check (a cut-short stream never lands), chown/chmod,
// sync, rename. A trap removes the temp file on any failure or signal. Pure.
std::string atomic_write_script(const std::string& path, std::size_t size, const WriteOptions& options);

// Writes `content` to `path` on the node with atomic_write_script. Errors: ErrorCode::io with
// the node's stderr when any step fails (the destination is then untouched), or the
// transport's own error.
Result<void> write_file_via(Transport& transport, const std::string& path, const std::string& content,
                            const WriteOptions& options);

// Reads a whole file with cat. ErrorCode::not_found when it (or a parent) does not exist,
// ErrorCode::io for anything else (e.g. permission denied), with the node's message.
Result<std::string> read_file_via(Transport& transport, const std::string& path, bool become);

// Stats `path` without following a final symlink (stat -c). exists == false when missing.
Result<FileAttributes> stat_file_via(Transport& transport, const std::string& path, bool become);

// `command` wrapped to run as root through `sudo -n sh -c` (never prompts: a missing sudo
// rule fails fast with sudo's message instead of hanging on a password). Pure.
std::string wrap_become(const std::string& command);

}  // namespace gpuctl::transport
