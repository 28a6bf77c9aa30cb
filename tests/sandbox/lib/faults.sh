# Fault injection from the host (sourced): `sandbox fault NODE KIND [GPU]`, `sandbox heal NODE`.
FAULT_KINDS="ecc gpu-missing gpu-replaced thermal power-brake xid-CODE gpu-hung pcie-aer dcgm-diag ib-down ib-init ib-rate hca-missing unreachable hang disk-full dpkg-locked package-broken reboot-hang"

# What the NVIDIA driver prints after "NVRM: Xid (PCI:dddd:bb:dd): CODE, " for the Xids the
# sandbox injects (tests/data/kernel-log/README.md cites each): 79 and 63 as real logs show
# them; 48 with the text NVIDIA's page-retirement guide gives; any other code in the
# pid/name/channel form of real logs (for 94 no verbatim line was found).
xid_text() {
  case $1 in
    79) echo "GPU has fallen off the bus." ;;
    63) echo "pid=1896, Row Remapper: New row marked for remapping, reset gpu to activate." ;;
    48) echo "An uncorrectable double bit error (DBE) has been detected on GPU ($2)" ;;
    *)  echo "pid=1797828, name=pt_main_thread, Ch 00000008" ;;
  esac
}

# log_xid NODE_DIR HW_FILE SLOT CODE: the driver's Xid line for the GPU in this boot's kernel log,
# stamped with the uptime as dmesg stamps its lines.
log_xid() {
  local bus up; bus=$(hw_get "$2" "$3.bus_id"); bus=${bus#0000}; bus=${bus%.*}
  up=$(cut -d' ' -f1 /proc/uptime)
  printf '[%12.6f] NVRM: Xid (PCI:%s): %s, %s\n' "$up" "${bus,,}" "$4" "$(xid_text "$4" "${bus,,}")" >> "$1/kernel/kmsg"
}

# ib_port_set NODE_DIR HCA FILE VALUE: what the kernel would write, replaced atomically (the
# node may be reading it).
ib_port_set() {
  local p=$1/hw/infiniband/mlx5_$2/ports/1
  [[ -d $p ]] || die "no HCA mlx5_$2 (left) on this node"
  echo "$4" > "$p/$3.tmp" && mv "$p/$3.tmp" "$p/$3"
}

inject_fault() {
  local name=$1 kind=$2 gpu=${3:-} d; d=$(node_dir "$name")
  [[ -d $d ]] || die "no node '$name' (nodes: $(node_names | tr '\n' ' '))"
  local hw=$d/hw/gpus.conf st=$d/gpustate/gpus.state slots uuid serial
  slots=$(hw_get "$hw" slots)
  case $kind in
    ecc|gpu-missing|gpu-replaced|thermal|power-brake|xid-*|gpu-hung|pcie-aer|dcgm-diag)
      ((slots > 0)) || die "$name has no GPUs"
      [[ -n $gpu ]] || { [[ $kind == gpu-missing ]] && gpu=$((slots - 1)) || gpu=0; }
      ((gpu >= 0 && gpu < slots)) || die "$name has no GPU slot $gpu" ;;
    # The number is the HCA's (mlx5_N); hca-missing takes the last by default, like gpu-missing.
    ib-*|hca-missing)
      [[ -d $d/hw/infiniband ]] || die "$name has no InfiniBand HCAs (sandbox up --hgx)"
      [[ -n $gpu ]] || { [[ $kind == hca-missing ]] && gpu=$((IB_HCAS - 1)) || gpu=0; }
      [[ $gpu =~ ^[0-9]+$ ]] && ((gpu < IB_HCAS)) || die "$name has no HCA mlx5_$gpu" ;;
  esac
  case $kind in
    ecc)
      uuid=$(hw_get "$hw" "$gpu.uuid")
      local k v; for k in vol_unc agg_unc; do
        v=$(hw_get "$st" "$uuid.$k"); hw_set "$st" "$uuid.$k" $(( ${v:-0} + 4 )); done
      v=$(hw_get "$st" "$uuid.rr_unc"); hw_set "$st" "$uuid.rr_unc" $(( ${v:-0} + 1 ))
      hw_set "$st" "$uuid.rr_pending" 1 ;;
    gpu-missing) hw_set "$hw" "$gpu.present" 0 ;;
    # Too hot: the GPU's own HW thermal slowdown halves its clocks.
    thermal) hw_set "$hw" "$gpu.temperature_c" 94; hw_set "$hw" "$gpu.slowdown" hw_thermal ;;
    power-brake) hw_set "$hw" "$gpu.slowdown" hw_power_brake ;;
    xid-*)
      local code=${kind#xid-}; [[ $code =~ ^[0-9]+$ ]] || die "xid-CODE takes a number: $kind"
      log_xid "$d" "$hw" "$gpu" "$code" ;;
    # The GPU stopped answering its GSP (Xid 119) and a reset cannot reach it: only a reboot
    # (the supervisor's next boot clears the flag) brings it back.
    gpu-hung)
      uuid=$(hw_get "$hw" "$gpu.uuid"); hw_set "$st" "$uuid.hung" 1
      log_xid "$d" "$hw" "$gpu" 119 ;;
    # The GPU's link had a completion timeout the AER driver counted as non-fatal, and corrected
    # receiver errors (which alone fail nothing).
    pcie-aer)
      local bus p; bus=$(hw_get "$hw" "$gpu.bus_id"); bus=${bus#0000}; p=$d/hw/pci/${bus,,}
      [[ -d $p ]] || die "$name has no PCIe AER files for GPU slot $gpu"
      aer_file "$AER_UNC" TOTAL_ERR_NONFATAL CmpltTO=1 > "$p/aer_dev_nonfatal.tmp" && mv "$p/aer_dev_nonfatal.tmp" "$p/aer_dev_nonfatal"
      aer_file "$AER_COR" TOTAL_ERR_COR RxErr=3 > "$p/aer_dev_correctable.tmp" && mv "$p/aer_dev_correctable.tmp" "$p/aer_dev_correctable" ;;
    # DCGM's software test finds the GPU's InfoROM corrupt (nothing else reads it).
    dcgm-diag) hw_set "$hw" "$gpu.inforom" corrupt ;;
    # The cable pulled: no link, the port polls for one.
    ib-down) ib_port_set "$d" "$gpu" state "1: DOWN"; ib_port_set "$d" "$gpu" phys_state "2: Polling" ;;
    # Link up but no subnet manager has configured the port.
    ib-init) ib_port_set "$d" "$gpu" state "2: INIT" ;;
    # The link came up at HDR instead of NDR (a bad cable or transceiver).
    ib-rate) ib_port_set "$d" "$gpu" rate "200 Gb/sec (4X HDR)" ;;
    # The HCA is gone from the bus: its sysfs directory with it.
    hca-missing) rm -rf "$d/hw/infiniband/mlx5_$gpu" ;;
    gpu-replaced)
      read -r serial uuid < <(gpu_identity "$name" "$gpu" "replaced-$(date +%s%N)")
      hw_set "$hw" "$gpu.serial" "$serial"; hw_set "$hw" "$gpu.uuid" "$uuid" ;;
    unreachable) node_exec "$name" systemctl stop ssh.service ;;
    hang) node_exec "$name" sh -c 'kill -STOP $(systemctl show -p MainPID --value ssh.service)' ;;
    disk-full)
      node_exec "$name" sh -ec '
        mkdir -p /run/sandbox-etc
        kb=$(du -sk /etc | cut -f1)
        mount -t tmpfs -o size=$((kb + 256))k,mode=755 sandbox-etc /run/sandbox-etc
        cp -a /etc/. /run/sandbox-etc/
        dd if=/dev/zero of=/run/sandbox-etc/.sandbox-disk-full bs=4k 2>/dev/null || true
        mount --bind /run/sandbox-etc /etc' ;;
    dpkg-locked)
      node_exec "$name" systemctl reset-failed sandbox-dpkg-lock 2>/dev/null || true
      node_exec "$name" systemd-run --quiet --unit=sandbox-dpkg-lock perl -e '
        use Fcntl; my @h;
        for my $f ("/var/lib/dpkg/lock-frontend", "/var/lib/dpkg/lock") {
          open(my $h, ">>", $f) or die "$f: $!";
          my $fl = pack("s s x4 q q i x4", F_WRLCK, 0, 0, 0, 0);
          fcntl($h, F_SETLK, $fl) or die "lock $f: $!";
          push @h, $h }
        $0 = "unattended-upgr"; sleep 1 while 1'
      sleep 0.5
      node_exec "$name" systemctl is-active --quiet sandbox-dpkg-lock || die "$name: could not take the dpkg lock" ;;
    package-broken) touch "$d/faults/package-broken" ;;
    reboot-hang) touch "$d/reboot-hang" ;;
    *) die "unknown fault '$kind' (kinds: $FAULT_KINDS)" ;;
  esac
  echo "$kind $gpu" >> "$d/faults.active"
  log "$name: fault $kind${gpu:+ (GPU slot $gpu)} injected"
}

heal_node() {
  local name=$1 d kind gpu; d=$(node_dir "$name")
  [[ -d $d ]] || die "no node '$name'"
  [[ -f $d/faults.active ]] || { log "$name: no active fault"; return 0; }
  while read -r kind gpu; do
    case $kind in
      ecc) awk -F= '{ split($1, p, "."); k = p[2]
                      if (k ~ /^(vol|agg)_(unc|corr)$|^rr_(unc|corr|pending|failure)$/) $2 = 0; print $1 "=" $2 }' \
             "$d/gpustate/gpus.state" > "$d/gpustate/gpus.state.tmp" && mv "$d/gpustate/gpus.state.tmp" "$d/gpustate/gpus.state" ;;
      gpu-missing|gpu-replaced|thermal|power-brake|dcgm-diag) cp "$d/hw.orig" "$d/hw/gpus.conf.tmp" && mv "$d/hw/gpus.conf.tmp" "$d/hw/gpus.conf" ;;
      # As a reboot would: the kernel log of the next boot starts without them.
      xid-*|gpu-hung) grep -v 'NVRM: Xid' "$d/kernel/kmsg" > "$d/kernel/kmsg.tmp"; mv "$d/kernel/kmsg.tmp" "$d/kernel/kmsg"
        [[ $kind == gpu-hung ]] && sed -i 's/\.hung=1$/.hung=0/' "$d/gpustate/gpus.state" ;;
      # In place: the node's /sys/bus/pci/devices/<bus> and /sys/class/infiniband are bound to
      # these directories.
      pcie-aer) local g; for g in "$d/pci.orig"/*; do cp "$g"/aer_dev_* "$d/hw/pci/${g##*/}/"; done ;;
      ib-*|hca-missing) rm -rf "${d:?}/hw/infiniband/"*; cp -a "$d/infiniband.orig/." "$d/hw/infiniband/" ;;
      unreachable) node_exec "$name" systemctl start ssh.service || true ;;
      hang) node_exec "$name" sh -c 'kill -CONT $(systemctl show -p MainPID --value ssh.service)' || true ;;
      disk-full) node_exec "$name" sh -c 'umount /etc; umount /run/sandbox-etc; rmdir /run/sandbox-etc' 2>/dev/null || true ;;
      dpkg-locked) node_exec "$name" systemctl stop sandbox-dpkg-lock 2>/dev/null || true
                   node_exec "$name" systemctl reset-failed sandbox-dpkg-lock 2>/dev/null || true ;;
      package-broken) rm -f "$d/faults/package-broken" ;;
      reboot-hang) rm -f "$d/reboot-hang" ;;
    esac
  done < "$d/faults.active"
  rm -f "$d/faults.active"
  log "$name: healed"
}
