// verify --nccl-nodes: the sets, the controller's script, its parser and the per-node checks
// (verify/nccl_nodes.hpp).
#include <gpuctl/verify/nccl_nodes.hpp>

#include "check_result.hpp"
#include "marked_output.hpp"

#include <gpuctl/facts/collect.hpp>
#include <gpuctl/inventory/hostlist.hpp>
#include <gpuctl/util/strings.hpp>
#include <gpuctl/verify/catalog.hpp>
#include <gpuctl/verify/nccl_allreduce.hpp>

#include <algorithm>
#include <charconv>
#include <fmt/format.h>
#include <map>

namespace gpuctl {
namespace {

using verify_detail::cannot_run;
using verify_detail::failed;
using verify_detail::pass;

constexpr std::string_view k_set_marker = "@@nccl-nodes ";
constexpr std::string_view k_busbw_prefix = "busbw ";  // a pass's observed value starts so
constexpr int k_program_timeout_s = 300;
constexpr int k_job_minutes = 10;
// The longest a set may take: salloc's wait, then compiling, NCCL's start-up and the program's
// own limit. srun can hang when a task cannot reach it back (slurmstepd's "connect io:
// Connection refused"): salloc is then stopped (SIGTERM: it gives the allocation back), and
// the script cancels the jobs it started when it ends, whatever became of salloc.
constexpr int k_set_timeout_s = k_nccl_nodes_queue_wait_s + k_program_timeout_s + 60;
constexpr std::size_t k_output_limit = 4096;

// What each srun task runs: $1 bytes, $2 iterations, $3 GPUs per node; GPUCTL_NCCL_NODES the
// set's nodes in rank order. Its process number is its node's place in that list, the list
// NCCL_COMM_ID's first node came from, so rank 0 is where the root listens whatever order
// Slurm numbered the tasks in. Every way out but a result exits non-zero, so that srun
// --kill-on-bad-exit stops the other tasks, which would otherwise wait in ncclCommInitRank
// for a rank that never comes. A task Slurm stops (SIGTERM) still removes its directory.
std::string task_script() {
  std::string script =
      "export LC_ALL=C NCCL_NVLS_ENABLE=0\n"
      "PATH=\"$PATH:/usr/local/cuda/bin:/usr/local/nvidia/bin:/usr/local/bin\"\n"
      "me=${SLURMD_NODENAME:-$(hostname)}\n"
      "echo \"@@nccl node $me\"\n"
      "process=-1 processes=0\n"
      "for n in $GPUCTL_NCCL_NODES; do\n"
      "  [ \"$n\" = \"$me\" ] && process=$processes\n"
      "  processes=$((processes + 1))\n"
      "done\n"
      "if [ \"$process\" -lt 0 ]; then echo \"@@nccl problem not-in-set $GPUCTL_NCCL_NODES\"; exit 3; fi\n"
      "trap 'exit 143' TERM HUP INT\n"
      "if ! command -v cc >/dev/null 2>&1; then echo '@@nccl problem no-cc'; exit 3; fi\n";
  script += nccl_program_build_lines("exit 3");
  script += fmt::format(
      "set -- \"$d/allreduce\" \"$1\" \"$2\" \"$process\" \"$processes\" \"$3\"\n"
      "echo \"@@nccl command NCCL_COMM_ID=$NCCL_COMM_ID NCCL_NVLS_ENABLE=0 $*\"\n"
      "T=''\n"
      "if command -v timeout >/dev/null 2>&1; then T='timeout --foreground -k 5 {}'; fi\n"
      "$T \"$@\" 2>&1\n"
      "rc=$?\n"
      "echo \"@@nccl rc $rc\"\n"
      "exit $rc\n",
      k_program_timeout_s);
  return script;
}

// What salloc runs on the controller once a set's nodes are its own: $1 the task script's
// path, $2 GPUs per node, $3 bytes, $4 iterations. Rank 0 runs on the allocation's first node,
// so NCCL_COMM_ID is that node's Slurm address, on a port derived from the job id below
// Linux's ephemeral ports (sets running side by side have different first nodes and jobs).
// --cpu-bind=none: Slurm's default binding would put each task, and every NCCL thread of its
// GPUs, on one core.
constexpr std::string_view k_set_script =
    "echo \"@@nccl-nodes job $SLURM_JOB_ID\"\n"
    "GPUCTL_NCCL_NODES=$(scontrol show hostnames \"$SLURM_JOB_NODELIST\" | tr '\\n' ' ')\n"
    "export GPUCTL_NCCL_NODES\n"
    "first=${GPUCTL_NCCL_NODES%% *}\n"
    "addr=$(scontrol show node \"$first\" | tr ' ' '\\n' | sed -n 's/^NodeAddr=//p' | head -n 1)\n"
    "case $addr in\n"
    "  '') addr=$first ;;\n"
    "  *:*) addr=\"[$addr]\" ;;\n"
    "esac\n"
    "NCCL_COMM_ID=\"$addr:$((20000 + ${SLURM_JOB_ID:-0} % 12000))\"\n"
    "export NCCL_COMM_ID\n"
    "echo \"@@nccl-nodes root $NCCL_COMM_ID\"\n"
    "exec srun --ntasks-per-node=1 --kill-on-bad-exit=1 --label --cpu-bind=none --gres=\"gpu:$2\" sh -c \"$(cat \"$1\")\" "
    "gpuctl-nccl-task \"$3\" \"$4\" \"$2\"\n";

std::optional<int> small_number(std::string_view text) {
  int value = 0;
  const auto [ptr, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (ec != std::errc{} || ptr != text.data() + text.size() || text.empty() || value < 0) return std::nullopt;
  return value;
}

// srun --label prefixes each task line with its task id, right-aligned: "0: ", " 7: ", "12: ".
std::optional<std::pair<int, std::string_view>> labelled(std::string_view line) {
  const auto colon = line.find(": ");
  if (colon == std::string_view::npos) return std::nullopt;
  const auto id = small_number(util::trim(line.substr(0, colon)));
  if (!id) return std::nullopt;
  return std::pair{*id, line.substr(colon + 2)};
}

std::string slurm_summary(const NcclNodeSetRun& run) {
  // salloc says why in its first lines ("Required node not available (down, drained or
  // reserved)") and gives up in its last: both, on one line.
  std::string tail;
  for (const auto& line : util::split_lines(util::tail_lines(run.slurm_output, 6)))
    if (!util::trim(line).empty()) tail += (tail.empty() ? "" : " / ") + std::string(util::trim(line));
  if (run.exit_code == 124 || run.exit_code == 137)
    return fmt::format("salloc was stopped after {} s (srun can hang when a task cannot connect back to it){}",
                       k_set_timeout_s, tail.empty() ? "" : ": " + tail);
  if (!tail.empty()) return tail;
  return run.exit_code < 0 ? "salloc printed nothing" : fmt::format("salloc exited {}", run.exit_code);
}

std::string problem_text(const std::string& problem) {
  if (problem == "no-cc")
    return "no C compiler (cc) on the node's PATH: install gcc (and NCCL, libnccl2) on the node. Across nodes gpuctl "
           "runs its own program, since nccl-tests' all_reduce_perf spans nodes only in an MPI build";
  if (problem == "tmp") return "cannot create a temporary directory under /tmp on the node";
  if (problem.starts_with("not-in-set"))
    return fmt::format("the node's Slurm name is not among the set's nodes ({}): its slurmd runs under another NodeName",
                       util::trim(std::string_view(problem).substr(10)));
  return problem;  // parse_nccl_allreduce_run has already worded the others
}

// What became of one task, and so of its node's check.
enum class TaskFate {
  measured,  // it printed its result
  stopped,   // Slurm stopped it because another task failed: not this node's fault
  setup,     // the node could not take part (no cc, no NCCL): cannot run
  node,      // its GPUs or CUDA failed: the node's own fault
  fabric,    // NCCL failed or hung joining the nodes: the path between them
};

struct TaskVerdict {
  const NcclNodesTask* task = nullptr;
  TaskFate fate = TaskFate::setup;
  std::optional<NcclAllreduceResult> result;
  std::string error;  // why there is no result
};

TaskVerdict judge(const NcclNodesTask& task) {
  TaskVerdict verdict{&task, TaskFate::setup, {}, {}};
  const int rc = task.run.exit_code;
  if (!task.run.problem.empty()) {
    verdict.error = problem_text(task.run.problem);
    // No exit status of its own: Slurm killed it (and its shell) while it waited for the others.
    if (rc < 0 && task.run.problem.find("did not finish") != std::string::npos) verdict.fate = TaskFate::stopped;
    return verdict;
  }
  auto result = nccl_allreduce_result(task.run);
  if (result) {
    verdict.fate = TaskFate::measured;
    verdict.result = *result;
    return verdict;
  }
  verdict.error = result.error().message;
  const bool printed_error = task.run.output.find("gpuctl-nccl-allreduce: error:") != std::string::npos;
  if (rc == 124 || rc == 137) {  // timeout(1) ended it: NCCL hung, the classic sign of a blocked path
    verdict.fate = TaskFate::fabric;
    verdict.error = fmt::format("the all-reduce did not finish within {} s: NCCL hung joining or running across the nodes",
                                k_program_timeout_s);
  } else if (rc == 143 || rc == 130) {  // SIGTERM or SIGINT from Slurm, seen by the task's trap
    verdict.fate = TaskFate::stopped;
  } else if (!printed_error) {
    verdict.fate = rc > 0 ? TaskFate::node : TaskFate::setup;  // a crash (139) is the node's
  } else if (verdict.error.find(": usage:") != std::string::npos || verdict.error.find("cannot load") != std::string::npos ||
             verdict.error.find("missing symbol") != std::string::npos) {
    verdict.fate = TaskFate::setup;
  } else {
    // The program names the call that failed: NCCL's (ncclCommInitRank, ncclAllReduce...) are
    // the path between the nodes; CUDA's and "too few GPUs" are this node's GPUs.
    verdict.fate = verdict.error.find(": nccl") != std::string::npos ? TaskFate::fabric : TaskFate::node;
  }
  return verdict;
}

CheckResult named(CheckResult result, const NcclNodesTask* task) {
  result.name = std::string(k_nccl_nodes_check);
  if (task && result.status != CheckStatus::pass) {
    result.command = task->run.command;
    result.output = facts::trim_output(task->run.output, k_output_limit);
  }
  return result;
}

// Verify adds it across nodes (verify --nccl-nodes); no playbook names it, so it has no judge.
// Its results carry the controller's command and what the node's task printed.
const CheckRegistration k_nccl_nodes{{
    .name = k_nccl_nodes_check,
    .description = "verify --nccl-nodes: an NCCL all-reduce across the node's set of nodes, run through Slurm, sums "
                   "correctly (bus bandwidth reported)",
    .section = CheckSection::software,
    .runner = NodeRunner::nccl_nodes,
    .source = "salloc + srun on slurm.controller, the task's output",
}};

}  // namespace

NcclNodeSets make_nccl_node_sets(const std::vector<const Node*>& candidates, int per_set) {
  NcclNodeSets out;
  if (per_set < 2) per_set = 2;
  std::vector<int> counts;  // GPU counts in order of first appearance
  std::map<int, std::vector<const Node*>> by_count;
  for (const Node* node : candidates) {
    if (!by_count.contains(node->gpu.count)) counts.push_back(node->gpu.count);
    by_count[node->gpu.count].push_back(node);
  }
  for (const int count : counts) {
    const auto& nodes = by_count[count];
    if (nodes.size() < 2) {
      out.alone.push_back(nodes.front()->name);
      continue;
    }
    const auto first_set = out.sets.size();
    for (std::size_t at = 0; at < nodes.size(); at += static_cast<std::size_t>(per_set)) {
      const auto end = std::min(nodes.size(), at + static_cast<std::size_t>(per_set));
      if (end - at == 1 && out.sets.size() > first_set) {
        out.sets.back().nodes.push_back(nodes[at]->name);
        continue;
      }
      NcclNodeSet set;
      set.gpus_per_node = count;
      set.spec = nodes[at]->gpu.nccl_allreduce.value_or(NcclAllreduceSpec{});
      for (auto i = at; i < end; ++i) set.nodes.push_back(nodes[i]->name);
      out.sets.push_back(std::move(set));
    }
  }
  return out;
}

std::string nccl_nodes_script(const std::vector<NcclNodeSet>& sets) {
  std::string script =
      "export LC_ALL=C\n"
      "T=''\n"
      "if command -v timeout >/dev/null 2>&1; then T='timeout -k 10 " + std::to_string(k_set_timeout_s) + "'; fi\n"
      "for tool in salloc srun scontrol; do\n"
      "  command -v \"$tool\" >/dev/null 2>&1 || { echo \"@@nccl-nodes problem no-$tool\"; exit 0; }\n"
      "done\n"
      "d=$(mktemp -d /tmp/gpuctl-nccl-nodes.XXXXXX) || { echo '@@nccl-nodes problem tmp'; exit 0; }\n"
      "trap 'cat \"$d\"/out.* 2>/dev/null | sed -n \"s/^@@nccl-nodes job //p\" | xargs -r scancel 2>/dev/null; "
      "rm -rf \"$d\"' EXIT\n"
      "cat >\"$d/task.sh\" <<'GPUCTL_NCCL_TASK'\n";
  script += task_script();
  script += "GPUCTL_NCCL_TASK\ncat >\"$d/set.sh\" <<'GPUCTL_NCCL_SET'\n";
  script += k_set_script;
  script += "GPUCTL_NCCL_SET\n";
  for (std::size_t k = 0; k < sets.size(); ++k) {
    const auto& set = sets[k];
    std::string names;
    for (const auto& node : set.nodes) names += (names.empty() ? "" : ",") + node;
    // --exclusive: no job shares the nodes while they are measured; --immediate: a set whose
    // nodes stay busy is reported, not waited for without end.
    script += fmt::format(
        "( $T salloc --nodes={} --nodelist={} --ntasks-per-node=1 --gres=gpu:{} --exclusive --immediate={} --time={} "
        "--job-name=gpuctl-nccl-allreduce sh \"$d/set.sh\" \"$d/task.sh\" {} {} {}; echo \"@@nccl-nodes rc $?\" ) "
        ">\"$d/out.{}\" 2>&1 </dev/null &\n",
        set.nodes.size(), util::shell_quote(names), set.gpus_per_node, k_nccl_nodes_queue_wait_s, k_job_minutes,
        set.gpus_per_node, set.spec.message_bytes, set.spec.iterations, k);
  }
  script += "wait\n";
  for (std::size_t k = 0; k < sets.size(); ++k)
    script += fmt::format("echo '@@nccl-nodes set {0}'\ncat \"$d/out.{0}\"\n", k);
  return script;
}

Result<NcclNodesRun> parse_nccl_nodes_output(std::string_view output, std::size_t set_count) {
  NcclNodesRun run;
  run.sets.resize(set_count);
  std::vector<std::map<int, std::string>> task_lines(set_count);
  bool marked = false;
  std::optional<std::size_t> current;
  for (const auto& line : util::split_lines(output)) {
    if (line.starts_with(k_set_marker)) {
      marked = true;
      const auto rest = std::string_view(line).substr(k_set_marker.size());
      const auto space = rest.find(' ');
      const auto key = rest.substr(0, space);
      const auto value = space == std::string_view::npos ? std::string_view() : util::trim(rest.substr(space + 1));
      if (key == "problem") {
        run.problem = value == "tmp" ? "cannot create a temporary directory under /tmp on the Slurm controller"
                                     : fmt::format("{} is not on the Slurm controller's PATH: install slurm-client there",
                                                   value.starts_with("no-") ? value.substr(3) : value);
      } else if (key == "set") {
        const auto index = small_number(value);
        current = index && static_cast<std::size_t>(*index) < set_count ? std::optional<std::size_t>(*index) : std::nullopt;
      } else if (current && key == "root") {
        run.sets[*current].root = std::string(value);
      } else if (current && key == "rc") {
        run.sets[*current].exit_code = small_number(value).value_or(-1);
      }
      continue;
    }
    if (!current) continue;
    if (const auto task = labelled(line)) task_lines[*current][task->first] += std::string(task->second) + "\n";
    else run.sets[*current].slurm_output += line + "\n";
  }
  if (!marked)
    return fail(ErrorCode::parse, "the controller's all-reduce script printed no marker: " +
                                      std::string(util::trim(util::tail_lines(output, 3))));
  for (std::size_t k = 0; k < set_count; ++k)
    for (const auto& [id, text] : task_lines[k]) {
      NcclNodesTask task;
      task.task = id;
      task.node = verify_detail::split_marked_output(text, "@@nccl ").mark("node");
      auto parsed = parse_nccl_allreduce_run(text);
      if (parsed) task.run = std::move(*parsed);
      else task.run = ObservedNcclRun{{}, {}, -1, text, parsed.error().message};
      run.sets[k].tasks.push_back(std::move(task));
    }
  return run;
}

std::vector<CheckResult> nccl_nodes_checks(const NcclNodeSet& set, const NcclNodeSetRun& run) {
  const auto hosts = hostlist::compress(set.nodes);
  const auto gpus = set.gpus_per_node * static_cast<int>(set.nodes.size());
  const auto expected =
      fmt::format("one all-reduce across {} ({} GPUs) sums right on every GPU (busbw reported, not judged)", hosts, gpus);
  std::vector<TaskVerdict> verdicts;
  for (const auto& task : run.tasks) verdicts.push_back(judge(task));
  // The node whose own failure stopped the set, for the nodes Slurm stopped because of it.
  const auto culprit = std::ranges::find_if(verdicts, [](const TaskVerdict& v) {
    return v.fate != TaskFate::measured && v.fate != TaskFate::stopped;
  });
  // The set's bandwidth as rank 0's process measured it (every process times the same rounds).
  const auto root = std::ranges::find_if(verdicts, [](const TaskVerdict& v) { return v.result && v.result->process == 0; });
  std::vector<CheckResult> checks;
  for (const auto& node : set.nodes) {
    const auto verdict = std::ranges::find_if(verdicts, [&](const TaskVerdict& v) { return v.task->node == node; });
    if (verdict == verdicts.end()) {
      checks.push_back(named(cannot_run(fmt::format("Slurm did not run the all-reduce's task on {}: {}", node,
                                                    slurm_summary(run))),
                             nullptr));
      continue;
    }
    const NcclNodesTask* task = verdict->task;
    switch (verdict->fate) {
      case TaskFate::measured: {
        const auto& own = *verdict->result;
        const auto& measured = root != verdicts.end() ? *root->result : own;
        const auto observed = fmt::format("{}{:.1f} GB/s (algbw {:.1f}) across {}, {} GPUs, {} MiB x {}, {} wrong here",
                                          k_busbw_prefix, measured.busbw_gbs, measured.algbw_gbs, hosts, own.gpus, own.bytes >> 20,
                                          set.spec.iterations, own.wrong);
        if (own.gpus != gpus)  // the program ran, but not across the whole set: no proof of it
          checks.push_back(named(cannot_run(fmt::format("the all-reduce on {} spanned {} GPUs, the set {} has {}", node,
                                                        own.gpus, hosts, gpus)),
                                 task));
        else if (own.wrong > 0)
          checks.push_back(named(failed(observed, expected,
                                        fmt::format("{} elements of the sum are wrong on this node's GPUs: the data "
                                                    "crossed the nodes' network wrongly; check ib_ports, nvidia_peermem "
                                                    "and the cables of this node's HCAs",
                                                    own.wrong)),
                                 task));
        else if (task->run.exit_code != 0)
          checks.push_back(named(cannot_run(fmt::format("the program exited {} after its result: {}", task->run.exit_code,
                                                        util::trim(util::tail_lines(task->run.output, 2)))),
                                 task));
        else checks.push_back(named(pass(observed, expected), task));
        break;
      }
      case TaskFate::stopped:
        checks.push_back(named(cannot_run(culprit != verdicts.end()
                                              ? fmt::format("stopped by Slurm when the task on {} failed: {}",
                                                            culprit->task->node, culprit->error)
                                              : fmt::format("stopped by Slurm before its result: {}", slurm_summary(run))),
                               task));
        break;
      case TaskFate::setup:
        checks.push_back(named(cannot_run(fmt::format("{}: {}", node, verdict->error)), task));
        break;
      case TaskFate::node:
        checks.push_back(named(failed(verdict->error, expected,
                                      "this node's GPUs failed under the all-reduce: see gpu_count, xid_events and "
                                      "ecc_errors; drain the node, reset its GPUs or reboot it"),
                               task));
        break;
      case TaskFate::fabric:
        checks.push_back(named(
            failed(verdict->error, expected,
                   fmt::format("NCCL could not run across {}: check ib_ports and nccl_ib_hca on each node, that "
                               "NCCL_SOCKET_IFNAME names an interface the nodes reach each other on, and that {} (the "
                               "first node's Slurm address) is reachable from the others; rerun with NCCL_DEBUG=INFO",
                               hosts, run.root.empty() ? std::string("NCCL_COMM_ID") : run.root)),
            task));
        break;
    }
  }
  return checks;
}

std::optional<double> nccl_nodes_busbw(const CheckResult& check) {
  if (check.name != k_nccl_nodes_check || check.status != CheckStatus::pass || !check.observed.starts_with(k_busbw_prefix))
    return std::nullopt;
  double busbw = 0;
  const auto* end = check.observed.data() + check.observed.size();
  if (std::from_chars(check.observed.data() + k_busbw_prefix.size(), end, busbw).ec != std::errc{}) return std::nullopt;
  return busbw;
}

std::vector<CheckResult> nccl_nodes_not_run(const NcclNodeSet& set, const std::string& why) {
  std::vector<CheckResult> checks;
  for (std::size_t i = 0; i < set.nodes.size(); ++i) checks.push_back(named(cannot_run(why), nullptr));
  return checks;
}

}  // namespace gpuctl
