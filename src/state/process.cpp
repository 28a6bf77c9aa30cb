// Who this process is, and whether a recorded process still lives: the basis of abandoned-run
// detection. A pid alone is not enough (pids are reused, and restart from 1 after a reboot),
// so a process is tagged with the boot id and its start time in clock ticks since boot.
#include <gpuctl/state/state_store.hpp>

#include <gpuctl/util/strings.hpp>

#include <cerrno>
#include <csignal>
#include <cstdlib>
#include <fstream>
#include <pwd.h>
#include <sstream>
#include <unistd.h>

namespace gpuctl::state {
namespace {

std::string read_first_line(const std::string& path) {
  std::ifstream in(path);
  std::string line;
  std::getline(in, line);
  return std::string(util::trim(line));
}

// Field 22 of /proc/PID/stat (starttime); the command name in field 2 may hold spaces and
// parentheses, so fields are counted after its last ')'.
std::string start_ticks(int pid) {
  std::ifstream in("/proc/" + std::to_string(pid) + "/stat");
  std::string stat((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  const auto close = stat.rfind(')');
  if (close == std::string::npos) return {};
  std::istringstream fields(stat.substr(close + 1));
  std::string field;
  for (int index = 3; fields >> field; ++index)
    if (index == 22) return field;
  return {};
}

std::string process_tag(int pid) {
  const auto ticks = start_ticks(pid);
  if (ticks.empty()) return {};
  return read_first_line("/proc/sys/kernel/random/boot_id") + ":" + ticks;
}

std::string host_name() {
  char buffer[256] = {};
  if (::gethostname(buffer, sizeof buffer - 1) != 0) return "localhost";
  return buffer;
}

std::string user_name() {
  if (const auto* entry = ::getpwuid(::geteuid()); entry && entry->pw_name) {
    std::string name = entry->pw_name;
    // Through sudo, keep who asked: "root (sudo by alice)" reads better in history than root.
    if (const char* by = std::getenv("SUDO_USER"); by && *by && name != by) name += std::string(" (sudo by ") + by + ")";
    return name;
  }
  return "uid " + std::to_string(::geteuid());
}

}  // namespace

ProcessIdentity current_process() {
  ProcessIdentity identity;
  identity.host = host_name();
  identity.pid = static_cast<int>(::getpid());
  identity.process_tag = process_tag(identity.pid);
  const auto user = user_name();
  // "alice@gpu-head" or "root@gpu-head (sudo by alice)".
  const auto space = user.find(' ');
  identity.who = space == std::string::npos ? user + "@" + identity.host
                                            : user.substr(0, space) + "@" + identity.host + user.substr(space);
  return identity;
}

bool process_alive(const ProcessIdentity& process) {
  if (process.host != host_name()) return true;   // cannot see it: assume it runs
  if (process.pid <= 0) return false;
  if (::kill(process.pid, 0) != 0 && errno == ESRCH) return false;
  // The pid exists; it is the same process only when its tag matches (no tag recorded: trust the pid).
  if (process.process_tag.empty()) return true;
  return process_tag(process.pid) == process.process_tag;
}

}  // namespace gpuctl::state
