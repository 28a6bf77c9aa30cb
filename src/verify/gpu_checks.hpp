#pragma once
// The per-GPU checks over `nvidia-smi` facts (private to src/verify). Pure. Each looks at every
// GPU; a GPU whose value nvidia-smi did not give ("[Unknown Error]", "[N/A]", not reported) is
// never a pass: the check is an `error` whose observed value quotes what nvidia-smi printed.

#include <gpuctl/verify/checks.hpp>

namespace gpuctl::verify_detail {

CheckResult check_gpu_model(const CheckInput& in);
CheckResult check_ecc_errors(const CheckInput& in);
CheckResult check_row_remap(const CheckInput& in);
CheckResult check_pcie_link(const CheckInput& in);
CheckResult check_persistence_mode(const CheckInput& in);

}  // namespace gpuctl::verify_detail
