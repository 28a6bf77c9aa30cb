#pragma once
// The PCIe AER check (private to src/verify). Pure. It reads the `pcie_aer` fact (the aer_dev_*
// counters in sysfs of each GPU and of the port above it) for every GPU nvidia-smi lists; counters
// that could not be read are never a pass, counters the kernel does not keep make the check
// `skipped`.

#include <gpuctl/verify/checks.hpp>

namespace gpuctl::verify_detail {

// No GPU's PCIe function, nor the port at the other end of its link, reported a fatal or
// non-fatal uncorrectable error since boot.
CheckResult check_pcie_aer(const CheckInput& in);

}  // namespace gpuctl::verify_detail
