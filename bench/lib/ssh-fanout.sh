#!/usr/bin/env bash
# ssh-fanout.sh CONFIG COMMANDS_FILE ADDRESS...: the plain-OpenSSH baseline of bench/run. Every
# address in parallel; on each, every line of COMMANDS_FILE as its own `ssh` invocation (a fresh
# connection each), one after the other. Exits 1 if any ssh failed.
cfg=$1 commands=$2
shift 2
for address in "$@"; do
  (
    rc=0
    while IFS= read -r cmd; do ssh -n -F "$cfg" "$address" "$cmd" || rc=1; done < "$commands"
    exit $rc
  ) &
done
rc=0
for job in $(jobs -p); do wait "$job" || rc=1; done
exit $rc
