#pragma once
// The network checks (private to src/verify). Pure. They read the `net_interfaces` fact (every
// entry of /sys/class/net with its operstate); interfaces that could not be listed are never a
// pass.

#include <gpuctl/verify/checks.hpp>

namespace gpuctl::verify_detail {

// The interfaces cluster.nccl's NCCL_SOCKET_IFNAME selects, read as NCCL reads it: at least one
// exists on the node (an exclusion list leaves one besides lo). Skipped without the setting.
CheckResult check_nccl_socket_ifname(const CheckInput& in);

}  // namespace gpuctl::verify_detail
