#pragma once
// Waiting for a rebooted node: its boot_id before, then a poll until a new one answers. Shared by
// apply (a reboot change) and remediate (a reboot remedy). Does network I/O through `connect`.

#include <gpuctl/core/error.hpp>
#include <gpuctl/transport/transport.hpp>

#include <chrono>
#include <functional>
#include <string>

namespace gpuctl {

// The node's connection: `open` gives the current one (opening it when closed), `close` drops
// it (a session to the old boot, or a failed one, is started afresh).
struct NodeConnection {
  std::function<Result<Transport*>()> open;
  std::function<void()> close;
};

// /proc/sys/kernel/random/boot_id, trimmed.
Result<std::string> read_boot_id(Transport& transport);

// After the reboot command: polls every `poll` until the node answers with a boot_id other than
// `before`. Error (ErrorCode::timeout) when it did not within `timeout`, with the last failure.
Result<void> wait_for_new_boot(const NodeConnection& connection, const std::string& before, std::chrono::seconds timeout,
                               std::chrono::seconds poll);

// The command that reboots a node and returns at once (the connection drops with the reboot).
std::string reboot_command();

}  // namespace gpuctl
