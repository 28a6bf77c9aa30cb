#!/usr/bin/env bash
# Real Slurm in the sandbox: `up -n 2 --head`, then gpuctl's playbooks make a working cluster
# (slurmctld + munge on head01, slurmd + munge on the GPU nodes, one munge key). verify passes
# every check including slurmd_active and slurmd_registered; `sinfo` on head01 shows both
# nodes idle with gpu:h100:8; a second plan changes nothing. A node drained in Slurm fails
# slurmd_registered with the drain reason (the check can fail), and passes again once resumed.
# Runs on its own network (127.0.120) so it can run next to converge.sh.
export GPUCTL_SANDBOX_NET=127.0.120
source "$(dirname "$0")/lib/cluster.sh"
command -v python3 >/dev/null || skip "python3 missing (reads verify --json)"
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

echo "--- plan on fresh nodes: the controller and both slurmds"
expect_rc 2 g plan "$INVENTORY" --detailed-exitcode
expect_output '\+ install slurmctld' "slurmctld is planned on head01"
expect_output '\+ install slurmd' "slurmd is planned on the GPU nodes"
expect_output 'NodeName=node\[01-02\] NodeAddr=127\.0\.120\.\[1-2\] Gres=gpu:h100:8' "slurm.conf names the node addresses"

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
expect_output 'node02 slurmd_registered fail: .*drained \(State=IDLE\+DRAIN\): e2e drain test'
on head01 "scontrol update nodename=node02 state=resume" || die "cannot resume node02"
# slurmctld may briefly mark the node NOT_RESPONDING until its next ping; wait (bounded) for
# Slurm to see it idle, as an admin would, before verifying.
on head01 'for i in $(seq 30); do scontrol show node node02 | grep -q "State=IDLE " && exit 0; sleep 2; done; exit 1' \
  || die "node02 did not come back idle in Slurm within 60 s of the resume"
expect_rc 0 g verify "$INVENTORY"
echo "PASS"
