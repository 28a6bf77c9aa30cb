#!/usr/bin/env bash
# A rolling driver upgrade 535 -> 550 with Slurm drain, on `up -n 3 --head`: converge on 535,
# a job runs on node01, node03 is drained by an admin; `apply --playbook driver-upgrade
# --playbook gpu-node --batch-size 1` drains node01, waits for its job, upgrades, verifies and
# resumes it; node03 is upgraded but left drained with the admin's reason. Every node then runs
# 550, node01/node02 are idle in Slurm, and `gpuctl history` lists the driver step per node.
# Runs on its own network (127.0.160).
export GPUCTL_SANDBOX_NET=127.0.160
source "$(dirname "$0")/lib/cluster.sh"
command -v python3 >/dev/null || skip "python3 missing (reads verify --json)"
start_cluster -n 3 --gpus 8 --model H100 --head
g() { "$GPUCTL" "$@" --no-progress; }
on() { "$SANDBOX_CMD" ssh "$@"; }
source "$GPUCTL_SOURCE_DIR/tests/sandbox/lib/repo.sh" 2>/dev/null || true
DRIVER_550=${DRIVER_550:-550.127.08}

echo "--- converge on driver 535"
expect_rc 0 g apply "$INVENTORY" --yes
for attempt in $(seq 1 10); do
  idle=$(on head01 sinfo -N -h -o "'%N %t'" 2>/dev/null | grep -c ' idle$')
  [[ $idle == 3 ]] && break
  sleep 3
done
[[ $idle == 3 ]] || die "the three nodes are not idle in Slurm after converging:\n$(on head01 sinfo -N)"

echo "--- a job on node01, an admin's drain on node03"
on head01 "sbatch -w node01 -o /dev/null --wrap 'sleep 40; date +%s > /var/tmp/e2e-job-end'" >/dev/null ||
  die "sbatch failed on head01"
for attempt in $(seq 1 20); do
  state=$(on head01 squeue -h -w node01 -o "'%t'" 2>/dev/null)
  [[ $state == R ]] && break
  sleep 1
done
[[ $state == R ]] || die "the job does not run on node01:\n$(on head01 squeue)"
on head01 "scontrol update nodename=node03 state=drain reason='admin: bad fan'" || die "cannot drain node03"

echo "--- the inventory moves to 550; the rolling upgrade"
sed -i -e 's/driver_branch: "535"/driver_branch: "550"/' \
  -e "s/driver_version: \"[0-9.]*\"/driver_version: \"$DRIVER_550\"/" "$INVENTORY"
grep -q "driver_version: \"$DRIVER_550\"" "$INVENTORY" || die "could not edit the inventory's driver"
expect_rc 0 g apply "$INVENTORY" --playbook driver-upgrade --playbook gpu-node --limit 'node[01-03]' \
  --yes --batch-size 1 --drain-timeout 300
upgrade_output=$OUTPUT
expect_output 'node01.*drained in Slurm \(reason "gpuctl run: [a-z-]+"\); waiting for its jobs' "node01 was drained"
expect_output 'node01.*verified: resumed in Slurm' "node01 was resumed"
expect_output 'node03.*already drained by someone else \(reason: admin: bad fan\)' "node03 was left to its admin"
if grep -q 'node03.*resumed' <<<"$upgrade_output"; then die "node03 was resumed:\n$upgrade_output"; fi

echo "--- node01 rebooted onto 550 only after its job ended"
job_end=$(on node01 cat /var/tmp/e2e-job-end) || die "the job wrote no end time on node01"
boot=$(on node01 "date -d \"\$(ps -o lstart= -p 1)\" +%s") || die "cannot read node01's boot time"
[[ $boot -ge $job_end ]] || die "node01 booted at $boot, before its job ended at $job_end"

echo "--- every node runs 550; Slurm: node01, node02 idle, node03 still drained by its admin"
json=$(g verify "$INVENTORY" --limit 'node[01-03]' --json 2>/dev/null)
python3 - "$json" <<'PY' || die "verify after the upgrade:\n$json"
import json, sys
nodes = {n["node"]: {c["check"]: c for c in n["checks"]} for n in json.loads(sys.argv[1])["nodes"]}
assert sorted(nodes) == ["node01", "node02", "node03"], nodes.keys()
for name, checks in nodes.items():
    assert checks["driver_version"]["status"] == "pass", (name, checks["driver_version"])
    assert "550" in checks["driver_version"]["observed"], (name, checks["driver_version"])
    bad = [c for c in checks.values() if c["status"] != "pass" and c["check"] != "slurmd_registered"]
    assert not bad, (name, bad)
assert nodes["node01"]["slurmd_registered"]["status"] == "pass", nodes["node01"]["slurmd_registered"]
assert nodes["node02"]["slurmd_registered"]["status"] == "pass", nodes["node02"]["slurmd_registered"]
assert "admin: bad fan" in nodes["node03"]["slurmd_registered"]["detail"], nodes["node03"]["slurmd_registered"]
PY
sinfo=$(on head01 sinfo -N -h -o "'%N %t'")
grep -qx 'node01 idle' <<<"$sinfo" || die "node01 is not idle:\n$sinfo"
grep -qx 'node02 idle' <<<"$sinfo" || die "node02 is not idle:\n$sinfo"
grep -Eqx 'node03 drain(ed)?' <<<"$sinfo" || die "node03 is not drained:\n$sinfo"
on head01 scontrol show node node03 | grep -q 'Reason=admin: bad fan' || die "node03 lost its admin's reason"

echo "--- history lists the driver step of each node"
expect_rc 0 "$GPUCTL" history --json
python3 - "$OUTPUT" "$job_end" <<'PY' || die "history is wrong:\n$OUTPUT"
import datetime, json, sys
runs = json.loads(sys.argv[1])["runs"]
upgrade = runs[1] if runs[0]["command"] == "verify" else runs[0]
assert upgrade["command"] == "apply" and upgrade["status"] == "ok", upgrade
steps = upgrade.get("steps") or [s for n in upgrade.get("nodes", []) for s in n.get("steps", [])]
driver = {s["node"] for s in steps if s["step"] == "driver" and s["status"] == "changed"}
assert driver == {"node01", "node02", "node03"}, steps
# node01's driver step started only after its job ended (to the second).
started = [s["started"] for s in steps if s["node"] == "node01" and s["step"] == "driver"][0]
when = datetime.datetime.fromisoformat(started.replace("Z", "+00:00")).timestamp()
assert when >= int(sys.argv[2]) - 1, (started, sys.argv[2])
PY
echo "PASS"
