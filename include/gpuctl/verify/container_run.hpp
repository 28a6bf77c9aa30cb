#pragma once
// verify's container_gpu run (docs/containers.md): one container from the node's local image
// (containers.gpu_test_image) through the node's runtime with every GPU requested through CDI
// (`--device nvidia.com/gpu=all`), running `nvidia-smi -L` inside. Verify only: plan never
// starts a container. Judged by src/verify/container_checks.cpp.

#include <gpuctl/core/error.hpp>
#include <gpuctl/inventory/inventory.hpp>
#include <gpuctl/transport/transport.hpp>

#include <string>
#include <vector>

namespace gpuctl {

struct ObservedContainerRun {
  std::string command;    // what ran on the node
  int exit_code = -1;     // -1: it did not run
  std::string out;
  std::string err;
  std::string problem;    // why it could not run at all (transport); empty when it ran
};

// The node-side command for the node's runtime and test image (pure; values quoted):
//   podman:     podman run --rm --network=host --device nvidia.com/gpu=all -- IMAGE nvidia-smi -L
//   docker:     docker run --rm --network=host --runtime=nvidia -e NVIDIA_VISIBLE_DEVICES=all -- IMAGE nvidia-smi -L
//   containerd: ctr run --rm --runc-binary=/usr/bin/nvidia-container-runtime --env NVIDIA_VISIBLE_DEVICES=nvidia.com/gpu=all IMAGE gpuctl-container-gpu nvidia-smi -L
// (docker 20.10 and containerd 1.6, Debian 12's, inject CDI devices only through the nvidia
// runtime, which reads the same spec in its cdi mode.) Empty where the node declares no test image.
std::string container_gpu_command(const ContainerSpec& spec);

// The UUIDs `nvidia-smi -L` printed ("GPU 0: NVIDIA H100 (UUID: GPU-...)"), in order (pure).
std::vector<std::string> listed_gpu_uuids(std::string_view out);

// Runs it (timeout 180 s). Never fails: a transport error is the run's `problem`.
ObservedContainerRun run_container_gpu(Transport& transport, const Node& node);

}  // namespace gpuctl
