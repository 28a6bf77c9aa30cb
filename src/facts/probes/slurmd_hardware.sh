# shellcheck shell=sh
# The slurmd_hardware probe (facts/slurmd_hardware.cpp): `slurmd -C`, Slurm's own view of the
# node's CPUs, boards, sockets, cores, threads and memory, printed in slurm.conf's words. It
# reads the hardware only (hwloc, /proc), starts no daemon and needs no slurm.conf. Under the
# batch's timeout ($T). A shell function body: `return` ends the probe.
command -v slurmd >/dev/null 2>&1 || { echo 'slurmd: command not found' >&2; return 127; }
# shellcheck disable=SC2086 # $T is the timeout command and its options, split on purpose
$T slurmd -C
