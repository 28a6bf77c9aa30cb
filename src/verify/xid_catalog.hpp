#pragma once
// The Xid policy as verify's checks name it (include/gpuctl/health/xid_catalog.hpp holds it).
#include <gpuctl/health/xid_catalog.hpp>

namespace gpuctl::verify_detail {
using health::xid_action;
using health::XidAction;
using health::XidScope;
}  // namespace gpuctl::verify_detail
