// Stand-in `nvidia-smi` for sandbox nodes: answers from the node's simulated hardware in the
// formats and with the exit codes of the real tool. Built statically on the host and shipped in
// the stand-in nvidia-driver-<branch> package. Paths can be overridden by environment variables
// (SANDBOX_SMI_*) so that it can be run on the host for testing.
#include "gpu_model.hpp"
#include "query.hpp"
#include "report.hpp"

#include <unistd.h>

#include <cctype>
#include <cstdio>
#include <cstdlib>
#include <ctime>
#include <fstream>
#include <iostream>
#include <string>
#include <vector>

using namespace sandbox;

namespace {

std::string env_or(const char* name, const std::string& def) {
    const char* v = std::getenv(name);
    return v && *v ? v : def;
}

int fail(const std::string& msg, int rc) {
    std::cout << msg << std::flush;
    return rc;
}

std::string now_stamp() {
    char buf[64];
    std::time_t t = std::time(nullptr);
    std::strftime(buf, sizeof buf, "%a %b %e %H:%M:%S %Y", std::localtime(&t));
    return buf;
}

struct Args {
    bool list = false, query = false, xml = false, topo = false, nvlink = false, version = false, help = false;
    bool reset = false;
    std::string ids, query_gpu, query_rr, format, display, pm, ecc, reset_ecc;
    bool bad = false;
};

Args parse(int argc, char** argv) {
    Args a;
    auto value_of = [&](int& i, const std::string& arg, const std::string& lng, std::string& out) {
        if (arg.rfind(lng + "=", 0) == 0) { out = arg.substr(lng.size() + 1); return true; }
        if (i + 1 < argc) { out = argv[++i]; return true; }
        a.bad = true;
        return true;
    };
    for (int i = 1; i < argc; ++i) {
        std::string s = argv[i];
        if (s == "-L" || s == "--list-gpus") a.list = true;
        else if (s == "-q" || s == "--query") a.query = true;
        else if (s == "-x" || s == "--xml-format") a.xml = true;
        else if (s == "-r" || s == "--gpu-reset") a.reset = true;
        else if (s == "--version") a.version = true;
        else if (s == "-h" || s == "--help") a.help = true;
        else if (s == "topo" && i + 1 < argc && std::string(argv[i + 1]) == "-m") { a.topo = true; ++i; }
        else if (s == "nvlink" && i + 1 < argc &&
                 (std::string(argv[i + 1]) == "-s" || std::string(argv[i + 1]) == "--status")) { a.nvlink = true; ++i; }
        else if (s == "-i" || s.rfind("--id", 0) == 0) value_of(i, s, "--id", a.ids);
        else if (s == "-d" || s.rfind("--display", 0) == 0) value_of(i, s, "--display", a.display);
        else if (s == "-pm" || s.rfind("--persistence-mode", 0) == 0) value_of(i, s, "--persistence-mode", a.pm);
        else if (s == "-e" || s.rfind("--ecc-config", 0) == 0) value_of(i, s, "--ecc-config", a.ecc);
        else if (s == "-p" || s.rfind("--reset-ecc-errors", 0) == 0) value_of(i, s, "--reset-ecc-errors", a.reset_ecc);
        else if (s.rfind("--query-gpu=", 0) == 0) a.query_gpu = s.substr(12);
        else if (s.rfind("--query-remapped-rows=", 0) == 0) a.query_rr = s.substr(22);
        else if (s.rfind("--format=", 0) == 0) a.format = s.substr(9);
        else a.bad = true;
    }
    return a;
}

// -i accepts an index, a UUID or a PCI bus id, comma separated.
// Whether a client that holds the GPUs runs: the fabric manager's stand-in marks its
// registration; DCGM and its exporter are seen through systemd's record of active units
// (/run/systemd/units/invocation:UNIT exists while UNIT runs).
bool gpu_clients_running() {
    const char* held[] = {"/run/nvidia-fabricmanager/gpuctl-sandbox-registered",
                          "/run/systemd/units/invocation:nvidia-dcgm.service",
                          "/run/systemd/units/invocation:nvidia-dcgm-exporter.service"};
    for (const char* path : held)
        if (access(path, F_OK) == 0) return true;
    return false;
}

// nvidia-smi -i takes a PCI bus id with a 4- or 8-digit domain, in either case.
std::string bus_key(std::string id) {
    for (auto& c : id) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    const auto colon = id.find(':');
    if (colon != std::string::npos && colon > 4) id.erase(0, colon - 4);
    return id;
}
bool same_bus(const std::string& a, const std::string& b) { return bus_key(a) == bus_key(b); }

bool select(const Machine& m, const std::string& ids, std::vector<const Gpu*>& out) {
    if (ids.empty()) {
        for (const auto& g : m.gpus()) out.push_back(&g);
        return !out.empty();
    }
    for (const auto& id : split_csv_list(ids)) {
        const Gpu* hit = nullptr;
        for (const auto& g : m.gpus())
            if (std::to_string(g.index) == id || g.uuid == id || same_bus(g.bus_id, id)) hit = &g;
        if (!hit) return false;
        out.push_back(hit);
    }
    return true;
}

}  // namespace

int main(int argc, char** argv) {
    const std::string hw = env_or("SANDBOX_SMI_HW", "/run/gpuctl-sandbox/hw/gpus.conf");
    const std::string state = env_or("SANDBOX_SMI_STATE", "/run/gpuctl-sandbox/state/gpus.state");
    const std::string kernel = env_or("SANDBOX_SMI_KERNEL", "/run/gpuctl-sandbox/kernel/nvidia.version");
    const std::string lib = env_or("SANDBOX_SMI_LIB", "/usr/lib/nvidia-sandbox");
    const std::string share = env_or("SANDBOX_SMI_SHARE", "/usr/share/nvidia-sandbox");

    Args a = parse(argc, argv);
    if (a.bad) return fail("Invalid combination of input arguments. Please run 'nvidia-smi -h' for help.\n\n", 2);
    if (a.help) {
        std::cout << "NVIDIA System Management Interface -- sandbox stand-in (see docs/sandbox.md)\n";
        return 0;
    }

    const std::string lib_version = read_first_line(lib + "/nvml-version");
    const std::string cuda_version = read_first_line(lib + "/cuda-version");
    const std::string kernel_version = read_first_line(kernel);
    if (kernel_version.empty())
        return fail("NVIDIA-SMI has failed because it couldn't communicate with the NVIDIA driver. Make sure that "
                    "the latest NVIDIA driver is installed and running.\n\n", 9);
    if (kernel_version != lib_version)
        return fail("Failed to initialize NVML: Driver/library version mismatch\nNVML library version: " +
                        lib_version.substr(0, lib_version.rfind('.')) + "\n", 18);

    Machine m;
    m.load(hw, state);
    if (a.version) {
        std::cout << "NVIDIA-SMI version  : " << lib_version << "\nNVML version        : "
                  << lib_version.substr(0, lib_version.rfind('.')) << "\nDRIVER version      : " << kernel_version
                  << "\nCUDA Version        : " << cuda_version << "\n";
        return 0;
    }
    std::vector<const Gpu*> gpus;
    if (!select(m, a.ids, gpus)) return fail("No devices were found\n", 6);

    const bool modifies = !a.pm.empty() || !a.ecc.empty() || !a.reset_ecc.empty() || a.reset;
    if (modifies) {
        if (geteuid() != 0) return fail("Insufficient Permissions\n", 4);
        std::string out;
        for (const Gpu* cg : gpus) {
            Gpu& g = const_cast<Gpu&>(*cg);
            if (!a.pm.empty()) {
                g.persistence = a.pm == "1" || a.pm == "ENABLED";
                out += std::string(g.persistence ? "Enabled" : "Disabled") + " Legacy persistence mode for GPU " +
                       g.bus_id + ".\n";
            }
            if (!a.ecc.empty()) {
                bool want = a.ecc == "1" || a.ecc == "ENABLED";
                if (want == g.ecc_current && want == g.ecc_pending)
                    out += std::string("ECC support is already ") + (want ? "Enabled" : "Disabled") + " for GPU " +
                           g.bus_id + ".\n";
                else {
                    g.ecc_pending = want;
                    out += std::string(want ? "Enabled" : "Disabled") + " ECC support for GPU " + g.bus_id + ".\n";
                }
            }
            if (!a.reset_ecc.empty()) {
                bool aggregate = a.reset_ecc == "1" || a.reset_ecc == "AGGREGATE";
                if (aggregate) { g.agg_corr = g.agg_unc = 0; }
                else { g.vol_corr = g.vol_unc = 0; }
                out += std::string("Reset ") + (aggregate ? "aggregate" : "volatile") + " ECC errors to zero for GPU " +
                       g.bus_id + ".\n";
            }
            if (a.reset) {
                // NVIDIA's refusals: a GPU the driver lost, and a GPU a client still holds (the
                // sandbox's DCGM and fabric manager stand-ins mark that they run).
                if (g.hung)
                    return fail("Unable to reset GPU " + g.bus_id + ": GPU is lost. Reboot the system to recover this GPU\n", 15);
                if (gpu_clients_running())
                    return fail("The following GPUs could not be reset:\n  GPU " + g.bus_id +
                                    ": In use by another client\n\n1 device is currently being used by one or more other "
                                    "processes (e.g., Fabric Manager, CUDA application, graphics application such as an X "
                                    "server, or a monitoring application such as another instance of nvidia-smi). Please "
                                    "first kill all processes using this device and all compute applications running in "
                                    "the system.\n", 255);
                g.vol_corr = g.vol_unc = 0;
                g.ecc_current = g.ecc_pending;
                if (g.rr_pending) { g.rr_pending = false; }  // the reset applies the pending remap
                out += "GPU " + g.bus_id + " was successfully reset.\n";
            }
        }
        if (!m.save_state()) return fail("Unable to write GPU state: Unknown Error\n", 255);
        out += "All done.\n";
        if (!a.ecc.empty() && out.find(" ECC support for GPU") != std::string::npos) out += "Reboot required.\n";
        std::cout << out;
        return 0;
    }

    ReportContext rc{lib_version, cuda_version, now_stamp(), share};
    if (!a.query_gpu.empty() || !a.query_rr.empty()) {
        if (a.format.empty())
            return fail("Option --format must be specified with --query-gpu or --query-remapped-rows.\n", 2);
        CsvFormat f;
        for (const auto& opt : split_csv_list(a.format)) {
            if (opt == "noheader") f.header = false;
            else if (opt == "nounits") f.units = false;
            else if (opt != "csv") return fail("Invalid format: " + opt + "\n", 2);
        }
        std::string out;
        QueryContext qc{lib_version, cuda_version, rc.timestamp, share + "/query-gpu-fields",
                        static_cast<int>(m.gpus().size()), m.nvswitch(),
                        env_or("SANDBOX_SMI_FABRIC", "/run/nvidia-fabricmanager/gpuctl-sandbox-registered")};
        int code = a.query_gpu.empty() ? run_query_remapped_rows(gpus, a.query_rr, f, out)
                                       : run_query(gpus, a.query_gpu, f, qc, out);
        std::cout << out;
        return code;
    }
    if (a.list) { std::cout << render_list(gpus); return 0; }
    if (a.topo) { std::cout << render_topo(gpus, m); return 0; }
    if (a.nvlink) { std::cout << render_nvlink_status(gpus); return 0; }
    if (a.query) {
        // The same registration --query-gpu's fabric.state reads (query.cpp).
        if (m.nvswitch()) {
            const bool registered = std::ifstream(env_or("SANDBOX_SMI_FABRIC",
                                                         "/run/nvidia-fabricmanager/gpuctl-sandbox-registered")).good();
            rc.fabric_state = registered ? "Completed" : "Not Started";
            rc.fabric_status = registered ? "Success" : "N/A";
        }
        std::cout << (a.xml ? render_q_xml(gpus, rc) : render_q_text(gpus, rc, split_csv_list(a.display)));
        return 0;
    }
    std::cout << render_table(gpus, rc);
    return 0;
}
