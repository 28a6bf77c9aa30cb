#!/usr/bin/env bash
# Day-two workflows on two sandbox nodes: a GPU board swap (replace-gpu names the slot and
# both serials, resets ECC, converges, verifies, history shows the swap) and a re-imaged
# node (reimage refuses a changed host key unless asked, replaces only that node's
# known_hosts entry, converges and verifies).
export GPUCTL_SANDBOX_NET=${GPUCTL_SANDBOX_NET:-127.0.170}
source "$(dirname "$0")/lib/cluster.sh"
command -v jq >/dev/null || skip "jq missing"
start_cluster -n 2 --gpus 2 --model H200
g() { "$GPUCTL" "$@" --no-progress; }

echo "--- replace-gpu before any facts were recorded tells to run verify first"
expect_rc 1 g replace-gpu "$INVENTORY" node02 --yes
expect_output 'no facts of node02 are recorded'
expect_output 'gpuctl verify'

echo "--- converge and verify (records the original serials)"
expect_rc 0 g apply "$INVENTORY" --yes
expect_rc 0 g verify "$INVENTORY"
old_serial=$("$GPUCTL" facts "$INVENTORY" --limit node02 --json | jq -r '.nodes[0].gpus[0].serial')
[[ -n $old_serial && $old_serial != null ]] || die "no serial for node02 GPU 0"

echo "--- replace-gpu without --yes and without a terminal is refused"
expect_rc 2 g replace-gpu "$INVENTORY" node02 </dev/null
expect_output 'pass --yes'

echo "--- with no swap, replace-gpu finds no replaced card"
expect_rc 3 g replace-gpu "$INVENTORY" node02 --yes
expect_output 'no replaced card found'

echo "--- a board swap: replace-gpu names slot 0 and both serials, then verifies"
"$SANDBOX_CMD" fault node02 gpu-replaced 0 || die "cannot inject gpu-replaced"
# The new card arrives with ECC counts from its previous life (what replace-gpu must clear).
d2=$GPUCTL_SANDBOX_DIR/nodes/node02
uuid0=$(sed -n 's/^0\.uuid=//p' "$d2/hw/gpus.conf" | head -n1)
{ grep -v "^$uuid0\.\(vol\|agg\)_unc=" "$d2/gpustate/gpus.state"; echo "$uuid0.vol_unc=4"; echo "$uuid0.agg_unc=4"; } \
  > "$d2/gpustate/gpus.state.tmp" && mv "$d2/gpustate/gpus.state.tmp" "$d2/gpustate/gpus.state"
expect_rc 3 g verify "$INVENTORY" --limit node02
expect_output 'ecc_errors'
new_serial=$("$GPUCTL" facts "$INVENTORY" --limit node02 --json | jq -r '.nodes[0].gpus[0].serial')
[[ $new_serial != "$old_serial" ]] || die "gpu-replaced did not change the serial"
echo "--- DCGM's level-2 diagnostic runs on the new card alone, and a failing one fails replace-gpu (issue #19)"
# inforom SLOT [corrupt]: what `sandbox fault node02 dcgm-diag SLOT` sets, without healing the swap.
inforom() { { grep -v "^$1\.inforom=" "$d2/hw/gpus.conf"; [[ -z ${2:-} ]] || echo "$1.inforom=$2"; } > "$d2/hw/gpus.conf.tmp" &&
  mv "$d2/hw/gpus.conf.tmp" "$d2/hw/gpus.conf"; }
new_uuid=$("$GPUCTL" facts "$INVENTORY" --limit node02 --json | jq -r '.nodes[0].gpus[0].uuid')
inforom 0 corrupt
rc=0; failed_run=$("$GPUCTL" replace-gpu "$INVENTORY" node02 --yes --json --no-progress 2>/dev/null) || rc=$?
[[ $rc == 3 ]] || die "replace-gpu with a card failing DCGM's diagnostic exited $rc, not 3:\n$failed_run"
diag=$(jq -r '.verify.failed_checks[] | select(.name == "dcgm_diag") | "\(.observed) | \(.expected)"' <<<"$failed_run")
[[ $diag == "level 2: 3 tests, 1 failed: software on GPU 0 (Inforom: A corrupt InfoROM"*" | level 2: every test passes on DCGM GPU 0 ($new_uuid)" ]] ||
  die "replace-gpu did not fail DCGM's level-2 diagnostic on the new card alone:\n$diag\n$failed_run"
inforom 0
inforom 1 corrupt   # an old card's InfoROM: not the new card's diagnostic's business
expect_rc 0 "$GPUCTL" replace-gpu "$INVENTORY" node02 --yes --json --no-progress
report=$OUTPUT
inforom 1
[[ $(jq -r .status <<<"$report") =~ ^(ok|changed)$ ]] || die "status not ok:\n$report"
[[ $(jq -r '.changes | length' <<<"$report") == 1 ]] || die "expected one changed card:\n$report"
[[ $(jq -r '.changes[0].slot' <<<"$report") == 0 ]] || die "wrong slot:\n$report"
[[ $(jq -r '.changes[0].old_serial' <<<"$report") == "$old_serial" ]] || die "old serial missing:\n$report"
[[ $(jq -r '.changes[0].new_serial' <<<"$report") == "$new_serial" ]] || die "new serial missing:\n$report"
[[ $(jq -r '.changes[0].pci_bus_id' <<<"$report") =~ ^[0-9A-Fa-f]+:[0-9A-Fa-f]+:[0-9A-Fa-f]+\.[0-9]$ ]] ||
  die "no PCI bus id:\n$report"
[[ $(jq -r '.ecc_reset_slots | join(",")' <<<"$report") == 0 ]] || die "ECC not reset on slot 0:\n$report"
[[ $(jq -r .gpus.nvidia_smi <<<"$report") == 2 ]] || die "GPU count not checked:\n$report"
[[ $(jq -r .verify.status <<<"$report") == ok ]] || die "verify did not pass:\n$report"

echo "--- verify passes (the ECC counters were reset)"
expect_rc 0 g verify "$INVENTORY" --limit node02

echo "--- history shows the swap in slot 0"
expect_rc 0 "$GPUCTL" history --node node02
expect_output "replace-gpu"
expect_output "^ +0  $old_serial "
expect_output "^ +0  $new_serial "
expect_rc 0 "$GPUCTL" history --node node02 --json
[[ $(jq -r '[.gpu_slots[] | select(.slot == 0) | .serial] | join(" ")' <<<"$OUTPUT") == "$old_serial $new_serial" ]] ||
  die "slot 0 history is not $old_serial then $new_serial:\n$OUTPUT"

echo "--- reimage: the wiped node converges and verifies"
"$SANDBOX_CMD" reimage node01 || die "cannot reimage node01"
expect_rc 3 g verify "$INVENTORY" --limit node01
expect_rc 0 g reimage "$INVENTORY" node01 --yes
expect_output 'node01: host key known'
expect_output 'node01: changed'
expect_rc 0 g verify "$INVENTORY" --limit node01

echo "--- reimage with a changed host key: refused, then replaced for that node only"
other=$WORK/other_known_hosts
addr1=$(cat "$GPUCTL_SANDBOX_DIR/nodes/node01/address")
ssh-keygen -q -t ed25519 -N '' -f "$WORK/fake_key"
{ grep -v "^$addr1 " "$GPUCTL_SANDBOX_DIR/known_hosts"; echo "$addr1 $(cut -d' ' -f1,2 "$WORK/fake_key.pub")"; } > "$other"
node02_line=$(grep -v "^$addr1 " "$other")
sed "s|known_hosts: .*|known_hosts: $other|" "$INVENTORY" > "$WORK/inventory-other.yaml"
expect_rc 4 g reimage "$WORK/inventory-other.yaml" node01 --yes
expect_output 'host key CHANGED'
expect_output 'accept-new-host-key'
expect_rc 0 g reimage "$WORK/inventory-other.yaml" node01 --yes --accept-new-host-key
expect_output 'replaced in known_hosts'
[[ $(grep -v "^$addr1 " "$other") == "$node02_line" ]] || die "other nodes' known_hosts lines changed"
grep -q "^$addr1 $(cut -d' ' -f1,2 "$GPUCTL_SANDBOX_DIR/nodes/node01/hostkeys/ssh_host_ed25519_key.pub")" "$other" ||
  die "node01's real key is not pinned:\n$(cat "$other")"
echo PASS
