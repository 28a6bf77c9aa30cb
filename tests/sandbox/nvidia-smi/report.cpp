// The human views: `nvidia-smi` (table), -L, -q, -q -x, topo -m, nvlink -s.
// -q and -q -x are the real H200 captures used as templates: each line is addressed by its
// section path ("ECC Errors/Volatile/DRAM Uncorrectable", "ecc_errors/volatile/dram_uncorrectable")
// and the modelled values are substituted, so every other line keeps the real layout.
#include "report.hpp"

#include <cstdio>
#include <fstream>
#include <map>
#include <set>
#include <sstream>

namespace sandbox {
namespace {

std::string fmt(const char* f, double v) {
    char buf[64];
    std::snprintf(buf, sizeof buf, f, v);
    return buf;
}

std::vector<std::string> read_lines(const std::string& path) {
    std::vector<std::string> lines;
    std::ifstream in(path);
    std::string l;
    while (std::getline(in, l)) lines.push_back(l);
    return lines;
}

std::string enabled(bool b) { return b ? "Enabled" : "Disabled"; }

std::string hex2(const std::string& bus_id, size_t pos, size_t len) { return "0x" + bus_id.substr(pos, len); }

std::map<std::string, std::string> text_values(const Gpu& g, const ReportContext& c) {
    std::string na_or = g.ecc_current ? "" : "N/A";
    auto ecc = [&](long v) { return g.ecc_current ? std::to_string(v) : std::string("N/A"); };
    std::map<std::string, std::string> v = {
        {"Product Name", g.name},
        {"Persistence Mode", enabled(g.persistence)},
        {"Serial Number", g.serial},
        {"GPU UUID", g.uuid},
        {"Minor Number", std::to_string(g.index)},
        {"VBIOS Version", g.vbios},
        {"Board Part Number", g.board_part},
        {"GSP Firmware Version", c.driver_version},
        {"PCI/Bus", hex2(g.bus_id, 9, 2)},
        {"PCI/Device", hex2(g.bus_id, 12, 2)},
        {"PCI/Domain", hex2(g.bus_id, 4, 4)},
        {"PCI/Bus Id", g.bus_id},
        {"PCI/GPU Link Info/PCIe Generation/Max", std::to_string(g.pcie_gen)},
        {"PCI/GPU Link Info/PCIe Generation/Current", std::to_string(g.pcie_gen)},
        {"PCI/GPU Link Info/PCIe Generation/Device Current", std::to_string(g.pcie_gen)},
        {"PCI/GPU Link Info/PCIe Generation/Device Max", std::to_string(g.pcie_gen)},
        {"PCI/GPU Link Info/Link Width/Max", std::to_string(g.pcie_width) + "x"},
        {"PCI/GPU Link Info/Link Width/Current", std::to_string(g.pcie_width) + "x"},
        {"FB Memory Usage/Total", std::to_string(g.memory_mib) + " MiB"},
        {"FB Memory Usage/Used", "0 MiB"},
        {"FB Memory Usage/Free", std::to_string(g.memory_mib - 615) + " MiB"},
        {"ECC Mode/Current", enabled(g.ecc_current)},
        {"ECC Mode/Pending", enabled(g.ecc_pending)},
        {"ECC Errors/Volatile/DRAM Correctable", ecc(g.vol_corr)},
        {"ECC Errors/Volatile/DRAM Uncorrectable", ecc(g.vol_unc)},
        {"ECC Errors/Aggregate/DRAM Correctable", ecc(g.agg_corr)},
        {"ECC Errors/Aggregate/DRAM Uncorrectable", ecc(g.agg_unc)},
        {"Remapped Rows/Correctable Error", std::to_string(g.rr_corr)},
        {"Remapped Rows/Uncorrectable Error", std::to_string(g.rr_unc)},
        {"Remapped Rows/Pending", g.rr_pending ? "Yes" : "No"},
        {"Fabric/State", c.fabric_state},
        {"Fabric/Status", c.fabric_status},
        {"Remapped Rows/Remapping Failure Occurred", g.rr_failure ? "Yes" : "No"},
        {"Temperature/GPU Current Temp", std::to_string(g.temperature_c) + " C"},
        {"Temperature/Memory Current Temp", std::to_string(g.temperature_c - 2) + " C"},
        {"GPU Power Readings/Average Power Draw", fmt("%.2f W", g.power_draw_w)},
        {"GPU Power Readings/Instantaneous Power Draw", fmt("%.2f W", g.power_draw_w + 0.23)},
        {"GPU Power Readings/Current Power Limit", fmt("%.2f W", g.power_limit_w)},
        {"GPU Power Readings/Requested Power Limit", fmt("%.2f W", g.power_limit_w)},
        {"GPU Power Readings/Default Power Limit", fmt("%.2f W", g.power_limit_w)},
        {"GPU Power Readings/Max Power Limit", fmt("%.2f W", g.power_limit_w)},
    };
    if (!g.ecc_current)
        for (const char* k : {"SRAM Correctable", "SRAM Uncorrectable Parity", "SRAM Uncorrectable SEC-DED"}) {
            v[std::string("ECC Errors/Volatile/") + k] = "N/A";
            v[std::string("ECC Errors/Aggregate/") + k] = "N/A";
        }
    return v;
}

std::map<std::string, std::string> xml_values(const Gpu& g, const ReportContext& c) {
    auto ecc = [&](long v) { return g.ecc_current ? std::to_string(v) : std::string("N/A"); };
    return {
        {"product_name", g.name},
        {"persistence_mode", enabled(g.persistence)},
        {"serial", g.serial},
        {"uuid", g.uuid},
        {"minor_number", std::to_string(g.index)},
        {"vbios_version", g.vbios},
        {"board_part_number", g.board_part},
        {"gsp_firmware_version", c.driver_version},
        {"pci/pci_bus", g.bus_id.substr(9, 2)},
        {"pci/pci_device", g.bus_id.substr(12, 2)},
        {"pci/pci_domain", g.bus_id.substr(4, 4)},
        {"pci/pci_bus_id", g.bus_id},
        {"pci/pci_gpu_link_info/pcie_gen/max_link_gen", std::to_string(g.pcie_gen)},
        {"pci/pci_gpu_link_info/pcie_gen/current_link_gen", std::to_string(g.pcie_gen)},
        {"pci/pci_gpu_link_info/link_widths/max_link_width", std::to_string(g.pcie_width) + "x"},
        {"pci/pci_gpu_link_info/link_widths/current_link_width", std::to_string(g.pcie_width) + "x"},
        {"fb_memory_usage/total", std::to_string(g.memory_mib) + " MiB"},
        {"fb_memory_usage/used", "0 MiB"},
        {"fb_memory_usage/free", std::to_string(g.memory_mib - 615) + " MiB"},
        {"ecc_mode/current_ecc", enabled(g.ecc_current)},
        {"ecc_mode/pending_ecc", enabled(g.ecc_pending)},
        {"ecc_errors/volatile/dram_correctable", ecc(g.vol_corr)},
        {"ecc_errors/volatile/dram_uncorrectable", ecc(g.vol_unc)},
        {"ecc_errors/aggregate/dram_correctable", ecc(g.agg_corr)},
        {"ecc_errors/aggregate/dram_uncorrectable", ecc(g.agg_unc)},
        {"remapped_rows/remapped_row_corr", std::to_string(g.rr_corr)},
        {"remapped_rows/remapped_row_unc", std::to_string(g.rr_unc)},
        {"remapped_rows/remapped_row_pending", g.rr_pending ? "Yes" : "No"},
        {"remapped_rows/remapped_row_failure", g.rr_failure ? "Yes" : "No"},
        {"temperature/gpu_temp", std::to_string(g.temperature_c) + " C"},
        {"gpu_power_readings/average_power_draw", fmt("%.2f W", g.power_draw_w)},
        {"gpu_power_readings/instant_power_draw", fmt("%.2f W", g.power_draw_w + 0.23)},
        {"gpu_power_readings/current_power_limit", fmt("%.2f W", g.power_limit_w)},
        {"gpu_power_readings/requested_power_limit", fmt("%.2f W", g.power_limit_w)},
        {"gpu_power_readings/default_power_limit", fmt("%.2f W", g.power_limit_w)},
        {"gpu_power_readings/max_power_limit", fmt("%.2f W", g.power_limit_w)},
    };
}

// Top-level sections of a GPU block shown by `-q -d TYPE`.
const std::map<std::string, std::set<std::string>>& display_sections() {
    static const std::map<std::string, std::set<std::string>> m = {
        {"MEMORY", {"FB Memory Usage", "BAR1 Memory Usage", "Conf Compute Protected Memory Usage"}},
        {"UTILIZATION", {"Utilization", "Encoder Stats", "FBC Stats"}},
        {"ECC", {"ECC Mode", "ECC Errors"}},
        {"TEMPERATURE", {"Temperature"}},
        {"POWER", {"GPU Power Readings", "GPU Memory Power Readings ", "Module Power Readings", "Power Smoothing",
                   "Workload Power Profiles"}},
        {"CLOCK", {"Clocks", "Applications Clocks", "Default Applications Clocks", "Deferred Clocks", "Max Clocks",
                   "Max Customer Boost Clocks", "Clock Policy"}},
        {"COMPUTE", {"Compute Mode"}},
        {"PIDS", {"Processes"}},
        {"PERFORMANCE", {"Performance State", "Clocks Event Reasons", "Clocks Event Reasons Counters",
                         "Sparse Operation Mode"}},
        {"PAGE_RETIREMENT", {"Retired Pages"}},
        {"ROW_REMAPPER", {"Remapped Rows"}},
    };
    return m;
}

}  // namespace

std::string render_q_text(const std::vector<const Gpu*>& gpus, const ReportContext& c,
                          const std::vector<std::string>& display) {
    auto lines = read_lines(c.template_dir + "/q.txt");
    size_t block = 0;
    while (block < lines.size() && lines[block].rfind("GPU ", 0) != 0) ++block;
    std::set<std::string> wanted;
    for (const auto& d : display) {
        auto it = display_sections().find(d);
        if (it != display_sections().end()) wanted.insert(it->second.begin(), it->second.end());
    }
    std::ostringstream out;
    auto put = [&](const std::string& line, const std::map<std::string, std::string>& values,
                   const std::string& path) {
        auto colon = line.find(": ");
        auto v = values.find(path);
        if (colon != std::string::npos && v != values.end()) out << line.substr(0, colon + 2) << v->second << '\n';
        else out << line << '\n';
    };
    std::map<std::string, std::string> header = {{"Timestamp", c.timestamp}, {"Driver Version", c.driver_version},
                                                 {"CUDA Version", c.cuda_version},
                                                 {"Attached GPUs", std::to_string(gpus.size())}};
    for (size_t i = 0; i < block; ++i) {
        std::string label = lines[i].substr(0, lines[i].find(" :"));
        while (!label.empty() && label.back() == ' ') label.pop_back();
        put(lines[i], header, label);
    }
    for (const Gpu* g : gpus) {
        auto values = text_values(*g, c);
        out << "GPU " << g->bus_id << '\n';
        std::vector<std::string> path;
        bool show = true;
        for (size_t i = block + 1; i < lines.size(); ++i) {
            const std::string& l = lines[i];
            if (l.empty()) continue;
            size_t indent = l.find_first_not_of(' ');
            size_t level = indent / 4 - 1;
            std::string label = l.substr(indent, l.find(" :") == std::string::npos ? std::string::npos
                                                                                     : l.find(" :") - indent);
            while (!label.empty() && label.back() == ' ' && label != "GPU Memory Power Readings ") label.pop_back();
            path.resize(level);
            if (level == 0 && !wanted.empty()) show = wanted.count(label) > 0;
            std::string p;
            for (const auto& s : path) p += s + "/";
            p += label;
            path.push_back(label);
            if (show) put(l, values, p);
        }
        out << '\n';
    }
    return out.str();
}

std::string render_q_xml(const std::vector<const Gpu*>& gpus, const ReportContext& c) {
    auto lines = read_lines(c.template_dir + "/q.xml");
    size_t begin = 0, end = 0;
    for (size_t i = 0; i < lines.size(); ++i) {
        if (lines[i].find("<gpu id=") != std::string::npos) begin = i;
        if (lines[i] == "\t</gpu>") end = i;
    }
    std::ostringstream out;
    auto subst = [&](const std::string& line, const std::map<std::string, std::string>& values,
                     std::vector<std::string>& path) {
        size_t lt = line.find('<');
        if (lt == std::string::npos) { out << line << '\n'; return; }
        size_t gt = line.find('>', lt);
        std::string tag = line.substr(lt + 1, gt - lt - 1);
        if (tag[0] == '/') { if (!path.empty()) path.pop_back(); out << line << '\n'; return; }
        size_t close = line.find("</", gt);
        if (close == std::string::npos) {  // opening a section
            if (tag.back() != '/' && tag[0] != '?' && tag[0] != '!') path.push_back(tag.substr(0, tag.find(' ')));
            out << line << '\n';
            return;
        }
        std::string p;
        for (size_t k = 1; k < path.size(); ++k) p += path[k] + "/";  // path[0] is gpu / nvidia_smi_log
        p += tag;
        auto v = values.find(p);
        if (v == values.end()) out << line << '\n';
        else out << line.substr(0, gt + 1) << v->second << line.substr(close) << '\n';
    };
    std::map<std::string, std::string> header = {{"timestamp", c.timestamp}, {"driver_version", c.driver_version},
                                                 {"cuda_version", c.cuda_version},
                                                 {"attached_gpus", std::to_string(gpus.size())}};
    std::vector<std::string> path;
    for (size_t i = 0; i < begin; ++i) subst(lines[i], header, path);
    for (const Gpu* g : gpus) {
        auto values = xml_values(*g, c);
        std::vector<std::string> gpath = {"gpu"};
        out << "\t<gpu id=\"" << g->bus_id << "\">\n";
        for (size_t i = begin + 1; i < end; ++i) subst(lines[i], values, gpath);
        out << lines[end] << '\n';
    }
    for (size_t i = end + 1; i < lines.size(); ++i) out << lines[i] << '\n';
    return out.str();
}

std::string render_list(const std::vector<const Gpu*>& gpus) {
    std::ostringstream out;
    for (const Gpu* g : gpus) out << "GPU " << g->index << ": " << g->name << " (UUID: " << g->uuid << ")\n";
    return out.str();
}

static std::string pad_right(std::string s, size_t n) { if (s.size() < n) s.append(n - s.size(), ' '); return s; }
static std::string pad_left(const std::string& s, size_t n) { return s.size() < n ? std::string(n - s.size(), ' ') + s : s; }

std::string render_table(const std::vector<const Gpu*>& gpus, const ReportContext& c) {
    std::ostringstream o;
    const std::string sep = "+-----------------------------------------+------------------------+----------------------+\n";
    o << pad_right(c.timestamp, 31) << "\n";
    o << "+-----------------------------------------------------------------------------------------+\n";
    o << "| NVIDIA-SMI " << pad_right(c.driver_version, 22) << " Driver Version: " << pad_right(c.driver_version, 14)
      << " CUDA Version: " << pad_right(c.cuda_version, 9) << "|\n";
    o << sep;
    o << "| GPU  Name                 Persistence-M | Bus-Id          Disp.A | Volatile Uncorr. ECC |\n"
      << "| Fan  Temp   Perf          Pwr:Usage/Cap |           Memory-Usage | GPU-Util  Compute M. |\n"
      << "|                                         |                        |               MIG M. |\n"
      << "|=========================================+========================+======================|\n";
    for (const Gpu* g : gpus) {
        std::string left = pad_right(pad_left(std::to_string(g->index), 4) + "  " + g->name, 37) +
                           pad_right(g->persistence ? "On" : "Off", 3) + " ";
        std::string mid = pad_left(g->bus_id, 19) + " Off ";
        std::string right = pad_left(g->ecc_current ? std::to_string(g->vol_unc) : "N/A", 21) + " ";
        o << "|" << left << "|" << mid << "|" << right << "|\n";
        char pw[64];
        std::snprintf(pw, sizeof pw, "%.0fW / %4.0fW ", g->power_draw_w, g->power_limit_w);
        std::string l2 = " N/A  " + pad_left(std::to_string(g->temperature_c) + "C", 4) + "    P0";
        l2 += pad_left(pw, 41 - l2.size());
        std::string m2 = pad_left("0MiB / " + std::to_string(g->memory_mib) + "MiB ", 24);
        o << "|" << l2 << "|" << m2 << "|" << pad_left("0%", 8) << pad_left("Default", 13) << " |\n";
        o << "|                                         |                        |" << pad_left("Disabled", 21) << " |\n";
        o << sep;
    }
    o << "\n"
      << "+-----------------------------------------------------------------------------------------+\n"
      << "| Processes:                                                                              |\n"
      << "|  GPU   GI   CI              PID   Type   Process name                        GPU Memory |\n"
      << "|        ID   ID                                                               Usage      |\n"
      << "|=========================================================================================|\n"
      << "|  No running processes found                                                             |\n"
      << "+-----------------------------------------------------------------------------------------+\n";
    return o.str();
}

std::string render_topo(const std::vector<const Gpu*>& gpus, const Machine& m) {
    std::ostringstream o;
    o << "\t\x1b[4m";
    for (const Gpu* g : gpus) o << "GPU" << g->index << "\t";
    o << "CPU Affinity\tNUMA Affinity\tGPU NUMA ID\x1b[0m\n";
    size_t n = gpus.size();
    for (const Gpu* g : gpus) {
        o << "GPU" << g->index << "\t";
        for (const Gpu* h : gpus) o << (g == h ? " X " : (n > 1 ? "NV" + std::to_string(g->nvlinks) : "SYS")) << "\t";
        int numa = g->slot < 4 ? 0 : 1;
        o << m.cpu_affinity(numa) << "\t" << numa << "\t\tN/A\n";
    }
    o << "\nLegend:\n\n"
      << "  X    = Self\n"
      << "  SYS  = Connection traversing PCIe as well as the SMP interconnect between NUMA nodes (e.g., QPI/UPI)\n"
      << "  NODE = Connection traversing PCIe as well as the interconnect between PCIe Host Bridges within a NUMA node\n"
      << "  PHB  = Connection traversing PCIe as well as a PCIe Host Bridge (typically the CPU)\n"
      << "  PXB  = Connection traversing multiple PCIe bridges (without traversing the PCIe Host Bridge)\n"
      << "  PIX  = Connection traversing at most a single PCIe bridge\n"
      << "  NV#  = Connection traversing a bonded set of # NVLinks\n";
    return o.str();
}

std::string render_nvlink_status(const std::vector<const Gpu*>& gpus) {
    std::ostringstream o;
    if (gpus.size() < 2) return "";  // a single GPU has no active links (matches the 1-GPU capture)
    for (const Gpu* g : gpus) {
        o << "GPU " << g->index << ": " << g->name << " (UUID: " << g->uuid << ")\n";
        for (int l = 0; l < g->nvlinks; ++l) o << "\t Link " << l << ": 26.562 GB/s\n";
    }
    return o.str();
}

}  // namespace sandbox
