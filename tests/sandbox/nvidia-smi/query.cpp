// --query-gpu and --query-remapped-rows: the CSV views, in the formats of the real tool
// (header names are the canonical field names, units in brackets; values carry units unless
// `nounits`; an unsupported but real field reads "[N/A]").
#include "query.hpp"

#include <cstdio>
#include <ctime>
#include <fstream>
#include <functional>
#include <set>

namespace sandbox {
namespace {

struct Field {
    std::string header;  // canonical name
    std::string unit;    // "" when none
    std::function<std::string(const Gpu&, const QueryContext&)> value;
};

std::string fmt2(double v) {
    char buf[32];
    std::snprintf(buf, sizeof buf, "%.2f", v);
    return buf;
}

std::string enabled(bool b) { return b ? "Enabled" : "Disabled"; }
std::string yes_no(bool b) { return b ? "Yes" : "No"; }

std::string ecc_count(const Gpu& g, long v) { return g.ecc_current ? std::to_string(v) : "[N/A]"; }

std::string active(bool b) { return b ? "Active" : "Not Active"; }

// The NVSwitch fabric as the driver reports it: "N/A" off an NVSwitch board; on one, "Completed"
// once the fabric manager registered this boot's GPUs (the sandbox's stand-in daemon leaves its
// mark in /run, which a reboot empties), else "Not Started".
bool fabric_registered(const QueryContext& c) {
    std::ifstream in(c.fabric_mark);
    return in.good();
}

const std::map<std::string, Field>& fields() {
    static const std::map<std::string, Field> table = [] {
        std::map<std::string, Field> t;
        auto add = [&](std::initializer_list<std::string> names, Field f) {
            for (const auto& n : names) t[n] = f;
        };
        add({"timestamp"}, {"timestamp", "", [](const Gpu&, const QueryContext& c) { return c.timestamp; }});
        add({"driver_version"}, {"driver_version", "", [](const Gpu&, const QueryContext& c) { return c.driver_version; }});
        add({"count"}, {"count", "", [](const Gpu&, const QueryContext& c) { return std::to_string(c.count); }});
        add({"index"}, {"index", "", [](const Gpu& g, const QueryContext&) { return std::to_string(g.index); }});
        add({"name", "gpu_name"}, {"name", "", [](const Gpu& g, const QueryContext&) { return g.name; }});
        add({"serial", "gpu_serial"}, {"serial", "", [](const Gpu& g, const QueryContext&) { return g.serial; }});
        add({"uuid", "gpu_uuid"}, {"uuid", "", [](const Gpu& g, const QueryContext&) { return g.uuid; }});
        add({"pci.bus_id", "gpu_bus_id"}, {"pci.bus_id", "", [](const Gpu& g, const QueryContext&) { return g.bus_id; }});
        add({"pci.domain"}, {"pci.domain", "", [](const Gpu& g, const QueryContext&) { return "0x" + g.bus_id.substr(4, 4); }});
        add({"pci.bus"}, {"pci.bus", "", [](const Gpu& g, const QueryContext&) { return "0x" + g.bus_id.substr(9, 2); }});
        add({"pci.device"}, {"pci.device", "", [](const Gpu& g, const QueryContext&) { return "0x" + g.bus_id.substr(12, 2); }});
        add({"vbios_version"}, {"vbios_version", "", [](const Gpu& g, const QueryContext&) { return g.vbios; }});
        add({"persistence_mode"}, {"persistence_mode", "", [](const Gpu& g, const QueryContext&) { return enabled(g.persistence); }});
        add({"display_mode"}, {"display_mode", "", [](const Gpu&, const QueryContext&) { return std::string("Disabled"); }});
        add({"display_active"}, {"display_active", "", [](const Gpu&, const QueryContext&) { return std::string("Disabled"); }});
        add({"pstate"}, {"pstate", "", [](const Gpu&, const QueryContext&) { return std::string("P0"); }});
        add({"fan.speed"}, {"fan.speed", "%", [](const Gpu&, const QueryContext&) { return std::string("[N/A]"); }});
        add({"memory.total"}, {"memory.total", "MiB", [](const Gpu& g, const QueryContext&) { return std::to_string(g.memory_mib); }});
        add({"memory.reserved"}, {"memory.reserved", "MiB", [](const Gpu&, const QueryContext&) { return std::string("616"); }});
        add({"memory.used"}, {"memory.used", "MiB", [](const Gpu&, const QueryContext&) { return std::string("0"); }});
        add({"memory.free"}, {"memory.free", "MiB", [](const Gpu& g, const QueryContext&) { return std::to_string(g.memory_mib - 615); }});
        add({"compute_mode"}, {"compute_mode", "", [](const Gpu&, const QueryContext&) { return std::string("Default"); }});
        add({"compute_cap"}, {"compute_cap", "", [](const Gpu&, const QueryContext&) { return std::string("9.0"); }});
        add({"utilization.gpu"}, {"utilization.gpu", "%", [](const Gpu&, const QueryContext&) { return std::string("0"); }});
        add({"utilization.memory"}, {"utilization.memory", "%", [](const Gpu&, const QueryContext&) { return std::string("0"); }});
        add({"ecc.mode.current"}, {"ecc.mode.current", "", [](const Gpu& g, const QueryContext&) { return enabled(g.ecc_current); }});
        add({"ecc.mode.pending"}, {"ecc.mode.pending", "", [](const Gpu& g, const QueryContext&) { return enabled(g.ecc_pending); }});
        for (const char* kind : {"total", "dram", "device_memory"}) {
            std::string k = kind;
            add({"ecc.errors.corrected.volatile." + k}, {"ecc.errors.corrected.volatile." + k, "", [](const Gpu& g, const QueryContext&) { return ecc_count(g, g.vol_corr); }});
            add({"ecc.errors.uncorrected.volatile." + k}, {"ecc.errors.uncorrected.volatile." + k, "", [](const Gpu& g, const QueryContext&) { return ecc_count(g, g.vol_unc); }});
            add({"ecc.errors.corrected.aggregate." + k}, {"ecc.errors.corrected.aggregate." + k, "", [](const Gpu& g, const QueryContext&) { return ecc_count(g, g.agg_corr); }});
            add({"ecc.errors.uncorrected.aggregate." + k}, {"ecc.errors.uncorrected.aggregate." + k, "", [](const Gpu& g, const QueryContext&) { return ecc_count(g, g.agg_unc); }});
        }
        add({"retired_pages.pending"}, {"retired_pages.pending", "", [](const Gpu&, const QueryContext&) { return std::string("[N/A]"); }});
        add({"retired_pages.single_bit_ecc.count", "retired_pages.sbe"}, {"retired_pages.single_bit_ecc.count", "", [](const Gpu&, const QueryContext&) { return std::string("[N/A]"); }});
        add({"retired_pages.double_bit.count", "retired_pages.dbe"}, {"retired_pages.double_bit.count", "", [](const Gpu&, const QueryContext&) { return std::string("[N/A]"); }});
        add({"remapped_rows.correctable", "remapped_rows.sbe"}, {"remapped_rows.correctable", "", [](const Gpu& g, const QueryContext&) { return std::to_string(g.rr_corr); }});
        add({"remapped_rows.uncorrectable", "remapped_rows.dbe"}, {"remapped_rows.uncorrectable", "", [](const Gpu& g, const QueryContext&) { return std::to_string(g.rr_unc); }});
        add({"remapped_rows.pending"}, {"remapped_rows.pending", "", [](const Gpu& g, const QueryContext&) { return yes_no(g.rr_pending); }});
        add({"remapped_rows.failure"}, {"remapped_rows.failure", "", [](const Gpu& g, const QueryContext&) { return yes_no(g.rr_failure); }});
        add({"temperature.gpu"}, {"temperature.gpu", "", [](const Gpu& g, const QueryContext&) { return std::to_string(g.temperature_c); }});
        add({"temperature.memory"}, {"temperature.memory", "", [](const Gpu& g, const QueryContext&) { return std::to_string(g.temperature_c - 2); }});
        add({"power.draw"}, {"power.draw", "W", [](const Gpu& g, const QueryContext&) { return fmt2(g.power_draw_w); }});
        add({"power.limit"}, {"power.limit", "W", [](const Gpu& g, const QueryContext&) { return fmt2(g.power_limit_w); }});
        add({"enforced.power.limit"}, {"enforced.power.limit", "W", [](const Gpu& g, const QueryContext&) { return fmt2(g.power_limit_w); }});
        add({"power.default_limit"}, {"power.default_limit", "W", [](const Gpu& g, const QueryContext&) { return fmt2(g.power_limit_w); }});
        add({"power.max_limit"}, {"power.max_limit", "W", [](const Gpu& g, const QueryContext&) { return fmt2(g.power_limit_w); }});
        add({"power.min_limit"}, {"power.min_limit", "W", [](const Gpu&, const QueryContext&) { return fmt2(200); }});
        add({"clocks.sm", "clocks.current.sm"}, {"clocks.current.sm", "MHz", [](const Gpu&, const QueryContext&) { return std::string("555"); }});
        add({"clocks.max.sm", "clocks.max.sm"}, {"clocks.max.sm", "MHz", [](const Gpu&, const QueryContext&) { return std::string("1980"); }});
        add({"clocks.mem", "clocks.current.memory"}, {"clocks.current.memory", "MHz", [](const Gpu&, const QueryContext&) { return std::string("2619"); }});
        add({"pcie.link.gen.current", "pcie.link.gen.gpucurrent"}, {"pcie.link.gen.current", "", [](const Gpu& g, const QueryContext&) { return std::to_string(g.pcie_gen); }});
        add({"pcie.link.gen.max", "pcie.link.gen.gpumax"}, {"pcie.link.gen.max", "", [](const Gpu& g, const QueryContext&) { return std::to_string(g.pcie_gen); }});
        add({"pcie.link.width.current"}, {"pcie.link.width.current", "", [](const Gpu& g, const QueryContext&) { return std::to_string(g.pcie_width); }});
        add({"pcie.link.width.max"}, {"pcie.link.width.max", "", [](const Gpu& g, const QueryContext&) { return std::to_string(g.pcie_width); }});
        // The clocks_throttle_reasons names, and the clocks_event_reasons ones R535 added.
        for (const std::string prefix : {"clocks_throttle_reasons.", "clocks_event_reasons."}) {
            add({prefix + "hw_slowdown"}, {prefix + "hw_slowdown", "", [](const Gpu& g, const QueryContext&) {
                     return active(g.slowdown == "hw_thermal" || g.slowdown == "hw_power_brake"); }});
            add({prefix + "hw_thermal_slowdown"}, {prefix + "hw_thermal_slowdown", "", [](const Gpu& g, const QueryContext&) {
                     return active(g.slowdown == "hw_thermal"); }});
            add({prefix + "hw_power_brake_slowdown"}, {prefix + "hw_power_brake_slowdown", "", [](const Gpu& g, const QueryContext&) {
                     return active(g.slowdown == "hw_power_brake"); }});
            add({prefix + "sw_thermal_slowdown"}, {prefix + "sw_thermal_slowdown", "", [](const Gpu& g, const QueryContext&) {
                     return active(g.slowdown == "sw_thermal"); }});
        }
        add({"fabric.state"}, {"fabric.state", "", [](const Gpu&, const QueryContext& c) {
                 return !c.nvswitch ? std::string("N/A") : fabric_registered(c) ? std::string("Completed") : std::string("Not Started"); }});
        add({"fabric.status"}, {"fabric.status", "", [](const Gpu&, const QueryContext& c) {
                 return c.nvswitch && fabric_registered(c) ? std::string("Success") : std::string("N/A"); }});
        add({"mig.mode.current"}, {"mig.mode.current", "", [](const Gpu&, const QueryContext&) { return std::string("Disabled"); }});
        add({"mig.mode.pending"}, {"mig.mode.pending", "", [](const Gpu&, const QueryContext&) { return std::string("Disabled"); }});
        return t;
    }();
    return table;
}

// Every field name the real 580 tool accepts (from its --help-query-gpu), shipped with the
// package; fields we do not model read "[N/A]" rather than failing.
bool is_real_field(const std::string& name, const std::string& fields_file) {
    static std::set<std::string> known = [&] {
        std::set<std::string> s;
        std::ifstream in(fields_file);
        std::string line;
        while (std::getline(in, line)) if (!line.empty()) s.insert(line);
        return s;
    }();
    return known.count(name) > 0;
}

}  // namespace

std::vector<std::string> split_csv_list(const std::string& s) {
    std::vector<std::string> out;
    std::string cur;
    for (char c : s) {
        if (c == ',') { out.push_back(cur); cur.clear(); }
        else if (c != ' ') cur += c;
    }
    out.push_back(cur);
    return out;
}

int run_query(const std::vector<const Gpu*>& gpus, const std::string& field_list, const CsvFormat& fmt,
              const QueryContext& ctx, std::string& out) {
    const auto& table = fields();
    std::vector<std::string> names = split_csv_list(field_list);
    std::vector<const Field*> chosen;
    static const Field unknown_na{"", "", [](const Gpu&, const QueryContext&) { return std::string("[N/A]"); }};
    std::vector<std::string> headers;
    for (const auto& n : names) {
        auto it = table.find(n);
        if (it != table.end()) {
            chosen.push_back(&it->second);
            headers.push_back(it->second.header + (it->second.unit.empty() ? "" : " [" + it->second.unit + "]"));
        } else if (!n.empty() && is_real_field(n, ctx.fields_file)) {
            chosen.push_back(&unknown_na);
            headers.push_back(n);
        } else {
            out = "Field \"" + n + "\" is not a valid field to query.\n\n";
            return 2;
        }
    }
    if (fmt.header) {
        for (size_t i = 0; i < headers.size(); ++i) out += (i ? ", " : "") + headers[i];
        out += '\n';
    }
    for (const Gpu* g : gpus) {
        for (size_t i = 0; i < chosen.size(); ++i) {
            std::string v = chosen[i]->value(*g, ctx);
            if (fmt.units && !chosen[i]->unit.empty() && v != "[N/A]") v += " " + chosen[i]->unit;
            out += (i ? ", " : "") + v;
        }
        out += '\n';
    }
    return 0;
}

int run_query_remapped_rows(const std::vector<const Gpu*>& gpus, const std::string& field_list,
                            const CsvFormat& fmt, std::string& out) {
    static const std::map<std::string, std::function<std::string(const Gpu&)>> table = {
        {"gpu_bus_id", [](const Gpu& g) { return g.bus_id; }},
        {"gpu_uuid", [](const Gpu& g) { return g.uuid; }},
        {"remapped_rows.correctable", [](const Gpu& g) { return std::to_string(g.rr_corr); }},
        {"remapped_rows.uncorrectable", [](const Gpu& g) { return std::to_string(g.rr_unc); }},
        {"remapped_rows.pending", [](const Gpu& g) { return yes_no(g.rr_pending); }},
        {"remapped_rows.failure", [](const Gpu& g) { return yes_no(g.rr_failure); }},
    };
    auto names = split_csv_list(field_list);
    for (const auto& n : names)
        if (!table.count(n)) {
            out = "Field \"" + n + "\" is not a valid field to query.\n\n";
            return 2;
        }
    if (fmt.header) {
        for (size_t i = 0; i < names.size(); ++i) out += (i ? ", " : "") + names[i];
        out += '\n';
    }
    for (const Gpu* g : gpus) {
        for (size_t i = 0; i < names.size(); ++i) out += (i ? ", " : "") + table.at(names[i])(*g);
        out += '\n';
    }
    return 0;
}

}  // namespace sandbox
