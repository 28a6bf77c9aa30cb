# shellcheck shell=sh
# The kernel_xids probe (facts/optional_facts.cpp): the driver's Xids, the NVSwitches' SXids and
# the peer-memory module's load errors in the kernel's ring buffer, and gpuctl's GPU resets. dmesg's exit status travels
# in the output (a POSIX pipeline has only grep's), so a refused read (dmesg_restrict) is never
# "no Xid". A shell function body: `return` ends the probe.
command -v dmesg >/dev/null 2>&1 || { echo 'dmesg: command not found' >&2; return 127; }
{ dmesg; echo "@@dmesg-rc $?"; } 2>&1 | grep -e 'NVRM: Xid' -e 'SXid (' -e 'nvidia_peermem: ' -e 'nv_peer_mem: ' -e '^@@dmesg-rc' -e '^dmesg: '
# gpuctl's record of the GPU resets it did (remediate): this boot's lines only, as "UPTIME PCI".
# An Xid logged before its GPU's reset was dealt with; the next boot starts a new log anyway.
if [ -r /var/lib/gpuctl/gpu-resets ]; then
  boot=; read -r boot < /proc/sys/kernel/random/boot_id
  while read -r id uptime pci; do
    [ "$id" = "$boot" ] && echo "@@gpu-reset $uptime $pci"
  done < /var/lib/gpuctl/gpu-resets
fi
return 0
