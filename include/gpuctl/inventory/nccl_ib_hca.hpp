#pragma once
// NCCL_IB_HCA as NCCL reads it (NCCL's environment variable documentation): a comma-separated
// list of HCA names, each optionally with ":<port>"; a leading '^' excludes the listed HCAs
// instead of selecting them, and a '=' (after any '^') makes the names exact instead of
// prefixes ("mlx5" selects mlx5_0, mlx5_1, ...). Pure; shared by validate's lint and verify's
// nccl_ib_hca check.

#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace gpuctl {

struct NcclHca {
  std::string name;        // "mlx5_0", or a prefix ("mlx5") unless the list is exact
  std::optional<int> port; // "mlx5_0:1" -> 1
  std::string text;        // as written: "mlx5_0:1"
};

struct NcclHcaList {
  bool exclude = false;    // "^..."
  bool exact = false;      // "=..." / "^=..."
  std::vector<NcclHca> hcas;
};

// Parses an NCCL_IB_HCA value. Empty items (",,") are skipped, as NCCL skips them; a port
// that is not a number stays part of the name (it then matches no HCA).
NcclHcaList parse_nccl_ib_hca(std::string_view value);

// Whether `entry` of `list` names HCA `hca` (exactly, or as a prefix when the list is not
// exact) and, where the entry has a port and `port` is known (not nullopt), that port.
bool nccl_hca_matches(const NcclHcaList& list, const NcclHca& entry, std::string_view hca, std::optional<int> port);

// An `ib_hcas` item of the inventory: "mlx5_0" (every port) or "mlx5_0:1" (port 1).
NcclHca parse_hca_item(std::string_view item);

}  // namespace gpuctl
