#pragma once

#include "gpu_model.hpp"

#include <string>
#include <vector>

namespace sandbox {

struct ReportContext {
    std::string driver_version, cuda_version, timestamp, template_dir;
    // The Fabric section of -q, as --query-gpu's fabric.state/fabric.status give it.
    std::string fabric_state = "N/A", fabric_status = "N/A";
};

// `-q` (optionally restricted by `-d TYPE,...`) and `-q -x`, rendered from the real captures.
std::string render_q_text(const std::vector<const Gpu*>& gpus, const ReportContext& c,
                          const std::vector<std::string>& display);
std::string render_q_xml(const std::vector<const Gpu*>& gpus, const ReportContext& c);
std::string render_list(const std::vector<const Gpu*>& gpus);
std::string render_table(const std::vector<const Gpu*>& gpus, const ReportContext& c);
std::string render_topo(const std::vector<const Gpu*>& gpus, const Machine& m);
std::string render_nvlink_status(const std::vector<const Gpu*>& gpus);

}  // namespace sandbox
