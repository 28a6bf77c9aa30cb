#!/usr/bin/env bash
# The inventory lock and the run history, with the real binary and no sandbox: one local node
# (--connection local, no sudo) and a playbook written here whose only step runs `sleep`.
#  1. two applies at once: the second exits 5 naming the first (run id, pid);
#  2. an apply killed with SIGKILL leaves a consistent database, and the next apply reports
#     the killed run as abandoned and takes the lock over;
#  3. history and show list the runs and their steps.
set -uo pipefail
: "${GPUCTL:?GPUCTL must point at the gpuctl binary}"
command -v sqlite3 >/dev/null || { echo "SKIPPED: sqlite3 missing (apt-get install sqlite3)" >&2; exit 77; }
command -v python3 >/dev/null || { echo "SKIPPED: python3 missing" >&2; exit 77; }

work=$(mktemp -d /var/tmp/gpuctl-state-lock-XXXXXX)
export GPUCTL_STATE_DIR=$work/state
db=$GPUCTL_STATE_DIR/state.db
started_pids=()
cleanup() {
  for pid in "${started_pids[@]}"; do kill -9 "$pid" 2>/dev/null; wait "$pid" 2>/dev/null; done
  rm -rf "$work"
}
trap cleanup EXIT
fail() { printf 'FAIL: %b\n' "$*" >&2; exit 1; }

cat >"$work/cluster.yaml" <<'YAML'
cluster:
  name: e2e-lock
defaults:
  connection: local
  become: false
hosts:
  alpha: {}
YAML
cat >"$work/pause.yaml" <<'YAML'
name: pause
steps:
  - name: pause
    resources:
      - command: sleep 4
        reason: the test needs a run that takes a while
YAML
# An array, not a function: `"${apply[@]}" &` makes $! gpuctl's own pid, not a subshell's.
apply=("$GPUCTL" apply "$work/cluster.yaml" -p "$work/pause.yaml" --yes --no-progress)

# Waits until the newest run is running with its step started; prints the run id.
wait_for_running_step() {
  for _ in $(seq 150); do
    id=$("$GPUCTL" history --json 2>/dev/null | python3 -c '
import json, sys
runs = json.load(sys.stdin)["runs"]
if runs and runs[0]["status"] == "running" and any(s["status"] == "running" for s in runs[0]["steps"]):
    print(runs[0]["id"])' 2>/dev/null)
    [[ -n $id ]] && { echo "$id"; return 0; }
    sleep 0.2
  done
  return 1
}

# 1. Two applies at once.
"${apply[@]}" >"$work/first.out" 2>&1 &
first_pid=$!
started_pids+=("$first_pid")
first_run=$(wait_for_running_step) || fail "the first apply never started its step:\n$(cat "$work/first.out")"
[[ $(stat -c %a "$db") == 600 ]] || fail "state.db is mode $(stat -c %a "$db"), not 600"
[[ $(stat -c %a "$GPUCTL_STATE_DIR") == 700 ]] || fail "the state dir is mode $(stat -c %a "$GPUCTL_STATE_DIR"), not 700"
second=$("${apply[@]}" 2>&1); rc=$?
[[ $rc == 5 ]] || fail "the second apply exited $rc, expected 5:\n$second"
grep -q "locked by run $first_run " <<<"$second" || fail "the refusal does not name run $first_run:\n$second"
grep -q "pid $first_pid on $(hostname)" <<<"$second" || fail "the refusal does not name pid $first_pid:\n$second"
wait "$first_pid"; rc=$?
[[ $rc == 0 ]] || fail "the first apply exited $rc:\n$(cat "$work/first.out")"

# 2. SIGKILL in the middle of a step.
"${apply[@]}" >"$work/killed.out" 2>&1 &
killed_pid=$!
started_pids+=("$killed_pid")
killed_run=$(wait_for_running_step) || fail "the apply to kill never started its step:\n$(cat "$work/killed.out")"
kill -9 "$killed_pid"
wait "$killed_pid" 2>/dev/null
check=$(sqlite3 "$db" 'PRAGMA integrity_check') || fail "sqlite3 could not read $db"
[[ $check == ok ]] || fail "integrity_check after SIGKILL: $check"
[[ $(sqlite3 "$db" 'SELECT status FROM runs WHERE id = '"$killed_run") == running ]] || fail "the killed run is not left running"
next=$("${apply[@]}" 2>&1); rc=$?
[[ $rc == 0 ]] || fail "the apply after the killed one exited $rc:\n$next"
grep -q "run $killed_run (apply by .*pid $killed_pid.*) was abandoned" <<<"$next" \
  || fail "the next apply does not report run $killed_run as abandoned:\n$next"
[[ $(sqlite3 "$db" 'PRAGMA integrity_check') == ok ]] || fail "integrity_check after takeover"

# 3. History and show.
"$GPUCTL" show "$killed_run" --json >"$work/killed.json" || fail "show $killed_run exited $?"
python3 - "$work/killed.json" <<'PY' || fail "show does not record the abandoned run: $(cat "$work/killed.json")"
import json, sys
run = json.load(open(sys.argv[1]))
assert run["status"] == "abandoned", run["status"]
assert run["finished"], run
assert [(s["step"], s["status"]) for s in run["steps"]] == [("pause", "abandoned")], run["steps"]
PY
"$GPUCTL" history --json >"$work/history.json" || fail "history exited $?"
python3 - "$work/history.json" "$first_run" "$killed_run" <<'PY' || fail "history is wrong: $(cat "$work/history.json")"
import json, sys
runs = json.load(open(sys.argv[1]))["runs"]
first, killed = int(sys.argv[2]), int(sys.argv[3])
assert [r["status"] for r in runs] == ["ok", "abandoned", "ok"], [(r["id"], r["status"]) for r in runs]
assert [r["id"] for r in runs][1:] == [killed, first]
for run in (runs[0], runs[2]):
    assert run["command"] == "apply"
    assert [(n["node"], n["status"]) for n in run["nodes"]] == [("alpha", "changed")], run["nodes"]
    assert [(s["step"], s["status"]) for s in run["steps"]] == [("pause", "changed")], run["steps"]
    assert run["steps"][0]["duration_ms"] >= 3000, run["steps"]
PY
text=$("$GPUCTL" history --node alpha) || fail "history --node exited $?"
grep -Eq "^ +$first_run +[0-9TZ:-]+ +ok +apply .*1 changed" <<<"$text" || fail "history text lacks run $first_run:\n$text"
grep -Eq "pause +changed" <<<"$text" || fail "history --node lacks the step:\n$text"
"$GPUCTL" show 9999 >/dev/null 2>&1; rc=$?
[[ $rc == 2 ]] || fail "show of an unknown run exited $rc, expected 2"
echo "state_lock: ok (lock refused with exit 5, SIGKILL left a consistent database, abandoned run reported)"
