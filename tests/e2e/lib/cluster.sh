# Sourced by tests/e2e/*.sh that need sandbox nodes: starts a private sandbox cluster
# (tests/sandbox) in its own state directory, and always stops it on exit.
#   start_cluster ARGS...   e.g. start_cluster -n 4 --gpus 8 --model H100
# Sets INVENTORY and SANDBOX_CMD; `expect_rc RC CMD...` runs CMD, checks its exit code, and
# keeps its output in $OUTPUT.

set -uo pipefail

skip() { echo "SKIPPED: $*" >&2; exit 77; }
die() { printf 'FAIL: %b\n' "$*" >&2; exit 1; }

[[ -n "${GPUCTL:-}" && -x "$GPUCTL" ]] || skip "GPUCTL must point at the gpuctl binary"
[[ $(id -u) == 0 ]] || skip "sandbox nodes need root (systemd-nspawn, overlayfs)"
command -v systemd-nspawn >/dev/null || skip "systemd-nspawn missing (apt-get install systemd-container)"
command -v mmdebstrap >/dev/null || skip "mmdebstrap missing (apt-get install mmdebstrap)"

SANDBOX_CMD=${GPUCTL_SOURCE_DIR:?}/tests/sandbox/sandbox
WORK=$(mktemp -d /var/tmp/gpuctl-e2e-XXXXXX)
export GPUCTL_SANDBOX_DIR=$WORK/sandbox
export GPUCTL_STATE_DIR=$WORK/gpuctl-state   # gpuctl's secrets and state stay in the test

stop_cluster() {
  "$SANDBOX_CMD" down >/dev/null 2>&1 || "$SANDBOX_CMD" down
  rm -rf "$WORK"
}
trap stop_cluster EXIT

start_cluster() {
  "$SANDBOX_CMD" up "$@" || die "sandbox up $* failed"
  INVENTORY=$("$SANDBOX_CMD" inventory)
  [[ -f $INVENTORY ]] || die "the sandbox wrote no inventory"
}

OUTPUT=""
expect_rc() {
  local want=$1 got
  shift
  OUTPUT=$("$@" 2>&1)
  got=$?
  [[ $got == "$want" ]] || die "'$*' exited $got, expected $want; output:\n$OUTPUT"
}

expect_output() {  # PATTERN [WHY]: $OUTPUT must match the extended regex
  grep -Eq -- "$1" <<<"$OUTPUT" || die "${2:-output} does not match /$1/:\n$OUTPUT"
}
