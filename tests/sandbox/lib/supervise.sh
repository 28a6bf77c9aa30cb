#!/usr/bin/env bash
# Supervisor of one sandbox node (started detached by `sandbox up`, PID in $NODE/supervisor.pid).
# Before each boot it decides the node's kernel state from the node's disk, then runs
# systemd-nspawn; when the node reboots (nspawn exits 133) it waits --reboot-delay and boots it
# again, unless the reboot-hang fault holds it down. Any other exit ends the supervisor.
set -u
NODE=$1
source "$(dirname "${BASH_SOURCE[0]}")/common.sh"
source "$NODE/env"   # NAME ADDR ROOT IMAGE_DIR REPO_DIR REBOOT_DELAY
echo $$ > "$NODE/supervisor.pid"
child=
trap 'touch "$NODE/stop"; [[ -n $child ]] && kill -TERM "$child" 2>/dev/null' TERM INT

blacklist_re='^[[:space:]]*(blacklist[[:space:]]+nouveau([[:space:]]|$)|install[[:space:]]+nouveau[[:space:]]+/bin/(false|true))'

# The installed NVIDIA kernel module package, as "VERSION FLAVOUR" (upstream version; open or
# proprietary), if any: the packages named in $REPO_DIR/kernel-module-packages, written from
# gpuctl's package profiles (lib/repo.sh), so Debian's real nvidia-kernel-dkms counts as well.
installed_driver() {
  awk 'FNR == NR { flavour[$2] = $1; next }
       { if (match($0, /(^|\n)Package: [^\n]+/)) { p = substr($0, RSTART, RLENGTH); sub(/.*Package: /, "", p) } else next
         if (!(p in flavour) || $0 !~ /\nStatus: (install|hold) ok installed/) next
         if (match($0, /\nVersion: [^\n]+/)) { v = substr($0, RSTART + 10, RLENGTH - 10); sub(/^[0-9]+:/, "", v); sub(/-[^-]*$/, "", v); print v, flavour[p] } }' \
    "$REPO_DIR/kernel-module-packages" RS= "$ROOT/var/lib/dpkg/status" 2>/dev/null | tail -n1
}

decide_kernel() {
  local k=$NODE/kernel.new in_root=0 in_initrd=0 nouveau=1 drv nv= initrd
  rm -rf "$k"; mkdir -p "$k/driver" "$k/sysmodule"
  cat "$ROOT"/etc/modprobe.d/*.conf "$ROOT"/lib/modprobe.d/*.conf "$ROOT"/usr/lib/modprobe.d/*.conf 2>/dev/null \
    | grep -Eq "$blacklist_re" && in_root=1
  initrd=$(ls -t "$ROOT"/boot/initrd.img-* 2>/dev/null | head -n1)
  [[ -n $initrd ]] && grep -Eq "$blacklist_re" "$initrd" && in_initrd=1
  # nouveau loads from the initramfs unless blacklisted there, and from the root fs unless there.
  [[ $in_root == 1 && $in_initrd == 1 ]] && nouveau=0
  local flavour=proprietary
  read -r drv flavour <<<"$(installed_driver)"
  [[ -n $drv && $nouveau == 0 ]] && nv=$drv
  : > "$k/modules"
  if [[ $nouveau == 1 ]]; then
    printf '%s\n' "nouveau 2838528 0 - Live 0x0000000000000000" "drm_ttm_helper 12288 1 nouveau, Live 0x0000000000000000" \
      "ttm 98304 2 nouveau,drm_ttm_helper, Live 0x0000000000000000" "drm_display_helper 204800 1 nouveau, Live 0x0000000000000000" >> "$k/modules"
    mkdir -p "$k/sysmodule/nouveau"; echo live > "$k/sysmodule/nouveau/initstate"; echo 0 > "$k/sysmodule/nouveau/refcnt"
  fi
  if [[ -n $nv ]]; then
    printf '%s\n' "nvidia_uvm 4911104 0 - Live 0x0000000000000000 (PO)" "nvidia_drm 122880 0 - Live 0x0000000000000000 (PO)" \
      "nvidia_modeset 1507328 1 nvidia_drm, Live 0x0000000000000000 (PO)" \
      "nvidia 56823808 2 nvidia_uvm,nvidia_modeset, Live 0x0000000000000000 (PO)" >> "$k/modules"
    local m; for m in nvidia nvidia_uvm nvidia_modeset nvidia_drm; do
      mkdir -p "$k/sysmodule/$m"; echo live > "$k/sysmodule/$m/initstate"; echo "$nv" > "$k/sysmodule/$m/version"; done
    mkdir -p "$k/driver/nvidia/gpus"
    # The first line as each flavour prints it (real captures: tests/data/nvidia-smi/).
    local module="NVIDIA UNIX x86_64 Kernel Module"
    [[ $flavour == open ]] && module="NVIDIA UNIX Open Kernel Module for x86_64"
    printf 'NVRM version: %s  %s  Release Build  (dvs-builder@U16-I3-B03-4-3)  \nGCC version:  gcc version 12.2.0 (Debian 12.2.0-14) \n' \
      "$module" "$nv" > "$k/driver/nvidia/version"
    local b; for b in $(sed -n 's/^\([0-9]*\)\.bus_id=//p' "$NODE/hw/gpus.conf"); do
      b=${b#0000}; mkdir -p "$k/driver/nvidia/gpus/${b,,}"; done
  fi
  echo "$nv" > "$k/nvidia.version"
  # This boot's kernel log as dmesg prints it (the sandbox's dmesg reads it; faults add Xids).
  : > "$k/kmsg"
  [[ -n $nv ]] && printf '[    5.412233] NVRM: loading %s  %s  Release Build  (dvs-builder@U16-I3-B03-4-3)  Thu Sep 12 19:33:43 UTC 2024\n' \
    "$module" "$nv" >> "$k/kmsg"
  printf 'nouveau=%s blacklist_rootfs=%s blacklist_initramfs=%s driver_package=%s nvidia=%s\n' \
    "$nouveau" "$in_root" "$in_initrd" "${drv:-none}" "${nv:-none}" > "$k/summary"
  rm -rf "$NODE/kernel"; mv "$k" "$NODE/kernel"
}

# A driver reload clears volatile ECC counters and persistence mode, applies pending ECC mode and
# row remaps, and brings back a hung GPU.
reset_gpu_state() {
  local f=$NODE/gpustate/gpus.state
  [[ -f $f ]] || return 0
  awk -F= '{ split($1, p, "."); k = p[2]; v[$1] = $2; order[++n] = $1; pend[p[1]] = (k == "ecc_pending") ? $2 : pend[p[1]] }
    END { for (i = 1; i <= n; i++) { key = order[i]; split(key, p, "."); k = p[2]; val = v[key]
            if (k == "vol_corr" || k == "vol_unc" || k == "pm" || k == "rr_pending" || k == "hung") val = 0
            if (k == "ecc_current" && pend[p[1]] != "") val = pend[p[1]]
            print key "=" val } }' "$f" > "$f.tmp" && mv "$f.tmp" "$f"
}

# nspawn --keep-unit puts the container below the caller's cgroup: give every node its own, or
# the nodes' systemds would manage one shared cgroup tree (and kill each other's services).
for h in systemd unified; do
  cg=/sys/fs/cgroup/$h/gpuctl-sandbox/$MACHINE
  [[ -d /sys/fs/cgroup/$h ]] || continue
  mkdir -p "$cg" && echo $$ > "$cg/cgroup.procs" || echo "warning: cannot use cgroup $cg" >&2
done

boots=0
while :; do
  [[ -e $NODE/stop ]] && break
  if [[ -e $NODE/reboot-hang ]]; then sleep 0.5; continue; fi
  decide_kernel
  reset_gpu_state
  boots=$((boots + 1))
  echo "$(date +%T) boot $boots: $(cat "$NODE/kernel/summary")" >> "$NODE/supervisor.log"
  SYSTEMD_NSPAWN_UNIFIED_HIERARCHY=0 systemd-nspawn --quiet --boot -D "$ROOT" -M "$MACHINE" --hostname="$NAME" \
    --register=no --keep-unit --private-users=no --resolv-conf=off --link-journal=no --console=pipe \
    --bind-ro="$NODE/hw:/run/gpuctl-sandbox/hw" --bind="$NODE/gpustate:/run/gpuctl-sandbox/state" \
    --bind-ro="$NODE/kernel:/run/gpuctl-sandbox/kernel" --bind-ro="$NODE/faults:/run/gpuctl-sandbox/faults" \
    --bind-ro="$REPO_DIR/cuda:/srv/gpuctl-sandbox/cuda" --bind-ro="$IMAGE_DIR/debian:/srv/gpuctl-sandbox/debian" \
    </dev/null >>"$NODE/console.log" 2>&1 &
  child=$!
  echo "$child" > "$NODE/nspawn.pid"
  rc=0; wait "$child" || rc=$?
  while pid_alive "$child"; do wait "$child" || rc=$?; done   # a trapped signal interrupts wait
  child=; rm -f "$NODE/nspawn.pid"
  echo "$(date +%T) boot $boots ended: rc=$rc" >> "$NODE/supervisor.log"
  [[ $rc == 133 ]] || break
  [[ -e $NODE/stop ]] && break
  sleep "$REBOOT_DELAY"
done
rm -f "$NODE/supervisor.pid"
