# shellcheck shell=sh
# The net_interfaces probe (facts/optional_facts.cpp): every network interface's name and
# operstate, the names by globbing /sys/class/net, each operstate by the shell's own `read`; no
# process per interface. Then the addresses, by one `ip -o addr show` (iproute2): sysfs has no
# file for them, and NCCL's socket transport takes only interfaces with one. ip's status is the
# probe's. Without ip (minimal images, the lent H200's among them) the IPv6 addresses come from
# /proc/net/if_inet6, read by the shell ("if_inet6_read", then a line per address), and IPv4
# stays unknown, never none. A shell function body: `return` ends the probe.
[ -d /sys/class/net ] || { echo '/sys/class/net: No such file or directory' >&2; return 1; };
if [ ! -r /sys/class/net ] || [ ! -x /sys/class/net ]; then echo '/sys/class/net: Permission denied' >&2; return 1; fi
for n in /sys/class/net/*; do [ -e "$n" ] || continue; s=;
[ -r "$n/operstate" ] && IFS= read -r s < "$n/operstate"; printf 'iface %s %s\n' "${n##*/}" "$s"; done;
command -v ip >/dev/null 2>&1 && { ip -o addr show; return; }; echo no_ip_command;
[ -r /proc/net/if_inet6 ] || return 0; echo if_inet6_read;
while read -r a _ p _ _ n; do printf 'if_inet6 %s %s %s\n' "$n" "$a" "$p"; done < /proc/net/if_inet6; return 0
