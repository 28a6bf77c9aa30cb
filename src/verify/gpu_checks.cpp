// Per-GPU checks: one rule per check, applied to every GPU nvidia-smi lists. A rule states what
// it found wrong and which values it needed but did not get; per_gpu() turns that into one
// result naming each GPU.
#include "check_result.hpp"
#include "gpu_model.hpp"

#include <gpuctl/util/strings.hpp>
#include <gpuctl/verify/catalog.hpp>

#include <fmt/format.h>
#include <functional>
#include <vector>

namespace gpuctl::verify_detail {
namespace {

// What a rule found on one GPU.
struct GpuFindings {
  const GpuInfo& gpu;
  std::vector<std::string> problems;  // the property observed not to hold
  std::vector<std::string> unknown;   // values the rule needed and nvidia-smi did not give

  // `field` (nvidia-smi's name) has no value: quote what nvidia-smi printed instead.
  void unknown_value(std::string_view field) {
    const auto raw = gpu.unreported_text(field);
    if (!raw) unknown.push_back(fmt::format("{} not reported", field));
    else unknown.push_back(fmt::format("{} = {}", field, raw->empty() ? "(empty)" : *raw));
  }
};

using GpuRule = std::function<void(GpuFindings&)>;

std::string gpu_label(const GpuInfo& gpu) {
  return gpu.serial.empty() ? fmt::format("GPU {}", gpu.index) : fmt::format("GPU {} ({})", gpu.index, gpu.serial);
}

// Fails naming every GPU that breaks the rule; otherwise an error when a GPU lacks a value the
// rule needs (observed: what nvidia-smi printed for it); a pass only when every GPU was seen.
CheckResult per_gpu(const CheckInput& in, const std::string& expected, const GpuRule& rule,
                    const std::string& fail_detail = {}) {
  const auto& gpus = in.state.facts.gpus;
  if (!gpus.present()) return cannot_run(absent_reason(gpus, "GPUs"));
  if (gpus.value->empty()) return cannot_run("nvidia-smi lists no GPUs");
  std::vector<std::string> problems;
  std::vector<std::string> unknown;
  for (const auto& gpu : *gpus.value) {
    GpuFindings findings{gpu, {}, {}};
    rule(findings);
    const auto label = gpu_label(gpu);
    if (!findings.problems.empty()) problems.push_back(label + ": " + util::join(findings.problems, ", "));
    if (!findings.unknown.empty()) unknown.push_back(label + ": " + util::join(findings.unknown, ", "));
  }
  if (!problems.empty()) {
    std::string detail = fail_detail;
    if (!unknown.empty()) detail += (detail.empty() ? "" : "; ") + std::string("also unknown: ") + util::join(unknown, "; ");
    return failed(util::join(problems, "; "), expected, detail);
  }
  if (!unknown.empty())
    return {{}, CheckStatus::error, util::join(unknown, "; "), expected,
            "nvidia-smi did not give a value this check needs; an unknown value is never a pass"};
  return pass(fmt::format("all {} GPUs", gpus.value->size()), expected);
}

// Memory repair: Ampere and later remap rows, older GPUs retire pages, and each prints "N/A"
// for the other. One mechanism must be known in full; a value of the other that nvidia-smi
// failed to read (not "N/A" but "[Unknown Error]", ...) is still unknown.
void memory_repair_rule(GpuFindings& f) {
  const auto& gpu = f.gpu;
  if (gpu.remapped_rows_failure.value_or(false)) f.problems.push_back("row remapping failed: replace the GPU");
  if (gpu.remapped_rows_pending.value_or(false)) f.problems.push_back("row remap pending: reset the GPU or reboot");
  if (gpu.retired_pages_pending.value_or(false)) f.problems.push_back("retired pages pending: reboot");
  const bool remapping_known = gpu.remapped_rows_pending && gpu.remapped_rows_failure;
  const bool retirement_known = gpu.retired_pages_pending.has_value();
  const std::pair<std::string_view, bool> fields[] = {{"remapped_rows.pending", gpu.remapped_rows_pending.has_value()},
                                                      {"remapped_rows.failure", gpu.remapped_rows_failure.has_value()},
                                                      {"retired_pages.pending", retirement_known}};
  for (const auto& [field, known] : fields) {
    if (known) continue;
    const auto raw = gpu.unreported_text(field);
    const bool excused = (remapping_known || retirement_known) && (!raw || is_not_applicable(*raw));
    if (!excused) f.unknown_value(field);
  }
}

}  // namespace

CheckResult check_gpu_model(const CheckInput& in) {
  const auto& model = in.node.gpu.model;
  return per_gpu(
      in, model,
      [&](GpuFindings& f) {
        if (f.gpu.name.empty()) f.unknown_value("name");
        else if (!gpu_model_matches(model, f.gpu.name)) f.problems.push_back(f.gpu.name);
      },
      fmt::format("gpu.model '{}' must equal the GPU's name without 'NVIDIA'/'Tesla', or the name's first word "
                  "(case and '-'/' ' ignored; 'H20' is not 'H200')",
                  model));
}

CheckResult check_ecc_errors(const CheckInput& in) {
  return per_gpu(in, "ECC on, 0 uncorrectable volatile errors", [](GpuFindings& f) {
    const auto& gpu = f.gpu;
    if (!gpu.ecc_enabled) f.unknown_value("ecc.mode.current");
    else if (!*gpu.ecc_enabled) f.problems.push_back("ECC disabled");
    if (!gpu.ecc_volatile_uncorrected) f.unknown_value("ecc.errors.uncorrected.volatile.total");
    else if (*gpu.ecc_volatile_uncorrected > 0)
      f.problems.push_back(fmt::format("{} uncorrectable volatile ECC errors", *gpu.ecc_volatile_uncorrected));
  });
}

CheckResult check_row_remap(const CheckInput& in) {
  return per_gpu(in, "no pending retired pages or row remaps, no remap failure", memory_repair_rule);
}

CheckResult check_pcie_link(const CheckInput& in) {
  // Only the width: idle GPUs lower their PCIe generation to save power.
  return per_gpu(in, "link width at its maximum", [](GpuFindings& f) {
    const auto& gpu = f.gpu;
    if (!gpu.pcie_width_current) f.unknown_value("pcie.link.width.current");
    if (!gpu.pcie_width_max) f.unknown_value("pcie.link.width.max");
    if (gpu.pcie_width_current && gpu.pcie_width_max && *gpu.pcie_width_current < *gpu.pcie_width_max)
      f.problems.push_back(fmt::format("x{} of x{}", *gpu.pcie_width_current, *gpu.pcie_width_max));
  });
}

CheckResult check_persistence_mode(const CheckInput& in) {
  return per_gpu(in, "persistence mode on", [](GpuFindings& f) {
    if (!f.gpu.persistence_mode) f.unknown_value("persistence_mode");
    else if (!*f.gpu.persistence_mode) f.problems.push_back("persistence mode off");
  });
}

namespace {

// The count alone, so a GPU that fell off the bus is named as such before any per-GPU rule.
CheckResult check_gpu_count(const CheckInput& in) {
  const auto& gpus = in.state.facts.gpus;
  if (!gpus.present()) return cannot_run(absent_reason(gpus, "GPUs"));
  const auto expected = std::to_string(in.node.gpu.count);
  const auto observed = std::to_string(gpus.value->size());
  return observed == expected ? pass(observed, expected) : failed(observed, expected, "a GPU may have fallen off the bus");
}

const CheckRegistration k_gpu_count{{
    .name = "gpu_count",
    .description = "nvidia-smi sees the inventory's GPU count",
    .section = CheckSection::gpu,
    .facts = {"gpus"},
    .judge = check_gpu_count,
}};

const CheckRegistration k_gpu_model{{
    .name = "gpu_model",
    .description = "every GPU is the inventory's model",
    .section = CheckSection::gpu,
    .facts = {"gpus"},
    .judge = check_gpu_model,
}};

const CheckRegistration k_ecc{{
    .name = "ecc_errors",
    .description = "ECC on and no uncorrectable volatile errors",
    .section = CheckSection::gpu,
    .facts = {"gpus"},
    .judge = check_ecc_errors,
}};

const CheckRegistration k_row_remap{{
    .name = "row_remap",
    .description = "no pending retired pages / row remaps, no remap failure",
    .section = CheckSection::gpu,
    .facts = {"remapped_rows", "gpus"},
    .judge = check_row_remap,
}};

const CheckRegistration k_pcie_link{{
    .name = "pcie_link",
    .description = "PCIe link at its maximum width",
    .section = CheckSection::gpu,
    .facts = {"gpus"},
    .judge = check_pcie_link,
}};

const CheckRegistration k_persistence{{
    .name = "persistence_mode",
    .description = "persistence mode on",
    .section = CheckSection::gpu,
    .facts = {"gpus"},
    .judge = check_persistence_mode,
}};

}  // namespace
}  // namespace gpuctl::verify_detail
