# shellcheck shell=sh
# The node_hardware probe (facts/node_hardware.cpp), run before a plan renders slurm.conf and
# gres.conf: Slurm's view of the node (`slurmd -C`, where slurmd is installed), the CPU layout
# (`lscpu -p`: each CPU's core and socket), MemTotal, and each NVIDIA GPU's PCI address and
# local CPUs from sysfs (there before any driver is installed, and what nvidia-smi topo -m's
# CPU Affinity reads). Read-only; each section prints its exit code. $T is the timeout.
if command -v slurmd >/dev/null 2>&1; then
  # shellcheck disable=SC2086 # $T is the timeout command and its options, split on purpose
  out=$($T slurmd -C 2>&1); rc=$?
else
  out='slurmd: command not found'; rc=127
fi
echo "@@ slurmd rc=$rc"
printf '%s\n' "$out"
out=$(LC_ALL=C lscpu -p=CPU,CORE,SOCKET 2>&1); rc=$?
echo "@@ lscpu rc=$rc"
printf '%s\n' "$out"
out=$(grep '^MemTotal:' /proc/meminfo 2>&1); rc=$?
echo "@@ meminfo rc=$rc"
printf '%s\n' "$out"
echo "@@ gpus rc=0"
for d in /sys/bus/pci/devices/*; do
  [ "$(cat "$d/vendor" 2>/dev/null)" = 0x10de ] || continue
  # Display (0x0300) and 3D (0x0302) controllers: the GPUs, not NVSwitches (0x0680) or audio.
  case "$(cat "$d/class" 2>/dev/null)" in 0x0300* | 0x0302*) ;; *) continue ;; esac
  echo "${d##*/} $(cat "$d/local_cpulist" 2>/dev/null)"
done
