# shellcheck shell=sh
# The infiniband probe (facts/optional_facts.cpp): every RDMA port's state, physical state, rate
# and link layer, read by the shell's own `read` (one system call per byte of a one-line file: no
# process per file). A file that cannot be read (the kernel's query failed) prints an empty
# value, which stays unknown. A shell function body: `return` ends the probe.
[ -e /sys/class/infiniband ] || { echo no_infiniband; return 0; };
if [ ! -r /sys/class/infiniband ] || [ ! -x /sys/class/infiniband ]; then
  echo '/sys/class/infiniband: Permission denied' >&2; return 1
fi
for p in /sys/class/infiniband/*/ports/*; do [ -d "$p" ] || continue;
d=${p%/ports/*}; printf 'port %s %s\n' "${d##*/}" "${p##*/}";
for f in state phys_state rate link_layer; do v=;
[ -r "$p/$f" ] && IFS= read -r v < "$p/$f"; printf '%s=%s\n' "$f" "$v"; done; done; return 0
