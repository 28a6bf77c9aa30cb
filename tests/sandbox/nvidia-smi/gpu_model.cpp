#include "gpu_model.hpp"

#include <cstdio>
#include <fstream>
#include <set>
#include <sstream>

namespace sandbox {

std::map<std::string, std::string> read_kv(const std::string& path) {
    std::map<std::string, std::string> kv;
    std::ifstream in(path);
    std::string line;
    while (std::getline(in, line)) {
        if (line.empty() || line[0] == '#') continue;
        auto eq = line.find('=');
        if (eq == std::string::npos) continue;
        kv[line.substr(0, eq)] = line.substr(eq + 1);
    }
    return kv;
}

std::string read_first_line(const std::string& path) {
    std::ifstream in(path);
    std::string line;
    std::getline(in, line);
    while (!line.empty() && (line.back() == ' ' || line.back() == '\r')) line.pop_back();
    return line;
}

static long to_long(const std::map<std::string, std::string>& kv, const std::string& key, long def) {
    auto it = kv.find(key);
    if (it == kv.end() || it->second.empty()) return def;
    try { return std::stol(it->second); } catch (...) { return def; }
}

static double to_double(const std::map<std::string, std::string>& kv, const std::string& key, double def) {
    auto it = kv.find(key);
    if (it == kv.end() || it->second.empty()) return def;
    try { return std::stod(it->second); } catch (...) { return def; }
}

static std::string to_str(const std::map<std::string, std::string>& kv, const std::string& key,
                          const std::string& def) {
    auto it = kv.find(key);
    return it == kv.end() ? def : it->second;
}

void Machine::load(const std::string& hw_path, const std::string& state_path) {
    m_state_path = state_path;
    auto hw = read_kv(hw_path);
    auto st = read_kv(state_path);
    long slots = to_long(hw, "slots", 0);
    m_nvswitch = to_long(hw, "nvswitch", 0) != 0;
    std::set<std::string> known;
    int index = 0;
    for (int s = 0; s < slots; ++s) {
        std::string p = std::to_string(s) + ".";
        if (to_long(hw, p + "present", 1) == 0) continue;
        Gpu g;
        g.slot = s;
        g.index = index++;
        g.name = to_str(hw, p + "name", "NVIDIA H100 80GB HBM3");
        g.serial = to_str(hw, p + "serial", "");
        g.uuid = to_str(hw, p + "uuid", "");
        g.bus_id = to_str(hw, p + "bus_id", "00000000:00:00.0");
        g.vbios = to_str(hw, p + "vbios", "96.00.99.00.01");
        g.board_part = to_str(hw, p + "board_part", "692-2G520-0200-000");
        g.memory_mib = to_long(hw, p + "memory_mib", 81559);
        g.power_limit_w = to_double(hw, p + "power_limit_w", 700);
        g.power_draw_w = to_double(hw, p + "power_draw_w", 70);
        g.temperature_c = static_cast<int>(to_long(hw, p + "temperature_c", 30));
        g.pcie_gen = static_cast<int>(to_long(hw, p + "pcie_gen", 5));
        g.pcie_width = static_cast<int>(to_long(hw, p + "pcie_width", 16));
        g.nvlinks = static_cast<int>(to_long(hw, p + "nvlinks", 18));
        g.slowdown = to_str(hw, p + "slowdown", "");
        std::string q = g.uuid + ".";
        g.persistence = to_long(st, q + "pm", 0) != 0;
        g.ecc_current = to_long(st, q + "ecc_current", 1) != 0;
        g.ecc_pending = to_long(st, q + "ecc_pending", g.ecc_current ? 1 : 0) != 0;
        g.vol_corr = to_long(st, q + "vol_corr", 0);
        g.vol_unc = to_long(st, q + "vol_unc", 0);
        g.agg_corr = to_long(st, q + "agg_corr", 0);
        g.agg_unc = to_long(st, q + "agg_unc", 0);
        g.rr_corr = to_long(st, q + "rr_corr", 0);
        g.rr_unc = to_long(st, q + "rr_unc", 0);
        g.rr_pending = to_long(st, q + "rr_pending", 0) != 0;
        g.rr_failure = to_long(st, q + "rr_failure", 0) != 0;
        g.hung = to_long(st, q + "hung", 0) != 0;
        known.insert(g.uuid);
        m_gpus.push_back(g);
    }
    for (const auto& [k, v] : st) {
        auto dot = k.find('.');
        if (dot == std::string::npos || !known.count(k.substr(0, dot))) m_other_state[k] = v;
    }
}

bool Machine::save_state() const {
    std::ostringstream out;
    for (const auto& [k, v] : m_other_state) out << k << '=' << v << '\n';
    for (const auto& g : m_gpus) {
        std::string q = g.uuid + ".";
        out << q << "pm=" << g.persistence << '\n'
            << q << "ecc_current=" << g.ecc_current << '\n'
            << q << "ecc_pending=" << g.ecc_pending << '\n'
            << q << "vol_corr=" << g.vol_corr << '\n'
            << q << "vol_unc=" << g.vol_unc << '\n'
            << q << "agg_corr=" << g.agg_corr << '\n'
            << q << "agg_unc=" << g.agg_unc << '\n'
            << q << "rr_corr=" << g.rr_corr << '\n'
            << q << "rr_unc=" << g.rr_unc << '\n'
            << q << "rr_pending=" << g.rr_pending << '\n'
            << q << "rr_failure=" << g.rr_failure << '\n'
            << q << "hung=" << g.hung << '\n';
    }
    std::string tmp = m_state_path + ".tmp";
    {
        std::ofstream f(tmp, std::ios::trunc);
        if (!f) return false;
        f << out.str();
        if (!f.good()) return false;
    }
    return std::rename(tmp.c_str(), m_state_path.c_str()) == 0;
}

std::string Machine::cpu_affinity(int numa) const {
    // Two sockets of 56 cores with SMT, as on a typical HGX H100/H200 host.
    return numa == 0 ? "0-55,112-167" : "56-111,168-223";
}

}  // namespace sandbox
