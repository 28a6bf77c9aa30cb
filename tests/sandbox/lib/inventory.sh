# The gpuctl inventory of the running sandbox (sourced), in the schema of
# docs/examples/cluster.yaml.

write_inventory() {  # N GPUS MODEL HEAD HGX
  local n=$1 gpus=$2 model=$3 head=$4 hgx=${5:-0} i name last slurm_port
  printf -v last '%02d' "$n"
  cat <<EOI
# Written by tests/sandbox/sandbox up: the sandbox's nodes, reachable now.
cluster:
  name: sandbox
  os_family: debian
  nvidia:
    driver_branch: "535"
    driver_version: "$DRIVER_535"
    cuda: "$CUDA_VERSION"
    # Hopper: NVIDIA's open kernel module (nvidia-open, nvidia-kernel-open-dkms).
    open_kernel_module: true
    repository:
      url: $REPO_URL
      key_url: $REPO_KEY_URL
      pin_priority: 600
EOI
  # HGX nodes (--hgx): NCCL uses exactly the eight compute HCAs, and for its bootstrap any
  # interface but loopback and docker's (the nodes share the host's network namespace).
  if ((hgx)); then
    cat <<EOI
  nccl:
    NCCL_IB_HCA: "=mlx5_0,mlx5_1,mlx5_2,mlx5_3,mlx5_4,mlx5_5,mlx5_6,mlx5_7"
    NCCL_SOCKET_IFNAME: "^docker,lo"
EOI
  fi
  # Slurm only with a head node: slurmctld runs on head01, slurmd on every GPU node.
  if ((head)); then
    cat <<EOI
  slurm:
    controller: head01
    cluster_name: sandbox
    partitions:
      - name: gpu
        nodes: "node[01-$last]"
        default: true
        # The seeds' partition: whole cores, no sharing, 4 GiB per CPU unless a job asks;
        # it places jobs only because slurm.conf gives the nodes their real CPUs and memory.
        options:
          MaxTime: INFINITE
          State: UP
          OverSubscribe: "NO"
          DefMemPerCPU: "4096"
    options:
      # Sandboxes on other networks run beside this one in the host's network namespace, where
      # slurmctld listens on every address: each network has its own ports (slurm_port_base).
      SlurmctldPort: "$(slurm_port_base)"
      # The nodes' cgroup controllers are read-only inside systemd-nspawn, so slurmd cannot
      # create its cgroups: track processes through /proc, bind tasks by affinity only.
      ProctrackType: proctrack/linuxproc
      TaskPlugin: task/affinity
EOI
  fi
  cat <<EOI
  monitoring:
    # No Prometheus server unless a test names one (tests/e2e/monitoring_stack.sh). Each
    # exporter binds its node's own address (the nodes share the host's network namespace).
    dcgm_exporter: true
    node_exporter: true

defaults:
  user: root
  port: 22
  identity_file: $KEY
  known_hosts: $STATE/known_hosts
  host_key_checking: strict
  connect_timeout: 10

groups:
EOI
  if ((head)); then
    cat <<EOI
  head:
    hosts: head01
    vars:
      gpu: {model: none, count: 0}
EOI
  fi
  # A rack holds up to 8 nodes (rack: below); its PDU keeps the lint's 20% headroom, so a clean
  # sandbox validates without the PDU warning (docs/inventory.md shows the warning instead).
  # The stand-in nvidia-smi links every GPU pair with NV18 (18 links each); one GPU has none.
  local nvlink=""
  ((gpus > 1)) && nvlink=", nvlink: {connection: NV18, links_per_gpu: 18, min_link_speed: 26}"
  # HGX nodes: their eight NDR HCAs with GPUDirect RDMA, and DCGM's quick diagnostic in every
  # verify (the sandbox's dcgmi prints DCGM 4's JSON: tests/sandbox/packages/dcgmi).
  local hgx_vars="" dcgm=""
  if ((hgx)); then
    dcgm=", dcgm_diag: {enabled: true, level: 1}"
    hgx_vars=$'\n      ib_hcas: [mlx5_0, mlx5_1, mlx5_2, mlx5_3, mlx5_4, mlx5_5, mlx5_6, mlx5_7]'
    hgx_vars+=$'\n      ib: {rate: 400, link_layer: InfiniBand, gpudirect_rdma: true}'
  fi
  cat <<EOI
  gpu:
    hosts: "node[01-$last]"
    vars:
      gpu: {model: $model, count: $gpus, power_watts: 700, max_temperature_c: 85$nvlink$dcgm}$hgx_vars
      pdu_capacity_watts: $(( (n < 8 ? n : 8) * gpus * 700 * 5 / 4 + 2000 ))

hosts:
EOI
  ((head)) && echo "  head01: {address: $HEAD_ADDR, port: 22, user: root, rack: r0}"
  for ((i = 1; i <= n; i++)); do
    printf -v name 'node%02d' "$i"
    # With Slurm, each slurmd listens on a port of its own: the nodes share the host's network
    # namespace, and slurmd listens on every address, as on a real node.
    slurm_port=""
    ((head)) && slurm_port=", labels: {slurm.Port: \"$(($(slurm_port_base) + i))\"}"
    echo "  $name: {address: $NODE_NET.$i, port: 22, user: root, rack: r$(( (i - 1) / 8 + 1 ))$slurm_port}"
  done
}

# slurm_port_base: this network's slurmctld port; slurmd of node N listens on it plus N. Slurm's
# own 6817 on the default network 127.0.100, then 100 ports per network (127.0.120: 8817), so
# that sandboxes of up to 99 nodes on different networks never share a port.
slurm_port_base() {
  local octet=${NODE_NET##*.}
  echo $((6817 + 100 * ((octet + 156) % 256)))
}
