#pragma once
// The content of a file resource's `source:`: a local file (on the control host) that gpuctl
// copies to nodes as it is. The plan shows such a file by digest and size, never its content.

#include <gpuctl/core/error.hpp>
#include <gpuctl/inventory/inventory.hpp>
#include <gpuctl/playbook/playbook.hpp>

#include <string>

namespace gpuctl {

// Reads `file.source` with util::read_regular_file: no symlink, FIFO or device, at most
// util::k_max_source_file_bytes (1 MiB). The inventory's repository key (a source equal to
// cluster.nvidia.repository.key_file) must moreover be an OpenPGP public key, armored when its
// destination ends in ".asc" and binary when it ends in ".gpg" (how apt's signed-by reads it).
// Errors name the file, what is wrong and the fix; they never quote the content.
Result<std::string> read_source_file(const FileResource& file, const Inventory& inventory);

}  // namespace gpuctl
