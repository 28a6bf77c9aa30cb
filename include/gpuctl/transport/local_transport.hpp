#pragma once
// A Transport for this host (`connection: local`): commands run as `/bin/sh -c` child
// processes, in their own process group so a terminal Ctrl-C does not kill in-flight work and
// a timeout can kill the whole tree. Does process I/O.

#include <gpuctl/transport/transport.hpp>

#include <memory>
#include <string>

namespace gpuctl {

class LocalTransport final : public Transport {
 public:
  explicit LocalTransport(std::string node = "localhost");

  const std::string& node() const override { return m_node; }

  // Errors: ErrorCode::io when the process cannot be started, ErrorCode::timeout when the
  // deadline passed (the process group is killed). `become` uses sudo -n unless already root.
  Result<CommandResult> run(const std::string& command, const CommandOptions& options = {}) override;
  Result<std::string> read_file(const std::string& path, bool become = false) override;
  Result<void> write_file(const std::string& path, const std::string& content,
                          const WriteOptions& options = {}) override;
  Result<FileAttributes> stat_file(const std::string& path, bool become = false) override;

 private:
  std::string m_node;
};

}  // namespace gpuctl
