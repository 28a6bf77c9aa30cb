# Node lifecycle (sourced): create, mount, provision identity, start, stop, unmount.

# create_node NAME ADDR GPUS MODEL [HGX]: state dir, host keys, hardware (the GPUs' PCIe AER
# counters; with HGX=1 the InfiniBand HCAs too), empty GPU state.
create_node() {
  local name=$1 addr=$2 gpus=$3 model=$4 hgx=${5:-0} d; d=$(node_dir "$1")
  mkdir -p "$d"/{upper,work,root,hostkeys,hw,gpustate,faults}
  echo "$addr" > "$d/address"
  [[ -f $d/hostkeys/ssh_host_ed25519_key ]] ||
    ssh-keygen -q -t ed25519 -N '' -C "root@$name" -f "$d/hostkeys/ssh_host_ed25519_key"
  write_hardware "$d/hw/gpus.conf" "$name" "$gpus" "$model"
  cp "$d/hw/gpus.conf" "$d/hw.orig"
  if ((gpus > 0)); then write_pcie_aer "$d/hw/pci" "$d/hw/gpus.conf"; rm -rf "$d/pci.orig"; cp -a "$d/hw/pci" "$d/pci.orig"; fi
  if ((hgx)); then write_infiniband "$d/hw/infiniband" "$name"; rm -rf "$d/infiniband.orig"; cp -a "$d/hw/infiniband" "$d/infiniband.orig"; fi
  : > "$d/gpustate/gpus.state"
  cat > "$d/env" <<EOV
NAME=$name
MACHINE=$MACHINE_PREFIX-$name
ADDR=$addr
ROOT=$d/root
IMAGE_DIR=$IMAGE_DIR
REPO_DIR=$REPO_DIR
REBOOT_DELAY=$REBOOT_DELAY
EOV
}

mount_node() {
  local d; d=$(node_dir "$1")
  mountpoint -q "$d/root" && return 0
  mount -t overlay overlay -o "lowerdir=$IMAGE_DIR/rootfs,upperdir=$d/upper,workdir=$d/work" "$d/root"
}

# What makes a node itself; written into its upper layer (again after a reimage).
provision_node() {
  local name=$1 d r addr; d=$(node_dir "$1"); r=$d/root; addr=$(node_addr "$name")
  echo "$name" > "$r/etc/hostname"
  printf '127.0.0.1\tlocalhost\n%s\t%s\n' "$addr" "$name" > "$r/etc/hosts"
  [[ -s $d/machine-id ]] || tr -d '-' < /proc/sys/kernel/random/uuid > "$d/machine-id"
  cp "$d/machine-id" "$r/etc/machine-id"
  install -m 600 "$d/hostkeys/ssh_host_ed25519_key" "$r/etc/ssh/ssh_host_ed25519_key"
  install -m 644 "$d/hostkeys/ssh_host_ed25519_key.pub" "$r/etc/ssh/ssh_host_ed25519_key.pub"
  # The nodes share the host's network namespace: each sshd binds only its own address.
  printf 'ListenAddress %s\n' "$addr" > "$r/etc/ssh/sshd_config.d/00-listen.conf"
  install -d -m 700 "$r/root/.ssh"
  install -m 600 "$KEY.pub" "$r/root/.ssh/authorized_keys"
}

start_node() {
  local d; d=$(node_dir "$1")
  pid_alive "$(read_pid "$d/supervisor.pid")" && return 0
  rm -f "$d/stop" "$d/supervisor.pid"
  setsid bash "$SANDBOX_SRC/lib/supervise.sh" "$d" </dev/null >>"$d/supervisor.log" 2>&1 &
  local i; for ((i = 0; i < 50; i++)); do [[ -s $d/supervisor.pid ]] && return 0; sleep 0.1; done
  die "supervisor of $1 did not start (see $d/supervisor.log)"
}

# Stops the supervisor and the container (clean halt, then SIGKILL after a grace period).
stop_node() {
  local d sup ns i; d=$(node_dir "$1")
  touch "$d/stop"
  sup=$(read_pid "$d/supervisor.pid"); ns=$(read_pid "$d/nspawn.pid")
  pid_alive "$ns" && kill -TERM "$ns" 2>/dev/null
  for ((i = 0; i < 100; i++)); do pid_alive "$ns" || pid_alive "$sup" || break; sleep 0.1; done
  if pid_alive "$ns"; then kill -KILL "$ns" 2>/dev/null; fi
  if pid_alive "$sup"; then kill -TERM "$sup" 2>/dev/null; sleep 0.2; pid_alive "$sup" && kill -KILL "$sup" 2>/dev/null; fi
  for ((i = 0; i < 50; i++)); do pid_alive "$ns" || break; sleep 0.1; done
  rm -f "$d/supervisor.pid" "$d/nspawn.pid"
}

unmount_node() {
  local d m; d=$(node_dir "$1")
  # Anything mounted below the node root (e.g. by the node itself), deepest first.
  for m in $(awk -v p="$d/" 'index($5, p) == 1 {print $5}' /proc/self/mountinfo | sort -r); do
    umount -l "$m" 2>/dev/null || true
  done
}

node_ready() {  # NAME: sshd answers with the expected host key
  # shellcheck disable=SC2046
  ssh $(ssh_opts) -o ConnectTimeout=2 "root@$(node_addr "$1")" true 2>/dev/null
}
