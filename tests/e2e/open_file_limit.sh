#!/usr/bin/env bash
# More nodes than the open-file limit has room for sessions: plan, verify and facts still reach
# every node. gpuctl raises its soft limit to the hard one; where even the hard limit is short,
# a node's session is closed when its task in a phase ends, instead of later nodes failing
# with "Too many open files". 96 nodes: loopback addresses of one private sshd.
# e2e-lock: handshake-burst (96 sessions at once; never beside fold_64_nodes)
source "$(dirname "$0")/lib/sshd_sandbox.sh"

N=96
addresses=() entries=()
for i in $(seq 1 "$N"); do
  addresses+=("127.0.84.$i")
  entries+=("$(printf 'fd%03d' "$i")=127.0.84.$i")
done
start_sshd "${addresses[@]}"
pin_host_key "${addresses[@]}"
INV=$SANDBOX/cluster.yaml
write_inventory "$INV" strict "${entries[@]}"
# The point is descriptors, not handshake speed: a loaded CI host may take more than the
# sandbox's 2 s to answer a burst of handshakes.
sed -i 's/connect_timeout: 2$/connect_timeout: 30/' "$INV"
grep -q 'connect_timeout: 30' "$INV" || die "could not raise connect_timeout in $INV"
export GPUCTL_STATE_DIR=$SANDBOX/state

# run LIMIT_FLAGS CMD...: CMD under `ulimit LIMIT_FLAGS 80`; its output in $out, exit code in $rc.
run() {
  local flags=$1
  shift
  rc=0
  out=$( (ulimit "$flags" 80 && "$GPUCTL" "$@") 2>&1) || rc=$?
  if grep -q "Too many open files" <<<"$out"; then die "'$*' under ulimit $flags 80 ran out of descriptors:\n$out"; fi
}

echo "== hard limit 80 for $N nodes: sessions are closed as nodes finish"
run -n plan "$INV" --no-progress --forks 8
[[ $rc == 0 ]] || die "plan exited $rc:\n$out"
expect_contains "$out" "Plan: $N nodes, 0 with changes" plan
run -n verify "$INV" --no-progress --forks 8
[[ $rc == 0 ]] || die "verify exited $rc:\n$out"
expect_contains "$out" "Verify: $N of $N nodes pass every check" verify
run -n facts "$INV" --json --forks 8
[[ $rc == 0 ]] || die "facts exited $rc:\n$out"
[[ $(grep -c '"boot_id"' <<<"$out") == "$N" ]] || die "facts did not report every node:\n$out"

echo "== soft limit 80 only: gpuctl raises it and keeps one session per node"
run -Sn verify "$INV" --no-progress --forks 8
[[ $rc == 0 ]] || die "verify exited $rc:\n$out"
expect_contains "$out" "Verify: $N of $N nodes pass every check" verify

echo "PASS"
