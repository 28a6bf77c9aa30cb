#!/usr/bin/env bash
# GPU containers (issue #36, docs/containers.md) on one sandbox node with 2 simulated GPUs:
# the inventory opts the gpu group into `containers` (podman, Debian's real one, with runc),
# apply converges it (the toolkit's stand-in packages are built from
# tests/data/containers/toolkit-packages.txt, not the profiles, so a wrong package name in a
# profile fails here); every container check passes, and a container run through CDI
# (--device nvidia.com/gpu=all) sees exactly the node's GPUs. A driver upgrade done outside
# gpuctl makes the CDI spec stale: cdi_spec fails until `apply -p driver-upgrade` regenerates it.
# Its own network and state directory, stopped on exit.
export GPUCTL_SANDBOX_NET=127.0.200
source "$(dirname "$0")/lib/cluster.sh"
export GPUCTL_SANDBOX_DIR=/var/lib/gpuctl-sandbox-wt36
command -v jq >/dev/null || skip "jq missing"
command -v python3 >/dev/null || skip "python3 missing"
start_cluster -n 1 --gpus 2 --model H100
g() { "$GPUCTL" "$@" --no-progress; }
on() { "$SANDBOX_CMD" ssh node01 "$1"; }
checks() {  # the container checks of verify, "check status observed detail" per line
  g verify "$INVENTORY" --json | jq -r '.nodes[0].checks[] | select(.check | test("^(container_toolkit|cdi_spec|container_runtime|dev_char_symlinks|container_gpu)$")) | "\(.check) \(.status) \(.observed) \(.detail)"'
}
t0=$SECONDS

python3 - "$INVENTORY" <<'PY'
import sys
path = sys.argv[1]
text = open(path).read()
anchor = "\ndefaults:\n"
assert anchor in text
text = text.replace(anchor, """  containers:
    toolkit_version: "1.17.8"
    repository: {url: "file:/srv/gpuctl-sandbox/cuda/libnvidia-container", key_url: "file:///srv/gpuctl-sandbox/cuda/libnvidia-container/gpgkey"}
""" + anchor, 1)
anchor = "      pdu_capacity_watts:"
assert anchor in text
text = text.replace(anchor, '      containers: {runtime: podman, gpu_test_image: "localhost/gpuctl-gpu-test:1"}\n' + anchor, 1)
open(path, "w").write(text)
PY
expect_rc 0 "$GPUCTL" validate "$INVENTORY"

echo "--- plan: the containers steps with the profile's package names"
expect_rc 2 g plan "$INVENTORY" --detailed-exitcode
for p in podman runc nvidia-container-toolkit-base libnvidia-container1 libnvidia-container-tools nvidia-container-toolkit; do
  expect_output "\+ install $p " "plan installs $p"
done
expect_output 'nvidia-ctk cdi generate --output=/etc/cdi/nvidia.yaml' "plan generates the CDI spec"
expect_output 'create-dev-char-symlinks --create-all' "plan makes the /dev/char links"

echo "--- apply converges the node"
expect_rc 0 g apply "$INVENTORY" --yes
echo "apply: $((SECONDS - t0)) s"

# podman in a systemd-nspawn node (docs/containers.md#in-the-sandbox): vfs storage (no overlay on the
# node's overlayfs), no cgroups (read-only in the node: only crun runs without), no session keyring
# (nspawn's seccomp filter refuses keyctl); container_gpu uses the host's network, as no new network
# namespace can be set up there (no CAP_NET_ADMIN).
on 'mkdir -p /etc/containers && printf "[storage]\ndriver = \"vfs\"\nrunroot = \"/run/containers/storage\"\ngraphroot = \"/var/lib/containers/storage\"\n" > /etc/containers/storage.conf && printf "[engine]\nruntime = \"crun\"\ncgroup_manager = \"cgroupfs\"\nevents_logger = \"file\"\n[containers]\ncgroups = \"disabled\"\nkeyring = false\n" > /etc/containers/containers.conf && DEBIAN_FRONTEND=noninteractive apt-get install -y -q crun >/dev/null' ||
  die "podman's configuration or crun failed on the node"
# The test image: an empty root file system (nvidia-smi and what it reads come in through the spec).
on 'd=$(mktemp -d) && mkdir -p "$d/usr/bin" "$d/etc" "$d/tmp" && tar -C "$d" -cf /root/gpu-test.tar . && podman import /root/gpu-test.tar localhost/gpuctl-gpu-test:1 >/dev/null' ||
  die "podman import failed on the node"

echo "--- every container check passes; the container sees the node's two GPUs"
OUTPUT=$(checks)
echo "$OUTPUT"
for c in container_toolkit cdi_spec container_runtime dev_char_symlinks container_gpu; do
  expect_output "^$c pass " "$c passes"
done
node_uuids=$(on 'nvidia-smi --query-gpu=uuid --format=csv,noheader' | sort | tr '\n' ' ')
ctr_uuids=$(on 'podman run --rm --network=host --device nvidia.com/gpu=all localhost/gpuctl-gpu-test:1 nvidia-smi -L' | grep -o 'GPU-[0-9a-f-]*' | sort | tr '\n' ' ')
[[ -n $node_uuids && $node_uuids == "$ctr_uuids" ]] || die "the container's GPUs ($ctr_uuids) are not the node's ($node_uuids)"

echo "--- a driver upgrade outside gpuctl: the CDI spec goes stale"
boot_before=$(on 'cat /proc/sys/kernel/random/boot_id')
on 'DEBIAN_FRONTEND=noninteractive apt-get install -y -q --allow-change-held-packages nvidia-kernel-open-dkms=550.127.08-1 nvidia-smi=550.127.08-1 nvidia-open=550.127.08-1 >/dev/null && (systemctl reboot >/dev/null 2>&1 &)' ||
  die "the simulated driver upgrade did not install"
for _ in $(seq 120); do
  boot_after=$(on 'cat /proc/sys/kernel/random/boot_id' 2>/dev/null) && [[ $boot_after != "$boot_before" ]] && break
  sleep 0.5
done
[[ ${boot_after:-} && $boot_after != "$boot_before" ]] || die "node01 did not come back from its reboot"
sed -i -e 's/driver_branch: "535"/driver_branch: "550"/' -e 's/driver_version: "535.183.01"/driver_version: "550.127.08"/' "$INVENTORY"
OUTPUT=$(checks)
echo "$OUTPUT"
expect_output '^cdi_spec fail .*stale' "cdi_spec fails on the stale spec"

echo "--- apply -p driver-upgrade regenerates it; the container still sees the node's GPUs"
expect_rc 0 g apply "$INVENTORY" --yes -p driver-upgrade
expect_output 'nvidia-ctk cdi generate' "driver-upgrade regenerates the spec"
OUTPUT=$(checks)
echo "$OUTPUT"
expect_output '^cdi_spec pass ' "cdi_spec passes again"
expect_output '^container_gpu pass ' "container_gpu passes on the new driver"
echo "PASS: containers ($((SECONDS - t0)) s)"
