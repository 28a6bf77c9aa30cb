// Waiting for a node's new boot (apply/reboot.hpp).
#include <gpuctl/apply/reboot.hpp>

#include <gpuctl/util/strings.hpp>

#include <fmt/format.h>
#include <thread>

namespace gpuctl {

Result<std::string> read_boot_id(Transport& transport) {
  auto id = transport.read_file("/proc/sys/kernel/random/boot_id");
  if (!id) return std::unexpected(id.error());
  return std::string(util::trim(*id));
}

Result<void> wait_for_new_boot(const NodeConnection& connection, const std::string& before, std::chrono::seconds timeout,
                               std::chrono::seconds poll) {
  using Clock = std::chrono::steady_clock;
  connection.close();
  const auto deadline = Clock::now() + timeout;
  std::string last_error = "no answer yet";
  while (Clock::now() < deadline) {
    std::this_thread::sleep_for(poll);
    auto transport = connection.open();
    if (transport) {
      auto now = read_boot_id(**transport);
      if (now && *now != before) return {};
      if (!now) last_error = now.error().to_string();
    } else {
      last_error = transport.error().to_string();
    }
    connection.close();
  }
  return fail(ErrorCode::timeout,
              fmt::format("the node did not come back within {} s of the reboot (last: {})", timeout.count(), last_error));
}

std::string reboot_command() { return "nohup sh -c 'sleep 1; systemctl reboot' >/dev/null 2>&1 </dev/null &"; }

}  // namespace gpuctl
