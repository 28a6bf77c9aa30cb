#!/usr/bin/env bash
# Host key policy over real SSH: strict refuses an unknown key and names its fingerprint;
# accept-new records it; a changed key is refused even in accept-new; `gpuctl hostkeys scan`
# and `accept` (changed keys only with --replace-changed).
source "$(dirname "$0")/lib/sshd_sandbox.sh"

start_sshd 127.0.0.2 127.0.0.3
INV=$SANDBOX/cluster.yaml
KH=$SANDBOX/known_hosts
: >"$KH"

run() { set +e; out=$("$GPUCTL" "$@" 2>"$SANDBOX/err"); rc=$?; err=$(cat "$SANDBOX/err"); set -e; }

echo "== strict refuses an unknown key, shows its fingerprint and how to pin it"
write_inventory "$INV" strict k01=127.0.0.2 k02=127.0.0.3
run exec "$INV" -- true
[[ $rc -eq 4 ]] || die "unknown key in strict mode must make the node unreachable (4), got $rc: $err"
expect_contains "$err" "k01: UNREACHABLE: unknown host key for [127.0.0.2]:$SSHD_PORT" strict
expect_contains "$err" "$HOST_FINGERPRINT" strict
expect_contains "$err" "gpuctl hostkeys accept INVENTORY --limit k01" strict
expect_contains "$err" "ssh-keyscan -p $SSHD_PORT 127.0.0.2 >> $KH" strict
[[ ! -s $KH ]] || die "strict mode must not write known_hosts"

echo "== hostkeys scan reports unknown keys with type and fingerprint (exit 3)"
run hostkeys scan "$INV"
[[ $rc -eq 3 ]] || die "scan with unknown keys must exit 3, got $rc: $err"
expect_contains "$out" "k01	[127.0.0.2]:$SSHD_PORT	ssh-ed25519	$HOST_FINGERPRINT	unknown" scan
run hostkeys scan "$INV" --json --forks 1
[[ $rc -eq 3 ]] || die "scan --json must exit as scan does (3), got $rc: $err"
python3 - "$SSHD_PORT" "$HOST_FINGERPRINT" "$KH" <<PY || die "hostkeys scan --json: $out"
import json, sys
port, fingerprint, known_hosts = sys.argv[1:]
doc = json.loads("""$out""")
assert (doc["format_version"], doc["action"]) == (1, "scan"), doc
k01 = doc["nodes"][0]
assert k01["node"] == "k01" and k01["status"] == "failed", k01
assert k01["host_entry"] == f"[127.0.0.2]:{port}" and k01["key_type"] == "ssh-ed25519", k01
assert k01["fingerprint"] == fingerprint and k01["key_state"] == "unknown", k01
assert k01["known_hosts"] == known_hosts, k01
PY

echo "== accept-new records an unknown key and runs"
write_inventory "$INV" accept-new k01=127.0.0.2 k02=127.0.0.3
run exec "$INV" -- echo ok
[[ $rc -eq 0 ]] || die "accept-new must connect, got $rc: $err"
expect_contains "$out" "k01: ok" accept-new
grep -qF "[127.0.0.2]:$SSHD_PORT ssh-ed25519 $(cut -d' ' -f2 "$SANDBOX/host_key.pub")" "$KH" || die "key not recorded:\n$(cat "$KH")"
[[ $(grep -c "127.0.0" "$KH") -eq 2 ]] || die "expected one line per node:\n$(cat "$KH")"

echo "== accept-new never creates the directories of a known_hosts path (issue #37)"
write_inventory "$INV.far" accept-new k01=127.0.0.2
sed -i "s|known_hosts: .*|known_hosts: $SANDBOX/not/there/known_hosts|" "$INV.far"
run exec "$INV.far" -- echo ok
[[ $rc -ne 0 ]] || die "a known_hosts in a missing directory must not be recorded into"
expect_contains "$err$out" "gpuctl creates none for it" "the refusal names why"
[[ ! -e $SANDBOX/not ]] || die "gpuctl created $SANDBOX/not"

echo "== the recorded keys now satisfy strict mode"
write_inventory "$INV" strict k01=127.0.0.2 k02=127.0.0.3
run exec "$INV" -- echo ok
[[ $rc -eq 0 ]] || die "strict with pinned keys must connect, got $rc: $err"
run hostkeys scan "$INV"
[[ $rc -eq 0 ]] || die "scan of known keys must exit 0, got $rc"
expect_contains "$out" "$HOST_FINGERPRINT	known" scan

echo "== a changed key is refused even in accept-new"
other=$(cut -d' ' -f1,2 "$SANDBOX/other_host_key.pub")
echo "[127.0.0.3]:$SSHD_PORT $other" >"$KH.new"
grep -v "127.0.0.3" "$KH" >>"$KH.new"; mv "$KH.new" "$KH"
write_inventory "$INV" accept-new k01=127.0.0.2 k02=127.0.0.3
run exec "$INV" -- echo ok
[[ $rc -eq 4 ]] || die "changed key must be refused, got $rc: $err"
expect_contains "$err" "k02: UNREACHABLE: HOST KEY CHANGED for [127.0.0.3]:$SSHD_PORT" changed
expect_contains "$err" "$HOST_FINGERPRINT" changed
expect_contains "$out" "k01: ok" changed
grep -qF "$other" "$KH" || die "accept-new must not replace a changed key"

echo "== hostkeys accept refuses a changed key without --replace-changed"
run hostkeys accept "$INV" --limit k02
[[ $rc -eq 3 ]] || die "accept of a changed key must fail (3), got $rc: $err"
expect_contains "$err" "HOST KEY CHANGED" accept
grep -qF "$other" "$KH" || die "known_hosts must be untouched"

echo "== hostkeys accept --replace-changed replaces it, loudly"
run hostkeys accept "$INV" --limit k02 --replace-changed
[[ $rc -eq 0 ]] || die "accept --replace-changed must succeed, got $rc: $err"
expect_contains "$err" "WARNING: k02: replaced the recorded host key" replace
! grep -qF "$other" "$KH" || die "old key still present:\n$(cat "$KH")"
grep -qF "[127.0.0.2]:$SSHD_PORT" "$KH" || die "other hosts' lines must be kept:\n$(cat "$KH")"
write_inventory "$INV" strict k01=127.0.0.2 k02=127.0.0.3
run exec "$INV" -- echo ok
[[ $rc -eq 0 ]] || die "strict after replacement must connect, got $rc: $err"

echo "== hostkeys accept records unknown keys"
: >"$KH"
run hostkeys accept "$INV"
[[ $rc -eq 0 ]] || die "accept must succeed, got $rc: $err"
expect_contains "$out" "recorded in $KH" accept
run hostkeys scan "$INV"
[[ $rc -eq 0 ]] || die "scan after accept must exit 0, got $rc: $out $err"

echo "PASS"
