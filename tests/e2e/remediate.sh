#!/usr/bin/env bash
# gpuctl remediate and the node health program on the Slurm sandbox (`up -n 2 --head`, real
# slurmctld and slurmd; docs/remediation.md):
# - the health program (slurm.health_check_interval: 10s) drains a node within an interval of an
#   injected reset-class Xid; remediate --dry-run shows the plan and changes nothing; remediate
#   takes the drain over, resets the GPUs through the nvidia-smi stand-in (which refuses while
#   DCGM or the fabric manager hold them), runs DCGM -r 2 and verify, resumes the node: sinfo
#   shows it idle, the history has each step, the health program leaves it in service;
# - a reboot-class Xid (79) gets a reboot, its running job cancelled with --stop-jobs; a hung GPU's failed reset escalates to a reboot;
# - a fault that survives the remedy (a corrupt InfoROM) leaves the node drained with why; once
#   healed, remediate proves the node with DCGM and verify and resumes it;
# - an admin's drain is never lifted;
# - the health program resumes the node it drained once the fault is healed.
# Runs on its own network (127.0.130) so it can run next to the other sandbox tests.
export GPUCTL_SANDBOX_NET=127.0.130
source "$(dirname "$0")/lib/cluster.sh"
command -v jq >/dev/null || skip "jq missing (reads remediate --json and history --json)"
start_cluster -n 2 --gpus 8 --model H100 --head
g() { "$GPUCTL" "$@" --no-progress; }
on() { "$SANDBOX_CMD" ssh "$@"; }
# remediate_json RC ARGS...: remediate --json with ARGS, its exit code checked; its report (stdout
# only: the progress lines go to stderr) in $OUTPUT.
remediate_json() {
  local want=$1 got; shift
  OUTPUT=$("$GPUCTL" remediate "$INVENTORY" "$@" --yes --json --no-progress 2>"$WORK/remediate.stderr")
  got=$?
  [[ $got == "$want" ]] || die "remediate $* exited $got, expected $want:\n$OUTPUT\n$(cat "$WORK/remediate.stderr")"
}
# NODE -> "STATE REASON" as slurmctld has it (sinfo's compact state: idle, drain, drng, ...).
slurm_state() { on head01 "sinfo -h -n $1 -N -o '%t %E'" | head -n 1; }
# wait_state NODE REGEX SECONDS WHY: polls slurm_state until it matches.
wait_state() {
  local i state
  for ((i = 0; i < $3; i++)); do
    state=$(slurm_state "$1")
    [[ $state =~ $2 ]] && return 0
    sleep 1
  done
  die "$4: $1 is '$state' after $3 s, not /$2/"
}

# The health program every 10 s (the grammar's floor), so the test waits seconds, not minutes.
sed -i 's/^\(    controller: head01\)$/\1\n    health_check_interval: 10s/' "$INVENTORY"
grep -q 'health_check_interval: 10s' "$INVENTORY" || die "could not set slurm.health_check_interval in $INVENTORY"

echo "--- apply: the cluster, with the health program in slurm.conf and on each GPU node"
expect_rc 0 g apply "$INVENTORY" --yes
on node01 "grep -x 'HealthCheckProgram=/usr/local/sbin/gpuctl-health-check' /etc/slurm/slurm.conf" >/dev/null ||
  die "slurm.conf names no HealthCheckProgram"
on node01 "test -x /usr/local/sbin/gpuctl-health-check" || die "the health program is not installed"
for node in node01 node02; do wait_state "$node" '^idle ' 60 "after apply"; done
expect_rc 0 on node01 /usr/local/sbin/gpuctl-health-check
cost=$(on node01 "bash -c 'TIMEFORMAT=%3U+%3S; time /usr/local/sbin/gpuctl-health-check >/dev/null' 2>&1 | tail -n 1")
echo "health program on a healthy sandbox node: ${cost} s user+sys (the sandbox's nvidia-smi stand-in)"

echo "--- a reset-class Xid: the health program drains node01 within one interval"
"$SANDBOX_CMD" fault node01 xid-109 3 >/dev/null
wait_state node01 '^drai?n.* gpuctl health: Xid 109 on ' 25 "the health program did not drain node01"

echo "--- remediate --dry-run: the faults, the remedy and the steps; nothing done"
boot_before=$(on node01 cat /proc/sys/kernel/random/boot_id)
expect_rc 0 g remediate "$INVENTORY" node01 --dry-run
expect_output 'fault: Xid 109 on 0000:[0-9a-f:]+ \(context switch timeout\) -> reset_gpu' "the dry run names the fault"
expect_output 'remedy: reset_gpu'
expect_output 'would: nvidia-smi -r \(every GPU and NVSwitch of the board\)' "an NVSwitch board is reset whole"
on node01 "test ! -e /var/lib/gpuctl/gpu-resets" || die "the dry run reset something"

echo "--- remediate: owned drain, reset, DCGM -r 2, verify, resumed"
remediate_json 0 node01
report=$OUTPUT
jq -e '.[0].status == "changed" and .[0].slurm.decision == "drain" and .[0].slurm.resumed' <<<"$report" >/dev/null ||
  die "node01 was not remedied and resumed:\n$report"
jq -e '.[0].remediation.remedy == "reset_gpu" and .[0].remediation.escalated == false' <<<"$report" >/dev/null ||
  die "the remedy is not a reset:\n$report"
jq -e '[.[0].remediation.steps[] | select(test("stopping nvidia-fabricmanager"))] | length == 1' <<<"$report" >/dev/null ||
  die "the fabric manager was not stopped for the reset:\n$report"
jq -e '[.[0].remediation.steps[] | select(test("was successfully reset"))] | length == 8' <<<"$report" >/dev/null ||
  die "not every GPU was reset:\n$report"
[[ $(on node01 cat /proc/sys/kernel/random/boot_id) == "$boot_before" ]] || die "a reset rebooted node01"
wait_state node01 '^idle ' 20 "remediate did not resume node01"
on node01 "systemctl is-active --quiet nvidia-fabricmanager.service" || die "the fabric manager was not started again"
json=$(g verify "$INVENTORY" --limit node01 --json 2>/dev/null) || die "verify of node01 fails after the reset:\n$json"
jq -e '[.nodes[0].checks[] | select(.check == "xid_events" and (.observed | test("Xid 109 on [0-9a-f:]+ before gpuctl reset it")))] | length == 1' \
  <<<"$json" >/dev/null || die "verify does not list the Xid as dealt with:\n$json"
expect_rc 0 "$GPUCTL" history --node node01 --json
for step in "remediate: reset_gpu" "remediate: verify"; do
  jq -e --arg s "$step" '[.. | objects | select(.step? == $s)] | length >= 1' <<<"$OUTPUT" >/dev/null ||
    die "history has no step '$step':\n$OUTPUT"
done
sleep 12   # one health interval: the program sees the reset and leaves the node in service
wait_state node01 '^idle ' 1 "the health program drained node01 again after the reset"

echo "--- a reboot-class Xid (79) under a running job: remediate --stop-jobs cancels it and reboots node02"
boot_before=$(on node02 cat /proc/sys/kernel/random/boot_id)
job=$(on head01 "sbatch --parsable -w node02 -o /dev/null --wrap 'sleep 600'") || die "sbatch failed"
for ((i = 0; i < 20; i++)); do [[ $(on head01 "squeue -h -j $job -o %t") == R ]] && break; sleep 1; done
[[ $(on head01 "squeue -h -j $job -o %t") == R ]] || die "job $job does not run on node02"
"$SANDBOX_CMD" fault node02 xid-79 2 >/dev/null
remediate_json 0 node02 --stop-jobs --drain-timeout 60
jq -e '.[0].remediation.remedy == "reboot" and .[0].slurm.resumed' <<<"$OUTPUT" >/dev/null ||
  die "node02 was not rebooted and resumed:\n$OUTPUT"
[[ -z $(on head01 "squeue -h -j $job -o %t" 2>/dev/null) ]] || die "job $job still runs: --stop-jobs did not cancel it"
[[ $(on node02 cat /proc/sys/kernel/random/boot_id) != "$boot_before" ]] || die "node02 did not reboot"
wait_state node02 '^idle ' 30 "node02 is not back in service"

echo "--- a hung GPU: the reset fails, remediate escalates to a reboot"
"$SANDBOX_CMD" fault node01 gpu-hung 5 >/dev/null
remediate_json 0 node01
jq -e '.[0].remediation.escalated and .[0].slurm.resumed' <<<"$OUTPUT" >/dev/null ||
  die "the failed reset was not escalated to a reboot:\n$OUTPUT"
jq -e '[.[0].remediation.steps[] | select(test("GPU is lost"))] | length >= 1' <<<"$OUTPUT" >/dev/null ||
  die "the reset's refusal is not in the report:\n$OUTPUT"
wait_state node01 '^idle ' 30 "node01 is not back after the escalated reboot"

echo "--- a fault that survives the remedy: node01 stays drained with the evidence"
"$SANDBOX_CMD" fault node01 dcgm-diag 0 >/dev/null
"$SANDBOX_CMD" fault node01 xid-109 0 >/dev/null
remediate_json 3 node01
jq -e '.[0].slurm.resumed == false and (.[0].slurm.left_drained | test("dcgm_diag"))' <<<"$OUTPUT" >/dev/null ||
  die "node01 was not left drained with the failing diagnostic:\n$OUTPUT"
wait_state node01 '^drai?n.* gpuctl: verify failed: dcgm_diag' 5 "sinfo does not show why node01 stays drained"
echo "--- the InfoROM fixed (heal): remediate proves node01 with DCGM and verify, and resumes it"
"$SANDBOX_CMD" heal node01 >/dev/null
remediate_json 0 node01
jq -e '.[0].remediation.remedy == "none" and .[0].slurm.resumed' <<<"$OUTPUT" >/dev/null ||
  die "the healed node01 was not proven and resumed:\n$OUTPUT"
wait_state node01 '^idle ' 20 "node01 is not back in service after the proof"

echo "--- an admin's drain is kept: node02 is remedied and left drained"
on head01 "scontrol update nodename=node02 state=drain reason=maintenance" || die "cannot drain node02"
"$SANDBOX_CMD" fault node02 xid-109 1 >/dev/null
remediate_json 0 node02
jq -e '.[0].slurm.decision == "drained by someone else" and .[0].slurm.resumed == false' <<<"$OUTPUT" >/dev/null ||
  die "the admin's drain was not kept:\n$OUTPUT"
sleep 12   # the health program runs too: it must not lift the admin's drain either
wait_state node02 '^drai?n.* maintenance' 1 "the admin's drain was lifted or replaced"
on head01 "scontrol update nodename=node02 state=resume" || die "cannot resume node02"
"$SANDBOX_CMD" heal node02 >/dev/null

echo "--- the health program drains on a fault and resumes after heal"
wait_state node02 '^idle ' 25 "node02 is not idle before the fault"
"$SANDBOX_CMD" fault node02 xid-119 4 >/dev/null
wait_state node02 '^drai?n.* gpuctl health: Xid 119 on ' 25 "the health program did not drain node02"
"$SANDBOX_CMD" heal node02 >/dev/null
wait_state node02 '^idle ' 25 "the health program did not resume node02 after heal"
echo "PASS"
