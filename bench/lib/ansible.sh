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

# One life cycle of each tool on freshly reimaged nodes (RUN: sample number).
lifecycle_gpuctl() {
  reimage_all
  measure plan-fresh "$N" gpuctl "$1" "$GPUCTL" plan "$INV" --no-progress --forks "$N"
  measure apply-first "$N" gpuctl "$1" "$GPUCTL" apply "$INV" --yes --no-progress --forks "$N"
  measure apply-again "$N" gpuctl "$1" "$GPUCTL" apply "$INV" --yes --no-progress --forks "$N"
  measure plan-converged "$N" gpuctl "$1" "$GPUCTL" plan "$INV" --no-progress --forks "$N"
  measure verify "$N" gpuctl "$1" "$GPUCTL" verify "$INV" --no-progress --forks "$N"
}

lifecycle_ansible() {
  reimage_all
  python_bootstrap
  measure plan-fresh "$N" ansible "$1" "${PLAY[@]}" "$BENCH/ansible/gpu-node.yml" --check --diff; close_masters
  measure apply-first "$N" ansible "$1" "${PLAY[@]}" "$BENCH/ansible/gpu-node.yml"; close_masters
  measure apply-again "$N" ansible "$1" "${PLAY[@]}" "$BENCH/ansible/gpu-node.yml"; close_masters
  measure plan-converged "$N" ansible "$1" "${PLAY[@]}" "$BENCH/ansible/gpu-node.yml" --check --diff; close_masters
  measure verify "$N" ansible "$1" "${PLAY[@]}" "$BENCH/ansible/verify.yml"; close_masters
  same_job_check "$1"
}

# Untimed: the two tools must do the same job. On nodes Ansible just converged, gpuctl must find
# nothing to change and every check must pass; anything else is logged as a warning (and in
# results/equivalence.txt) so a playbook that drifted from gpuctl's is seen, not benchmarked.
same_job_check() {  # RUN
  local log=$LOGS/equivalence-$N-$1.log plan_rc=0 verify_rc=0
  "$GPUCTL" plan "$INV" --no-progress --forks "$N" --detailed-exitcode > "$log" 2>&1 || plan_rc=$?
  "$GPUCTL" verify "$INV" --no-progress --forks "$N" >> "$log" 2>&1 || verify_rc=$?
  local summary; summary=$(grep -E '^(Plan|Verify):' "$log" | tr '\n' ' ')
  echo "$N nodes, run $1: after Ansible's apply, gpuctl plan rc=$plan_rc, verify rc=$verify_rc: $summary" >> "$RES/equivalence.txt"
  if ((plan_rc != 0 || verify_rc != 0)); then
    log "warning: gpuctl does not see Ansible's result as converged (plan rc=$plan_rc, verify rc=$verify_rc): $log"
  else
    log "same job: gpuctl plan finds nothing to change after Ansible's apply, verify passes"
  fi
}

# One sample of each converged-node job per tool, interleaved job by job (the tool that goes
# first alternates), on nodes an Ansible apply converged and bootstrapped: both tools find
# nothing to change there (gpuctl plan reports no changes after an Ansible apply).
converged_round() {  # RUN
  local job first
  for job in apply-again plan-converged verify; do
    for first in 0 1; do
      if (( ($1 + first) % 2 )); then
        case $job in
          apply-again) measure apply-again "$N" gpuctl "$1" "$GPUCTL" apply "$INV" --yes --no-progress --forks "$N" ;;
          plan-converged) measure plan-converged "$N" gpuctl "$1" "$GPUCTL" plan "$INV" --no-progress --forks "$N" ;;
          verify) measure verify "$N" gpuctl "$1" "$GPUCTL" verify "$INV" --no-progress --forks "$N" ;;
        esac
      else
        case $job in
          apply-again) measure apply-again "$N" ansible "$1" "${PLAY[@]}" "$BENCH/ansible/gpu-node.yml" ;;
          plan-converged) measure plan-converged "$N" ansible "$1" "${PLAY[@]}" "$BENCH/ansible/gpu-node.yml" --check --diff ;;
          verify) measure verify "$N" ansible "$1" "${PLAY[@]}" "$BENCH/ansible/verify.yml" ;;
        esac
        close_masters
      fi
    done
  done
}

# LIFECYCLE_RUNS full life cycles per tool (the tool that goes first alternates by run), and
# CONVERGED_RUNS - LIFECYCLE_RUNS more converged-node samples per tool, taken right after the
# first life cycle so that a run cut short still has them.
bench_ansible() {
  local run extra=$((CONVERGED_RUNS - LIFECYCLE_RUNS)) k
  ansible_setup
  PLAY=(env ANSIBLE_CONFIG="$WORK/ansible/ansible.cfg" HOME="$WORK/home" ansible-playbook -f "$N")
  log "life cycle on $N nodes, $LIFECYCLE_RUNS runs per tool, $CONVERGED_RUNS of the converged jobs"
  for ((run = 1; run <= LIFECYCLE_RUNS; run++)); do
    if ((run % 2)); then lifecycle_gpuctl "$run"; lifecycle_ansible "$run"
    else lifecycle_ansible "$run"; lifecycle_gpuctl "$run"; fi
    if ((run == 1 && extra > 0)); then
      # The nodes are converged now by whichever tool ran last; the converged jobs need Ansible's
      # Python on them, so converge them with Ansible if gpuctl went last.
      ((run % 2)) || { python_bootstrap; "${PLAY[@]}" "$BENCH/ansible/gpu-node.yml" > "$LOGS/converge-$N.log" 2>&1; close_masters; }
      for ((k = 1; k <= extra; k++)); do converged_round "$((LIFECYCLE_RUNS + k))"; done
    fi
  done
  skipped census || census_round_trips
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
