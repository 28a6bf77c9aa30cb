#!/usr/bin/env bash
# `gpuctl facts --connection local` on this host, with and without an inventory: the real
# binary, the real probe script under /bin/sh. Read-only; starts nothing.
set -euo pipefail
: "${GPUCTL:?GPUCTL must point at the gpuctl binary}"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }

# Without inventory: one node named after this host, JSON with format_version.
"$GPUCTL" facts --connection local --json >"$work/local.json" || fail "facts --connection local exited $?"
python3 - "$work/local.json" "$(hostname)" "$(uname -r)" <<'PY' || fail "JSON does not match this host"
import json, sys
report = json.load(open(sys.argv[1]))
assert report["format_version"] == 1, report
[node] = report["nodes"]
assert node["node"] == sys.argv[2], node["node"]
assert node["kernel"] == sys.argv[3], node["kernel"]
assert isinstance(node["uptime_s"], float)
boot_id = open("/proc/sys/kernel/random/boot_id").read().strip()
assert node["boot_id"] == boot_id, node["boot_id"]
for key in ("os", "loaded_modules", "driver_version", "cuda_version", "nccl_version", "gpus", "packages"):
    assert key in node, key
    value = node[key]
    if isinstance(value, dict) and "absent" in value:
        assert value["absent"], key + ": absent without a reason"
PY

# Human output names the node and says why GPUs are absent when there is no nvidia-smi.
"$GPUCTL" facts --connection local >"$work/local.txt" || fail "human facts exited $?"
grep -q "^$(hostname): .*kernel $(uname -r)" "$work/local.txt" || fail "no summary line: $(cat "$work/local.txt")"
if ! command -v nvidia-smi >/dev/null && [ ! -x /usr/local/nvidia/bin/nvidia-smi ]; then
  grep -q "GPUs: absent (nvidia-smi: command not found" "$work/local.txt" || fail "GPUs not absent: $(cat "$work/local.txt")"
fi

# With an inventory: two local nodes, --limit selects one of them.
cat >"$work/cluster.yaml" <<'YAML'
cluster:
  name: e2e
defaults:
  connection: local
hosts:
  alpha: {}
  beta: {}
YAML
"$GPUCTL" facts "$work/cluster.yaml" --json >"$work/two.json" || fail "facts on inventory exited $?"
python3 -c 'import json,sys; r=json.load(open(sys.argv[1])); assert [n["node"] for n in r["nodes"]]==["alpha","beta"], r' "$work/two.json" \
  || fail "inventory nodes not both reported"
"$GPUCTL" facts "$work/cluster.yaml" --limit beta --json >"$work/one.json" || fail "--limit exited $?"
python3 -c 'import json,sys; r=json.load(open(sys.argv[1])); assert [n["node"] for n in r["nodes"]]==["beta"], r' "$work/one.json" \
  || fail "--limit beta did not select only beta"

# Usage errors: no inventory without --connection local; an unknown --limit name.
set +e
"$GPUCTL" facts >/dev/null 2>&1; rc=$?
[ "$rc" -eq 2 ] || fail "facts without inventory: exit $rc, expected 2"
"$GPUCTL" facts "$work/cluster.yaml" --limit gamma >/dev/null 2>&1; rc=$?
[ "$rc" -eq 2 ] || fail "unknown --limit: exit $rc, expected 2"
echo "PASS"
