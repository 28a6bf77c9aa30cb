// verify's slurm_gpu_job (verify --slurm-job): a real job through Slurm gets exactly the node's
// GPUs. Where slurm.conf and cgroup.conf isolate devices (task/cgroup, ConstrainDevices=yes) the
// job must also open no other GPU; elsewhere (the sandbox: nspawn keeps cgroups read-only) the
// detail says that it could.
#include "check_result.hpp"
#include "check_sources.hpp"

#include <gpuctl/facts/collect.hpp>
#include <gpuctl/util/strings.hpp>
#include <gpuctl/verify/catalog.hpp>
#include <gpuctl/verify/slurm_job.hpp>

#include <fmt/format.h>

namespace gpuctl::verify_detail {
namespace {

// What the node's program writes to `path` (the file verify proves is on the node); empty: none.
std::string program_file(const NodeProgram& program, std::string_view path) {
  for (const auto& step : program.steps)
    for (const auto& resource : step.resources)
      if (resource.resource.kind == ResourceKind::file && resource.resource.file.path == path) return resource.content;
  return {};
}

// The value of `key` on its own "Key=Value" line of a config file (Slurm's keys ignore case).
std::string config_value(std::string_view text, std::string_view key) {
  for (const auto& line : util::split_lines(text)) {
    const auto eq = line.find('=');
    if (eq != std::string::npos && util::to_lower(util::trim(std::string_view(line).substr(0, eq))) == util::to_lower(key))
      return std::string(util::trim(std::string_view(line).substr(eq + 1)));
  }
  return {};
}

bool devices_isolated(const NodeProgram& program) {
  const auto plugins = util::to_lower(config_value(program_file(program, "/etc/slurm/slurm.conf"), "TaskPlugin"));
  const auto constrain = util::to_lower(config_value(program_file(program, "/etc/slurm/cgroup.conf"), "ConstrainDevices"));
  return plugins.find("task/cgroup") != std::string::npos && constrain == "yes";
}

// srun's own "srun: error: ..." line holding `words`, else its last error line, else the last
// thing it said.
std::string srun_said(const ObservedSlurmJob& job, std::string_view words = "error:") {
  std::string last_error;
  for (const auto& line : util::split_lines(job.err)) {
    if (line.find(words) != std::string::npos) return std::string(util::trim(line));
    if (line.find("error:") != std::string::npos) last_error = util::trim(line);
  }
  if (!last_error.empty()) return last_error;
  const auto tail = util::trim(util::tail_lines(job.err.empty() ? job.out : job.err, 2));
  return tail.empty() ? std::string("no message") : std::string(tail);
}

CheckResult slurm_gpu_job(const CheckInput& in) {
  if (!in.slurm_job) return skipped("runs only with gpuctl verify --slurm-job");
  const auto& job = *in.slurm_job;
  const int want = in.node.gpu.count;
  const auto expected = fmt::format("a job of 1 CPU, 1024 MiB and {} GPUs runs and is given exactly them", want);
  if (!job.problem.empty()) return cannot_run("the job could not be started: " + job.problem);
  if (job.exit_code == 124) return cannot_run("the job did not end within 180 s (timeout)");
  if (job.exit_code != 0) {
    // Slurm's answer for a request no configured node can hold: the node's slurm.conf line
    // (CPUs, RealMemory, Gres) gives it less than a job of one CPU, 1 GiB and its GPUs needs.
    constexpr std::string_view k_unplaceable = "Requested node configuration is not available";
    const auto said = srun_said(job, k_unplaceable);
    if (said.find(k_unplaceable) != std::string::npos)
      return failed(said, expected,
                    "Slurm cannot place the job on the node: slurm.conf's NodeName line gives it fewer CPUs, less "
                    "memory or fewer GPUs than the job asks (slurm_node_hardware shows both sides)");
    return cannot_run(fmt::format("srun exited {}: {}", job.exit_code, said));
  }
  const auto output = parse_slurm_job_output(job.out);
  if (!output) return cannot_run(output.error().message);
  if (!output->visible_devices)
    return failed("CUDA_VISIBLE_DEVICES unset in the job", expected,
                  "Slurm bound no GPU to the job: GresTypes=gpu in slurm.conf and the node's gres.conf lines");
  const auto devices = util::join(*output->visible_devices, ",");
  if (static_cast<int>(output->visible_devices->size()) != want)
    return failed(fmt::format("CUDA_VISIBLE_DEVICES={}", devices), expected,
                  fmt::format("Slurm gave the job {} GPUs, not the {} it asked for", output->visible_devices->size(), want));
  const auto seen = static_cast<int>(output->gpus.size());
  const auto observed = fmt::format("CUDA_VISIBLE_DEVICES={}; nvidia-smi -L in the job: {} GPUs", devices, seen);
  if (!devices_isolated(in.program)) {
    auto result = pass(observed, expected);
    result.detail = "devices are not isolated (slurm.conf's TaskPlugin has no task/cgroup, or cgroup.conf no "
                    "ConstrainDevices=yes): a job can open every GPU of the node, whatever CUDA_VISIBLE_DEVICES says";
    return result;
  }
  if (output->nvidia_smi_exit != 0)
    return cannot_run(fmt::format("nvidia-smi -L failed in the job (exit {}), so what it can open is unknown",
                                  output->nvidia_smi_exit));
  if (seen != want)
    return failed(observed, expected,
                  fmt::format("the job opens {} GPUs, not its {}: the cgroup device constraint is not in force on the node",
                              seen, want));
  return pass(observed, expected);
}

void cite_job(CheckResult& result, const CheckInput& in) {
  if (!in.slurm_job) {
    result.command = "(not run)";
    result.output = "(the Slurm job runs only with gpuctl verify --slurm-job)";
    return;
  }
  result.command = in.slurm_job->command;
  const auto& job = *in.slurm_job;
  result.output = facts::trim_output(job.problem.empty() ? job.out + job.err : job.problem, k_source_output_limit);
}

const CheckRegistration k_registration{{
    .name = "slurm_gpu_job",
    .description = "verify --slurm-job: a job through Slurm (srun -w NODE --gres=gpu:N -c 1 --mem=1024) is given exactly "
                   "the node's GPUs, and opens no other where devices are isolated",
    .section = CheckSection::slurm,
    .facts = {},
    .runner = NodeRunner::slurm_job,
    .judge = slurm_gpu_job,
    .cite = cite_job,
    .source = "srun -w NODE --gres=gpu:N -c 1 --mem=1024 sh -c 'echo $CUDA_VISIBLE_DEVICES; nvidia-smi -L'",
}};

}  // namespace
}  // namespace gpuctl::verify_detail
