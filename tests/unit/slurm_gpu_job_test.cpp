// verify's slurm_gpu_job (verify --slurm-job): the job's command, its output, and the verdict,
// on what Slurm 22.05.8 prints in the sandbox (tests/data/slurm/srun-*.txt).
#include <gpuctl/verify/catalog.hpp>
#include <gpuctl/verify/checks.hpp>
#include <gpuctl/verify/slurm_job.hpp>

#include "check_fixture.hpp"
#include "probe_capture.hpp"
#include "program_builder.hpp"

#include <gtest/gtest.h>

#include <memory>

namespace gpuctl {
namespace {

std::string slurm_data(const std::string& name) { return testing::read_test_data("slurm/" + name); }

// The job's output for `devices` and nvidia-smi's GPU lines.
std::string job_output(const std::string& devices, int gpus) {
  std::string out = "CUDA_VISIBLE_DEVICES=" + devices + "\n";
  for (int i = 0; i < gpus; ++i) out += "GPU " + std::to_string(i) + ": NVIDIA H100 80GB HBM3 (UUID: GPU-" + std::to_string(i) + ")\n";
  return out + "nvidia-smi rc=0\n";
}

class SlurmGpuJob : public testing::SingleCheckTest {
 protected:
  // The node's slurm.conf and cgroup.conf as gpuctl renders them, isolating devices or not.
  void isolated(bool on) {
    files = std::make_unique<testing::ProgramFixture>(std::vector<testing::StepSpec>{testing::StepSpec(
        "slurm", {testing::resolved_file("/etc/slurm/slurm.conf",
                                         on ? "TaskPlugin=task/cgroup,task/affinity\n" : "TaskPlugin=task/affinity\n"),
                  testing::resolved_file("/etc/slurm/cgroup.conf", "ConstrainDevices=yes\n")})});
  }
  CheckResult check(int exit_code, std::string out, std::string err = {}) {
    job = ObservedSlurmJob{slurm_job_command(node), exit_code, std::move(out), std::move(err), {}};
    return run_job();
  }
  CheckResult run_job() {
    const auto results = run_checks({"slurm_gpu_job"}, CheckInput{inventory, node, files->program, state, nullptr, nullptr, &job});
    return results.at(0);
  }
  std::unique_ptr<testing::ProgramFixture> files;
  ObservedSlurmJob job;
};

TEST(SlurmJob, AsksForEveryGpuOneCpuAndOneGiBOnTheNodeItself) {
  const auto inventory = testing::example_inventory();
  EXPECT_EQ(slurm_job_command(inventory.nodes[1]),
            "timeout 180 srun --immediate=60 --quit-on-interrupt -J gpuctl-verify -w gpu01 -N 1 -n 1 -c 1 --mem=1024 "
            "--gres=gpu:8 -t 2 sh -c 'echo \"CUDA_VISIBLE_DEVICES=${CUDA_VISIBLE_DEVICES-unset}\"; nvidia-smi -L 2>&1; "
            "echo \"nvidia-smi rc=$?\"'");
}

TEST(SlurmJob, ReadsTheJobsOutput) {
  const auto out = parse_slurm_job_output(slurm_data("srun-job-2gpus.txt"));
  ASSERT_TRUE(out) << out.error().message;
  ASSERT_TRUE(out->visible_devices);
  EXPECT_EQ(*out->visible_devices, (std::vector<std::string>{"0", "1"}));
  EXPECT_EQ(out->nvidia_smi_exit, 0);
  EXPECT_FALSE(out->gpus.empty());
  const auto unset = parse_slurm_job_output("CUDA_VISIBLE_DEVICES=unset\nnvidia-smi rc=0\n");
  ASSERT_TRUE(unset);
  EXPECT_FALSE(unset->visible_devices);
  EXPECT_FALSE(parse_slurm_job_output("srun: error: Unable to allocate resources\n"));
}

TEST_F(SlurmGpuJob, IsSkippedUnlessAskedFor) {
  const auto results = run_checks({"slurm_gpu_job"}, CheckInput{inventory, node, fixture.program, state});
  EXPECT_EQ(results.at(0).status, CheckStatus::skipped);
  EXPECT_EQ(results.at(0).detail, "runs only with gpuctl verify --slurm-job");
}

TEST_F(SlurmGpuJob, PassesWhereTheJobIsGivenExactlyTheNodesGpus) {
  isolated(true);
  const auto r = check(0, job_output("0,1,2,3,4,5,6,7", 8));
  EXPECT_EQ(r.status, CheckStatus::pass) << r.detail;
  EXPECT_EQ(r.observed, "CUDA_VISIBLE_DEVICES=0,1,2,3,4,5,6,7; nvidia-smi -L in the job: 8 GPUs");
  EXPECT_TRUE(r.detail.empty()) << r.detail;
}

TEST_F(SlurmGpuJob, FailsWhereSlurmGivesFewerGpusOrNone) {
  isolated(true);
  const auto fewer = check(0, job_output("0,1", 2));
  ASSERT_EQ(fewer.status, CheckStatus::fail);
  EXPECT_EQ(fewer.detail, "Slurm gave the job 2 GPUs, not the 8 it asked for");
  const auto none = check(0, "CUDA_VISIBLE_DEVICES=unset\nnvidia-smi rc=0\n");
  ASSERT_EQ(none.status, CheckStatus::fail);
  EXPECT_NE(none.detail.find("Slurm bound no GPU to the job"), std::string::npos);
}

TEST_F(SlurmGpuJob, FailsWhereIsolationIsDeclaredButTheJobOpensOtherGpus) {
  isolated(true);
  const auto r = check(0, job_output("0,1,2,3,4,5,6,7", 9));
  ASSERT_EQ(r.status, CheckStatus::fail);
  EXPECT_NE(r.detail.find("the cgroup device constraint is not in force"), std::string::npos) << r.detail;
}

TEST_F(SlurmGpuJob, PassesWithoutIsolationAndSaysAJobCanOpenEveryGpu) {
  isolated(false);
  const auto r = check(0, job_output("0,1,2,3,4,5,6,7", 8));
  EXPECT_EQ(r.status, CheckStatus::pass);
  EXPECT_NE(r.detail.find("devices are not isolated"), std::string::npos) << r.detail;
}

// srun's own words (Slurm 22.05.8, the sandbox) when no node of the request's shape exists.
TEST_F(SlurmGpuJob, FailsWhereSlurmCannotPlaceTheJobOnTheNode) {
  isolated(true);
  const auto r = check(1, "", slurm_data("srun-node-config-unavailable.txt"));
  ASSERT_EQ(r.status, CheckStatus::fail);
  EXPECT_EQ(r.observed, "srun: error: Unable to allocate resources: Requested node configuration is not available");
  EXPECT_NE(r.detail.find("slurm.conf's NodeName line gives it fewer CPUs"), std::string::npos);
}

TEST_F(SlurmGpuJob, AnyOtherSrunFailureOrATimeoutIsAnErrorNeverAPass) {
  isolated(true);
  const auto busy = check(1, "", "srun: error: Unable to allocate resources: Immediate execution impossible, insufficient priority\n");
  EXPECT_EQ(busy.status, CheckStatus::error);
  EXPECT_NE(busy.detail.find("srun exited 1: srun: error: Unable to allocate resources"), std::string::npos) << busy.detail;
  EXPECT_EQ(check(124, "").status, CheckStatus::error);
  const auto no_smi = check(0, "CUDA_VISIBLE_DEVICES=0,1,2,3,4,5,6,7\nsh: 1: nvidia-smi: not found\nnvidia-smi rc=127\n");
  EXPECT_EQ(no_smi.status, CheckStatus::error) << "isolation cannot be proven";
  job = ObservedSlurmJob{"srun", -1, "", "", "connection refused"};
  EXPECT_EQ(run_job().status, CheckStatus::error);
}

TEST(SlurmGpuJobCatalog, RunsItsJobOnlyWhereTheCheckIsWanted) {
  EXPECT_TRUE(check_needs({"slurm_gpu_job"}).needs(NodeRunner::slurm_job));
  EXPECT_FALSE(check_needs({"slurmd_registered"}).needs(NodeRunner::slurm_job));
}

}  // namespace
}  // namespace gpuctl
