#pragma once
// verify's dcgm_diag check (private to src/verify). Pure: it judges what verify's run of
// `dcgmi diag -r LEVEL -j` printed (CheckInput::dcgm_diag).

#include <gpuctl/verify/checks.hpp>

namespace gpuctl::verify_detail {

CheckResult check_dcgm_diag(const CheckInput& in);

}  // namespace gpuctl::verify_detail
