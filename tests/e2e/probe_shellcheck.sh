#!/usr/bin/env bash
# The shell the facts batch runs on nodes (src/facts/probes/*.sh, embedded into gpuctl at build
# time) passes shellcheck as POSIX sh: each file is a probe's function body, so it is checked
# with its `return`s in a function, as the batch runs it.
set -uo pipefail
: "${GPUCTL_SOURCE_DIR:?set GPUCTL_SOURCE_DIR}"
command -v shellcheck >/dev/null || { echo "shellcheck missing (scripts/install-deps installs it)"; exit 77; }
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
count=0 failed=0
for file in "$GPUCTL_SOURCE_DIR"/src/facts/probes/*.sh; do
  count=$((count + 1))
  name=$(basename "$file" .sh)
  # The batch's preamble defines T (the timeout prefix) and show(); the body runs as p_NAME.
  { printf '#!/bin/sh\n# shellcheck disable=SC2034 # not every probe uses it\nT=%s\np_%s() {\n' "''" "$name"; cat "$file"; printf '}\np_%s\n' "$name"; } > "$work/$name.sh"
  if ! out=$(shellcheck -s sh -x "$work/$name.sh" 2>&1); then
    failed=$((failed + 1))
    printf '%s:\n%s\n' "${file#"$GPUCTL_SOURCE_DIR"/}" "$out"
  fi
done
((count > 0)) || { echo "no probe shell found under src/facts/probes"; exit 1; }
((failed == 0)) || { echo "$failed of $count probe shell files fail shellcheck"; exit 1; }
echo "PASS: $count probe shell files pass shellcheck"
