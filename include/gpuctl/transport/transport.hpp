#pragma once
// How gpuctl talks to one node: run commands, read and write files. One Transport per node,
// opened once and reused for every command and file of a run. Implementations: SshTransport
// (libssh, one session, many channels), LocalTransport (this host), FakeTransport (tests).
//
// A remote command's non-zero exit is data (CommandResult::exit_code); only connection,
// authentication, host-key, timeout and I/O failures are errors.

#include <gpuctl/core/error.hpp>

#include <chrono>
#include <memory>
#include <optional>
#include <string>

namespace gpuctl {

struct CommandResult {
  int exit_code = -1;
  std::string out;
  std::string err;
  std::chrono::milliseconds duration{0};

  bool ok() const { return exit_code == 0; }
};

struct CommandOptions {
  std::chrono::seconds timeout{600};   // deadline for the whole command
  std::string stdin_data{};            // fed to the command's standard input
  bool become = false;                 // run through `sudo -n` when the login user is not root
};

struct FileAttributes {
  bool exists = false;
  std::uint32_t mode = 0;              // permission bits, e.g. 0644
  std::string owner;
  std::string group;
  std::uint64_t size = 0;
};

struct WriteOptions {
  std::uint32_t mode = 0644;
  std::string owner = "root";
  std::string group = "root";
  bool become = false;
};

class Transport {
 public:
  virtual ~Transport() = default;

  // Node name used in errors.
  virtual const std::string& node() const = 0;

  // Runs `command` with /bin/sh -c on the node. Arguments must already be quoted
  // (util::shell_quote). Error only when the command could not be run or timed out.
  virtual Result<CommandResult> run(const std::string& command, const CommandOptions& options = {}) = 0;

  // Reads a whole file. ErrorCode::not_found when it does not exist.
  virtual Result<std::string> read_file(const std::string& path, bool become = false) = 0;

  // Writes a file atomically: a temp file created exclusively in the destination directory,
  // fsync, owner and mode set, then rename over `path`. On failure the temp file is removed
  // and `path` is untouched.
  virtual Result<void> write_file(const std::string& path, const std::string& content,
                                  const WriteOptions& options = {}) = 0;

  // Stats a path; `exists == false` when it does not exist (not an error).
  virtual Result<FileAttributes> stat_file(const std::string& path, bool become = false) = 0;
};

}  // namespace gpuctl
