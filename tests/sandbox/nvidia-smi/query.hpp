#pragma once

#include "gpu_model.hpp"

#include <string>
#include <vector>

namespace sandbox {

struct CsvFormat {
    bool header = true;
    bool units = true;
};

struct QueryContext {
    std::string driver_version, cuda_version, timestamp, fields_file;
    int count = 0;
    bool nvswitch = false;      // the GPUs sit on an NVSwitch board (hardware: nvswitch=1)
    std::string fabric_mark;    // where the fabric manager stand-in marks its registration
};

std::vector<std::string> split_csv_list(const std::string& s);

// Renders --query-gpu=FIELDS. Returns the exit code: 0, or 2 with the real "not a valid field"
// text in `out` for an unknown field.
int run_query(const std::vector<const Gpu*>& gpus, const std::string& field_list, const CsvFormat& fmt,
              const QueryContext& ctx, std::string& out);

// Renders --query-remapped-rows=FIELDS (same contract).
int run_query_remapped_rows(const std::vector<const Gpu*>& gpus, const std::string& field_list,
                            const CsvFormat& fmt, std::string& out);

}  // namespace sandbox
