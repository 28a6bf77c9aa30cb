// The simulated GPUs of one sandbox node, as the stand-in nvidia-smi sees them.
//
// Three sources, all plain `key=value` files so that the sandbox's bash can edit them:
//   hardware (read-only in the node):  /run/gpuctl-sandbox/hw/gpus.conf   `<slot>.<key>=value`
//   writable GPU state (rw in node):   /run/gpuctl-sandbox/state/gpus.state `<uuid>.<key>=value`
//   the loaded kernel module:          /run/gpuctl-sandbox/kernel/nvidia.version
// The state is keyed by UUID so that a replaced card starts with clean counters.
#pragma once

#include <map>
#include <string>
#include <vector>

namespace sandbox {

struct Gpu {
    int slot = 0;            // physical slot; index = position among present GPUs
    int index = 0;
    std::string name, serial, uuid, bus_id, vbios, board_part;
    long memory_mib = 0;
    double power_limit_w = 700, power_draw_w = 70;
    int temperature_c = 30, pcie_gen = 5, pcie_width = 16;
    int nvlinks = 18;
    // Why the clocks are held down (hardware, set by `sandbox fault`): "", "hw_thermal",
    // "hw_power_brake" or "sw_thermal".
    std::string slowdown;
    // writable state
    bool persistence = false;
    bool ecc_current = true, ecc_pending = true;
    long vol_corr = 0, vol_unc = 0, agg_corr = 0, agg_unc = 0;
    long rr_corr = 0, rr_unc = 0;
    bool rr_pending = false, rr_failure = false;
    // A hung GPU (the sandbox's gpu-hung fault): a reset cannot reach it; the next boot clears it.
    bool hung = false;
};

class Machine {
public:
    // Loads hardware + state. Never fails: missing files mean "no GPUs" / defaults.
    void load(const std::string& hw_path, const std::string& state_path);
    // Rewrites the state file atomically (temp + rename). Returns false on I/O error.
    bool save_state() const;

    std::vector<Gpu>& gpus() { return m_gpus; }
    const std::vector<Gpu>& gpus() const { return m_gpus; }
    std::string cpu_affinity(int numa) const;
    bool nvswitch() const { return m_nvswitch; }

private:
    std::vector<Gpu> m_gpus;
    bool m_nvswitch = false;
    std::string m_state_path;
    std::map<std::string, std::string> m_other_state;  // entries of absent cards, kept as is
};

std::map<std::string, std::string> read_kv(const std::string& path);
std::string read_first_line(const std::string& path);

}  // namespace sandbox
