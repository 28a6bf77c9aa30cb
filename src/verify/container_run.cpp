// verify's container_gpu run (verify/container_run.hpp).
#include <gpuctl/verify/container_run.hpp>

#include <gpuctl/util/strings.hpp>

#include <fmt/format.h>

#include <chrono>

namespace gpuctl {

std::string container_gpu_command(const ContainerSpec& spec) {
  if (spec.gpu_test_image.empty()) return {};
  const auto image = util::shell_quote(spec.gpu_test_image);
  if (spec.runtime == "podman")
    return fmt::format("podman run --rm --network=host --device nvidia.com/gpu=all -- {} nvidia-smi -L", image);
  if (spec.runtime == "docker")
    return fmt::format("docker run --rm --network=host --runtime=nvidia -e NVIDIA_VISIBLE_DEVICES=all -- {} nvidia-smi -L", image);
  if (spec.runtime == "containerd")
    return fmt::format("ctr run --rm --runc-binary=/usr/bin/nvidia-container-runtime "
                       "--env NVIDIA_VISIBLE_DEVICES=nvidia.com/gpu=all {} gpuctl-container-gpu nvidia-smi -L",
                       image);
  return {};
}

std::vector<std::string> listed_gpu_uuids(std::string_view out) {
  std::vector<std::string> uuids;
  for (const auto& line : util::split_lines(out)) {
    if (!line.starts_with("GPU ")) continue;
    const auto at = line.find("(UUID: ");
    if (at == std::string::npos) continue;
    const auto start = at + 7;
    const auto end = line.find(')', start);
    if (end != std::string::npos) uuids.push_back(line.substr(start, end - start));
  }
  return uuids;
}

ObservedContainerRun run_container_gpu(Transport& transport, const Node& node) {
  ObservedContainerRun observed;
  if (!node.containers) return observed;
  observed.command = container_gpu_command(*node.containers);
  if (observed.command.empty()) return observed;
  CommandOptions options;
  options.timeout = std::chrono::seconds(180);
  options.become = node.connection.become;  // a rootful runtime
  auto run = transport.run(observed.command, options);
  if (!run) {
    observed.problem = run.error().message;
    return observed;
  }
  observed.exit_code = run->exit_code;
  observed.out = std::move(run->out);
  observed.err = std::move(run->err);
  return observed;
}

}  // namespace gpuctl
