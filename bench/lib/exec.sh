# bench/run, part 1 (sourced): one command on every node, `uname -r`, with fanout = node count.
# gpuctl exec, pdsh -R ssh, clush and a plain `ssh ... & wait` loop, rotated each run so that no
# tool always runs first.

bench_exec() {
  local tools=(gpuctl pdsh clush ssh_loop) run k t
  echo "uname -r" > "$WORK/exec-command"
  log "exec on $N nodes, $RUNS runs"
  for ((run = 1; run <= RUNS; run++)); do
    for ((k = 0; k < ${#tools[@]}; k++)); do
      t=${tools[(k + run) % ${#tools[@]}]}
      case $t in
        gpuctl) measure exec "$N" "$t" "$run" "$GPUCTL" exec "$INV" --forks "$N" -- uname -r ;;
        pdsh) measure exec "$N" "$t" "$run" env HOME="$WORK/home" PDSH_SSH_ARGS="-F $CFG -x -l%u %h" \
                pdsh -R ssh -l root -f "$N" -w "$NET.[1-$N]" uname -r ;;
        clush) measure exec "$N" "$t" "$run" env HOME="$WORK/home" clush -f "$N" -o "-F $CFG" -w "$NET.[1-$N]" uname -r ;;
        ssh_loop) measure exec "$N" "$t" "$run" bash "$BENCH/lib/ssh-fanout.sh" "$CFG" "$WORK/exec-command" $(addresses) ;;
      esac
      # Every tool must really have reached every node.
      local got; got=$(grep -c "$(uname -r)" "$LOGS/exec-$N-$t-$run.log" || true)
      ((got == N)) || log "warning: exec $t #$run printed $got of $N kernel lines"
    done
  done
}
