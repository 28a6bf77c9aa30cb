# Sourced by e2e tests that verify this host read-only through the local transport:
#   write_local_inventory FILE CLUSTER_NAME HOSTLIST
# writes an inventory of HOSTLIST (all `connection: local`, 8 H100s declared, which this host
# does not have: checks fail, which is what those tests look at).
write_local_inventory() {
  cat >"$1" <<YAML
cluster:
  name: $2
  os_family: debian
  nvidia:
    driver_branch: "570"
    driver_version: "570.133.20"
    cuda: "12.8"
    repository:
      url: https://developer.download.nvidia.com/compute/cuda/repos/debian12/x86_64/
      key_url: https://developer.download.nvidia.com/compute/cuda/repos/debian12/x86_64/3bf863cc.pub
defaults:
  connection: local
  gpu: {model: H100, count: 8}
groups:
  gpu:
    hosts: "$3"
YAML
}
