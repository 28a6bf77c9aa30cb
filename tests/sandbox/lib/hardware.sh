# Simulated GPU hardware of a node (sourced): $node/hw/gpus.conf, `<slot>.<key>=value`.

BUS_IDS=(18 2A 3A 5D 9A AB BA DB)

# hex digits derived from a seed, so a node's cards are stable across `up`s.
seeded_hex() { printf '%s' "$1" | sha256sum | cut -c1-"$2"; }

gpu_identity() {  # NAME SLOT GENERATION -> "serial uuid"
  local h; h=$(seeded_hex "$1/$2/$3" 32)
  printf '%s %s\n' "16549$(printf '%08d' $((16#${h:0:7} % 100000000)))" \
    "GPU-${h:0:8}-${h:8:4}-${h:12:4}-${h:16:4}-${h:20:12}"
}

write_hardware() {  # FILE NAME COUNT MODEL
  local f=$1 name=$2 count=$3 model=$4 s gname mem part vbios
  case $model in
    H200) gname="NVIDIA H200" mem=143771 part=692-2G520-0282-000 vbios=96.00.A5.00.1A ;;
    *)    gname="NVIDIA H100 80GB HBM3" mem=81559 part=692-2G520-0200-000 vbios=96.00.99.00.01 ;;
  esac
  {
    echo "# gpuctl sandbox: simulated hardware of $name (owned by the sandbox; read-only in the node)"
    echo "model=$model"; echo "slots=$count"
    # 8 SXM GPUs of an HGX board are linked through NVSwitch (what gpuctl's has_nvswitch implies).
    ((count == 8)) && echo "nvswitch=1"
    for ((s = 0; s < count; s++)); do
      read -r serial uuid < <(gpu_identity "$name" "$s" 0)
      echo "$s.present=1"; echo "$s.name=$gname"; echo "$s.serial=$serial"; echo "$s.uuid=$uuid"
      echo "$s.bus_id=00000000:${BUS_IDS[s]}:00.0"; echo "$s.memory_mib=$mem"; echo "$s.board_part=$part"
      echo "$s.vbios=$vbios"; echo "$s.power_limit_w=700"; echo "$s.power_draw_w=$((68 + s)).$((10 + 7 * s))"
      echo "$s.temperature_c=$((29 + s % 4))"; echo "$s.pcie_gen=5"; echo "$s.pcie_width=16"; echo "$s.nvlinks=18"
    done
  } > "$f"
}

hw_get() { sed -n "s/^$2=//p" "$1" | head -n1; }
hw_set() {  # FILE KEY VALUE (atomic rewrite: the node may be reading it)
  local f=$1 k=$2 v=$3
  { grep -v "^$k=" "$f"; echo "$k=$v"; } > "$f.tmp" && mv "$f.tmp" "$f"
}

# An HGX node's compute fabric (sandbox up --hgx): eight ConnectX-7 HCAs, mlx5_0..mlx5_7, one
# NDR InfiniBand port each, as the kernel's sysfs shows them under /sys/class/infiniband
# (drivers/infiniband/core/sysfs.c; tests/data/infiniband/README.md has the formats). The node
# sees this directory there (image/kernel-view); faults rewrite the port files live, as a
# cable pull or a renegotiated link would.
IB_HCAS=8
write_infiniband() {  # DIR NAME
  local dir=$1 name=$2 i h guid p
  rm -rf "$dir"; mkdir -p "$dir"
  for ((i = 0; i < IB_HCAS; i++)); do
    h=$(seeded_hex "$name/mlx5_$i" 12); guid="946d:ae03:00${h:0:2}:${h:2:4}"
    mkdir -p "$dir/mlx5_$i/ports/1/gids"
    echo "1: CA" > "$dir/mlx5_$i/node_type"
    echo "MT4129" > "$dir/mlx5_$i/hca_type"            # ConnectX-7
    echo "0x0" > "$dir/mlx5_$i/hw_rev"
    echo "28.39.1002" > "$dir/mlx5_$i/fw_ver"
    echo "MT_0000000838" > "$dir/mlx5_$i/board_id"
    echo "$guid" > "$dir/mlx5_$i/node_guid"; echo "$guid" > "$dir/mlx5_$i/sys_image_guid"
    p=$dir/mlx5_$i/ports/1
    echo "4: ACTIVE" > "$p/state"; echo "5: LinkUp" > "$p/phys_state"
    echo "400 Gb/sec (4X NDR)" > "$p/rate"; echo "InfiniBand" > "$p/link_layer"
    printf '0x%x\n' $((i + 2)) > "$p/lid"; echo "0x1" > "$p/sm_lid"; echo "0" > "$p/sm_sl"; echo "0" > "$p/lid_mask_count"
    echo "0xa751e848" > "$p/cap_mask"; echo "fe80:0000:0000:0000:$guid" > "$p/gids/0"
  done
}

# The kernel's PCIe AER statistics of each GPU's function (/sys/bus/pci/devices/<bus>/aer_dev_*,
# since Linux 4.19), as drivers/pci/pcie/aer.c prints them: every named error "NAME COUNT", then
# "TOTAL_ERR_<kind> N" (tests/data/pcie-aer/README.md). All zero: a healthy board. The node sees
# them under /sys/bus/pci/devices (image/kernel-view); the pcie-aer fault rewrites them live.
AER_COR="RxErr BadTLP BadDLLP Rollover Timeout NonFatalErr CorrIntErr HeaderOF"
AER_UNC="Undefined DLP SDES TLP FCP CmpltTO CmpltAbrt UnxCmplt RxOF MalfTLP ECRC UnsupReq ACSViol UncorrIntErr BlockedTLP AtomicOpBlocked TLPBlockedErr PoisonTLPBlocked"
aer_file() {  # NAMES TOTAL_NAME [NAME=COUNT...]: one aer_dev_* file's text
  local names=$1 total_name=$2 n c total=0; shift 2
  for n in $names; do
    c=0; local kv; for kv in "$@"; do [[ ${kv%%=*} == "$n" ]] && c=${kv#*=}; done
    echo "$n $c"; total=$((total + c))
  done
  echo "$total_name $total"
}
write_pcie_aer() {  # DIR GPUS_CONF
  local dir=$1 conf=$2 b d
  rm -rf "$dir"; mkdir -p "$dir"
  for b in $(sed -n 's/^[0-9]*\.bus_id=//p' "$conf"); do
    b=${b#0000}; d=$dir/${b,,}; mkdir -p "$d"
    aer_file "$AER_COR" TOTAL_ERR_COR > "$d/aer_dev_correctable"
    aer_file "$AER_UNC" TOTAL_ERR_FATAL > "$d/aer_dev_fatal"
    aer_file "$AER_UNC" TOTAL_ERR_NONFATAL > "$d/aer_dev_nonfatal"
  done
}
