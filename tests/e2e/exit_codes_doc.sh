#!/usr/bin/env bash
# docs/exit-codes.md and the binary agree on `gpuctl plan`'s exit codes, with and without
# --detailed-exitcode: every row of the two tables of its `plan INVENTORY` section is a case
# run here against the real binary, and a row with no case fails the test. Needs no sandbox:
# nodes are `connection: local` (read-only: plans change nothing) or an SSH port on 127.0.0.1
# that nothing listens on.
set -euo pipefail
: "${GPUCTL:?set by ctest}" "${GPUCTL_SOURCE_DIR:?set by ctest}"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }
export GPUCTL_STATE_DIR=$work/state NO_COLOR=1

# The documented rows, as "flag<TAB>code<TAB>when" (flag: "plain" or "detailed").
python3 - "$GPUCTL_SOURCE_DIR/docs/exit-codes.md" >"$work/rows.tsv" <<'PY'
import re, sys
text = open(sys.argv[1], encoding="utf-8").read()
section = text.split("### `plan INVENTORY`", 1)[1].split("\n### ", 1)[0]
flag = None
for line in section.splitlines():
    if line.startswith("Without `--detailed-exitcode`"):
        flag = "plain"
    elif line.startswith("With `--detailed-exitcode`"):
        flag = "detailed"
    m = re.match(r"^\| (\d+) \| (.+) \|$", line)
    if m and flag:
        print(f"{flag}\t{m.group(1)}\t{m.group(2)}")
PY
[[ $(grep -c '^plain' "$work/rows.tsv") -ge 8 && $(grep -c '^detailed' "$work/rows.tsv") -ge 8 ]] ||
  fail "docs/exit-codes.md: cannot find both plan tables: $(cat "$work/rows.tsv")"

cat >"$work/local.yaml" <<'YAML'
cluster: {name: exit-codes}
defaults: {connection: local}
hosts:
  local01: {}
  local02: {}
YAML
cat >"$work/unreachable.yaml" <<'YAML'
cluster: {name: exit-codes}
hosts:
  closed01: {address: 127.0.0.1, port: 1, connect_timeout: 5}
YAML
printf 'cluster: {name: exit-codes}\nhots: {}\n' >"$work/invalid.yaml"
printf 'content\n' >"$work/content.txt"
cat >"$work/none.yaml" <<'YAML'
name: none
steps:
  - name: nothing
    resources:
      - command: "true"
        creates: /
YAML
cat >"$work/changes.yaml" <<YAML
name: changes
steps:
  - name: one-file
    resources:
      - file: $work/absent/file.txt
        source: $work/content.txt
YAML
cat >"$work/failed.yaml" <<YAML
name: failed
steps:
  - name: missing-source
    resources:
      - file: $work/absent/file.txt
        source: $work/no-such-source.txt
YAML
cat >"$work/slow.yaml" <<'YAML'
name: slow
steps:
  - name: slow-guard
    resources:
      - command: "true"
        unless: "sleep 3"
YAML

# Runs `gpuctl plan ARGS...` (plus --detailed-exitcode for "detailed") and prints its exit code.
plan_rc() {
  local flag=$1; shift
  local extra=()
  [[ $flag == detailed ]] && extra=(--detailed-exitcode)
  set +e
  "$GPUCTL" plan "$@" "${extra[@]}" --no-progress >>"$work/out.txt" 2>&1
  echo $?
  set -e
}

# The exit codes of one documented case, one per line (a case may try several command lines).
case_rcs() {
  local flag=$1 when=$2
  case "$when" in
    "no changes"*) plan_rc "$flag" "$work/local.yaml" -p "$work/none.yaml" ;;
    "changes"*) plan_rc "$flag" "$work/local.yaml" -p "$work/changes.yaml" ;;
    "invalid inventory"*) plan_rc "$flag" "$work/invalid.yaml" -p "$work/none.yaml" ;;
    "usage error"*)
      plan_rc "$flag" "$work/local.yaml" --no-such-option
      plan_rc "$flag" "$work/no-such-inventory.yaml"
      plan_rc "$flag" "$work/local.yaml" --limit 'local[01-'
      plan_rc "$flag" "$work/local.yaml" -p no-such-playbook ;;
    "node unreachable"*) plan_rc "$flag" "$work/unreachable.yaml" -p "$work/none.yaml" ;;
    "node failed"*) plan_rc "$flag" "$work/local.yaml" -p "$work/failed.yaml" ;;
    '`-o FILE` not writable'*) plan_rc "$flag" "$work/local.yaml" -p "$work/none.yaml" -o "$work/absent/plan.json" ;;
    "interrupted"*)
      # One node at a time, each waiting 3 s in a guard: SIGTERM after 1 s skips the second.
      local extra=()
      [[ $flag == detailed ]] && extra=(--detailed-exitcode)
      "$GPUCTL" plan "$work/local.yaml" -p "$work/slow.yaml" --forks 1 --no-progress "${extra[@]}" \
        >>"$work/out.txt" 2>&1 &
      local pid=$!
      sleep 1
      kill -TERM "$pid"
      set +e
      wait "$pid"
      echo $?
      set -e ;;
    *) echo "no-case" ;;
  esac
}

checked=0
while IFS=$'\t' read -r flag code when; do
  while read -r rc; do
    [[ $rc != no-case ]] || fail "docs/exit-codes.md documents '$when' ($flag) but this test has no case for it"
    [[ $rc == "$code" ]] ||
      fail "plan ($flag): '$when': docs/exit-codes.md says $code, the binary exited $rc; output: $(tail -n 20 "$work/out.txt")"
    checked=$((checked + 1))
  done < <(case_rcs "$flag" "$when")
done <"$work/rows.tsv"

# The guide's CI example relies on these too: 2 only for changes, and the plan file then written.
rm -f "$work/plan.json"
[[ $(plan_rc detailed "$work/local.yaml" -p "$work/changes.yaml" -o "$work/plan.json") == 2 ]] || fail "changes"
grep -q '"format_version": 2' "$work/plan.json" || fail "the plan was not saved"
echo "exit_codes_doc: ok ($checked exit codes checked against docs/exit-codes.md)"
