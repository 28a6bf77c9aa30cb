#!/usr/bin/env bash
# A node set up the way NVIDIA documents it (issue #18): the cuda-keyring package's list names the
# CUDA repository with its own Signed-By. gpuctl's own list beside it would break apt-get update
# ("Conflicting values set for option Signed-By"); with repository.existing: adopt (the default)
# gpuctl keeps NVIDIA's list and converges the node, and with replace it removes that list and
# writes its own. The sandbox's repository stands in for NVIDIA's (same layout, its own key).
# e2e-lock: sandbox-127.0.100 (the default sandbox network: converge, cuda_keyring, debian_nonfree)
source "$(dirname "$0")/lib/cluster.sh"
start_cluster -n 2 --gpus 1 --model H100
g() { "$GPUCTL" "$@" --no-progress; }
KEYRING_LIST=/etc/apt/sources.list.d/cuda-debian12-x86_64.list   # the profile's keyring_list
apt_update() { "$SANDBOX_CMD" ssh "$1" 'apt-get update 2>&1; echo "exit status: $?"'; }

echo "--- node01 and node02 set up as NVIDIA documents: the keyring and its list"
for n in node01 node02; do
  "$SANDBOX_CMD" ssh "$n" "set -e
    curl -fsSL file:///srv/gpuctl-sandbox/cuda/gpuctl-sandbox-cuda.pub | gpg --dearmor -o /usr/share/keyrings/cuda-archive-keyring.gpg
    echo 'deb [signed-by=/usr/share/keyrings/cuda-archive-keyring.gpg] file:/srv/gpuctl-sandbox/cuda/ /' > $KEYRING_LIST" ||
    die "could not set up $n like cuda-keyring"
done
out=$(apt_update node01)
grep -q 'exit status: 0' <<<"$out" || die "the keyring setup alone does not update:\n$out"

echo "--- what gpuctl's own list would do beside it (the failure adopt avoids)"
out=$("$SANDBOX_CMD" ssh node02 "cp $KEYRING_LIST /tmp/keep.list
  curl -fsSL -o /etc/apt/keyrings/probe.asc file:///srv/gpuctl-sandbox/cuda/gpuctl-sandbox-cuda.pub
  echo 'deb [signed-by=/etc/apt/keyrings/probe.asc] file:/srv/gpuctl-sandbox/cuda/ /' > /etc/apt/sources.list.d/probe.list
  apt-get update 2>&1; echo \"exit status: \$?\"; rm -f /etc/apt/sources.list.d/probe.list /etc/apt/keyrings/probe.asc")
grep -q 'Conflicting values set for option Signed-By' <<<"$out" || die "no Signed-By conflict to avoid:\n$out"

echo "--- adopt (the default): the plan writes no list and downloads no key of gpuctl's"
expect_rc 2 g plan "$INVENTORY" --limit node01 --detailed-exitcode
grep -q 'gpuctl-cuda.list\|curl -fsSL' <<<"$OUTPUT" && die "adopt still plans gpuctl's list or key:\n$OUTPUT"
expect_output 'create /etc/apt/preferences.d/gpuctl-cuda.pref' "the pin still applies to the adopted repository"
expect_rc 0 g apply "$INVENTORY" --limit node01 --yes
out=$(apt_update node01)
grep -q 'exit status: 0' <<<"$out" && ! grep -q Conflicting <<<"$out" || die "apt-get update broke on node01:\n$out"
"$SANDBOX_CMD" ssh node01 test -e "$KEYRING_LIST" || die "adopt removed NVIDIA's list"
"$SANDBOX_CMD" ssh node01 "dpkg-query -W -f='\${Version}' nvidia-open" | grep -q '^535\.183\.01-1$' ||
  die "node01 did not get the driver from the adopted repository"
expect_rc 0 g plan "$INVENTORY" --limit node01 --detailed-exitcode

echo "--- adopt also removes a list gpuctl wrote before cuda-keyring came"
"$SANDBOX_CMD" ssh node01 "echo 'deb [signed-by=/etc/apt/keyrings/gpuctl-cuda.asc] file:/srv/gpuctl-sandbox/cuda/ /' > /etc/apt/sources.list.d/gpuctl-cuda.list"
expect_rc 2 g plan "$INVENTORY" --limit node01 --detailed-exitcode
expect_output "run \`rm -f -- /etc/apt/sources.list.d/gpuctl-cuda.list\`"
expect_rc 0 g apply "$INVENTORY" --limit node01 --yes
out=$(apt_update node01)
grep -q 'exit status: 0' <<<"$out" || die "apt-get update still fails on node01:\n$out"

echo "--- replace: NVIDIA's list goes, gpuctl's own list and key take its place"
sed -i 's/^      pin_priority: 600$/      pin_priority: 600\n      existing: replace/' "$INVENTORY"
grep -q 'existing: replace' "$INVENTORY" || die "could not edit the inventory"
expect_rc 2 g plan "$INVENTORY" --limit node02 --detailed-exitcode
expect_output "run \`rm -f -- '?$KEYRING_LIST'?\`"
expect_output 'create /etc/apt/sources.list.d/gpuctl-cuda.list'
expect_rc 0 g apply "$INVENTORY" --limit node02 --yes
"$SANDBOX_CMD" ssh node02 test -e "$KEYRING_LIST" && die "replace kept NVIDIA's list"
out=$(apt_update node02)
grep -q 'exit status: 0' <<<"$out" || die "apt-get update fails on node02:\n$out"
expect_rc 0 g plan "$INVENTORY" --limit node02 --detailed-exitcode
echo "PASS"
