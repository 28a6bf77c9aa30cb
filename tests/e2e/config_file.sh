#!/usr/bin/env bash
# gpuctl.conf (docs/configuration.md) through the real binary: a value of a [command] section
# takes effect; --state-dir's precedence is command line > GPUCTL_STATE_DIR > the file; a
# misspelt option or command, a line that is not `name = value`, --yes, a named file that
# does not exist and a FIFO are refused with the file and line (exit 2) and run nothing.
# Contacts no node; everything lives in a temp dir.
set -u
: "${GPUCTL:?}" "${GPUCTL_SOURCE_DIR:?}"
example="$GPUCTL_SOURCE_DIR/docs/examples/cluster.yaml"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
failures=0
fail() { echo "FAIL: $*"; failures=$((failures + 1)); }
unset GPUCTL_CONFIG GPUCTL_STATE_DIR GPUCTL_SECRETS_DIR

# A [render] default: expand = true prints every node's copy of a shared file.
folded=$("$GPUCTL" render "$example" --limit 'gpu0[1-4]' | wc -l)
printf '# site defaults\n[render]\nexpand = true\n' >"$work/expand.conf"
expanded=$("$GPUCTL" --config "$work/expand.conf" render "$example" --limit 'gpu0[1-4]' | wc -l)
((expanded > folded)) || fail "[render] expand = true was not applied ($expanded lines, folded $folded)"
via_env=$(GPUCTL_CONFIG="$work/expand.conf" "$GPUCTL" render "$example" --limit 'gpu0[1-4]' | wc -l)
[[ $via_env == "$expanded" ]] || fail "GPUCTL_CONFIG was not read ($via_env lines)"

# A relative path in the file is the file's, not the working directory's (issue #37): the
# playbook next to the file is used, not one of that name where gpuctl is started.
mkdir -p "$work/site" "$work/elsewhere"
printf 'name: site\nsteps:\n  - name: s\n    resources:\n      - file: /etc/from-the-site\n        template: nccl.conf.mustache\n' >"$work/site/extra.yaml"
printf 'name: trap\nsteps:\n  - name: s\n    resources:\n      - file: /etc/from-the-cwd\n        template: nccl.conf.mustache\n' >"$work/elsewhere/extra.yaml"
printf '[render]\nplaybook = extra.yaml\n' >"$work/site/gpuctl.conf"
out=$(cd "$work/elsewhere" && "$GPUCTL" --config "$work/site/gpuctl.conf" render "$example" --node gpu01 2>&1)
[[ $out == *"/etc/from-the-site"* && $out != *"/etc/from-the-cwd"* ]] ||
  fail "a relative playbook in gpuctl.conf was not taken from the file's directory:\n$out"

# --state-dir: command line, then the environment, then the file.
printf 'state-dir = %s\n' "$work/from-file" >"$work/state.conf"
"$GPUCTL" --config "$work/state.conf" history >/dev/null || fail "history with state-dir from the file"
[[ -f $work/from-file/state.db ]] || fail "state-dir from the file was not used"
GPUCTL_STATE_DIR="$work/from-env" "$GPUCTL" --config "$work/state.conf" history >/dev/null
[[ -f $work/from-env/state.db ]] || fail "GPUCTL_STATE_DIR did not win over the file"
GPUCTL_STATE_DIR="$work/from-env" "$GPUCTL" --config "$work/state.conf" --state-dir "$work/from-cli" history >/dev/null
[[ -f $work/from-cli/state.db ]] || fail "--state-dir did not win over GPUCTL_STATE_DIR"

refused() {  # refused NAME CONTENT EXPECTED-TEXT
  printf '%b' "$2" >"$work/bad.conf"
  local err rc
  err=$("$GPUCTL" --config "$work/bad.conf" --state-dir "$work/bad-state" history 2>&1 >/dev/null)
  rc=$?
  [[ $rc == 2 ]] || fail "$1: exit $rc, want 2"
  [[ $err == *"$3"* ]] || fail "$1: got '$err', want '$3'"
  [[ ! -e $work/bad-state ]] || fail "$1: the command ran"
}
refused "misspelt option" 'color = never\n[history]\nlimit-run = 3\n' \
  "bad.conf:3: gpuctl history has no option --limit-run (did you mean 'limit-runs'?"
refused "misspelt command" '\n[histroy]\n' "bad.conf:2: no command 'histroy' (did you mean 'history'?"
refused "not name = value" '[plan]\nforks 3\n' "bad.conf:2: 'forks 3' is not 'name = value'"
refused "--yes" '[apply]\nyes = true\n' "bad.conf:2: --yes of gpuctl apply cannot be set in a configuration file"
refused "global typo" 'colour = never\n' "bad.conf:1: gpuctl's global options has no option --colour (did you mean 'color'?"

# A relative directory would depend on where gpuctl was started: refused, from the file too.
printf 'state-dir = relative/state\n' >"$work/relative.conf"
err=$(cd "$work" && "$GPUCTL" --config "$work/relative.conf" history 2>&1); rc=$?
[[ $rc == 2 && $err == *"is not an absolute path"* && ! -e $work/relative ]] || fail "relative state-dir: $rc $err"

err=$("$GPUCTL" --config "$work/missing.conf" history 2>&1); rc=$?
[[ $rc == 2 && $err == *"cannot read configuration file $work/missing.conf"* ]] || fail "missing named file: $rc $err"
mkfifo "$work/fifo.conf"
err=$(timeout 10 "$GPUCTL" --config "$work/fifo.conf" history 2>&1); rc=$?
[[ $rc == 2 && $err == *"not a regular file"* ]] || fail "a FIFO: exit $rc: $err"

((failures == 0)) && echo "ok: gpuctl.conf" || exit 1
