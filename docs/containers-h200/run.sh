#!/bin/bash
# The acceptance run of issue #36 on the real GPU machine, read-only (plan, verify, facts; local
# transport). On this (Debian 12) machine:   docs/containers-h200/run.sh pack   (build/devpack:
# the stripped gpuctl and its libraries, ~17 MB); then on the device, with build/devpack carried:
#   OUT=$OUT docs/containers-h200/run.sh
# and copy $OUT's files into docs/containers-h200/.
set -u
cd "$(dirname "$0")/../.." || exit 1
P=build/devpack
if [ "${1:-}" = pack ]; then
  rm -rf $P && mkdir -p $P/lib && strip -o $P/gpuctl build/gpuctl &&
    ldd $P/gpuctl | awk '/=>/{print $3}' | grep -v -E '/(libc|libm|libpthread|libdl|librt)\.so|ld-linux' | xargs -I{} cp -L {} $P/lib/
  du -sh $P; exit
fi
export LD_LIBRARY_PATH=$PWD/$P/lib GPUCTL_PLAYBOOKS_DIR=$PWD/playbooks GPUCTL_TEMPLATES_DIR=$PWD/templates GPUCTL_STATE_DIR=/tmp/gpuctl-state
v=$(nvidia-smi --query-gpu=driver_version --format=csv,noheader | head -1)
sed "s/@DRIVER@/$v/" docs/containers-h200/h200-containers.yaml > "$OUT/h200-containers.yaml"
{ echo "driver $v"; head -3 /etc/os-release; uname -r; nvidia-smi -L; nvidia-smi --query-gpu=mig.mode.current --format=csv,noheader
  for c in nvidia-ctk podman containerd docker runc crun; do printf '%s: %s\n' $c "$(command -v $c || echo none)"; done
  ls -l /dev/nvidia* 2>&1; ls -l /dev/char 2>&1 | grep -i nvidia; ls /etc/cdi /var/run/cdi 2>&1
  dpkg -l 'nvidia-container*' 'libnvidia-container*' 2>&1 | tail -4; } > "$OUT/machine.txt" 2>&1
$P/gpuctl plan "$OUT/h200-containers.yaml" --no-color > "$OUT/plan.txt" 2>&1; echo "exit status: $?" >> "$OUT/plan.txt"
$P/gpuctl verify "$OUT/h200-containers.yaml" --no-color > "$OUT/verify.txt" 2>&1; echo "exit status: $?" >> "$OUT/verify.txt"
$P/gpuctl verify "$OUT/h200-containers.yaml" --json > "$OUT/verify.json" 2>/dev/null
$P/gpuctl facts "$OUT/h200-containers.yaml" --no-color > "$OUT/facts.txt" 2>&1
sed -n '/\[container/,/\[slurm\|\[monitoring/p' "$OUT/plan.txt"; grep -E "container|cdi|dev_char|k8s" "$OUT/verify.txt"
