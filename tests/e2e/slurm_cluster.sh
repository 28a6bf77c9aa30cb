#!/usr/bin/env bash
# Real Slurm in the sandbox: `up -n 2 --head`, then gpuctl's playbooks make a working cluster
# (slurmctld + munge on head01, slurmd + munge on the GPU nodes, one munge key). verify passes
# every check including slurmd_active and slurmd_registered; `sinfo` on head01 shows both
# nodes idle with gpu:h100:8; a second plan changes nothing. A node drained in Slurm fails
# slurmd_registered with the drain reason (the check can fail), and passes again once resumed.
# verify --nccl-nodes 2 launches one all-reduce across both nodes with salloc and srun from
# head01: the tasks run and report the missing compiler (an error, not a pass); with node02
# drained, node02 sits out and node01 is left without a partner.
# A GPU swapped on node02 while a job runs there: replace-gpu drains the node, waits for the
# job, resets the new card's ECC counters, verifies and resumes it; history shows the swap.
# Runs on its own network (127.0.120) so it can run next to converge.sh.
export GPUCTL_SANDBOX_NET=127.0.120
source "$(dirname "$0")/lib/cluster.sh"
command -v python3 >/dev/null || skip "python3 missing (reads verify --json)"
command -v jq >/dev/null || skip "jq missing (reads replace-gpu --json)"
start_cluster -n 2 --gpus 8 --model H100 --head
g() { "$GPUCTL" "$@" --no-progress; }
on() { "$SANDBOX_CMD" ssh "$@"; }

# VERIFY_JSON (stdin) -> "node check status" lines for the Slurm checks.
slurm_checks() {
  python3 -c 'import json, sys
for n in json.load(sys.stdin)["nodes"]:
    for c in n["checks"]:
        if c["check"].startswith("slurm"): print(n["node"], c["check"], c["status"], c["detail"])'
}

# VERIFY_JSON (stdin) -> "node status detail" of each nccl_allreduce_nodes check, and
# "node check status (unexpected)" of any other check that neither passed nor was skipped.
nccl_checks() {
  python3 -c 'import json, sys
for n in json.load(sys.stdin)["nodes"]:
    for c in n["checks"]:
        if c["check"] == "nccl_allreduce_nodes": print(n["node"], c["status"], c["detail"])
        elif c["status"] not in ("pass", "skipped"): print(n["node"], c["check"], c["status"], "(unexpected)")'
}

echo "--- plan on fresh nodes: the controller and both slurmds"
expect_rc 2 g plan "$INVENTORY" --detailed-exitcode
expect_output '\+ install slurmctld' "slurmctld is planned on head01"
expect_output '\+ install slurmd' "slurmd is planned on the GPU nodes"
# The nodes' real CPUs and memory (lscpu and /proc/meminfo before slurmd is installed), RealMemory
# less the 5% reserve in whole GiB.
cpus=$(nproc --all)
mem_mib=$(( $(awk '/^MemTotal:/ {print $2}' /proc/meminfo) / 1024 ))
real_memory=$(( (mem_mib - (mem_mib * 5 + 99) / 100) / 1024 * 1024 ))
hardware="CPUs=$cpus Boards=1 SocketsPerBoard=[0-9]+ CoresPerSocket=[0-9]+ ThreadsPerCore=[0-9]+ RealMemory=$real_memory"
# Each slurmd's port, as the sandbox inventory gives it (its network's own range).
port_of() { sed -n "s/^  $1: {.*slurm.Port: \"\([0-9]*\)\".*/\1/p" "$INVENTORY"; }
port1=$(port_of node01) port2=$(port_of node02)
[[ -n $port1 && -n $port2 ]] || die "no slurm.Port label in $INVENTORY"
expect_output "NodeName=node01 NodeAddr=127\\.0\\.120\\.1 Gres=gpu:h100:8 $hardware Port=$port1" "slurm.conf names node01's address, hardware and port"
expect_output "NodeName=node02 NodeAddr=127\\.0\\.120\\.2 Gres=gpu:h100:8 $hardware Port=$port2" "slurm.conf names node02's address, hardware and port"
expect_output "node\\[01-02\\]: CPUs=$cpus .*\\(lscpu -p, /proc/meminfo\\); RealMemory=$real_memory \\($mem_mib MiB \\(lscpu -p, /proc/meminfo\\) less the 5% reserve, in whole GiB\\)" \
  "the plan says where each hardware value comes from"

echo "--- apply converges the cluster"
expect_rc 0 g apply "$INVENTORY" --yes
expect_output '3 nodes: 0 ok, 3 changed, 0 failed, 0 unreachable'

echo "--- verify passes every check, Slurm's included"
# slurmd registers within a second or two of its start; give a slow machine a little time.
for attempt in 1 2 3 4 5 6; do
  OUTPUT=$(g verify "$INVENTORY" 2>&1) && break
  sleep 5
done
expect_rc 0 g verify "$INVENTORY"
expect_output 'Verify: 3 of 3 nodes pass every check'
json=$(g verify "$INVENTORY" --json 2>/dev/null) || die "verify --json failed:\n$json"
checks=$(slurm_checks <<<"$json") || die "verify --json did not parse:\n$json"
for want in "head01 slurmctld_active pass" "node01 slurmd_active pass" "node01 slurmd_registered pass" \
            "node02 slurmd_active pass" "node02 slurmd_registered pass"; do
  grep -q "^$want" <<<"$checks" || die "no '$want' in:\n$checks"
done

echo "--- verify --nccl-nodes 2: one all-reduce across node01 and node02, launched by salloc and srun on head01"
# The sandbox has no C compiler and no NCCL: Slurm allocates both nodes and starts a task on
# each (srun --label), the tasks say why they cannot run, and the check is an error, never a pass.
json=$(g verify "$INVENTORY" --nccl-nodes 2 --json 2>/dev/null); rc=$?
[[ $rc == 3 ]] || die "verify --nccl-nodes 2 exited $rc, not 3:\n$json"
nccl=$(nccl_checks <<<"$json") || die "verify --nccl-nodes --json did not parse:\n$json"
grep -q "^node01 error node01: no C compiler (cc)\|^node01 error stopped by Slurm when the task on node02 failed: no C compiler" <<<"$nccl" ||
  die "node01's nccl_allreduce_nodes is not the missing compiler:\n$nccl"
grep -q "^node02 error node02: no C compiler (cc)\|^node02 error stopped by Slurm when the task on node01 failed: no C compiler" <<<"$nccl" ||
  die "node02's nccl_allreduce_nodes is not the missing compiler:\n$nccl"
[[ $(wc -l <<<"$nccl") == 2 ]] || die "nccl_allreduce_nodes on other nodes than node01 and node02, or other failures:\n$nccl"
# Slurm ran the job and gave the nodes back.
on head01 'for i in $(seq 20); do [ -z "$(squeue -h)" ] && exit 0; sleep 1; done; exit 1' ||
  die "the all-reduce's job is still in Slurm's queue:\n$(on head01 squeue)"

echo "--- Slurm has each node's real CPUs and memory, and places real jobs with CPUs, memory and GPUs"
for node in node01 node02; do
  shown=$(on head01 scontrol show node "$node") || die "scontrol show node $node failed"
  grep -q "CPUTot=$cpus " <<<"$shown" || die "$node: Slurm does not have its $cpus CPUs:\n$shown"
  configured=$(grep -o 'RealMemory=[0-9]*' <<<"$shown" | cut -d= -f2)
  (( configured * 2 >= mem_mib && configured <= mem_mib )) ||
    die "$node: RealMemory=$configured is not between half and all of its $mem_mib MiB"
done
# The partition's DefMemPerCPU=4096 gives a 1-CPU job 4 GiB: placed only because RealMemory is real.
job=$(on head01 "timeout 120 srun -w node01 -c 1 --gres=gpu:1 hostname") || die "srun -c 1 --gres=gpu:1 hostname failed:\n$job"
[[ $job == node01* ]] || die "the job ran elsewhere or printed nothing: $job"
job_cpus=$(( cpus >= 2 ? 2 : 1 ))
job=$(on head01 "timeout 120 srun -w node02 -c $job_cpus --mem=1024 --gres=gpu:2 sh -c 'echo \$CUDA_VISIBLE_DEVICES'") ||
  die "srun -c $job_cpus --mem=1024 --gres=gpu:2 failed:\n$job"
[[ $job == 0,1 ]] || die "the job's CUDA_VISIBLE_DEVICES is '$job', not its 2 GPUs 0,1"
# What srun says for a job no node can hold: the words check slurm_gpu_job fails on.
if job=$(on head01 "timeout 60 srun -w node01 --mem=99999999 hostname 2>&1"); then die "a job of 95 TiB ran: $job"; fi
[[ $job == *"Requested node configuration is not available"* ]] || die "srun's refusal is not Slurm's usual words:\n$job"
[[ -n ${GPUCTL_CAPTURE_DIR:-} ]] && printf '%s\n' "$job" > "$GPUCTL_CAPTURE_DIR/srun-node-config-unavailable.txt"

echo "--- verify --slurm-job: a job through Slurm on each node is given exactly its 8 GPUs"
json=$(g verify "$INVENTORY" --slurm-job --json 2>/dev/null) || die "verify --slurm-job failed:\n$json"
jobs=$(python3 -c 'import json, sys
for n in json.load(sys.stdin)["nodes"]:
    for c in n["checks"]:
        if c["check"] == "slurm_gpu_job": print(n["node"], c["status"], c["observed"])' <<<"$json") ||
  die "verify --slurm-job --json did not parse:\n$json"
for node in node01 node02; do
  grep -q "^$node pass CUDA_VISIBLE_DEVICES=0,1,2,3,4,5,6,7; nvidia-smi -L in the job: 8 GPUs" <<<"$jobs" ||
    die "$node's slurm_gpu_job did not pass with its 8 GPUs:\n$jobs"
done
if [[ -n ${GPUCTL_CAPTURE_DIR:-} ]]; then
  on node02 "srun -w node02 -c 1 --mem=1024 --gres=gpu:2 sh -c 'echo \"CUDA_VISIBLE_DEVICES=\${CUDA_VISIBLE_DEVICES-unset}\"; nvidia-smi -L 2>&1; echo \"nvidia-smi rc=\$?\"'" \
    > "$GPUCTL_CAPTURE_DIR/srun-job-2gpus.txt"
fi

echo "--- sinfo on head01 shows both nodes idle with their GRES"
sinfo=$(on head01 sinfo -N -h -o "'%N %t %G'") || die "sinfo failed on head01"
for node in node01 node02; do
  grep -qx "$node idle gpu:h100:8" <<<"$sinfo" || die "sinfo does not show $node idle with gpu:h100:8:\n$sinfo"
done
# The exporters listen on their node's own address only.
on node01 "ss -ltn | grep -q '127.0.120.1:9100'" || die "node-exporter of node01 does not listen on 127.0.120.1:9100"

echo "--- a second plan changes nothing (idempotence)"
expect_rc 0 g plan "$INVENTORY" --detailed-exitcode

echo "--- a node drained in Slurm fails slurmd_registered with the reason, and passes once resumed"
on head01 "scontrol update nodename=node02 state=drain reason='e2e drain test'" || die "cannot drain node02"
expect_rc 3 g verify "$INVENTORY"
expect_output 'slurmd_registered fail on node02: .*drained \(State=IDLE\+DRAIN\): e2e drain test'
on head01 "scontrol update nodename=node02 state=resume" || die "cannot resume node02"
# slurmctld may briefly mark the node NOT_RESPONDING until its next ping; wait (bounded) for
# Slurm to see it idle, as an admin would, before verifying.
on head01 'for i in $(seq 30); do scontrol show node node02 | grep -q "State=IDLE " && exit 0; sleep 2; done; exit 1' \
  || die "node02 did not come back idle in Slurm within 60 s of the resume"
expect_rc 0 g verify "$INVENTORY"

echo "--- verify --nccl-nodes 2 with node02 drained: node02 fails on its own and sits out; node01 has no partner"
on head01 "scontrol update nodename=node02 state=drain reason='e2e drain test'" || die "cannot drain node02"
json=$(g verify "$INVENTORY" --nccl-nodes 2 --json 2>/dev/null); rc=$?
[[ $rc == 3 ]] || die "verify --nccl-nodes 2 with node02 drained exited $rc, not 3:\n$json"
nccl=$(nccl_checks <<<"$json") || die "verify --nccl-nodes --json did not parse:\n$json"
grep -q "^node02 skipped not run: the node did not pass its other checks" <<<"$nccl" || die "node02 was not left out:\n$nccl"
grep -q "^node01 skipped not run: no other node with 8 GPUs passed verify" <<<"$nccl" || die "node01 was not left alone:\n$nccl"
on head01 "scontrol update nodename=node02 state=resume" || die "cannot resume node02"
on head01 'for i in $(seq 30); do scontrol show node node02 | grep -q "State=IDLE " && exit 0; sleep 2; done; exit 1' \
  || die "node02 did not come back idle in Slurm within 60 s of the resume"

echo "--- GPU 3 of node02 swapped while a job runs there: replace-gpu drains, waits, resets, resumes"
old_serial=$("$GPUCTL" facts "$INVENTORY" --limit node02 --json | jq -r '.nodes[0].gpus[3].serial')
[[ -n $old_serial && $old_serial != null ]] || die "no serial for node02 GPU 3"
"$SANDBOX_CMD" fault node02 gpu-replaced 3 || die "cannot inject gpu-replaced"
new_serial=$("$GPUCTL" facts "$INVENTORY" --limit node02 --json | jq -r '.nodes[0].gpus[3].serial')
[[ $new_serial != "$old_serial" ]] || die "gpu-replaced did not change the serial"
on head01 "sbatch -w node02 -o /dev/null --wrap 'sleep 12; date +%s > /var/tmp/e2e-job-end'" >/dev/null ||
  die "sbatch failed on head01"
on head01 'for i in $(seq 20); do [ "$(squeue -h -w node02 -o %t)" = R ] && exit 0; sleep 1; done; exit 1' ||
  die "the job does not run on node02:\n$(on head01 squeue)"
"$GPUCTL" replace-gpu "$INVENTORY" node02 --yes --json --no-progress --drain-timeout 120 \
  >"$WORK/replace.json" 2>"$WORK/replace.err" &
replace_pid=$!
# While the job runs, Slurm shows node02 draining with gpuctl's reason.
seen=""
for i in $(seq 1 20); do
  seen=$(on head01 scontrol show node node02 | grep -o 'State=[A-Z+_]* \|Reason=gpuctl run: replace-gpu' | tr '\n' ' ')
  [[ $seen == *DRAIN*Reason=gpuctl\ run:\ replace-gpu* ]] && break
  sleep 0.5
done
wait "$replace_pid"; rc=$?
report=$(cat "$WORK/replace.json")
[[ $rc == 0 ]] || die "replace-gpu exited $rc:\n$report\n$(cat "$WORK/replace.err")"
[[ $seen == *DRAIN*Reason=gpuctl\ run:\ replace-gpu* ]] || die "node02 was not seen draining for replace-gpu: $seen"
job_end=$(on node02 cat /var/tmp/e2e-job-end) || die "the job did not run to its end on node02"
[[ $(jq -r '.changes[0].slot' <<<"$report") == 3 ]] || die "wrong slot:\n$report"
[[ $(jq -r '.changes[0].old_serial' <<<"$report") == "$old_serial" ]] || die "old serial missing:\n$report"
[[ $(jq -r '.changes[0].new_serial' <<<"$report") == "$new_serial" ]] || die "new serial missing:\n$report"
[[ $(jq -r '.ecc_reset_slots | join(",")' <<<"$report") == 3 ]] || die "ECC not reset on slot 3:\n$report"
[[ $(jq -r '.slurm.decision' <<<"$report") == drain ]] || die "node02 was not drained:\n$report"
[[ $(jq -r '.slurm.drain_reason' <<<"$report") == "gpuctl run: replace-gpu" ]] || die "drain reason:\n$report"
[[ $(jq -r '.slurm.resumed' <<<"$report") == true ]] || die "node02 was not resumed:\n$report"
[[ $(jq -r '.verify.status' <<<"$report") == ok ]] || die "verify did not pass:\n$report"
on head01 'for i in $(seq 30); do scontrol show node node02 | grep -q "State=IDLE " && exit 0; sleep 2; done; exit 1' \
  || die "node02 is not idle in Slurm after replace-gpu:\n$(on head01 scontrol show node node02)"
expect_rc 0 "$GPUCTL" history --node node02 --json
[[ $(jq -r '[.gpu_slots[] | select(.slot == 3) | .serial] | join(" ")' <<<"$OUTPUT") == "$old_serial $new_serial" ]] ||
  die "slot 3 history is not $old_serial then $new_serial:\n$OUTPUT"

echo "--- node02 pinned with more memory than it has: the plan says so, verify fails with both values"
cp "$INVENTORY" "$WORK/inventory-unpinned.yaml"
sed -i "s/slurm.Port: \"$port2\"}/slurm.Port: \"$port2\", slurm.RealMemory: \"99999999\"}/" "$INVENTORY"
grep -q 'slurm.RealMemory: "99999999"' "$INVENTORY" || die "could not pin node02's memory in $INVENTORY"
expect_rc 2 g plan "$INVENTORY" --detailed-exitcode
expect_output "node02: CPUs=$cpus .*RealMemory=99999999 \\(pinned: label slurm.RealMemory\\)" "the plan names the pin as RealMemory's source"
expect_output "NodeName=node02 .*RealMemory=99999999 Port=$port2" "slurm.conf's diff shows the pinned value"
expect_rc 0 g apply "$INVENTORY" --yes
expect_rc 3 g verify "$INVENTORY" --limit node02
expect_output "slurm_node_hardware fail on node02: .*RealMemory=99999999 \\(the node has $mem_mib\\)" "both values"
cp "$WORK/inventory-unpinned.yaml" "$INVENTORY"
expect_rc 0 g apply "$INVENTORY" --yes

echo "--- node02 down: it keeps the values the deployed slurm.conf gives it, and node01 plans no change"
"$SANDBOX_CMD" fault node02 unreachable || die "cannot make node02 unreachable"
expect_rc 0 g plan "$INVENTORY" --limit node01 --detailed-exitcode
expect_output "node02: CPUs=$cpus .*\\(as the deployed slurm.conf has it \\(read on node01; node02 not read: " \
  "the plan says where node02's values come from"
"$SANDBOX_CMD" heal node02 || die "cannot heal node02"
echo "PASS"
