# The gpuctl inventory of the running sandbox (sourced), in the schema of
# docs/examples/cluster.yaml.

write_inventory() {  # N GPUS MODEL HEAD
  local n=$1 gpus=$2 model=$3 head=$4 i name controller last
  printf -v last '%02d' "$n"
  if ((head)); then controller=head01; else controller=node01; fi
  cat <<EOI
# Written by tests/sandbox/sandbox up: the sandbox's nodes, reachable now.
cluster:
  name: sandbox
  os_family: debian
  nvidia:
    driver_branch: "535"
    driver_version: "$DRIVER_535"
    cuda: "$CUDA_VERSION"
    open_kernel_module: false
    repository:
      url: $REPO_URL
      key_url: $REPO_KEY_URL
      pin_priority: 600
  # No slurm: section yet: slurmd cannot reach slurmctld by node name in the sandbox
  # (slurm.conf has no NodeAddr). The rendered Slurm files are checked by
  # tests/e2e/slurm_config_accepted.sh against Debian's real slurmd instead.
  monitoring:
    # No Prometheus server: the sandbox repository carries only the exporters.
    dcgm_exporter: true
    # The nodes share the host's network namespace, so only one node-exporter could own :9100.
    node_exporter: false

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
  cat <<EOI
  gpu:
    hosts: "node[01-$last]"
    vars:
      gpu: {model: $model, count: $gpus, power_watts: 700}
      pdu_capacity_watts: $((gpus * 700 * n + 2000))

hosts:
EOI
  ((head)) && echo "  head01: {address: $HEAD_ADDR, port: 22, user: root, rack: r0}"
  for ((i = 1; i <= n; i++)); do
    printf -v name 'node%02d' "$i"
    echo "  $name: {address: $NODE_NET.$i, port: 22, user: root, rack: r$(( (i - 1) / 8 + 1 ))}"
  done
}
