#!/usr/bin/env bash
# Issue #15 at scale: 64 identical nodes fold into one block in plan and verify, and one drifted
# node is shown alone. bench/ light nodes (one sshd per node on 127.2.0.x, a simulated GPU world,
# the host's root read-only for them): plan and verify only, which change nothing.
set -uo pipefail
# e2e-lock: handshake-burst (64 sshds and their handshakes; never beside open_file_limit)
: "${GPUCTL:?set GPUCTL to the gpuctl binary}" "${GPUCTL_SOURCE_DIR:?set GPUCTL_SOURCE_DIR}"
[[ $(id -u) == 0 ]] || { echo "needs root"; exit 77; }
command -v sshd >/dev/null || [[ -x /usr/sbin/sshd ]] || { echo "no sshd"; exit 77; }
export LIGHT_WORK=/var/lib/gpuctl-e2e-lightnodes GPUCTL_STATE_DIR
GPUCTL_STATE_DIR=$(mktemp -d)
light=$GPUCTL_SOURCE_DIR/bench/lightnodes
die() { echo "FAIL: $*" >&2; exit 1; }
trap '"$light" down >/dev/null 2>&1; rm -rf "$GPUCTL_STATE_DIR" "$LIGHT_WORK"' EXIT
"$light" up -n 64 >/dev/null 2>&1 || die "cannot start 64 light nodes"
inventory=$("$light" inventory 64)
g() { "$GPUCTL" "$@" --no-progress; }

echo "--- a fresh plan of 64 identical nodes is one block"
out=$(g plan "$inventory" 2>/dev/null)
grep -q '^  ln\[0001-0064\]  64 nodes (' <<<"$out" || die "no folded block:\n$out"
grep -q '<address> below stand for' <<<"$out" || die "no placeholder note:\n$out"
(($(grep -c '^  ln' <<<"$out") == 1)) || die "more than one block:\n$out"
lines=$(wc -l <<<"$out")
expanded=$(g plan "$inventory" --expand 2>/dev/null | wc -l)
((lines < 150 && expanded > 64 * 50)) || die "folded $lines lines, expanded $expanded"
echo "ok: plan $lines lines folded, $expanded expanded"

echo "--- verify folds: every check counted, each failure once with its hostlist"
out=$(g verify "$inventory" 2>/dev/null)
grep -Eq '^gpu_count +64 +- +- +-$' <<<"$out" || die "gpu_count row:\n$out"
# Every node's persistence-mode failure names its own GPU serials: one line, <serial> for them.
grep -q '^  persistence_mode fail on ln\[0001-0064\] (64 nodes): observed GPU 0 (<serial>)' <<<"$out" ||
  die "persistence_mode is not one line:\n$out"
(($(wc -l <<<"$out") <= 60)) || die "verify is $(wc -l <<<"$out") lines:\n$out"

echo "--- one drifted node stands alone in plan and verify"
pid=$(sed -n 7p "$LIGHT_WORK/pids")
[[ $(readlink "/proc/$pid/exe") == /usr/sbin/sshd ]] || die "ln0007's sshd is not pid $pid"
# ln0007 already has gpuctl's repository list (a tmpfs over /etc/apt/sources.list.d in its
# namespace only) and a GPU less (its simulated hardware).
render=$GPUCTL_STATE_DIR/rendered
"$GPUCTL" render "$inventory" --node ln0007 --out "$render" >/dev/null 2>&1 || die "render failed"
# (The node's /tmp is its own: the rendered file goes in on stdin.)
nsenter -t "$pid" -m -- sh -c "mount -t tmpfs e2e-sources /etc/apt/sources.list.d &&
  cat > /etc/apt/sources.list.d/gpuctl-cuda.list &&
  sed -i 's/^7.present=1/7.present=0/' /run/gpuctl-sandbox/hw/gpus.conf" \
  < "$render/ln0007/etc/apt/sources.list.d/gpuctl-cuda.list" || die "cannot drift ln0007"
out=$(g plan "$inventory" 2>/dev/null)
grep -q '^  ln\[0001-0006,0008-0064\]  63 nodes (' <<<"$out" || die "the 63 others are not one block:\n$out"
grep -q '^  ln0007  (' <<<"$out" || die "ln0007 is not alone:\n$out"
out=$(g verify "$inventory" 2>/dev/null)
grep -Eq '^  gpu_count fail on ln0007: observed 7' <<<"$out" || die "ln0007's gpu_count:\n$out"
grep -Eq '^gpu_count +63 +1 +- +-$' <<<"$out" || die "gpu_count row:\n$out"
echo "PASS: 64 nodes fold in plan and verify; a drifted node stands alone"
