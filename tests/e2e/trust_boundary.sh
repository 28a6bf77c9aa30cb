#!/usr/bin/env bash
# The second round of the trust boundary (issue #37, docs/security.md) through the real binary,
# for the classes that cross the command line: a saved plan that is a FIFO or /dev/zero is
# refused at once (no hang, no memory blow-up); an inventory that is a link to a private file
# never has a line of it printed; render -o through a link deletes nothing in the link's
# target; GPUCTL_PARSE_ONLY cannot turn a plan gate green; a node address with a port, and
# the unspecified address, fail validate. Contacts no node; everything lives in a temp dir.
set -uo pipefail
: "${GPUCTL:?set by ctest}" "${GPUCTL_SOURCE_DIR:?set by ctest}"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
export GPUCTL_STATE_DIR=$work/state NO_COLOR=1
unset GPUCTL_CONFIG GPUCTL_PARSE_ONLY
example=$GPUCTL_SOURCE_DIR/docs/examples/cluster.yaml
failures=0
fail() { echo "FAIL: $*"; failures=$((failures + 1)); }
# run CMD...: rc, out (stdout and stderr), bounded so that a hang is a failure, not a stuck CI.
run() { out=$(timeout -k 5 20 "$GPUCTL" "$@" 2>&1 </dev/null); rc=$?; }

echo "--- a saved plan that is a FIFO or a device is refused at once"
mkfifo "$work/plan.json"
for command in show apply; do
  run "$command" "$work/plan.json"
  [[ $rc != 124 && $rc != 137 ]] || fail "$command of a FIFO hung"
  [[ $rc != 0 ]] || fail "$command of a FIFO exited 0"
done
(ulimit -v 1048576; out=$(timeout -k 5 20 "$GPUCTL" show /dev/zero 2>&1); rc=$?
 [[ $rc != 124 && $rc != 137 && $rc != 0 && $out == *"not a regular file"* ]] || { echo "FAIL: show /dev/zero: rc $rc: $out"; exit 1; }) ||
  failures=$((failures + 1))

echo "--- an inventory linked to a private file: no line of it is printed"
printf 'root:$6$verysecrethash:19000:0:99999:7:::\n' >"$work/shadow"
chmod 0600 "$work/shadow"
ln -s "$work/shadow" "$work/cluster.yaml"
run validate "$work/cluster.yaml"
[[ $rc == 2 ]] || fail "validate of a link to a private file exited $rc, want 2: $out"
[[ $out != *verysecrethash* ]] || fail "a private file's line was printed: $out"
[[ $out == *"not every user may read"* ]] || fail "the refusal does not say why: $out"

echo "--- render -o through a link deletes nothing in the link's target"
mkdir -p "$work/victim/gpu01"
echo data >"$work/victim/gpu01/keep"
ln -s "$work/victim" "$work/out"
run render "$example" -o "$work/out"
[[ $rc != 0 ]] || fail "render -o through a link exited 0"
[[ -f $work/victim/gpu01/keep ]] || fail "render deleted a file in the link's target"
run render "$example" -o "$work/victim"
[[ $rc != 0 && $out == *"was not written by gpuctl render"* ]] || fail "render replaced a tree it did not write: rc $rc: $out"
[[ -f $work/victim/gpu01/keep ]] || fail "render deleted someone else's gpu01/"

echo "--- GPUCTL_PARSE_ONLY=1 cannot pass a plan gate"
out=$(GPUCTL_PARSE_ONLY=1 timeout -k 5 20 "$GPUCTL" plan "$example" --detailed-exitcode 2>&1); rc=$?
[[ $rc == 96 ]] || fail "plan --detailed-exitcode under GPUCTL_PARSE_ONLY=1 exited $rc, want 96: $out"

echo "--- an address is an IP address or a DNS name, nothing else"
for address in 10.0.0.1:22 '::' 0.0.0.0 010.0.0.1; do
  printf 'cluster: {name: c}\nhosts:\n  a1: {address: "%s"}\n' "$address" >"$work/address.yaml"
  run validate "$work/address.yaml"
  [[ $rc == 2 && $out == *"address.yaml:3:"* ]] || fail "address $address: rc $rc: $out"
done

((failures == 0)) || { echo "$failures failures"; exit 1; }
echo PASS
