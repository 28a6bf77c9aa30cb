#pragma once
// What an admin does about an Xid (private to src/verify). Pure. The actions follow NVIDIA's Xid
// catalogue for Ampere and later ("Resolution Bucket (Immediate Action)":
// https://docs.nvidia.com/deploy/xid-errors/analyzing-xid-catalog.html) and the dynamic page
// retirement / row remapping guides for 48/63/64; docs/verify.md lists the table.

#include <string_view>

namespace gpuctl::verify_detail {

enum class XidScope {
  application,  // the job's fault or a contained error: restart the application, the node is fine
  gpu,          // the GPU needs attention (reset, reboot, service): the node is not fit for jobs
  unknown,      // not in gpuctl's table: treated as the GPU's until someone looks it up
};

struct XidAction {
  XidScope scope = XidScope::unknown;
  std::string_view meaning;  // "GPU has fallen off the bus"
  std::string_view action;   // what to do: "drain the node and reboot it; ..."
};

XidAction xid_action(int code);

}  // namespace gpuctl::verify_detail
