// The fields of dcgm_exporter_fields.hpp. Names, types and help texts as dcgm-exporter's own
// counters files write them (etc/default-counters.csv of NVIDIA/dcgm-exporter); the clock event
// reasons field is DCGM's current name for field 112 (DCGM_FI_DEV_CLOCK_THROTTLE_REASONS before
// DCGM 3.3), a bit mask: 0x4 power cap, 0x8 HW slowdown, 0x20 SW thermal, 0x40 HW thermal,
// 0x80 HW power brake (dcgm_fields.h, nvmlClocksEventReason*).
#include <gpuctl/monitoring/dcgm_exporter_fields.hpp>

#include <array>

namespace gpuctl::monitoring {
namespace {

using enum FieldNeed;

constexpr std::array k_fields{
    DcgmField{"DCGM_FI_DEV_GPU_TEMP", "gauge", "GPU temperature (in C).", alerted},
    DcgmField{"DCGM_FI_DEV_MEMORY_TEMP", "gauge", "Memory temperature (in C).", shown},
    DcgmField{"DCGM_FI_DEV_POWER_USAGE", "gauge", "Power draw (in W).", shown},
    DcgmField{"DCGM_FI_DEV_GPU_UTIL", "gauge", "GPU utilization (in %).", shown},
    DcgmField{"DCGM_FI_DEV_MEM_COPY_UTIL", "gauge", "Memory utilization (in %).", shown},
    DcgmField{"DCGM_FI_DEV_FB_USED", "gauge", "Framebuffer memory used (in MiB).", shown},
    DcgmField{"DCGM_FI_DEV_CLOCKS_EVENT_REASONS", "gauge", "Current clock event reasons (bit mask of why clocks are held down).", alerted},
    DcgmField{"DCGM_FI_DEV_XID_ERRORS", "gauge", "Value of the last XID error encountered.", alerted},
    DcgmField{"DCGM_FI_DEV_ECC_SBE_VOL_TOTAL", "counter", "Total number of single-bit volatile ECC errors.", alerted},
    DcgmField{"DCGM_FI_DEV_ECC_DBE_VOL_TOTAL", "counter", "Total number of double-bit volatile ECC errors.", alerted},
    DcgmField{"DCGM_FI_DEV_UNCORRECTABLE_REMAPPED_ROWS", "counter", "Number of remapped rows for uncorrectable errors", shown},
    DcgmField{"DCGM_FI_DEV_CORRECTABLE_REMAPPED_ROWS", "counter", "Number of remapped rows for correctable errors", shown},
    DcgmField{"DCGM_FI_DEV_ROW_REMAP_FAILURE", "gauge", "Whether remapping of rows has failed", alerted},
    DcgmField{"DCGM_FI_DEV_ROW_REMAP_PENDING", "gauge", "Whether remapping of rows is pending (a GPU reset applies it)", alerted},
    DcgmField{"DCGM_FI_DEV_PCIE_REPLAY_COUNTER", "counter", "Total number of PCIe retries.", alerted},
    DcgmField{"DCGM_FI_DEV_NVLINK_CRC_FLIT_ERROR_COUNT_TOTAL", "counter", "Total number of NVLink flow-control CRC errors.", shown},
    DcgmField{"DCGM_FI_DEV_NVLINK_CRC_DATA_ERROR_COUNT_TOTAL", "counter", "Total number of NVLink data CRC errors.", shown},
    DcgmField{"DCGM_FI_DEV_NVLINK_REPLAY_ERROR_COUNT_TOTAL", "counter", "Total number of NVLink retries.", shown},
    DcgmField{"DCGM_FI_DEV_NVLINK_RECOVERY_ERROR_COUNT_TOTAL", "counter", "Total number of NVLink recovery errors.", alerted_nvlink},
    DcgmField{"DCGM_FI_DRIVER_VERSION", "label", "Driver Version", label},
    // Field 112 under its name before DCGM 3.3, which exporters built on older DCGM export.
    DcgmField{"DCGM_FI_DEV_CLOCK_THROTTLE_REASONS", "gauge", "Current clock throttle reasons.", alias},
};

}  // namespace

std::span<const DcgmField> dcgm_exporter_fields() { return k_fields; }

}  // namespace gpuctl::monitoring
