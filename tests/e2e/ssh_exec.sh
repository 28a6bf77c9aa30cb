#!/usr/bin/env bash
# gpuctl exec over real SSH: several nodes, --gather, an unreachable node and one that accepts
# TCP but never answers (reported with reasons, total time bounded by the timeout), Ctrl-C.
source "$(dirname "$0")/lib/sshd_sandbox.sh"

start_sshd 127.0.0.2 127.0.0.3 127.0.0.4
pin_host_key 127.0.0.2 127.0.0.3 127.0.0.4
INV=$SANDBOX/cluster.yaml
write_inventory "$INV" strict e2e01=127.0.0.2 e2e02=127.0.0.3 e2e03=127.0.0.4

echo "== exec on three nodes, per-node prefixes"
out=$("$GPUCTL" exec "$INV" -- 'set -- $SSH_CONNECTION; echo hello from $3; echo to-stderr >&2' 2>"$SANDBOX/err") ||
  die "exec failed: $(cat "$SANDBOX/err")"
for n in e2e01=127.0.0.2 e2e02=127.0.0.3 e2e03=127.0.0.4; do
  expect_contains "$out" "${n%%=*}: hello from ${n#*=}" exec
  n=${n%%=*}
  expect_contains "$(cat "$SANDBOX/err")" "$n: to-stderr" exec
done

echo "== ~/.ssh/config is honoured (Host alias -> HostName, Port, User, IdentityFile)"
cat >"$HOME/.ssh/config" <<CONFIG
Host e2e-alias
  HostName 127.0.0.3
  Port $SSHD_PORT
  User $LOGIN_USER
  IdentityFile $SANDBOX/client_key
CONFIG
cat >"$SANDBOX/alias.yaml" <<YAML
cluster:
  name: e2e
defaults:
  known_hosts: $SANDBOX/known_hosts
  connect_timeout: 2
hosts:
  aliased: {address: e2e-alias}
YAML
out=$("$GPUCTL" exec "$SANDBOX/alias.yaml" -- 'set -- $SSH_CONNECTION; echo via $3' 2>"$SANDBOX/err") ||
  die "exec through ~/.ssh/config failed: $(cat "$SANDBOX/err")"
expect_contains "$out" "aliased: via 127.0.0.3" ssh-config
rm "$HOME/.ssh/config"

echo "== a failing command exits 3 and names the node"
set +e
"$GPUCTL" exec "$INV" --limit e2e02 -- 'exit 5' 2>"$SANDBOX/err"; rc=$?
set -e
[[ $rc -eq 3 ]] || die "a failing command must exit 3, got $rc"
expect_contains "$(cat "$SANDBOX/err")" "e2e02: FAILED: exit code 5" exec

echo "== --gather folds identical output"
out=$("$GPUCTL" exec "$INV" --gather -- echo same 2>"$SANDBOX/err")
expect_contains "$out" "e2e[01-03] (3)" "gather (stderr: $(cat "$SANDBOX/err"))"
[[ $(grep -c '^same$' <<<"$out") -eq 1 ]] || die "gathered output must appear once:\n$out"

echo "== --json: per node (never folded) name, status, exit code, stdout, stderr, duration; same exit code"
set +e
"$GPUCTL" exec "$INV" --json -- 'set -- $SSH_CONNECTION; echo same; echo "err of $3" >&2; [ "$3" != 127.0.0.3 ] || exit 7' \
  >"$SANDBOX/exec.json" 2>"$SANDBOX/err"; rc=$?
set -e
[[ $rc -eq 3 ]] || die "exec --json with one failing node must exit 3, got $rc: $(cat "$SANDBOX/err")"
python3 - "$SANDBOX/exec.json" <<'PY' || die "exec --json: $(cat "$SANDBOX/exec.json")"
import json, sys
doc = json.load(open(sys.argv[1]))
assert doc["format_version"] == 1, doc
assert doc["command"].startswith("set -- $SSH_CONNECTION; echo same;"), doc["command"]
assert isinstance(doc["elapsed_ms"], int)
nodes = {n["node"]: n for n in doc["nodes"]}
assert [n["node"] for n in doc["nodes"]] == ["e2e01", "e2e02", "e2e03"], doc["nodes"]
for name in ("e2e01", "e2e03"):
    n = nodes[name]
    assert (n["status"], n["exit_code"], n["stdout"]) == ("ok", 0, "same\n"), n
    assert n["stderr"].startswith("err of 127.0.0."), n
    assert isinstance(n["duration_ms"], int) and n["duration_ms"] >= 0, n
failed = nodes["e2e02"]
assert (failed["status"], failed["exit_code"], failed["stdout"]) == ("failed", 7, "same\n"), failed
assert "exit code 7" in failed["reason"], failed
PY
rc=0; "$GPUCTL" exec "$INV" --json --gather -- true >/dev/null 2>&1 || rc=$?
[[ $rc -eq 2 ]] || die "--json with --gather must be a usage error (2), got $rc"

echo "== unreachable and hanging nodes are isolated and bounded by the timeout"
start_hang_listener 127.0.0.6 "$SSHD_PORT"
write_inventory "$INV" strict e2e01=127.0.0.2 e2e02=127.0.0.3 e2e03=127.0.0.4 dead=127.0.0.5 hang=127.0.0.6
start=$(date +%s%N)
set +e
out=$("$GPUCTL" exec "$INV" -- echo alive 2>"$SANDBOX/err"); rc=$?
set -e
elapsed_ms=$((($(date +%s%N) - start) / 1000000))
err=$(cat "$SANDBOX/err")
[[ $rc -eq 4 ]] || die "an unreachable node must exit 4, got $rc: $err"
for n in e2e01 e2e02 e2e03; do expect_contains "$out" "$n: alive" exec; done
expect_contains "$err" "dead: UNREACHABLE: cannot connect to 127.0.0.5" exec
expect_contains "$err" "hang: UNREACHABLE:" exec
(( elapsed_ms < 8000 )) || die "took ${elapsed_ms}ms; connect_timeout is 2s"
echo "   took ${elapsed_ms} ms"

echo "== a command past --timeout fails that node only (3 s: room for the other node's session on a loaded machine)"
set +e
"$GPUCTL" exec "$INV" --limit e2e01,e2e02 --timeout 3 -- 'set -- $SSH_CONNECTION; [ "$3" = 127.0.0.2 ] && sleep 20; echo done' >"$SANDBOX/out" 2>"$SANDBOX/err"; rc=$?
set -e
[[ $rc -eq 3 ]] || die "a timed-out command must exit 3, got $rc: $(cat "$SANDBOX/err")"
expect_contains "$(cat "$SANDBOX/err")" "e2e01: FAILED: command timed out after 3s" timeout
expect_contains "$(cat "$SANDBOX/out")" "e2e02: done" timeout

echo "== Ctrl-C mid-run: in-flight nodes finish, the rest are reported skipped, exit 130"
write_inventory "$INV" strict e2e01=127.0.0.2 e2e02=127.0.0.3 e2e03=127.0.0.4
"$GPUCTL" exec "$INV" --forks 1 -- 'sleep 1; echo finished' >"$SANDBOX/out" 2>"$SANDBOX/err" &
pid=$!
sleep 0.6
kill -INT "$pid"
set +e
wait "$pid"; rc=$?
set -e
[[ $rc -eq 130 ]] || die "interrupted run must exit 130, got $rc: $(cat "$SANDBOX/err")"
expect_contains "$(cat "$SANDBOX/out")" "e2e01: finished" interrupt
expect_contains "$(cat "$SANDBOX/err")" "e2e02: SKIPPED" interrupt
expect_contains "$(cat "$SANDBOX/err")" "e2e03: SKIPPED" interrupt
expect_contains "$(cat "$SANDBOX/err")" "3 node(s): 1 ok, 0 failed, 0 unreachable, 2 skipped" interrupt

echo "PASS"
