# shellcheck shell=sh
# The kernel_xids probe (facts/optional_facts.cpp): the driver's Xids, the NVSwitches' SXids and
# the peer-memory module's load errors in the kernel's ring buffer. dmesg's exit status travels
# in the output (a POSIX pipeline has only grep's), so a refused read (dmesg_restrict) is never
# "no Xid". A shell function body: `return` ends the probe.
command -v dmesg >/dev/null 2>&1 || { echo 'dmesg: command not found' >&2; return 127; }
{ dmesg; echo "@@dmesg-rc $?"; } 2>&1 | grep -e 'NVRM: Xid' -e 'SXid (' -e 'nvidia_peermem: ' -e 'nv_peer_mem: ' -e '^@@dmesg-rc' -e '^dmesg: '
return 0
