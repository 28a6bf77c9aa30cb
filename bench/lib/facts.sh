# bench/run, part 2 (sourced): a node's facts. gpuctl facts sends one batch script per node over
# one session; the baseline runs each of the same probe commands (src/facts/probe_script.cpp) as
# its own `ssh` invocation, one after the other per node and all nodes in parallel.

# The probe commands of src/facts/probe_script.cpp, one per line (keep in step with it).
fact_commands() {
  local fields="index,name,uuid,serial,pci.bus_id,driver_version,vbios_version,memory.total,memory.used"
  fields+=",persistence_mode,ecc.mode.current,ecc.errors.corrected.volatile.total,ecc.errors.uncorrected.volatile.total"
  fields+=",ecc.errors.corrected.aggregate.total,ecc.errors.uncorrected.aggregate.total,retired_pages.pending"
  fields+=",pcie.link.gen.current,pcie.link.gen.max,pcie.link.width.current,pcie.link.width.max"
  fields+=",temperature.gpu,power.draw,power.limit"
  cat <<EOC
cat /etc/os-release 2>/dev/null || cat /usr/lib/os-release
cat /proc/sys/kernel/osrelease
cat /proc/sys/kernel/random/boot_id
cat /proc/uptime
cat /proc/modules 2>/dev/null || lsmod
cat /proc/driver/nvidia/version
cat /usr/local/cuda/version.json 2>/dev/null || PATH=\$PATH:/usr/local/cuda/bin nvcc --version
dpkg-query -W -f='\${Package}\t\${Version}\t\${Status}\n' 'nvidia-*' 'libnvidia-*' 'cuda-*' cuda 'libcuda*' 'libnccl*' 'libcudnn*' 'datacenter-gpu-manager*' 'slurm*' munge prometheus-node-exporter 'linux-image-*' 'linux-headers-*' dkms rdma-core infiniband-diags 'ibverbs-*'
for f in /lib/*-linux-gnu/libnccl.so.*.*.* /usr/lib/*-linux-gnu/libnccl.so.*.*.* /usr/local/cuda/lib64/libnccl.so.*.*.*; do [ -f "\$f" ] && [ ! -L "\$f" ] && echo "\$f"; done; true
nvidia-smi --query-gpu=$fields --format=csv,nounits
nvidia-smi -q -d ROW_REMAPPER
nvidia-smi topo -m
nvidia-smi nvlink -s
EOC
}

bench_facts() {
  local run
  fact_commands > "$WORK/fact-commands"
  log "facts on $N nodes ($(wc -l < "$WORK/fact-commands") commands), $RUNS runs"
  for ((run = 1; run <= RUNS; run++)); do
    if ((run % 2)); then
      measure facts "$N" gpuctl "$run" "$GPUCTL" facts "$INV" --forks "$N" --json
      measure facts "$N" ssh_per_command "$run" bash "$BENCH/lib/ssh-fanout.sh" "$CFG" "$WORK/fact-commands" $(addresses)
    else
      measure facts "$N" ssh_per_command "$run" bash "$BENCH/lib/ssh-fanout.sh" "$CFG" "$WORK/fact-commands" $(addresses)
      measure facts "$N" gpuctl "$run" "$GPUCTL" facts "$INV" --forks "$N" --json
    fi
  done
}
