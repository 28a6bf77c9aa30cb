#!/usr/bin/env bash
# Progress and the run log, with the real binary: `verify --connection local` on this host
# (read-only: the state probe only reads) for a two-node inventory. Checks the plain lines
# (stderr not a terminal), the live view under a pseudo-terminal (script(1)), --color/NO_COLOR,
# the per-run log (0600 in a 0700 directory, under our own GPUCTL_STATE_DIR), --prom, and the
# journal's priority prefixes under a simulated systemd (JOURNAL_STREAM naming stderr's file).
set -euo pipefail
: "${GPUCTL:?GPUCTL must point at the gpuctl binary}"
command -v script >/dev/null || { echo "SKIP: script(1) (util-linux) not installed"; exit 77; }
work=$(mktemp -d /var/tmp/gpuctl-progress.XXXXXX)
trap 'rm -rf "$work"' EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }
export GPUCTL_STATE_DIR=$work/state
source "$(dirname "$0")/lib/local_inventory.sh"
write_local_inventory "$work/cluster.yaml" e2e 'n[1-2]'

# Plain lines: stderr is a file. No GPUs here, so checks fail or error: exit 3.
rc=0
"$GPUCTL" verify "$work/cluster.yaml" --prom "$work/gpuctl.prom" >"$work/out.txt" 2>"$work/err.txt" || rc=$?
[ "$rc" = 3 ] || fail "verify exited $rc, expected 3: $(cat "$work/err.txt")"
grep -Eq '^[0-9]{2}:[0-9]{2}:[0-9]{2} n1: failed: check ' "$work/err.txt" || fail "no plain failure line: $(cat "$work/err.txt")"
if grep -q $'\e' "$work/err.txt"; then fail "escape codes in plain output"; fi

# The run log.
logs=("$GPUCTL_STATE_DIR"/logs/*-verify.log)
[ "${#logs[@]}" = 1 ] && [ -f "${logs[0]}" ] || fail "expected one verify log, got: ${logs[*]}"
[ "$(stat -c %a "${logs[0]}")" = 600 ] || fail "log mode $(stat -c %a "${logs[0]}")"
[ "$(stat -c %a "$GPUCTL_STATE_DIR/logs")" = 700 ] || fail "log dir mode $(stat -c %a "$GPUCTL_STATE_DIR/logs")"
for want in "^# gpuctl .* verify, started " " - phase verify over 2 nodes$" " n1 verify started$" " n2 node failed in [0-9]+ ms: check " \
            " - run ended$"; do
  grep -Eq "$want" "${logs[0]}" || fail "log lacks /$want/: $(cat "${logs[0]}")"
done

# Prometheus textfile: both nodes up, every check a 0/1 series, a timestamp.
python3 - "$work/gpuctl.prom" <<'PY' || fail "bad textfile: $(cat "$work/gpuctl.prom")"
import re, sys, time
text = open(sys.argv[1]).read()
assert text.endswith("\n")
assert 'gpuctl_node_up{node="n1"} 1' in text and 'gpuctl_node_up{node="n2"} 1' in text
assert 'gpuctl_node_verify_ok{node="n1"} 0' in text
checks = re.findall(r'^gpuctl_check_status\{node="n1",check="([a-z_]+)"\} [01]$', text, re.M)
assert "gpu_count" in checks, checks
stamp = int(re.search(r"^gpuctl_verify_last_run_timestamp_seconds (\d+)$", text, re.M).group(1))
assert abs(stamp - time.time()) < 600, stamp
PY

# The live view on a pseudo-terminal: cursor movement, the counter, the closing summary, colour.
TERM=xterm script -qefc "'$GPUCTL' verify '$work/cluster.yaml'" "$work/tty.txt" >/dev/null 2>&1 || true
grep -q $'\e\\[[0-9]*F\e\\[J' "$work/tty.txt" || fail "the live view never redrew in place"
grep -Eq 'verify [0-9]+/2 nodes done' "$work/tty.txt" || fail "no counter line: $(cat -v "$work/tty.txt" | head -20)"
grep -Eq 'verify: 2 nodes in [0-9.]+s: 2 failed, 0 unreachable' "$work/tty.txt" || fail "no summary line"
grep -q $'\e\\[31m' "$work/tty.txt" || fail "no colour on a terminal"
for quiet in "NO_COLOR=1" "GPUCTL_COLOR_FLAG=--color=never"; do
  env TERM=xterm $quiet script -qefc "'$GPUCTL' \${GPUCTL_COLOR_FLAG:-} verify '$work/cluster.yaml'" "$work/tty2.txt" \
    >/dev/null 2>&1 || true
  grep -Eq 'verify: 2 nodes in' "$work/tty2.txt" || fail "$quiet: no live view"
  if grep -q $'\e\\[31m\|\e\\[1m' "$work/tty2.txt"; then fail "$quiet: colour despite it"; fi
done
# --no-progress on a terminal: plain lines, no redraw.
TERM=xterm script -qefc "'$GPUCTL' verify '$work/cluster.yaml' --no-progress" "$work/tty3.txt" >/dev/null 2>&1 || true
if grep -q $'\e\\[[0-9]*F' "$work/tty3.txt"; then fail "--no-progress still redrew"; fi
[ "$(ls "$GPUCTL_STATE_DIR"/logs | wc -l)" = 5 ] || fail "expected 5 run logs: $(ls "$GPUCTL_STATE_DIR"/logs)"

# Under systemd stderr is the journal: systemd sets JOURNAL_STREAM to its "device:inode", and
# gpuctl then prefixes its lines with sd-daemon priorities. Simulated with a file: stderr
# appended to it and JOURNAL_STREAM naming it (the host's journal and systemd stay untouched).
: >"$work/journal.txt"
stream=$(stat -c '%d:%i' "$work/journal.txt")
rc=0
JOURNAL_STREAM=$stream "$GPUCTL" verify "$work/cluster.yaml" --no-progress >/dev/null 2>>"$work/journal.txt" || rc=$?
[ "$rc" = 3 ] || fail "verify for the journal exited $rc, expected 3: $(cat "$work/journal.txt")"
journal=$(cat "$work/journal.txt")
# Every line has a priority (a plain progress line would be a duplicate, stored as info);
# failures are err, the phase info; no debug records (commands, step starts) by default.
if grep -Ev '^<[0-7]>' <<<"$journal"; then fail "journal lines without a priority: $journal"; fi
for want in '^<6>phase verify over 2 nodes$' '^<3>n1: node failed in [0-9]+ ms: check ' '^<3>n2: node failed in [0-9]+ ms: check ' \
            '^<6>phase verify ended in [0-9]+ ms: 0 ok, 0 changed, 2 failed, 0 unreachable, 0 skipped$'; do
  grep -Eq "$want" <<<"$journal" || fail "journal lacks /$want/: $journal"
done
if grep -Eq '^<7>|\$ ' <<<"$journal"; then fail "debug records or commands in the journal by default: $journal"; fi
# -v adds debug records, and the run log's path as info.
: >"$work/journal.txt"
JOURNAL_STREAM=$stream "$GPUCTL" -v verify "$work/cluster.yaml" --no-progress >/dev/null 2>>"$work/journal.txt" || true
grep -Eq '^<6>gpuctl: run log .*-verify(\.[0-9]+)?\.log$' "$work/journal.txt" || fail "-v: no run log path: $(cat "$work/journal.txt")"
grep -Eq '^<7>n1: verify started$' "$work/journal.txt" || fail "-v: no debug records: $(cat "$work/journal.txt")"
# JOURNAL_STREAM inherited but stderr elsewhere (another file): plain lines, no prefixes.
rc=0
JOURNAL_STREAM=$stream "$GPUCTL" verify "$work/cluster.yaml" --no-progress >/dev/null 2>"$work/err2.txt" || rc=$?
[ "$rc" = 3 ] || fail "verify with a stale JOURNAL_STREAM exited $rc"
grep -Eq '^[0-9]{2}:[0-9]{2}:[0-9]{2} n1: failed: check ' "$work/err2.txt" || fail "stale JOURNAL_STREAM: $(cat "$work/err2.txt")"
if grep -q '^<[0-7]>' "$work/err2.txt"; then fail "priority prefixes on stderr that is not the journal"; fi
# The run log is kept under the journal too, every record in it.
[ "$(ls "$GPUCTL_STATE_DIR"/logs | wc -l)" = 8 ] || fail "expected 8 run logs: $(ls "$GPUCTL_STATE_DIR"/logs)"
echo "PASS: progress lines, live view, colour switches, run log, journal priorities and textfile metrics"
