// verify --slurm-job's job (verify/slurm_job.hpp): its command, its output, one run.
#include <gpuctl/verify/slurm_job.hpp>

#include <gpuctl/util/strings.hpp>

#include <charconv>
#include <fmt/format.h>

namespace gpuctl {
namespace {

constexpr std::string_view k_devices_prefix = "CUDA_VISIBLE_DEVICES=";
constexpr std::string_view k_smi_rc_prefix = "nvidia-smi rc=";

}  // namespace

std::string slurm_job_command(const Node& node) {
  // --immediate: a node busy with jobs is "could not run", not a wait as long as theirs.
  // The job's script prints "unset" where Slurm sets no CUDA_VISIBLE_DEVICES.
  return fmt::format("timeout 180 srun --immediate=60 --quit-on-interrupt -J gpuctl-verify -w {} -N 1 -n 1 -c 1 "
                     "--mem=1024 --gres=gpu:{} -t 2 sh -c "
                     "'echo \"CUDA_VISIBLE_DEVICES=${{CUDA_VISIBLE_DEVICES-unset}}\"; nvidia-smi -L 2>&1; "
                     "echo \"nvidia-smi rc=$?\"'",
                     util::shell_quote(node.name), node.gpu.count);
}

Result<SlurmJobOutput> parse_slurm_job_output(std::string_view out) {
  SlurmJobOutput parsed;
  bool devices_seen = false;
  for (const auto& raw : util::split_lines(out)) {
    const auto line = util::trim(raw);
    if (line.starts_with(k_devices_prefix)) {
      devices_seen = true;
      const auto value = line.substr(k_devices_prefix.size());
      if (value != "unset") parsed.visible_devices = value.empty() ? std::vector<std::string>{} : util::split(value, ',');
    } else if (line.starts_with("GPU ") && line.find(": ") != std::string_view::npos) {
      parsed.gpus.emplace_back(line);
    } else if (line.starts_with(k_smi_rc_prefix)) {
      const auto rc = line.substr(k_smi_rc_prefix.size());
      std::from_chars(rc.data(), rc.data() + rc.size(), parsed.nvidia_smi_exit);
    }
  }
  if (!devices_seen) return fail(ErrorCode::parse, "the job printed no CUDA_VISIBLE_DEVICES line: its script did not run");
  return parsed;
}

ObservedSlurmJob run_slurm_job(Transport& transport, const Node& node) {
  ObservedSlurmJob job;
  job.command = slurm_job_command(node);
  CommandOptions options;
  options.timeout = std::chrono::seconds(200);
  auto run = transport.run(job.command, options);
  if (!run) {
    job.problem = run.error().message;
    return job;
  }
  job.exit_code = run->exit_code;
  job.out = std::move(run->out);
  job.err = std::move(run->err);
  return job;
}

}  // namespace gpuctl
