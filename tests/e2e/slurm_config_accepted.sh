#!/usr/bin/env bash
# The rendered slurm.conf, gres.conf and cgroup.conf are accepted by Debian's real Slurm:
# `slurmd -G` parses all three (slurm.conf, then cgroup.conf and gres.conf, resolving the GPU
# device files) and prints the node's GRES without starting a daemon. Every path Slurm would
# write is redirected into a temp dir through the inventory's slurm.options, and the device
# files point at /dev/null (this machine has no GPUs). A corrupted copy of each file must be
# rejected, so the check is known to be able to fail. Exits 77 when slurmd is not installed.
set -euo pipefail
: "${GPUCTL:?set by ctest}" "${GPUCTL_SOURCE_DIR:?set by ctest}"
slurmd=$(command -v slurmd || true)
[[ -x $slurmd ]] || slurmd=/usr/sbin/slurmd
if [[ ! -x $slurmd ]]; then echo "SKIP: slurmd not installed (apt-get install slurmd)"; exit 77; fi
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

# The example inventory, with Slurm's state, spool, pid and log files under $work.
awk -v w="$work" '{ print }
  /^    cluster_name: hopper$/ {
    print "    options:"
    print "      SlurmdSpoolDir: " w "/spool"
    print "      SlurmdPidFile: " w "/slurmd.pid"
    print "      SlurmdLogFile: " w "/slurmd.log"
    print "      StateSaveLocation: " w "/state"
    print "      SlurmctldPidFile: " w "/slurmctld.pid"
    print "      SlurmctldLogFile: " w "/slurmctld.log"
  }' "$GPUCTL_SOURCE_DIR/docs/examples/cluster.yaml" > "$work/cluster.yaml"
grep -q "SlurmdSpoolDir: $work/spool" "$work/cluster.yaml"
mkdir -p "$work/spool" "$work/state" "$work/dev"
for i in 0 1 2 3 4 5 6 7; do ln -s /dev/null "$work/dev/nvidia$i"; done

"$GPUCTL" render "$work/cluster.yaml" --node gpu01 --out "$work/out" 2>/dev/null
etc=$work/out/gpu01/etc/slurm
grep -q "^SlurmdSpoolDir=$work/spool$" "$etc/slurm.conf"
sed -i "s|File=/dev/nvidia|File=$work/dev/nvidia|" "$etc/gres.conf"
cp -r "$etc" "$work/pristine"

run_slurmd() {
  rm -f "$work/slurmd.log"
  timeout 60 "$slurmd" -D -N gpu01 -G -f "$etc/slurm.conf" > "$work/slurmd.out" 2>&1
}

if ! run_slurmd; then
  echo "FAIL: slurmd rejected the rendered configuration:"; cat "$work/slurmd.out" "$work/slurmd.log" 2>/dev/null; exit 1
fi
# Read into a variable first: under pipefail, `cat | grep -q` fails whenever grep exits
# before cat has written everything (SIGPIPE), which made this check fail at random.
output=$(cat "$work/slurmd.out" "$work/slurmd.log" 2>/dev/null || true)
if ! grep -q "Gres Name=gpu Type=h100 Count=8" <<< "$output"; then
  echo "FAIL: slurmd did not report the node's 8 H100 GPUs:"; echo "$output"; exit 1
fi
if grep -E "Parsing error|fix your gres.conf|fatal" <<< "$output"; then
  echo "FAIL: slurmd complained about the configuration"; exit 1
fi

# Negative controls: an unknown key in any of the three files makes slurmd fail.
for file in slurm.conf gres.conf cgroup.conf; do
  rm -rf "$etc" && cp -r "$work/pristine" "$etc"
  echo "NoSuchKeyForGpuctlTest=1" >> "$etc/$file"
  if run_slurmd; then echo "FAIL: slurmd accepted a corrupted $file: the check cannot fail"; exit 1; fi
done
echo "slurm_config_accepted: ok ($("$slurmd" -V))"
