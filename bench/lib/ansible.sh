# bench/run, part 3 (sourced): the gpu-node playbook's life cycle, gpuctl against Ansible
# (bench/ansible/), forks = node count for both. Per run and tool, on freshly reimaged nodes:
# plan (check) on fresh nodes, first apply (two reboots), idempotent re-apply, plan on converged
# nodes, verify. Ansible needs Python on the nodes, which the sandbox image lacks: it is
# installed after each reimage, untimed, from Debian's own packages (the "bootstrap" any
# Ansible site has baked into its image).

ansible_setup() {
  local A=$WORK/ansible i
  mkdir -p "$A"
  # Python 3 and python3-apt (the apt module's dependency), resolved against the node image's
  # dpkg status so only what the image lacks is fetched.
  if [[ ! -s $A/pydebs.tar ]]; then
    local status; status=$(ls -d /var/cache/gpuctl-sandbox/image-*/rootfs/var/lib/dpkg/status | head -n1)
    rm -rf "$A/pydebs"; mkdir -p "$A/pydebs/partial"
    apt-get install -y -q --download-only -o Dir::State::status="$status" \
      -o Dir::Cache::archives="$A/pydebs" python3 python3-apt > "$LOGS/ansible-pydebs.log" 2>&1 \
      || die "cannot fetch python3 for the nodes: $LOGS/ansible-pydebs.log"
    rm -rf "$A/pydebs/partial" "$A/pydebs/lock"
    tar -C "$A/pydebs" -cf "$A/pydebs.tar" .
  fi
  cat > "$A/ansible.cfg" <<EOC
[defaults]
inventory = $A/hosts.ini
host_key_checking = True
gathering = explicit
interpreter_python = /usr/bin/python3
retry_files_enabled = False
forks = $N
timeout = 30

[ssh_connection]
pipelining = True
ssh_args = -F $CFG -o ControlMaster=auto -o ControlPersist=60s
control_path_dir = $WORK/cp
EOC
  {
    echo "[gpu]"
    for ((i = 1; i <= N; i++)); do printf 'node%02d ansible_host=%s\n' "$i" "$NET.$i"; done
    echo
    echo "[gpu:vars]"
    echo "ansible_user=root"
    echo "rendered_dir=$WORK/rendered"
    echo "driver_branch=535"
    echo "driver_version=$(sed -n 's/^ *driver_version: "\(.*\)"/\1/p' "$INV")"
    echo "cuda=$(sed -n 's/^ *cuda: "\(.*\)"/\1/p' "$INV")"
    echo "cuda_dashed=$(sed -n 's/^ *cuda: "\(.*\)"/\1/p' "$INV" | tr . -)"
    echo "key_url=$(sed -n 's/^ *key_url: //p' "$INV")"
    echo "key_path=/etc/apt/keyrings/gpuctl-cuda.asc"
    echo "gpu_count=8"
    echo "gpu_model=H100"
  } > "$A/hosts.ini"
}

python_bootstrap() {
  local a
  for a in $(addresses); do
    ssh -F "$CFG" "$a" 'set -e; rm -rf /var/tmp/py; mkdir -p /var/tmp/py; tar -x -C /var/tmp/py; cd /var/tmp/py
      dpkg -i libpython3.11-minimal_*.deb python3.11-minimal_*.deb >/dev/null
      dpkg -i python3-minimal_*.deb >/dev/null
      dpkg -i $(ls | grep -v minimal) >/dev/null; cd /; rm -rf /var/tmp/py' < "$WORK/ansible/pydebs.tar" \
      > "$LOGS/bootstrap-$a.log" 2>&1 &
  done
  wait
}

bench_ansible() {
  local run
  ansible_setup
  local PLAY=(env ANSIBLE_CONFIG="$WORK/ansible/ansible.cfg" HOME="$WORK/home" ansible-playbook -f "$N")
  log "life cycle on $N nodes, $LIFECYCLE_RUNS runs per tool"
  for ((run = 1; run <= LIFECYCLE_RUNS; run++)); do
    reimage_all
    measure plan-fresh "$N" gpuctl "$run" "$GPUCTL" plan "$INV" --no-progress --forks "$N"
    measure apply-first "$N" gpuctl "$run" "$GPUCTL" apply "$INV" --yes --no-progress --forks "$N"
    measure apply-again "$N" gpuctl "$run" "$GPUCTL" apply "$INV" --yes --no-progress --forks "$N"
    measure plan-converged "$N" gpuctl "$run" "$GPUCTL" plan "$INV" --no-progress --forks "$N"
    measure verify "$N" gpuctl "$run" "$GPUCTL" verify "$INV" --no-progress --forks "$N"

    reimage_all
    python_bootstrap
    measure plan-fresh "$N" ansible "$run" "${PLAY[@]}" "$BENCH/ansible/gpu-node.yml" --check --diff; close_masters
    measure apply-first "$N" ansible "$run" "${PLAY[@]}" "$BENCH/ansible/gpu-node.yml"; close_masters
    measure apply-again "$N" ansible "$run" "${PLAY[@]}" "$BENCH/ansible/gpu-node.yml"; close_masters
    measure plan-converged "$N" ansible "$run" "${PLAY[@]}" "$BENCH/ansible/gpu-node.yml" --check --diff; close_masters
    measure verify "$N" ansible "$run" "${PLAY[@]}" "$BENCH/ansible/verify.yml"; close_masters
  done
  census_round_trips
}

# Round trips: one more gpuctl life cycle on reimaged nodes, untimed, with bench/lib/count_exec.c
# preloaded to count the remote commands (libssh exec requests) of each command.
census_round_trips() {
  local shim=$WORK/count_exec.so job count out=$RES/round-trips.tsv
  gcc -O2 -shared -fPIC -o "$shim" "$BENCH/lib/count_exec.c" -ldl || { log "no C compiler: round trips not counted"; return; }
  [[ -f $out ]] || printf 'job\tnodes\texec_requests\tper_node\n' > "$out"
  reimage_all
  count() {  # JOB CMD...
    rm -f "$WORK/count"
    GPUCTL_BENCH_COUNT=$WORK/count LD_PRELOAD=$shim "${@:2}" > "$LOGS/census-$1-$N.log" 2>&1 || true
    count=$(cat "$WORK/count" 2>/dev/null || echo '?')
    printf '%s\t%s\t%s\t%s\n' "$1" "$N" "$count" "$(awk -v c="$count" -v n="$N" 'BEGIN {printf "%.1f", c / n}')" >> "$out"
    log "round trips of $1 on $N nodes: $count"
  }
  count exec "$GPUCTL" exec "$INV" --forks "$N" -- uname -r
  count facts "$GPUCTL" facts "$INV" --forks "$N" --json
  count plan-fresh "$GPUCTL" plan "$INV" --no-progress --forks "$N"
  count apply-first "$GPUCTL" apply "$INV" --yes --no-progress --forks "$N"
  count apply-again "$GPUCTL" apply "$INV" --yes --no-progress --forks "$N"
  count plan-converged "$GPUCTL" plan "$INV" --no-progress --forks "$N"
  count verify "$GPUCTL" verify "$INV" --no-progress --forks "$N"
}
