# Shared settings and helpers of the sandbox scripts (sourced, not run).
SANDBOX_SRC=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
STATE=${GPUCTL_SANDBOX_DIR:-/var/lib/gpuctl-sandbox}
CACHE=${GPUCTL_SANDBOX_CACHE:-/var/cache/gpuctl-sandbox}
SUITE=bookworm
# Node NN listens on $NODE_NET.NN; the optional head node on $HEAD_ADDR. A second sandbox
# (e.g. the self-test next to a developer's) needs its own GPUCTL_SANDBOX_NET.
NODE_NET=${GPUCTL_SANDBOX_NET:-127.0.100}
HEAD_ADDR=${NODE_NET%.*}.$(( ${NODE_NET##*.} + 1 )).1
# nspawn keeps per-machine runtime state under /run/systemd/nspawn: names unique per sandbox.
MACHINE_PREFIX=gs$(printf '%s' "$STATE" | sha256sum | cut -c1-6)
KEY=$STATE/id_ed25519

log() { echo "sandbox: $*" >&2; }
die() { echo "sandbox: error: $*" >&2; exit 1; }

require_root() { [[ $EUID -eq 0 ]] || die "must run as root (systemd-nspawn, mounts)"; }

# Content hash of files/dirs (names + contents), for cache keys.
recipe_hash() {
  (for p in "$@"; do
     if [[ -d $p ]]; then (cd "$p" && find . -type f -print0 | LC_ALL=C sort -z | xargs -0 sha256sum); else sha256sum < "$p"; fi
   done) | sha256sum | cut -c1-16
}

node_dir() { echo "$STATE/nodes/$1"; }
node_names() { [[ -d $STATE/nodes ]] && ls "$STATE/nodes" 2>/dev/null | LC_ALL=C sort; }
node_addr() { cat "$(node_dir "$1")/address"; }

pid_alive() { [[ -n ${1:-} ]] && kill -0 "$1" 2>/dev/null; }
read_pid() { [[ -f $1 ]] && cat "$1" 2>/dev/null || true; }

# PID of the node's init (systemd), i.e. the child of its systemd-nspawn.
node_leader() {
  local ns; ns=$(read_pid "$(node_dir "$1")/nspawn.pid")
  pid_alive "$ns" || return 1
  local c; c=$(cat /proc/"$ns"/task/*/children 2>/dev/null | awk '{print $1; exit}')
  [[ -n $c ]] && echo "$c"
}

# Runs a command inside a running node, bypassing SSH (used for faults and self-checks).
node_exec() {
  local name=$1; shift
  local leader; leader=$(node_leader "$name") || die "$name is not running"
  nsenter -t "$leader" -m -u -i -p -- "$@"
}

ssh_opts() {
  echo -o BatchMode=yes -o StrictHostKeyChecking=yes -o UserKnownHostsFile="$STATE/known_hosts" \
       -o ConnectTimeout=3 -o LogLevel=ERROR -i "$KEY"
}
