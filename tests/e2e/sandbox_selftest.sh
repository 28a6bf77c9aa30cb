#!/usr/bin/env bash
# Self-test of the sandbox cluster (issue 3): driver install and boot semantics, nvidia-smi in
# the real formats, version mismatch after an upgrade, every fault kind and its heal, reimage,
# and `down` leaving no process or mount. Runs its own sandbox (own state dir and addresses), so
# a developer's sandbox is left alone. Exit 77 (skipped) when it cannot run here.
set -uo pipefail
SRC=${GPUCTL_SOURCE_DIR:-$(cd "$(dirname "$0")/../.." && pwd)}
SB=$SRC/tests/sandbox/sandbox
export GPUCTL_SANDBOX_DIR=${SELFTEST_STATE:-/var/lib/gpuctl-sandbox-selftest}
export GPUCTL_SANDBOX_NET=127.0.110

skip() { echo "SKIPPED: sandbox self-test cannot run: $*" >&2; exit 77; }
[[ $EUID -eq 0 ]] || skip "needs root (systemd-nspawn, overlay mounts)"
for t in systemd-nspawn mmdebstrap dpkg-scanpackages gpg g++ ssh ssh-keygen nsenter; do
  command -v "$t" >/dev/null || skip "'$t' missing (run scripts/install-deps)"
done
[[ -w /sys/fs/cgroup/systemd || -w /sys/fs/cgroup/unified || -w /sys/fs/cgroup/cgroup.procs ]] || skip "no writable cgroup hierarchy"

passed=0 failed=0
ok() { echo "ok   - $*"; passed=$((passed + 1)); }
bad() { echo "FAIL - $*"; failed=$((failed + 1)); }
check() { local what=$1; shift; if "$@"; then ok "$what"; else bad "$what"; fi; }
contains() { [[ $1 == *"$2"* ]]; }
S() { "$SB" "$@"; }
# Plain ssh as the brief promises it works (strict host key checking, generated known_hosts).
node_ssh() { local a=$1; shift; ssh -o BatchMode=yes -o StrictHostKeyChecking=yes -o ConnectTimeout=3 -o LogLevel=ERROR \
  -o UserKnownHostsFile="$GPUCTL_SANDBOX_DIR/known_hosts" -i "$GPUCTL_SANDBOX_DIR/id_ed25519" "root@$a" "$@"; }
N1=127.0.110.1 N2=127.0.110.2
boot_id() { node_ssh "$1" cat /proc/sys/kernel/random/boot_id 2>/dev/null; }
wait_ssh() { local i; for ((i = 0; i < ${2:-60} * 2; i++)); do node_ssh "$1" true 2>/dev/null && return 0; sleep 0.5; done; return 1; }
reboot_node() {  # ADDR: reboot, wait until it is back with a new boot_id
  local before; before=$(boot_id "$1")
  node_ssh "$1" systemctl reboot 2>/dev/null
  sleep 1; wait_ssh "$1" 60 || return 1
  [[ $(boot_id "$1") != "$before" ]]
}

cleanup() { S down >/dev/null 2>&1; }
trap cleanup EXIT
S down >/dev/null 2>&1   # a crashed earlier self-test

t0=$SECONDS
if ! S up -n 2 --gpus 2 --model H200 --reboot-delay 1 >"${TMPDIR:-/tmp}/sandbox-selftest-up.log" 2>&1; then
  cat "${TMPDIR:-/tmp}/sandbox-selftest-up.log" >&2
  if grep -qiE 'nspawn|cgroup|overlay|mount' "${TMPDIR:-/tmp}/sandbox-selftest-up.log"; then
    skip "systemd-nspawn/overlayfs unusable on this machine (see log above)"
  fi
  echo "FAIL - sandbox up"; exit 1
fi
ok "up -n 2 in $((SECONDS - t0)) s"
check "plain ssh with strict host key checking reaches node01" node_ssh $N1 true
check "... and node02" node_ssh $N2 true
inv=$GPUCTL_SANDBOX_DIR/inventory.yaml
check "inventory lists both nodes with their addresses" grep -q "node02: {address: $N2, port: 22" "$inv"
check "inventory points at the local CUDA repo and its key" grep -q 'key_url: file:///srv/gpuctl-sandbox/cuda/' "$inv"
check "inventory has strict host key checking and the identity" grep -q "identity_file: $GPUCTL_SANDBOX_DIR/id_ed25519" "$inv"
mapfile -t pids < <(cat "$GPUCTL_SANDBOX_DIR"/nodes/*/supervisor.pid "$GPUCTL_SANDBOX_DIR"/nodes/*/nspawn.pid)

# --- driver install from the signed local repo --------------------------------------------
out=$(node_ssh $N1 'set -e
  curl -fsSL file:///srv/gpuctl-sandbox/cuda/gpuctl-sandbox-cuda.pub | gpg --dearmor -o /usr/share/keyrings/cuda.gpg 2>/dev/null
  echo "deb [signed-by=/usr/share/keyrings/cuda.gpg] file:/srv/gpuctl-sandbox/cuda/ /" > /etc/apt/sources.list.d/cuda.list
  apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq nvidia-kernel-open-dkms=535.183.01-1 nvidia-smi=535.183.01-1 nvidia-open=535.183.01-1 >/dev/null
  dpkg-query -W -f="\${Version}" nvidia-open nvidia-kernel-open-dkms nvidia-smi' 2>/dev/null)
check "nvidia-open 535 (the profile's names) installs from the signed repo ($out)" [ "$out" = 535.183.01-1535.183.01-1535.183.01-1 ]
out=$(node_ssh $N1 nvidia-smi 2>&1); rc=$?
check "before reboot: nvidia-smi fails with rc 9 and the real text" \
  contains "$rc:$out" "9:NVIDIA-SMI has failed because it couldn't communicate with the NVIDIA driver. Make sure that the latest NVIDIA driver is installed and running."

# --- blacklist without update-initramfs: nouveau stays ---------------------------------------
node_ssh $N1 'printf "blacklist nouveau\noptions nouveau modeset=0\n" > /etc/modprobe.d/blacklist-nouveau.conf'
check "reboot drops the connection and comes back with a new boot_id" reboot_node $N1
out=$(node_ssh $N1 'lsmod; nvidia-smi; echo rc=$?' 2>&1)
check "blacklist without update-initramfs: nouveau still loaded" contains "$out" $'\nnouveau '
check "... and nvidia-smi still fails (rc 9)" contains "$out" "rc=9"

# --- blacklist + update-initramfs + reboot: the GPUs appear --------------------------------
node_ssh $N1 'update-initramfs -u >/dev/null'
check "reboot after update-initramfs" reboot_node $N1
out=$(node_ssh $N1 lsmod 2>&1)
nv_loaded() { grep -q '^nvidia ' <<<"$out" && ! grep -q nouveau <<<"$out"; }
check "nvidia loaded, nouveau not" nv_loaded
out=$(node_ssh $N1 nvidia-smi -L 2>&1)
check "nvidia-smi -L lists 2 H200s" eval '[[ $(grep -cE "^GPU [01]: NVIDIA H200 \(UUID: GPU-[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}\)$" <<<"$out") == 2 ]]'
out=$(node_ssh $N1 nvidia-smi --query-gpu=index,name,pci.bus_id,memory.total,driver_version,power.draw --format=csv 2>&1)
check "--query-gpu csv header in the real format" eval '[[ $(head -1 <<<"$out") == "index, name, pci.bus_id, memory.total [MiB], driver_version, power.draw [W]" ]]'
check "--query-gpu csv values with units" eval '[[ $(sed -n 2p <<<"$out") =~ ^0,\ NVIDIA\ H200,\ 00000000:18:00.0,\ 143771\ MiB,\ 535.183.01,\ [0-9]+\.[0-9]{2}\ W$ ]]'
out=$(node_ssh $N1 nvidia-smi --query-gpu=index,memory.total,ecc.errors.uncorrected.volatile.total --format=csv,noheader,nounits 2>&1)
check "noheader,nounits" [ "$out" = $'0, 143771, 0\n1, 143771, 0' ]
out=$(node_ssh $N1 nvidia-smi --query-gpu=bogus.field --format=csv 2>&1); rc=$?
check "invalid field: real text, rc 2" [ "$rc:$out" = '2:Field "bogus.field" is not a valid field to query.' ]
out=$(node_ssh $N1 nvidia-smi -i 7 -q 2>&1); rc=$?
check "missing device: 'No devices were found', rc 6" [ "$rc:$out" = "6:No devices were found" ]
out=$(node_ssh $N1 'nvidia-smi -q -x | head -3; nvidia-smi -q | grep -c "^GPU 0000"; cat /proc/driver/nvidia/version' 2>&1)
views_agree() { grep -q '<!DOCTYPE nvidia_smi_log' <<<"$out" && grep -qx 2 <<<"$out" && grep -q 'Open Kernel Module for x86_64  535.183.01' <<<"$out"; }
check "-q -x, -q and /proc/driver/nvidia/version agree (the open flavour installed)" views_agree
out=$(node_ssh $N1 'nvidia-smi -pm 1 -i 0 && nvidia-smi --query-gpu=persistence_mode --format=csv,noheader' 2>&1)
pm_set() { grep -q 'All done.' <<<"$out" && [ "$(tail -2 <<<"$out")" = $'Enabled\nDisabled' ]; }
check "-pm 1 changes persistence mode" pm_set

# --- driver upgrade without reboot: version mismatch ----------------------------------------
node_ssh $N1 'DEBIAN_FRONTEND=noninteractive apt-get install -y -qq nvidia-kernel-open-dkms=550.127.08-1 nvidia-smi=550.127.08-1 nvidia-open=550.127.08-1 >/dev/null 2>&1'
out=$(node_ssh $N1 nvidia-smi 2>&1); rc=$?
check "upgrade 535->550 without reboot: version mismatch, rc 18" contains "$rc:$out" "18:Failed to initialize NVML: Driver/library version mismatch"
check "reboot after the upgrade" reboot_node $N1
out=$(node_ssh $N1 nvidia-smi --query-gpu=driver_version --format=csv,noheader 2>&1)
check "after reboot the 550 driver answers" [ "$out" = $'550.127.08\n550.127.08' ]

# --- faults ---------------------------------------------------------------------------------
q() { node_ssh $N1 nvidia-smi --query-gpu="$1" --format=csv,noheader,nounits 2>&1; }
uuid0=$(q uuid | head -1)
S fault node01 ecc 2>/dev/null
check "fault ecc: uncorrectable volatile errors on GPU 0" [ "$(q ecc.errors.uncorrected.volatile.total)" = $'4\n0' ]
S heal node01 2>/dev/null
check "heal ecc" [ "$(q ecc.errors.uncorrected.volatile.total)" = $'0\n0' ]
S fault node01 gpu-missing 2>/dev/null
check "fault gpu-missing: one GPU left" [ "$(node_ssh $N1 nvidia-smi -L | wc -l)" = 1 ]
S heal node01 2>/dev/null
check "heal gpu-missing" [ "$(node_ssh $N1 nvidia-smi -L | wc -l)" = 2 ]
S fault node01 ecc 2>/dev/null; S fault node01 gpu-replaced 0 2>/dev/null
check "fault gpu-replaced: new UUID in slot 0, its ECC counters gone" \
  eval '[[ $(q uuid | head -1) != "$uuid0" && $(q ecc.errors.uncorrected.aggregate.total | head -1) == 0 ]]'
S heal node01 2>/dev/null
check "heal gpu-replaced" [ "$(q uuid | head -1)" = "$uuid0" ]

S fault node02 unreachable 2>/dev/null
check "fault unreachable: ssh fails" eval '! node_ssh $N2 true 2>/dev/null'
S heal node02 2>/dev/null
check "heal unreachable" wait_ssh $N2 10

S fault node02 hang 2>/dev/null
banner=$(timeout 6 bash -c "exec 3<>/dev/tcp/$N2/22 && echo connected && timeout 3 head -c 8 <&3" 2>/dev/null)
check "fault hang: TCP accepted, no SSH banner" [ "$banner" = connected ]
S heal node02 2>/dev/null
banner=$(timeout 6 bash -c "exec 3<>/dev/tcp/$N2/22 && timeout 3 head -c 8 <&3" 2>/dev/null)
check "heal hang: banner again" [ "$banner" = SSH-2.0- ]

S fault node02 disk-full 2>/dev/null
out=$(node_ssh $N2 'echo x > /etc/sandbox-probe' 2>&1)
check "fault disk-full: writing /etc fails with ENOSPC" contains "$out" "No space left on device"
S heal node02 2>/dev/null
check "heal disk-full" node_ssh $N2 'echo x > /etc/sandbox-probe && rm /etc/sandbox-probe'

S fault node01 dpkg-locked 2>/dev/null
out=$(node_ssh $N1 'DEBIAN_FRONTEND=noninteractive apt-get install -y -qq cuda-toolkit-12-4' 2>&1)
check "fault dpkg-locked: apt cannot get the lock" contains "$out" "Could not get lock /var/lib/dpkg/lock-frontend"
S heal node01 2>/dev/null
out=$(node_ssh $N1 'DEBIAN_FRONTEND=noninteractive apt-get install -y -qq cuda-toolkit-12-4 libnccl2 >/dev/null 2>&1 && /usr/local/cuda/bin/nvcc --version | tail -2 | head -1' 2>&1)
check "heal dpkg-locked: cuda-toolkit-12-4 and libnccl2 install" [ "$out" = "Cuda compilation tools, release 12.4, V12.4.131" ]

S fault node01 package-broken 2>/dev/null
out=$(node_ssh $N1 'DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --reinstall nvidia-kernel-open-dkms' 2>&1); rc=$?
check "fault package-broken: driver postinst fails with a clear message" eval '[[ $rc != 0 && $out == *"Bad return status for module build"* ]]'
S heal node01 2>/dev/null
check "heal package-broken: dpkg --configure -a succeeds" node_ssh $N1 'dpkg --configure -a && dpkg-query -W -f="\${Status}" nvidia-kernel-open-dkms | grep -q "ok installed"'

S fault node02 reboot-hang 2>/dev/null
node_ssh $N2 systemctl reboot 2>/dev/null; sleep 5
check "fault reboot-hang: the node does not come back" eval '! node_ssh $N2 true 2>/dev/null && grep -q "node02 .*hung-in-reboot" <<<"$(S status)"'
S heal node02 2>/dev/null
check "heal reboot-hang: the node boots" wait_ssh $N2 60

# --- reimage -----------------------------------------------------------------------------
node_ssh $N2 'touch /root/marker'
S reimage node02 >/dev/null 2>&1
check "reimage wipes the node's disk, keeps its identity" node_ssh $N2 'test ! -e /root/marker'

# --- down leaves nothing ------------------------------------------------------------------
mapfile -t -O "${#pids[@]}" pids < <(cat "$GPUCTL_SANDBOX_DIR"/nodes/*/supervisor.pid "$GPUCTL_SANDBOX_DIR"/nodes/*/nspawn.pid)
S down >/dev/null 2>&1
alive=0; for p in "${pids[@]}"; do kill -0 "$p" 2>/dev/null && alive=$((alive + 1)); done
check "down: no supervisor or container process left" [ "$alive" = 0 ]
check "down: no mount left" eval '! grep -q "$GPUCTL_SANDBOX_DIR" /proc/self/mountinfo'
check "down: no sshd on the sandbox addresses" eval '! (exec 3<>/dev/tcp/$N1/22) 2>/dev/null'
check "down: state dir removed" [ ! -e "$GPUCTL_SANDBOX_DIR" ]

echo "sandbox self-test: $passed passed, $failed failed (in $((SECONDS - t0)) s)"
((failed == 0))
