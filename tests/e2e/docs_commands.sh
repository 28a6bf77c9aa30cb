#!/usr/bin/env bash
# Every `gpuctl ...` command in the code blocks of README.md and docs/, and every example in
# `gpuctl --help`, parses with today's CLI
# (issue #15: docs that cannot drift). Each runs as GPUCTL_PARSE_ONLY=1 gpuctl ARGS: the real
# parser, no command run, no node contacted; an unknown flag or command, a missing argument or a
# value of the wrong shape fails, naming the file and line. Values only a check can refuse
# (a file that must exist) are not this test's business. A block fenced ```text is output
# (a run log), not commands.
set -uo pipefail
: "${GPUCTL:?set GPUCTL to the gpuctl binary}" "${GPUCTL_SOURCE_DIR:?set GPUCTL_SOURCE_DIR}"
command -v python3 >/dev/null || { echo "python3 missing"; exit 77; }
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
# The help's "Example:" lines too: every subcommand is listed, with its examples, by --help.
"$GPUCTL" --help > "$work/help.txt" || exit 1
python3 "$GPUCTL_SOURCE_DIR/tests/e2e/lib/doc_commands.py" "$GPUCTL_SOURCE_DIR" "$work/help.txt" > "$work/commands" || exit 1
total=0 failed=0
while IFS=$'\t' read -r where joined; do
  IFS=$'\x1f' read -r -a args <<<"$joined"
  total=$((total + 1))
  # From an empty directory, so that no example's relative path resolves by accident.
  # 96: parsed and nothing ran (never 0, so that the switch cannot pass a CI gate); --help exits 0.
  out=$(cd "$work" && GPUCTL_PARSE_ONLY=1 "$GPUCTL" "${args[@]}" 2>&1 </dev/null) && rc=0 || rc=$?
  if [[ $rc != 96 && $rc != 0 ]]; then
    failed=$((failed + 1))
    printf '%s: gpuctl %s\n    %s\n' "$where" "${args[*]}" "${out//$'\n'/$'\n    '}"
  fi
done < "$work/commands"
((total >= 50)) || { echo "only $total gpuctl commands found in the docs: the extractor is broken"; exit 1; }
((failed == 0)) || { echo "$failed of $total documented gpuctl commands do not parse"; exit 1; }
echo "PASS: $total documented gpuctl commands parse"
