#pragma once
// The node's container stack for GPUs (docs/containers.md): NVIDIA's container toolkit
// (`nvidia-ctk --version`), the CDI specs it generated (/etc/cdi/nvidia.yaml,
// /var/run/cdi/nvidia.yaml), whether containerd's and docker's configuration know the nvidia
// runtime or CDI, podman's version, each /dev/nvidia* device node with its /dev/char link, and
// each GPU's MIG mode. Declared by src/facts/containers.cpp (probe src/facts/probes/containers.sh);
// read by verify's container checks. Pure parsers.

#include <gpuctl/core/error.hpp>
#include <gpuctl/facts/facts.hpp>

#include <string>
#include <string_view>
#include <vector>

namespace gpuctl::facts {

// One CDI spec file as the CDI specification (cncf-tags/container-device-interface SPEC.md)
// lays it out: cdiVersion, kind, devices[].name, containerEdits.
struct CdiSpec {
  std::string path;                          // "/etc/cdi/nvidia.yaml"
  std::string cdi_version;                   // "0.5.0"
  std::string kind;                          // "nvidia.com/gpu"
  std::vector<std::string> device_names;     // "0", "GPU-520e01f2-...", "all"
  // The driver versions of the libnvidia-ml.so.<version> the spec mounts (hostPath), sorted,
  // unique: one, the driver's, in a spec generated for it.
  std::vector<std::string> nvml_versions;
  std::string error;                         // not YAML, or not a CDI spec; the rest is then empty
};

// A /dev/nvidia* node and where /dev/char/MAJOR:MINOR leads ("" when there is no such link).
struct DeviceNode {
  std::string path;                          // "/dev/nvidia0"
  std::string major_minor;                   // "195:0"
  std::string char_link_target;              // readlink -f /dev/char/195:0
  bool is_char_device = true;                // false: a file of that name that is no device
};

// Containers in Slurm jobs: NVIDIA's enroot and its Slurm plugin pyxis (nvslurm-plugin-pyxis),
// read only where pyxis's package left /usr/share/pyxis/pyxis.conf.
struct PyxisStack {
  bool package_conf = false;                 // /usr/share/pyxis/pyxis.conf exists
  std::string plugin_line;                   // its line: "required /usr/lib/x86_64-linux-gnu/slurm/spank_pyxis.so"
  bool enroot_found = false;
  std::string enroot_version;                // "3.5.0" from `enroot version`
  bool srun_section_seen = false;            // the probe reached `srun --help`
  std::string srun_no_answer;                // why srun gave nothing to judge: no srun, no slurm.conf, timed out
  bool srun_offers_container_image = false;  // `srun --help` lists pyxis's --container-image
  std::vector<std::string> srun_errors;      // srun's "error:" lines: Slurm could not load the plugin stack
};

struct ContainerStack {
  bool ctk_found = false;
  std::string ctk_version;                   // "1.17.8" from "NVIDIA Container Toolkit CLI version 1.17.8"
  std::vector<CdiSpec> specs;                // the spec files that exist, /etc/cdi first
  bool containerd_config = false;            // /etc/containerd/config.toml exists
  bool containerd_nvidia_runtime = false;    // ...and names nvidia-container-runtime
  bool containerd_cdi = false;               // ...and has enable_cdi = true
  bool docker_config = false;                // /etc/docker/daemon.json exists
  bool docker_nvidia_runtime = false;
  bool docker_cdi = false;                   // "cdi": true under "features"
  std::string podman_version;                // "4.3.1"; "" where podman is not installed
  std::vector<DeviceNode> device_nodes;
  std::vector<std::string> mig_modes;        // per GPU in nvidia-smi's order: "Enabled", "Disabled", "[N/A]"
  PyxisStack pyxis;
};

inline constexpr FactKey<ContainerStack> k_container_stack{"containers"};

// The containers probe's output: sections "@ctk", "@spec PATH", "@containerd", "@docker",
// "@podman", "@devices" (`ls -ld /dev/nvidia*`), "@char" (`ls -l /dev/char`), where pyxis is
// installed "@enroot", "@pyxis" and "@srun" (`srun --help`'s pyxis and error lines), and "@mig",
// each followed by its lines. Error (ErrorCode::parse): no
// "@devices" section (the probe did not finish).
Result<ContainerStack> parse_container_stack(std::string_view text);

// One CDI spec's text (YAML or JSON, which YAML reads). Never fails: a spec that is not a CDI
// spec comes back with `error` set.
CdiSpec parse_cdi_spec(std::string_view text, const std::string& path);

}  // namespace gpuctl::facts
