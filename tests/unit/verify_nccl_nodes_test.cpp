// verify --nccl-nodes: which nodes form which set, the script the Slurm controller runs, the
// parser of what salloc, srun --label and the tasks print, and each node's check. The Slurm
// lines are real (tests/data/slurm/nccl-nodes-*.txt, captured from the sandbox's Slurm 22.05);
// the program's result lines are its own format.
#include <gpuctl/verify/nccl_allreduce.hpp>
#include <gpuctl/verify/nccl_nodes.hpp>

#include "probe_capture.hpp"
#include "probe_shell.hpp"
#include "temp_dir.hpp"

#include <cstdlib>
#include <filesystem>

#include <gtest/gtest.h>

namespace gpuctl {
namespace {

using testing::read_test_data;

std::vector<Node> gpu_nodes(const std::vector<std::pair<std::string, int>>& names_and_gpus) {
  std::vector<Node> nodes;
  for (const auto& [name, gpus] : names_and_gpus) {
    Node node;
    node.name = name;
    node.gpu.count = gpus;
    nodes.push_back(node);
  }
  return nodes;
}

std::vector<const Node*> pointers(const std::vector<Node>& nodes) {
  std::vector<const Node*> out;
  for (const auto& node : nodes) out.push_back(&node);
  return out;
}

NcclNodeSet pair_set() {
  NcclNodeSet set;
  set.nodes = {"node01", "node02"};
  set.gpus_per_node = 8;
  return set;
}

// Task T's lines as srun --label prints them.
std::string labelled(int task, const std::string& lines) {
  std::string out;
  std::size_t start = 0;
  while (start < lines.size()) {
    const auto end = lines.find('\n', start);
    out += std::to_string(task) + ": " + lines.substr(start, end - start) + "\n";
    start = end == std::string::npos ? lines.size() : end + 1;
  }
  return out;
}

std::string task_lines(const std::string& node, int process, const std::string& program_lines, const std::string& rc) {
  std::string out = "@@nccl node " + node + "\n@@nccl tool gpuctl-nccl-allreduce\n"
                    "@@nccl command NCCL_COMM_ID=10.0.0.1:20012 NCCL_NVLS_ENABLE=0 /tmp/gpuctl-nccl.Xy12Ab/allreduce "
                    "268435456 20 " + std::to_string(process) + " 2 8\n";
  out += program_lines;
  if (!rc.empty()) out += "@@nccl rc " + rc + "\n";
  return out;
}

std::string result_line(int process, double busbw, int wrong) {
  return "gpuctl-nccl-allreduce: gpus=16 local_gpus=8 process=" + std::to_string(process) +
         " processes=2 bytes=268435456 iterations=20 time_us=1352.4 algbw_GBps=198.49 busbw_GBps=" +
         std::to_string(busbw) + " wrong=" + std::to_string(wrong) + " nccl=22803\n";
}

std::string one_set(const std::string& tasks, int salloc_rc) {
  return "@@nccl-nodes set 0\nsalloc: Granted job allocation 12\n@@nccl-nodes root 10.0.0.1:20012\n" + tasks +
         "salloc: Relinquishing job allocation 12\n@@nccl-nodes rc " + std::to_string(salloc_rc) + "\n";
}

// Both tasks ran to their result; node02's GPUs hold `wrong_on_node02` wrong elements (across
// nodes the program exits 0 with its result either way, so that Slurm stops no one).
std::string pair_with_results(int wrong_on_node02) {
  return one_set(labelled(0, task_lines("node01", 0, result_line(0, 372.1, 0), "0")) +
                     labelled(1, task_lines("node02", 1, result_line(1, 371.4, wrong_on_node02), "0")),
                 0);
}

// The text of the heredoc `<<'MARKER'` in `script`.
std::string heredoc(const std::string& script, const std::string& marker) {
  const auto begin = "<<'" + marker + "'\n";
  const auto from = script.find(begin);
  EXPECT_NE(from, std::string::npos) << marker;
  if (from == std::string::npos) return {};
  return script.substr(from + begin.size(), script.find("\n" + marker + "\n", from) - from - begin.size());
}

std::vector<CheckResult> checks_of(const std::string& output, const NcclNodeSet& set = pair_set()) {
  const auto run = parse_nccl_nodes_output(output, 1);
  EXPECT_TRUE(run) << run.error().message;
  if (!run) return {};
  EXPECT_TRUE(run->problem.empty()) << run->problem;
  return nccl_nodes_checks(set, run->sets[0]);
}

// node01's task printed `lines` and exited `rc`; node02's was stopped by Slurm: `node02_rc` ""
// when its shell was killed too, "143" when the shell's trap saw the SIGTERM.
std::vector<CheckResult> node01_failed(const std::string& lines, const std::string& rc, const std::string& node02_rc = "") {
  return checks_of(
      one_set(labelled(0, task_lines("node01", 0, lines, rc)) + labelled(1, task_lines("node02", 1, "", node02_rc)), 1));
}

TEST(NcclNodeSets, TakesNodesNAtATimeInOrderAndALastSingleNodeJoinsTheSetBefore) {
  const auto nodes = gpu_nodes({{"n1", 8}, {"n2", 8}, {"n3", 8}, {"n4", 8}, {"n5", 8}});
  const auto pairs = make_nccl_node_sets(pointers(nodes), 2);
  ASSERT_EQ(pairs.sets.size(), 2u);
  EXPECT_EQ(pairs.sets[0].nodes, (std::vector<std::string>{"n1", "n2"}));
  EXPECT_EQ(pairs.sets[1].nodes, (std::vector<std::string>{"n3", "n4", "n5"}));
  EXPECT_EQ(pairs.sets[1].gpus_per_node, 8);
  EXPECT_TRUE(pairs.alone.empty());

  const auto fours = make_nccl_node_sets(pointers(nodes), 4);
  ASSERT_EQ(fours.sets.size(), 1u);
  EXPECT_EQ(fours.sets[0].nodes.size(), 5u);

  const auto three = make_nccl_node_sets(pointers(gpu_nodes({{"a", 8}, {"b", 8}, {"c", 8}})), 4);
  ASSERT_EQ(three.sets.size(), 1u);  // fewer nodes than N: one smaller set, not none
  EXPECT_EQ(three.sets[0].nodes.size(), 3u);
}

TEST(NcclNodeSets, NeverMixesGpuCountsAndLeavesALoneNodeOut) {
  auto nodes = gpu_nodes({{"a", 8}, {"b", 4}, {"c", 8}, {"d", 4}, {"e", 2}});
  nodes[0].gpu.nccl_allreduce = NcclAllreduceSpec{true, std::nullopt, 1 << 20, 5};
  const auto sets = make_nccl_node_sets(pointers(nodes), 2);
  ASSERT_EQ(sets.sets.size(), 2u);
  EXPECT_EQ(sets.sets[0].nodes, (std::vector<std::string>{"a", "c"}));
  EXPECT_EQ(sets.sets[0].spec.message_bytes, 1 << 20);  // the first node's declared size
  EXPECT_EQ(sets.sets[1].nodes, (std::vector<std::string>{"b", "d"}));
  EXPECT_EQ(sets.sets[1].gpus_per_node, 4);
  EXPECT_EQ(sets.sets[1].spec.message_bytes, NcclAllreduceSpec{}.message_bytes);
  EXPECT_EQ(sets.alone, (std::vector<std::string>{"e"}));
}

TEST(NcclNodesScript, AllocatesEachSetExclusivelyAndRunsOneTaskPerNode) {
  auto set = pair_set();
  set.spec.message_bytes = 1 << 20;
  set.spec.iterations = 7;
  NcclNodeSet other;
  other.nodes = {"node03", "node04", "node05"};
  other.gpus_per_node = 4;
  const auto script = nccl_nodes_script({set, other});
  EXPECT_NE(script.find("salloc --nodes=2 --nodelist=node01,node02 --ntasks-per-node=1 --gres=gpu:8 --exclusive "
                        "--immediate=60 --time=10 --job-name=gpuctl-nccl-allreduce sh \"$d/set.sh\" \"$d/task.sh\" 8 "
                        "1048576 7;"),
            std::string::npos)
      << script;
  // A set that hangs (srun waiting for a task that cannot reach it) is stopped, and salloc gives the nodes back.
  EXPECT_NE(script.find("T='timeout -k 10 420'"), std::string::npos);
  EXPECT_NE(script.find("( $T salloc --nodes=2"), std::string::npos);
  EXPECT_NE(script.find("salloc --nodes=3 --nodelist=node03,node04,node05 "), std::string::npos);
  EXPECT_NE(script.find(">\"$d/out.1\" 2>&1 </dev/null &"), std::string::npos);  // the sets run side by side
  EXPECT_NE(script.find("exec srun --ntasks-per-node=1 --kill-on-bad-exit=1 --label --cpu-bind=none"), std::string::npos);
  // The root's port stays below Linux's ephemeral ports (32768 and up).
  EXPECT_NE(script.find("NCCL_COMM_ID=\"$addr:$((20000 + ${SLURM_JOB_ID:-0} % 12000))\""), std::string::npos);
  // Whatever becomes of salloc, the jobs the script started are cancelled when it ends.
  EXPECT_NE(script.find("sed -n \"s/^@@nccl-nodes job //p\" | xargs -r scancel"), std::string::npos);
  EXPECT_NE(script.find(nccl_allreduce_program_source()), std::string::npos);
  // A task that cannot take part exits non-zero, so that Slurm stops the others.
  EXPECT_NE(script.find("echo '@@nccl problem no-cc'; exit 3"), std::string::npos);
  EXPECT_NE(script.find("echo '@@nccl problem compile'; exit 3"), std::string::npos);
  EXPECT_NE(script.find("echo '@@nccl-nodes set 1'\ncat \"$d/out.1\""), std::string::npos);
}

TEST(NcclNodesChecks, BothNodesPassWithTheSetsBandwidthFromRankZero) {
  const auto checks = checks_of(pair_with_results(0));
  ASSERT_EQ(checks.size(), 2u);
  for (const auto& check : checks) {
    EXPECT_EQ(check.name, "nccl_allreduce_nodes");
    EXPECT_EQ(check.status, CheckStatus::pass) << check.detail;
    EXPECT_NE(check.observed.find("busbw 372.1 GB/s"), std::string::npos) << check.observed;
    EXPECT_NE(check.observed.find("across node[01-02], 16 GPUs, 256 MiB x 20"), std::string::npos) << check.observed;
    EXPECT_NE(check.expected.find("busbw reported, not judged"), std::string::npos);
  }
}

TEST(NcclNodesChecks, WrongSumsFailOnlyTheNodeWhoseGpusHoldThem) {
  const auto checks = checks_of(pair_with_results(12));
  ASSERT_EQ(checks.size(), 2u);
  EXPECT_EQ(checks[0].status, CheckStatus::pass);
  EXPECT_EQ(checks[1].status, CheckStatus::fail);
  EXPECT_NE(checks[1].detail.find("12 elements of the sum are wrong"), std::string::npos) << checks[1].detail;
  EXPECT_NE(checks[1].command.find("NCCL_COMM_ID=10.0.0.1:20012"), std::string::npos);
}

TEST(NcclNodesChecks, AnNcclErrorFailsItsNodeAndTheNodeSlurmStoppedIsAnError) {
  // node02's NCCL could not connect; Slurm killed node01's task, which printed no exit status.
  const auto output =
      one_set(labelled(1, task_lines("node02", 1,
                                     "gpuctl-nccl-allreduce: error: ncclCommInitRank (group): remote process exited or "
                                     "there was a network error\n",
                                     "2")) +
                  "srun: error: node02: task 1: Exited with exit code 2\n" +
                  labelled(0, task_lines("node01", 0, "", "")) +
                  "slurmstepd: error: *** STEP 12.0 ON node01 CANCELLED AT 2026-12-05T09:12:44 ***\n",
              1);
  const auto checks = checks_of(output);
  ASSERT_EQ(checks.size(), 2u);
  EXPECT_EQ(checks[1].status, CheckStatus::fail);
  EXPECT_NE(checks[1].observed.find("remote process exited or there was a network error"), std::string::npos);
  EXPECT_NE(checks[1].detail.find("10.0.0.1:20012"), std::string::npos) << checks[1].detail;
  EXPECT_NE(checks[1].detail.find("NCCL_DEBUG=INFO"), std::string::npos);
  EXPECT_EQ(checks[0].status, CheckStatus::error);
  EXPECT_NE(checks[0].detail.find("stopped by Slurm when the task on node02 failed"), std::string::npos) << checks[0].detail;
}

TEST(NcclNodesChecks, APassNeedsTheWholeSetAndEachFailureIsBlamedOnItsCause) {
  // A result over 8 GPUs, not the set's 16: the program did not span the set, so no proof.
  const auto alone = checks_of(one_set(
      labelled(0, task_lines("node01", 0,
                             "gpuctl-nccl-allreduce: gpus=8 local_gpus=8 process=0 processes=1 bytes=268435456 "
                             "iterations=20 time_us=900.1 algbw_GBps=298.2 busbw_GBps=521.9 wrong=0 nccl=22803\n",
                             "0")) +
          labelled(1, task_lines("node02", 1, result_line(1, 371.4, 0), "0")),
      0));
  ASSERT_EQ(alone.size(), 2u);
  EXPECT_EQ(alone[0].status, CheckStatus::error);
  EXPECT_NE(alone[0].detail.find("spanned 8 GPUs, the set node[01-02] has 16"), std::string::npos) << alone[0].detail;

  // The CUDA driver sees fewer GPUs than declared: the node's own GPUs, not the network.
  const auto few =
      node01_failed("gpuctl-nccl-allreduce: error: too few GPUs: the CUDA driver sees 7 GPUs, 8 expected\n", "2", "143");
  ASSERT_EQ(few.size(), 2u);
  EXPECT_EQ(few[0].status, CheckStatus::fail);
  EXPECT_NE(few[0].detail.find("this node's GPUs failed"), std::string::npos) << few[0].detail;
  EXPECT_EQ(few[1].status, CheckStatus::error);  // its shell's trap saw Slurm's SIGTERM: 143
  EXPECT_NE(few[1].detail.find("stopped by Slurm when the task on node01 failed: "), std::string::npos) << few[1].detail;

  // NCCL's own "invalid usage" is NCCL failing, not the program's usage: the network's advice.
  const auto nccl_usage = node01_failed(
      "gpuctl-nccl-allreduce: error: ncclCommInitRank (group): invalid usage (run with NCCL_DEBUG=WARN for details)\n", "2");
  ASSERT_EQ(nccl_usage.size(), 2u);
  EXPECT_EQ(nccl_usage[0].status, CheckStatus::fail);
  EXPECT_NE(nccl_usage[0].detail.find("NCCL could not run across node[01-02]"), std::string::npos);

  // A crash without an error line (a segfault: 139) is the node's.
  const auto crash = node01_failed("", "139");
  ASSERT_EQ(crash.size(), 2u);
  EXPECT_EQ(crash[0].status, CheckStatus::fail);
  EXPECT_NE(crash[1].detail.find("stopped by Slurm when the task on node01 failed"), std::string::npos);
}

// The task script numbers its process by its node's place in the set's list, and says so when
// its node is not in the list. Run by sh here; the program stops at loading CUDA on this machine.
TEST(NcclNodesScript, TheTaskNumbersItselfByItsNodesPlaceInTheSet) {
  if (std::system("command -v cc >/dev/null 2>&1") != 0) GTEST_SKIP() << "no cc on this machine";
  const testing::TempDir dir;
  const auto path = dir.write("task.sh", heredoc(nccl_nodes_script({pair_set()}), "GPUCTL_NCCL_TASK"));
  const auto run = [&](const std::string& node) {
    return testing::run_shell_command("env GPUCTL_NCCL_NODES='node01 node02 ' SLURMD_NODENAME=" + node +
                                      " NCCL_COMM_ID=127.0.0.1:29999 sh " + path + " 1024 1 8 2>&1");
  };
  const auto second = run("node02");
  EXPECT_NE(second.rc, 0) << second.out;  // a task without a result exits non-zero: Slurm stops the others
  EXPECT_NE(second.out.find("@@nccl node node02\n"), std::string::npos) << second.out;
  EXPECT_NE(second.out.find("/allreduce 1024 1 1 2 8\n"), std::string::npos) << second.out;  // process 1 of 2
  const auto outsider = run("node07");
  EXPECT_NE(outsider.rc, 0);
  EXPECT_NE(outsider.out.find("@@nccl problem not-in-set node01 node02"), std::string::npos) << outsider.out;
}

// What salloc runs on the controller, with scontrol answering from a real capture (its NodeAddr
// made IPv6) and srun replaced by a script that prints what it was given.
TEST(NcclNodesScript, TheSetMeetsAtTheFirstNodesAddressAndHandsTheTasksTheNodeList) {
  const testing::TempDir dir;
  const auto set = dir.write("set.sh", heredoc(nccl_nodes_script({pair_set()}), "GPUCTL_NCCL_SET"));
  const auto node = dir.write("node.txt", read_test_data("slurm/scontrol-node-idle.txt"));
  std::filesystem::create_directories(dir / "bin");
  dir.write("bin/scontrol",
            "#!/bin/sh\ncase \"$1 $2\" in\n"
            "  'show hostnames') printf 'node01\\nnode02\\n' ;;\n"
            "  'show node') sed 's/NodeAddr=[^ ]*/NodeAddr=fd00::7/' " + node + " ;;\n"
            "esac\n",
            0700);
  dir.write("bin/srun", "#!/bin/sh\necho \"srun $1 $2 $3 $4 $5\"\necho \"id=$NCCL_COMM_ID\"\necho \"nodes=$GPUCTL_NCCL_NODES\"\n",
            0700);
  const auto run = testing::run_shell_command("env PATH=" + (dir / "bin") +
                                              ":$PATH SLURM_JOB_ID=12345 SLURM_JOB_NODELIST='node[01-02]' sh " + set + " " +
                                              (dir / "task.sh") + " 8 1024 1 2>&1");
  EXPECT_EQ(run.rc, 0);
  const auto& output = run.out;
  EXPECT_NE(output.find("@@nccl-nodes job 12345\n"), std::string::npos) << output;
  // An IPv6 address in brackets, as NCCL reads NCCL_COMM_ID; port 20000 + 12345 % 12000.
  EXPECT_NE(output.find("@@nccl-nodes root [fd00::7]:20345\n"), std::string::npos) << output;
  EXPECT_NE(output.find("id=[fd00::7]:20345\n"), std::string::npos) << output;
  EXPECT_NE(output.find("nodes=node01 node02 \n"), std::string::npos) << output;
  EXPECT_NE(output.find("srun --ntasks-per-node=1 --kill-on-bad-exit=1 --label --cpu-bind=none --gres=gpu:8\n"),
            std::string::npos)
      << output;
}

// Node names reach the controller's shell only quoted. validate refuses such names; the
// script must not depend on it. A stand-in salloc prints its arguments; nothing else runs.
TEST(NcclNodesScript, HostileNodeNamesReachSallocAsOneQuotedArgument) {
  const testing::TempDir dir;
  std::filesystem::create_directories(dir / "bin");
  for (const auto* tool : {"srun", "scontrol"}) dir.write(std::string("bin/") + tool, "#!/bin/sh\nexit 0\n", 0700);
  dir.write("bin/salloc", "#!/bin/sh\nfor a in \"$@\"; do printf 'arg=%s\\n' \"$a\"; done\n", 0700);
  NcclNodeSet set = pair_set();
  set.nodes = {"a;touch CANARY", "$(touch CANARY)", "`touch CANARY`'\"x"};
  const auto script = dir.write("controller.sh", nccl_nodes_script({set}));
  const auto run = testing::run_shell_command("cd " + dir.path() + " && env PATH=" + (dir / "bin") + ":$PATH sh " + script);
  EXPECT_FALSE(std::filesystem::exists(dir / "CANARY")) << run.out;
  EXPECT_NE(run.out.find("arg=--nodelist=a;touch CANARY,$(touch CANARY),`touch CANARY`'\"x\n"), std::string::npos)
      << run.out;
}

TEST(NcclNodesChecks, AHangCutByTimeoutIsAFailAndAMissingLibraryIsAnError) {
  const auto hung = checks_of(one_set(labelled(0, task_lines("node01", 0, "", "124")) +
                                          labelled(1, task_lines("node02", 1, "", "124")),
                                      1));
  ASSERT_EQ(hung.size(), 2u);
  for (const auto& check : hung) {
    EXPECT_EQ(check.status, CheckStatus::fail);
    EXPECT_NE(check.observed.find("did not finish within 300 s"), std::string::npos) << check.observed;
  }
  const auto missing = node01_failed(
      "gpuctl-nccl-allreduce: error: cannot load NCCL (libnccl.so.2): libnccl.so: cannot open shared object file: No "
      "such file or directory\n",
      "2");
  ASSERT_EQ(missing.size(), 2u);
  EXPECT_EQ(missing[0].status, CheckStatus::error);
  EXPECT_NE(missing[0].detail.find("node01: "), std::string::npos);
  EXPECT_NE(missing[0].detail.find("cannot load NCCL"), std::string::npos) << missing[0].detail;
  EXPECT_EQ(missing[1].status, CheckStatus::error);
  EXPECT_NE(missing[1].detail.find("stopped by Slurm when the task on node01 failed"), std::string::npos);
}

TEST(NcclNodesChecks, NoCompilerIsAnErrorNamingTheFixOnEachNode) {
  const auto checks = checks_of(read_test_data("slurm/nccl-nodes-no-cc.txt"));
  ASSERT_EQ(checks.size(), 2u);
  for (const auto& check : checks) {
    EXPECT_EQ(check.status, CheckStatus::error);
    EXPECT_NE(check.detail.find("no C compiler (cc)"), std::string::npos) << check.detail;
    EXPECT_NE(check.detail.find("install gcc"), std::string::npos);
  }
  EXPECT_NE(checks[0].detail.find("node01: "), std::string::npos);
  EXPECT_NE(checks[1].detail.find("node02: "), std::string::npos);
}

TEST(NcclNodesChecks, TheTaskSlurmStoppedSaysWhichNodeFailed) {
  const auto checks = checks_of(read_test_data("slurm/nccl-nodes-no-cc-stopped.txt"));
  ASSERT_EQ(checks.size(), 2u);
  EXPECT_EQ(checks[0].status, CheckStatus::error);
  EXPECT_NE(checks[0].detail.find("node01: no C compiler (cc)"), std::string::npos) << checks[0].detail;
  // Slurm terminated node02's task (--kill-on-bad-exit) before it could say anything itself.
  EXPECT_EQ(checks[1].status, CheckStatus::error);
  EXPECT_NE(checks[1].detail.find("stopped by Slurm when the task on node01 failed: no C compiler"), std::string::npos)
      << checks[1].detail;
}

TEST(NcclNodesChecks, SlurmRefusingTheAllocationIsAnErrorQuotingSalloc) {
  const auto checks = checks_of(read_test_data("slurm/nccl-nodes-drained.txt"));
  ASSERT_EQ(checks.size(), 2u);
  for (const auto& check : checks) {
    EXPECT_EQ(check.status, CheckStatus::error);
    EXPECT_NE(check.detail.find("Slurm did not run the all-reduce's task on"), std::string::npos) << check.detail;
    EXPECT_NE(check.detail.find("Required node not available (down, drained or reserved)"), std::string::npos)
        << check.detail;
    EXPECT_NE(check.detail.find("salloc: error: Unable to allocate resources"), std::string::npos) << check.detail;
  }
}

TEST(NcclNodesOutput, SplitsTheSetsAndRefusesOutputWithoutMarkers) {
  const auto two = parse_nccl_nodes_output(
      "@@nccl-nodes set 0\n@@nccl-nodes root 10.0.0.1:20001\n0: @@nccl node a\n@@nccl-nodes rc 0\n"
      "@@nccl-nodes set 1\n@@nccl-nodes root 10.0.0.3:20002\n 0: @@nccl node c\n10: @@nccl node d\n@@nccl-nodes rc 1\n",
      2);
  ASSERT_TRUE(two) << two.error().message;
  ASSERT_EQ(two->sets.size(), 2u);
  EXPECT_EQ(two->sets[0].root, "10.0.0.1:20001");
  EXPECT_EQ(two->sets[1].exit_code, 1);
  ASSERT_EQ(two->sets[1].tasks.size(), 2u);
  EXPECT_EQ(two->sets[1].tasks[0].node, "c");  // srun right-aligns the label: " 0: "
  EXPECT_EQ(two->sets[1].tasks[1].task, 10);
  EXPECT_EQ(two->sets[1].tasks[1].node, "d");

  const auto missing = parse_nccl_nodes_output("@@nccl-nodes problem no-salloc\n", 1);
  ASSERT_TRUE(missing);
  EXPECT_NE(missing->problem.find("salloc is not on the Slurm controller's PATH: install slurm-client"), std::string::npos);

  const auto foreign = parse_nccl_nodes_output("sh: 1: syntax error\n", 1);
  ASSERT_FALSE(foreign);
  EXPECT_NE(foreign.error().message.find("syntax error"), std::string::npos);

  const auto not_run = nccl_nodes_not_run(pair_set(), "cannot reach the Slurm controller head01");
  ASSERT_EQ(not_run.size(), 2u);
  EXPECT_EQ(not_run[1].status, CheckStatus::error);
  EXPECT_EQ(not_run[1].name, "nccl_allreduce_nodes");
}

}  // namespace
}  // namespace gpuctl
