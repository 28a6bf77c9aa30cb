#pragma once
// The DCGM fields gpuctl has dcgm-exporter export: one table, from which the counters CSV is
// rendered (templates/dcgm-exporter-counters.csv.mustache), and which the exporter_metrics
// check holds every node's /metrics to. The alert rules (gpu-alerts.yml) and the dashboard read
// only fields listed here; a unit test holds them to it. dcgm-exporter's own default CSV leaves
// the ECC counters, row-remap pending, clock event reasons and the NVLink error counters out
// (tests/data/monitoring/default-counters.4.2.3-4.1.1.csv), so its defaults cannot feed the rules.
#include <span>
#include <string_view>

namespace gpuctl::monitoring {

// Which GPUs must export a field for the exporter to meet gpuctl's rules.
enum class FieldNeed {
  alerted,         // an alert rule reads it: every GPU must export it
  alerted_nvlink,  // an alert rule reads it, on GPUs with NVLink (nodes that declare gpu.nvlink)
  shown,           // the dashboard shows it; not required
  label,           // a label on every other series (the CSV's "label" type)
  alias,           // an older exporter's name of a field above, which the rules also read; not exported
};

struct DcgmField {
  std::string_view name;   // DCGM_FI_...
  std::string_view type;   // gauge, counter or label: the CSV's second column
  std::string_view help;   // the CSV's third column: no commas (the CSV has no quoting)
  FieldNeed need;
};

std::span<const DcgmField> dcgm_exporter_fields();

}  // namespace gpuctl::monitoring
