#pragma once
// The PCIe AER check (private to src/verify). Pure. It reads the `pcie_aer` fact (each GPU's
// aer_dev_* counters in sysfs) for every GPU nvidia-smi lists; counters that could not be read
// are never a pass, counters the kernel does not keep make the check `skipped`.

#include <gpuctl/verify/checks.hpp>

namespace gpuctl::verify_detail {

// No GPU's PCIe function reported a fatal or non-fatal uncorrectable error since boot.
CheckResult check_pcie_aer(const CheckInput& in);

}  // namespace gpuctl::verify_detail
