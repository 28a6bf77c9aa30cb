#!/bin/bash
# The acceptance run of issue #36 on the real GPU machine, read-only (plan, verify, facts; the
# local transport and real SSH through ../shared/tools/gpu-node-sshd). On this (Debian 12) machine:
#   docs/containers-h200/run.sh pack   (build/devpack: the stripped gpuctl, its libraries and sshd)
# then on the device, with build/devpack carried:
#   OUT=$OUT docs/containers-h200/run.sh
# and copy $OUT's files into docs/containers-h200/.
set -u
cd "$(dirname "$0")/../.." || exit 1
P=build/devpack
if [ "${1:-}" = pack ]; then
  rm -rf $P && mkdir -p $P/lib && strip -o $P/gpuctl build/gpuctl &&
    ldd $P/gpuctl | awk '/=>/{print $3}' | grep -v -E '/(libc|libm|libpthread|libdl|librt)\.so|ld-linux' | xargs -I{} cp -L {} $P/lib/ &&
    ../shared/tools/gpu-node-sshd pack $P/sshd > /dev/null
  du -sh $P; exit
fi
export LD_LIBRARY_PATH=$PWD/$P/lib GPUCTL_PLAYBOOKS_DIR=$PWD/playbooks GPUCTL_TEMPLATES_DIR=$PWD/templates GPUCTL_STATE_DIR=/tmp/gpuctl-state NO_COLOR=1
# The inventory declares what the machine is: its driver and its GPU model (the lease's card).
v=$(nvidia-smi --query-gpu=driver_version --format=csv,noheader | head -1)
m=$(nvidia-smi --query-gpu=name --format=csv,noheader | head -1 | grep -o -E 'H100|H200|H20|A100|B200' | head -1)
n=$(nvidia-smi -L | grep -c '^GPU ')
for t in local ssh; do
  sed -e "s/@DRIVER@/$v/" -e "s/@MODEL@/${m:-H100}/" -e "s/@COUNT@/$n/" "docs/containers-h200/h200-containers-$t.yaml" > "$OUT/h200-containers-$t.yaml"
done
{ echo "driver $v"; head -3 /etc/os-release; uname -r; nvidia-smi -L; nvidia-smi --query-gpu=mig.mode.current --format=csv,noheader
  for c in nvidia-ctk podman containerd docker runc crun kubelet; do printf '%s: %s\n' $c "$(command -v $c || echo none)"; done
  ls -l /dev/nvidia* 2>&1; echo "/dev/char links to nvidia devices:"; ls -l /dev/char 2>&1 | grep -i nvidia; ls /etc/cdi /var/run/cdi 2>&1
  dpkg -l 'nvidia-container*' 'libnvidia-container*' containerd runc 2>&1 | tail -6
  apt-cache policy containerd runc 2>&1 | head -12; } > "$OUT/machine.txt" 2>&1
I=$OUT/h200-containers-local.yaml
$P/gpuctl plan "$I" > "$OUT/plan-local.txt" 2>&1; echo "exit status: $?" >> "$OUT/plan-local.txt"
$P/gpuctl plan "$I" --json > "$OUT/plan-local.json" 2>/dev/null
$P/gpuctl verify "$I" > "$OUT/verify-local.txt" 2>&1; echo "exit status: $?" >> "$OUT/verify-local.txt"
$P/gpuctl verify "$I" --json > "$OUT/verify-local.json" 2>/dev/null
$P/gpuctl facts "$I" > "$OUT/facts-local.txt" 2>&1
$P/sshd/gpu-node-sshd start > "$OUT/sshd.txt" 2>&1
I=$OUT/h200-containers-ssh.yaml
$P/gpuctl plan "$I" > "$OUT/plan-ssh.txt" 2>&1; echo "exit status: $?" >> "$OUT/plan-ssh.txt"
$P/gpuctl verify "$I" > "$OUT/verify-ssh.txt" 2>&1; echo "exit status: $?" >> "$OUT/verify-ssh.txt"
$P/sshd/gpu-node-sshd stop
# Read-only proof: what the runs changed on the machine (nothing: no package, no file in /etc/cdi).
{ dpkg -l 'nvidia-container*' 2>&1 | tail -2; ls /etc/cdi 2>&1; } > "$OUT/after.txt"
sed -n '/\[container/,/\[slurm\|\[monitoring/p' "$OUT/plan-local.txt"; grep -E "container|cdi|dev_char|k8s|exit status" "$OUT/verify-local.txt" "$OUT/verify-ssh.txt"; tail -3 "$OUT/plan-ssh.txt"
