# Sourced by tests/e2e/*.sh: a private sshd on loopback addresses with its own host and client
# keys, config, pid file and known_hosts, so tests never touch the host's SSH setup.
# Everything started is recorded and killed by PID on exit.

set -euo pipefail

skip() { echo "SKIPPED: $*" >&2; exit 77; }
die() { printf 'FAIL: %b\n' "$*" >&2; exit 1; }

[[ -n "${GPUCTL:-}" && -x "$GPUCTL" ]] || skip "GPUCTL must point at the gpuctl binary"
[[ -x /usr/sbin/sshd ]] || skip "/usr/sbin/sshd is missing (apt-get install openssh-server)"
command -v ssh-keygen >/dev/null || skip "ssh-keygen is missing (apt-get install openssh-client)"
command -v python3 >/dev/null || skip "python3 is missing (needed for the hanging listener)"

SANDBOX=$(mktemp -d /tmp/gpuctl-e2e-XXXXXX)
STARTED_PIDS=()
cleanup() {
  local pid
  for pid in "${STARTED_PIDS[@]}"; do kill "$pid" 2>/dev/null || true; done
  for pid in "${STARTED_PIDS[@]}"; do wait "$pid" 2>/dev/null || true; done
  rm -rf "$SANDBOX"
}
trap cleanup EXIT

# The client side sees only the sandbox: its own HOME (~/.ssh/config), no agent.
export HOME=$SANDBOX/home
mkdir -p "$HOME/.ssh"
unset SSH_AUTH_SOCK
LOGIN_USER=$(id -un)

ssh-keygen -q -t ed25519 -N '' -C gpuctl-e2e-host -f "$SANDBOX/host_key"
ssh-keygen -q -t ed25519 -N '' -C gpuctl-e2e-other -f "$SANDBOX/other_host_key"
ssh-keygen -q -t ed25519 -N '' -C gpuctl-e2e-client -f "$SANDBOX/client_key"
cp "$SANDBOX/client_key.pub" "$SANDBOX/authorized_keys"
HOST_FINGERPRINT=$(ssh-keygen -lf "$SANDBOX/host_key.pub" | awk '{print $2}')

port_open() { (exec 3<>"/dev/tcp/$1/$2") 2>/dev/null; }

# start_sshd ADDRESS...: sshd listening on every ADDRESS at $SSHD_PORT; one sshd per 16
# addresses (OpenSSH's MAX_LISTEN_SOCKS), all with the same keys and port. SSHD_PID is the first.
start_sshd() {
  local attempt pid
  for attempt in 1 2 3 4 5; do
    SSHD_PORT=$((20000 + RANDOM % 20000))
    local addresses=("$@") pids=() chunk=0 ok=1
    while ((chunk * 16 < ${#addresses[@]})); do
      start_one_sshd "$chunk" "${addresses[@]:chunk*16:16}" || { ok=0; break; }
      pids+=("$STARTED_SSHD")
      chunk=$((chunk + 1))
    done
    if ((ok)); then
      SSHD_PID=${pids[0]}
      return 0
    fi
    for pid in "${pids[@]}"; do kill "$pid" 2>/dev/null || true; wait "$pid" 2>/dev/null || true; done
  done
  grep -q "Operation not permitted" "$SANDBOX/sshd.log" && skip "cannot start sshd here: $(tail -3 "$SANDBOX/sshd.log")"
  die "sshd did not start: $(tail -5 "$SANDBOX/sshd.log")"
}

# start_one_sshd K ADDRESS...: sshd number K on ADDRESS... at $SSHD_PORT; its PID in
# STARTED_SSHD. Fails (after stopping it) when it does not listen.
start_one_sshd() {
  local k=$1 address config=$SANDBOX/sshd_config
  shift
  [[ $k == 0 ]] || config=$SANDBOX/sshd_config.$k
  {
    for address in "$@"; do echo "ListenAddress $address:$SSHD_PORT"; done
    cat <<CONFIG
HostKey $SANDBOX/host_key
PidFile $SANDBOX/sshd.$k.pid
AuthorizedKeysFile $SANDBOX/authorized_keys
UsePAM no
PasswordAuthentication no
KbdInteractiveAuthentication no
PubkeyAuthentication yes
PermitRootLogin prohibit-password
StrictModes no
MaxStartups 200
MaxSessions 100
LogLevel ERROR
CONFIG
  } >"$config"
  /usr/sbin/sshd -t -f "$config" 2>"$SANDBOX/sshd_check.log" ||
    { [[ -d /run/sshd ]] || grep -q "privilege separation" "$SANDBOX/sshd_check.log"; } ||
    die "sshd rejects our config: $(cat "$SANDBOX/sshd_check.log")"
  if [[ -d /run/sshd || $(id -u) -ne 0 ]]; then
    /usr/sbin/sshd -D -e -f "$config" 2>>"$SANDBOX/sshd.log" &
  else
    # sshd insists on /run/sshd; give it one in a private mount namespace instead of
    # creating it on the host.
    command -v unshare >/dev/null || skip "/run/sshd is missing and unshare is unavailable"
    unshare -m --propagation private sh -c \
      'mount -t tmpfs tmpfs /run && mkdir -m 755 /run/sshd && exec /usr/sbin/sshd -D -e -f "$1"' \
      sh "$config" 2>>"$SANDBOX/sshd.log" &
  fi
  STARTED_SSHD=$!
  STARTED_PIDS+=("$STARTED_SSHD")
  local i
  for i in $(seq 50); do
    if port_open "$1" "$SSHD_PORT"; then return 0; fi
    kill -0 "$STARTED_SSHD" 2>/dev/null || break
    sleep 0.1
  done
  kill "$STARTED_SSHD" 2>/dev/null || true
  wait "$STARTED_SSHD" 2>/dev/null || true
  return 1
}

# start_hang_listener ADDRESS PORT: accepts TCP connections and never says a word.
start_hang_listener() {
  python3 -c '
import socket, sys, time
s = socket.socket(); s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
s.bind((sys.argv[1], int(sys.argv[2]))); s.listen(64)
held = []
while True:
    c, _ = s.accept(); held.append(c)
' "$1" "$2" &
  STARTED_PIDS+=($!)
  local i
  for i in $(seq 50); do port_open "$1" "$2" && return 0; sleep 0.1; done
  die "hanging listener did not start"
}

# write_inventory FILE POLICY NAME=ADDRESS...: nodes on $SSHD_PORT with the sandbox's keys.
write_inventory() {
  local file=$1 policy=$2 entry
  shift 2
  {
    cat <<YAML
cluster:
  name: e2e
  # The "nodes" are this machine's own sshd: nothing is to be installed on them, node_exporter
  # included (which every node without GPUs gets otherwise).
  monitoring: {node_exporter: false}
defaults:
  port: $SSHD_PORT
  user: $LOGIN_USER
  identity_file: $SANDBOX/client_key
  known_hosts: $SANDBOX/known_hosts
  host_key_checking: $policy
  connect_timeout: 2
  command_timeout: 30
hosts:
YAML
    for entry in "$@"; do echo "  ${entry%%=*}: {address: ${entry#*=}}"; done
  } >"$file"
}

# Trust the sandbox host key for ADDRESS... (as a pinned known_hosts would).
pin_host_key() {
  local address
  for address in "$@"; do echo "[$address]:$SSHD_PORT $(cut -d' ' -f1,2 "$SANDBOX/host_key.pub")"; done >>"$SANDBOX/known_hosts"
}

expect_contains() { grep -qF -- "$2" <<<"$1" || die "expected '$2' in output of $3:\n$1"; }
