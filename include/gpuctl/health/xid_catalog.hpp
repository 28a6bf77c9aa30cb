#pragma once
// What an admin does about an Xid, as verify's messages and the alert rules' classes need it: a
// view of the health policy (health/policy.hpp, src/health/health-policy.yaml, which cites
// NVIDIA's Xid catalogue). Pure.

#include <string_view>
#include <vector>

namespace gpuctl::health {

enum class XidScope {
  application,  // the job's fault or a contained error: restart the application, the node is fine
  informational,  // the catalogue's IGNORE: a record, nothing to do (another check or Xid judges it)
  gpu,          // the GPU needs attention (reset, reboot, service): the node is not fit for jobs
  unknown,      // not in gpuctl's table: treated as the GPU's until someone looks it up
};

struct XidAction {
  XidScope scope = XidScope::unknown;
  std::string_view meaning;  // "GPU has fallen off the bus"
  std::string_view action;   // what to do: "drain the node and reboot it; ..."
};

XidAction xid_action(int code);

// The codes of one scope, ascending (the alert rules' classes: application codes warn, and
// every code neither application nor informational, known or not, needs the GPU looked after).
std::vector<int> xid_codes(XidScope scope);

}  // namespace gpuctl::health
