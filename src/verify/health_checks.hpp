#pragma once
// The health checks over verify's health facts (private to src/verify): why clocks are held
// down, how hot the GPUs run, the NVSwitch fabric's registration, the driver's Xids since
// boot. Pure. Unknown data is never a pass.

#include <gpuctl/verify/checks.hpp>

namespace gpuctl::verify_detail {

CheckResult check_clock_slowdown(const CheckInput& in);
CheckResult check_gpu_temperature(const CheckInput& in);
CheckResult check_fabric_state(const CheckInput& in);
CheckResult check_xid_events(const CheckInput& in);

}  // namespace gpuctl::verify_detail
