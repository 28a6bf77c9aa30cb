#pragma once
// The InfiniBand/RDMA checks (private to src/verify). Pure. They read the `infiniband` fact
// (sysfs of every RDMA port) and the loaded modules; a value sysfs did not give is never a pass.

#include <gpuctl/verify/checks.hpp>

namespace gpuctl::verify_detail {

// Every HCA of the node's ib_hcas present; each of its ports (or the one named, "mlx5_0:1")
// ACTIVE and LinkUp, at least ib.rate, with ib.link_layer. Skipped without ib_hcas.
CheckResult check_ib_ports(const CheckInput& in);
// nvidia-peermem loaded where ib.gpudirect_rdma is declared; skipped otherwise.
CheckResult check_nvidia_peermem(const CheckInput& in);
// The HCAs cluster.nccl's NCCL_IB_HCA selects exist on the node (an exclusion list leaves one).
CheckResult check_nccl_ib_hca(const CheckInput& in);

}  // namespace gpuctl::verify_detail
