# shellcheck shell=sh
# The pcie_aer probe (facts/optional_facts.cpp): each GPU's PCIe AER counters
# (Documentation/ABI/testing/sysfs-bus-pci-devices-aer_stats), and those of the port above it:
# the other end of the GPU's link, which may count the link's errors while the GPU's own
# counters stay at 0 (the same document). The GPUs are the ones the NVIDIA driver lists under
# /proc/driver/nvidia/gpus (named by bus id, as sysfs names them). The port is the GPU's parent
# directory in sysfs's device tree (`cd -P`, then back: no process; not tried where the shell
# does not know its own directory, $PWD empty), when that is a PCI function ("0000:17:01.0")
# and not a host bridge ("pci0000:17"); one port above several GPUs is read once. A file the
# kernel did not create is named `absent`, and the files that exist are read by one grep, whose
# exit status is the probe's: a file that exists but cannot be read fails the probe (grep's
# message), never reads as zero. /dev/null makes grep name the file on every line (POSIX grep
# does so with more than one file). A shell function body: `return` ends the probe.
[ -d /proc/driver/nvidia/gpus ] || { echo no_nvidia_gpus; return 0; };
o=$PWD; q=' '; set --; for g in /proc/driver/nvidia/gpus/*; do [ -e "$g" ] || continue; b=${g##*/};
d=/sys/bus/pci/devices/$b; printf 'gpu %s\n' "$b";
[ -d "$d" ] || { printf 'no_device %s\n' "$b"; continue; };
u=; [ -n "$o" ] && cd -P -- "$d/.." 2>/dev/null && { u=${PWD##*/}; cd -- "$o" 2>/dev/null || cd /; };
case $u in [0-9a-f][0-9a-f][0-9a-f][0-9a-f]:[0-9a-f][0-9a-f]:[0-9a-f][0-9a-f].[0-7])
printf 'port %s %s\n' "$b" "$u"; case $q in *" $u "*) u=;; *) q="$q$u ";; esac;; *) u=;; esac;
for x in "$b" ${u:+"$u"}; do for f in aer_dev_correctable aer_dev_fatal aer_dev_nonfatal; do
if [ -e "/sys/bus/pci/devices/$x/$f" ]; then set -- "$@" "/sys/bus/pci/devices/$x/$f";
else printf 'absent %s %s\n' "$x" "$f"; fi; done; done; done;
[ "$#" -gt 0 ] || return 0;
command -v grep >/dev/null 2>&1 || { echo 'grep: command not found' >&2; return 127; };
grep -e '' -- "$@" /dev/null
