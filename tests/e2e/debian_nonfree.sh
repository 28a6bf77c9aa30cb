#!/usr/bin/env bash
# Debian 12's own NVIDIA packages, for real (issue #18): with the debian12-distribution profile,
# `gpuctl apply` installs Debian's nvidia-driver 535.309.01, nvidia-kernel-dkms, nvidia-smi and
# the firmware from Debian's archive (the sandbox's local copy of bookworm + bookworm-security,
# main contrib non-free non-free-firmware) on two sandbox nodes; a second plan has no changes;
# verify reports honestly what the real nvidia-smi says without a kernel module, which the
# sandbox cannot give it (only the module's /proc view is simulated).
#
# The persistence step is applied on its own at the end: Debian's real nvidia-persistenced
# cannot start without the kernel module either, and apply must say so, not hide it.
# e2e-lock: sandbox-127.0.100 (the default sandbox network: converge, cuda_keyring, debian_nonfree)
source "$(dirname "$0")/lib/cluster.sh"
command -v jq >/dev/null || skip "jq missing"
start_cluster -n 2 --gpus 2 --model H100
g() { "$GPUCTL" "$@" --no-progress; }
v() { "$GPUCTL" "$@"; }  # commands without a progress view

echo "--- the inventory chooses Debian's profile: driver 535.309.01, proprietary module, no CUDA repository"
sed -i -e 's/driver_version: "[0-9.]*"/driver_version: "535.309.01"/' \
  -e 's/open_kernel_module: true/open_kernel_module: false\n    driver_source: distribution/' \
  -e '/^    cuda: /d' -e '/^    repository:/,/^      pin_priority:/d' \
  -e 's/dcgm_exporter: true/dcgm_exporter: false/' "$INVENTORY"
grep -q 'driver_source: distribution' "$INVENTORY" || die "could not edit the inventory"
grep -q 'repository:' "$INVENTORY" && die "the CUDA repository is still in the inventory:\n$(cat "$INVENTORY")"

echo "--- validate refuses what Debian 12 does not ship"
cp "$INVENTORY" "$WORK/open.yaml"
sed -i 's/open_kernel_module: false/open_kernel_module: true/' "$WORK/open.yaml"
expect_rc 2 v validate "$WORK/open.yaml"
expect_output 'open\.yaml:[0-9]+:[0-9]+: error: package profile debian12-distribution has no driver package for NVIDIA.s open kernel module'
expect_output 'nvidia-open-kernel-dkms' "the error says why (Debian's open module is older than the security update)"
cp "$INVENTORY" "$WORK/dcgm.yaml"
sed -i 's/dcgm_exporter: false/dcgm_exporter: true/' "$WORK/dcgm.yaml"
expect_rc 2 v validate "$WORK/dcgm.yaml"
expect_output 'has no DCGM exporter package'
expect_rc 0 v validate "$INVENTORY"

echo "--- a node of another OS than the profile's is refused, not planned"
cp "$INVENTORY" "$WORK/ubuntu.yaml"
sed -i 's/^  os_family: debian$/  os_family: debian\n  os: ubuntu2204/' "$WORK/ubuntu.yaml"
grep -q '^  os: ubuntu2204' "$WORK/ubuntu.yaml" || die "could not edit the inventory's os"
expect_rc 1 g plan "$WORK/ubuntu.yaml" --limit node01
expect_output "the node runs Debian GNU/Linux 12 \(bookworm\) \(os-release ID=debian VERSION_ID=12\), but the inventory's packages are Ubuntu 22.04's archive NVIDIA packages"
grep -q 'install nvidia-driver-535-server' <<<"$OUTPUT" && die "Ubuntu's packages were planned on a Debian node:\n$OUTPUT"

# Every step of gpu-node but persistence (see the top of this file).
awk '/^  - name: persistence$/ { skip = 1; next } skip && /^  - name: / { skip = 0 } !skip' \
  "$GPUCTL_SOURCE_DIR/playbooks/gpu-node.yaml" > "$WORK/gpu-node-no-persistence.yaml"
grep -q 'name: persistence' "$WORK/gpu-node-no-persistence.yaml" && die "the persistence step is still there"
P=(--playbook "$WORK/gpu-node-no-persistence.yaml")

echo "--- plan names only the profile's packages"
expect_rc 2 g plan "$INVENTORY" "${P[@]}" --detailed-exitcode --expand
expect_output '\+ install nvidia-driver \(none -> 535\.309\.01\), held'
expect_output '\+ install nvidia-kernel-dkms \(none -> 535\.309\.01\), held'
expect_output '\+ install nvidia-smi \(none -> 535\.309\.01\)'
installs=$(grep -oE '\+ install [a-z0-9.+-]+' <<<"$OUTPUT" | awk '{ print $3 }' | sort -u | tr '\n' ' ')
profile=$("$GPUCTL" profiles debian12-distribution --json)
for p in $installs; do
  case $p in munge | slurmd | slurm-client | prometheus-node-exporter) continue ;; esac  # Debian's, not the profile's
  jq -e --arg p "$p" '[.packages[] | .name, .open, .proprietary] | index($p)' <<<"$profile" >/dev/null ||
    die "plan installs $p, which profile debian12-distribution does not name"
done
grep -q 'cuda-repository\|cuda-toolkit\|libnccl2\|gpuctl-cuda' <<<"$OUTPUT" && die "the plan still sets up NVIDIA's repository:\n$OUTPUT"

echo "--- apply installs Debian's real packages"
expect_rc 0 g apply "$INVENTORY" "${P[@]}" --yes
expect_output '2 nodes: 0 ok, 2 changed, 0 failed, 0 unreachable'
for n in node01 node02; do
  pkg=$("$SANDBOX_CMD" ssh "$n" "dpkg-query -W -f='\${Package} \${Version} \${Maintainer}\n' nvidia-driver nvidia-kernel-dkms nvidia-smi firmware-nvidia-gsp")
  grep -q '^nvidia-driver 535.309.01-0+deb12u1 Debian NVIDIA Maintainers' <<<"$pkg" || die "$n: not Debian's nvidia-driver:\n$pkg"
  grep -q '^nvidia-kernel-dkms 535.309.01-0+deb12u1 ' <<<"$pkg" || die "$n: not Debian's kernel module:\n$pkg"
  grep -q '^firmware-nvidia-gsp 535.309.01' <<<"$pkg" || die "$n: no GSP firmware:\n$pkg"
  held=$("$SANDBOX_CMD" ssh "$n" apt-mark showhold | tr '\n' ' ')
  [[ $held == *nvidia-driver* && $held == *nvidia-kernel-dkms* ]] || die "$n: the driver is not held: $held"
  # The module came from the real package's DKMS source (the sandbox only simulates loading it).
  "$SANDBOX_CMD" ssh "$n" test -d /usr/src/nvidia-current-535.309.01 || die "$n: no DKMS source from nvidia-kernel-dkms"
done

echo "--- facts: the driver came from Debian's package (nvidia-smi through its alternatives link)"
origin=$("$GPUCTL" facts "$INVENTORY" --limit node01 --json 2>/dev/null | jq -r '.nodes[0].driver_origin | "\(.kind) \(.package)"')
[[ $origin == "package nvidia-smi" ]] || die "driver origin on node01 reads '$origin', not Debian's nvidia-smi package"

echo "--- a second plan has no changes"
expect_rc 0 g plan "$INVENTORY" "${P[@]}" --detailed-exitcode
expect_output 'Plan: 2 nodes, 0 with changes'

echo "--- verify: the module is loaded at 535.309.01; the real nvidia-smi cannot reach a driver, and says so"
checks=$("$GPUCTL" verify "$INVENTORY" "${P[@]}" --json --no-progress 2>"$WORK/verify.err"); rc=$?
[[ $rc == 3 ]] || die "verify exited $rc, not 3 (failed checks):\n$(cat "$WORK/verify.err")\n$checks"
status() { jq -r --arg c "$1" '.nodes[0].checks[] | select(.check == $c) | .status' <<<"$checks"; }
[[ $(status driver_version) == pass ]] || die "driver_version does not pass: $(jq -c '.nodes[0].checks[] | select(.check == "driver_version")' <<<"$checks")"
[[ $(status nvidia_loaded) == pass ]] || die "nvidia_loaded does not pass"
for c in gpu_count gpu_model ecc_errors; do
  s=$(status "$c")
  [[ $s == fail || $s == error ]] || die "$c reads '$s' although nvidia-smi cannot reach a driver"
done
jq -r '.nodes[0].checks[] | select(.check == "gpu_count") | "\(.observed) \(.detail)"' <<<"$checks" |
  grep -q "couldn't communicate with the NVIDIA driver" || die "gpu_count does not quote nvidia-smi: $(jq -c '.nodes[0].checks[] | select(.check == "gpu_count")' <<<"$checks")"
[[ $(jq '[.nodes[].checks[] | select(.status == "pass" and (.check == "gpu_count" or .check == "ecc_errors"))] | length' <<<"$checks") == 0 ]] ||
  die "a GPU check passes without a GPU it could read"

echo "--- the persistence step: Debian's nvidia-persistenced cannot start without the module, and apply says so"
expect_rc 3 g apply "$INVENTORY" --limit node01 --yes
expect_output 'persistence'
"$SANDBOX_CMD" ssh node01 "dpkg-query -W -f='\${Version}' nvidia-persistenced" | grep -q '^535\.' ||
  die "Debian's nvidia-persistenced is not installed"
"$SANDBOX_CMD" ssh node01 journalctl -u nvidia-persistenced --no-pager | grep -q 'nvidia-persistenced failed to initialize' ||
  die "the real daemon's own message is not in the journal"
echo "PASS"
