#!/usr/bin/env bash
# GPU serial history per slot from facts snapshots, on a sandbox node over real SSH: apply
# (recorded step by step) installs the driver, so nvidia-smi answers; verify records the cards; after the sandbox swaps the card in slot 0 (gpu-replaced) the
# next verify starts a new tenure in that slot, and healing brings the first card back as a
# third one. `history --node` and `show` report it.
export GPUCTL_SANDBOX_NET=${GPUCTL_SANDBOX_NET:-127.0.140}
source "$(dirname "$0")/lib/cluster.sh"
start_cluster -n 1 --gpus 2 --model H200
verify() { expect_rc 0 "$GPUCTL" verify "$INVENTORY" --no-progress; }

expect_rc 0 "$GPUCTL" apply "$INVENTORY" --yes --no-progress
verify
"$SANDBOX_CMD" fault node01 gpu-replaced 0 >/dev/null || die "cannot inject gpu-replaced"
# The new card is not set up yet (persistence mode): this verify may fail; its facts still count.
"$GPUCTL" verify "$INVENTORY" --no-progress >/dev/null 2>&1
rc=$?
[[ $rc == 0 || $rc == 3 ]] || die "verify after the swap exited $rc"
"$SANDBOX_CMD" heal node01 >/dev/null || die "cannot heal node01"
verify

expect_rc 0 "$GPUCTL" history --node node01 --json
python3 - "$OUTPUT" <<'PY' || die "GPU slot history is wrong:\n$OUTPUT"
import json, sys
history = json.loads(sys.argv[1])
runs = history["runs"]
assert [(r["command"], r["status"]) for r in runs][::2] == [("verify", "ok"), ("verify", "ok")], runs
assert runs[1]["command"] == "verify" and runs[3]["command"] == "apply" and runs[3]["status"] == "ok", runs
steps = runs[3]["steps"]
assert steps and all(s["node"] == "node01" and s["status"] in ("ok", "changed") for s in steps), steps
assert any(s["step"] == "driver" and s["status"] == "changed" for s in steps), steps
slots = history["gpu_slots"]
slot0 = [s for s in slots if s["slot"] == 0]
slot1 = [s for s in slots if s["slot"] == 1]
assert len(slot0) == 3 and len(slot1) == 1, slots
first, swapped, back = slot0
assert first["serial"] and swapped["serial"] != first["serial"], slot0
assert swapped["uuid"] != first["uuid"], slot0
assert back["serial"] == first["serial"] and back["uuid"] == first["uuid"], slot0
assert all(s["pci_bus_id"] == first["pci_bus_id"] for s in slot0), slot0
PY
expect_rc 0 "$GPUCTL" history --node node01
expect_output 'GPU serials per slot on node01' "the text history has the slot table"
echo "$OUTPUT"
run=$("$GPUCTL" history --json --limit-runs 1 | python3 -c 'import json,sys; print(json.load(sys.stdin)["runs"][0]["id"])')
expect_rc 0 "$GPUCTL" show "$run" --json
python3 -c '
import json, sys
run = json.loads(sys.argv[1])
[facts] = run["facts"]
assert facts["node"] == "node01" and len(facts["facts"]["gpus"]) == 2, facts
' "$OUTPUT" || die "show has no facts snapshot:\n$OUTPUT"
echo "state_gpu_history: ok"
