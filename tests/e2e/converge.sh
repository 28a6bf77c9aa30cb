#!/usr/bin/env bash
# The product's promise on four fresh HGX sandbox nodes (8 GPUs, NVSwitch, 8 NDR HCAs) over
# real SSH: plan lists everything, apply converges (one reboot each: nouveau's is deferred to the
# driver's), verify passes, a second plan has no changes; then drift, faults (ECC, GPU health:
# thermal, power brake, Xids, fabric; InfiniBand ports and HCAs; DCGM's diagnostic; unreachable,
# broken package) and a stale saved plan.
# e2e-lock: sandbox-127.0.100 (the default sandbox network: converge, cuda_keyring, debian_nonfree)
source "$(dirname "$0")/lib/cluster.sh"
command -v jq >/dev/null || skip "jq missing"
start_cluster -n 4 --gpus 8 --model H100 --hgx
g() { "$GPUCTL" "$@" --no-progress; }

echo "--- plan on fresh nodes"
expect_rc 2 g plan "$INVENTORY" --detailed-exitcode
expect_output 'node\[01-04\]  4 nodes \(' "the four fresh nodes fold into one block (issue #15)"
expect_output '<address> below stand for' "the exporter's listen address differs by node: a placeholder"
expect_rc 2 g plan "$INVENTORY" --detailed-exitcode --expand
expect_output 'node01  \(' "--expand: node01 has its own block"
expect_output 'listen-address=127\.[0-9.]+:9100' "--expand: each node's own address"
expect_output '\+ install nvidia-open \(none -> 535\.183\.01\), held' "the driver install is planned, by the profile's name"
expect_output '\+ install nvidia-kernel-open-dkms \(none -> 535\.183\.01\), held' "the open kernel module, held"
expect_output '\+ install nvidia-fabricmanager-535 \(none -> 535\.183\.01\), held' "8x H100: NVSwitch, so the fabric manager at the driver's version (issue #19)"
expect_output '\+ create /etc/modprobe.d/blacklist-nouveau.conf'
expect_output '\+ install rdma-core' "declared HCAs: the RDMA user space, Debian's real package (issue #19)"
expect_output '\+ install infiniband-diags'
expect_output '\+ create /etc/modules-load.d/nvidia-peermem.conf' "GPUDirect RDMA: nvidia-peermem at every boot"
expect_output 'modprobe nvidia-peermem' "and now"
# The repository has a +cuda12.4 and a newer +cuda12.8 build (packages/nccl-builds.txt): the pin takes CUDA 12.4's.
expect_output '\+ install libnccl2 \(none -> 2\.21\.5-1\+cuda12\.4\), held' "NCCL built for the inventory's CUDA, held (issue #33)"
expect_output '\+ install libnccl-dev \(none -> 2\.21\.5-1\+cuda12\.4\), held'
expect_output '↻ reboot' "reboots are planned"
expect_output 'Plan: 4 nodes, 4 with changes'
expect_output 'restarts, 4 reboots\)' "one reboot per fresh node: nouveau's waits for the driver's (issue #18)"

echo "--- apply converges every node"
expect_rc 0 g apply "$INVENTORY" --yes
expect_output '4 nodes: 0 ok, 4 changed, 0 failed, 0 unreachable'
# Plain progress folds the nodes that finished a step alike (issue #15): the "driver changed"
# lines (one per 10-second window) name the four nodes between them, by hostlist.
expect_output '^[0-9:]{8} node\[[0-9,-]+\]: [a-z-]+ (changed|ok) \([2-4] nodes, longest [0-9.]+s\)$' "a folded step line"
driver_nodes=$(grep -E '^[0-9:]{8} [^ ]+: driver changed \(' <<<"$OUTPUT" | sed -E 's/.*\(([0-9]+) nodes?,.*/\1/' |
  awk '{ s += $1 } END { print s + 0 }')
[[ $driver_nodes == 4 ]] || die "the folded driver lines name $driver_nodes nodes, not 4:\n$OUTPUT"

echo "--- verify passes every check"
expect_rc 0 g verify "$INVENTORY"
expect_output 'Verify: 4 of 4 nodes pass every check'
expect_output '^driver_version +4 +- +- +-$' "checks as rows, nodes counted per result (issue #15)"

echo "--- NCCL is the build for the inventory's CUDA, held, though apt's newest is +cuda12.8"
nccl=$("$SANDBOX_CMD" ssh node01 "dpkg-query -W libnccl2 libnccl-dev; apt-mark showhold; apt-cache policy libnccl2 | sed -n 3p") ||
  die "cannot read node01's NCCL packages"
grep -qx $'libnccl2\t2.21.5-1+cuda12.4' <<<"$nccl" || die "libnccl2 is not 2.21.5-1+cuda12.4:\n$nccl"
grep -qx $'libnccl-dev\t2.21.5-1+cuda12.4' <<<"$nccl" || die "libnccl-dev is not 2.21.5-1+cuda12.4:\n$nccl"
grep -qx 'libnccl2' <<<"$nccl" && grep -qx 'libnccl-dev' <<<"$nccl" || die "NCCL is not held:\n$nccl"
grep -q 'Candidate: 2.26.2-1+cuda12.8' <<<"$nccl" || die "apt's own choice is not the newer build, so the pin proves nothing:\n$nccl"
OUTPUT=$(g verify "$INVENTORY" --limit node01 --json | jq -r '.nodes[0].checks[] | select(.check == "nccl_present") | "\(.status) \(.observed)"')
expect_output '^pass libnccl2 2\.21\.5-1\+cuda12\.4, held$' "nccl_present"

echo "--- the simulated NVLink board passes nvlink_topology; no NCCL in the sandbox, so no all-reduce"
nvlink_checks=$(g verify "$INVENTORY" --limit node01 --json |
  jq -r '.nodes[0].checks[] | select(.check == "nvlink_topology" or .check == "nccl_allreduce") | "\(.check) \(.status) \(.observed)\(.detail)"')
OUTPUT=$nvlink_checks
expect_output '^nvlink_topology pass 8 GPUs in topo -m: NV18 x28; 144 NVLinks up on 8 GPUs$' "nvlink_topology on node01"
expect_output '^nccl_allreduce skipped gpu.nccl_allreduce is not declared in the inventory$' "nccl_allreduce on node01"

echo "--- the HGX checks pass: InfiniBand ports, GPUDirect RDMA, NCCL's HCAs, DCGM's diagnostic (issue #19)"
hgx_checks=$(g verify "$INVENTORY" --limit node01 --json |
  jq -r '.nodes[0].checks[] | select(.check | test("^(ib_ports|nvidia_peermem|nccl_ib_hca|nccl_socket_ifname|dcgm_diag|pcie_aer)$")) | "\(.check) \(.status) \(.observed)"')
OUTPUT=$hgx_checks
expect_output '^nccl_socket_ifname pass ' "NCCL_SOCKET_IFNAME=^docker,lo leaves the host's own interfaces"
expect_output '^ib_ports pass 8 ports ACTIVE/LinkUp, 400 Gb/sec \(4X NDR\), InfiniBand$'
expect_output '^nvidia_peermem pass loaded$'
expect_output '^nccl_ib_hca pass '
expect_output '^dcgm_diag pass level 1: 1 tests, all passed \(DCGM 4\.[0-9.]+\)$'
expect_output '^pcie_aer pass 8 GPUs without uncorrectable errors; correctable: none$' "the GPUs' AER counters in sysfs"

echo "--- a second plan changes nothing (idempotence)"
expect_rc 0 g plan "$INVENTORY" --detailed-exitcode

echo "--- a converged plan costs a node one round trip and a handful of processes (issue #20)"
# node01's last PID in its own PID namespace (its container's init, a child of systemd-nspawn).
node01_init=$(cat /proc/"$(cat "$GPUCTL_SANDBOX_DIR/nodes/node01/nspawn.pid")"/task/*/children | awk '{print $1; exit}')
last_pid() { nsenter -t "$node01_init" -p -- cat /proc/loadavg | cut -d' ' -f5; }
before=$(last_pid)
expect_rc 0 g plan "$INVENTORY" --limit node01 -v
after=$(last_pid)
expect_output 'node01: probed for plan in [0-9]+ ms \(one round trip\)' "plan -v shows the probe's time"
# 31 on these HGX nodes (sshd and its PAM motd: 7; the batch; the playbook's guards, among them
# the fabric manager's apt-mark pipeline and the rdma step's nvidia-peermem test, lsmod and grep
# on this kernel without /proc/modules); 19 when #20 counted it, before those two steps; 87
# before #20.
spawned=$((after - before - 1))
((spawned > 0 && spawned <= 35)) || die "a converged plan spawned $spawned processes on node01 (at most 35 expected)"
echo "ok: a converged plan spawned $spawned processes on node01"

echo "--- drift on one node is planned for that node only, and apply restores it"
"$SANDBOX_CMD" ssh node02 "echo NCCL_DEBUG=TRACE >> /etc/nccl.conf" || die "cannot edit node02"
expect_rc 2 g plan "$INVENTORY" --detailed-exitcode
expect_output 'node\[01,03-04\]  no changes \(3 nodes\)' "the nodes without drift fold"
expect_output 'node02  \(1 update' "the drifted node stands alone"
expect_output '\+NCCL_DEBUG=TRACE|-NCCL_DEBUG=TRACE' "the diff shows the drifted line"
expect_output 'Plan: 4 nodes, 1 with changes'
expect_rc 0 g apply "$INVENTORY" --yes --limit node02
expect_rc 0 g plan "$INVENTORY" --detailed-exitcode

echo "--- a fabric manager of another version than the driver's fails verify, and apply restores it (issue #19)"
"$SANDBOX_CMD" ssh node02 "apt-mark unhold nvidia-fabricmanager-535 >/dev/null && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq nvidia-fabricmanager-550 >/dev/null 2>&1" ||
  die "cannot install the 550 fabric manager on node02"
expect_rc 3 g verify "$INVENTORY" --limit node02
expect_output 'fabricmanager_version fail on node02: observed nvidia-fabricmanager-535 not installed, driver 535\.183\.01'
failing=$(grep -oE '[a-z_]+ fail on node02' <<<"$OUTPUT" | sort -u | tr '\n' ' ')
[[ $failing == "fabric_state fail on node02 fabricmanager_active fail on node02 fabricmanager_version fail on node02 " ]] ||
  die "the mismatch should fail the fabric manager's checks and nothing else: $failing\n$OUTPUT"
expect_output 'fabric_state fail on node02: observed GPU [0-9A-F:.]+: Not Started' "no fabric manager: the GPUs never join the fabric"
expect_rc 0 g apply "$INVENTORY" --yes --limit node02
expect_rc 0 g verify "$INVENTORY" --limit node02

echo "--- a saved plan is refused once the node changed"
"$SANDBOX_CMD" ssh node03 "echo '# local edit' >> /etc/nccl.conf"
expect_rc 2 g plan "$INVENTORY" --detailed-exitcode -o "$WORK/plan.json"
reviewed=$(grep -oE '^Plan digest: [0-9a-f]{64}$' <<<"$OUTPUT") || die "plan printed no plan digest:\n$OUTPUT"
"$SANDBOX_CMD" ssh node03 "echo '# another edit' >> /etc/nccl.conf"
echo "--- gpuctl show prints the saved plan as plan printed it (terraform show)"
expect_rc 0 "$GPUCTL" show "$WORK/plan.json"
expect_output "^$reviewed\$" "show prints the digest plan printed"
expect_output 'node03  \(' "the saved plan's node with changes"
expect_output '~ update /etc/nccl.conf' "its change"
expect_rc 0 "$GPUCTL" show "$WORK/plan.json" --json
expect_output '"format_version": 2'
expect_rc 1 g apply "$WORK/plan.json"
expect_output 'refusing the saved plan .*node node03: the changes differ: ~ update /etc/nccl.conf'
expect_rc 1 g apply "$WORK/plan.json" --plan-digest "${reviewed#Plan digest: }"
expect_output 'refusing the saved plan .*node node03: the changes differ' "the node's change is named before the digest"
expect_rc 0 g apply "$INVENTORY" --yes --limit node03

echo "--- ECC errors fail verify, naming the GPU and the count"
"$SANDBOX_CMD" fault node03 ecc || die "cannot inject ecc"
expect_rc 3 g verify "$INVENTORY"
expect_output 'ecc_errors fail on node03: observed GPU [0-9]+ \([^)]*\): [1-9][0-9]* uncorrectable volatile ECC errors'
"$SANDBOX_CMD" heal node03

echo "--- health faults fail their own check and nothing else, with the action to take (issue #19)"
# only_failing CHECK...: verify node03 fails exactly these checks.
only_failing() {
  expect_rc 3 g verify "$INVENTORY" --limit node03
  local failing; failing=$(grep -oE '[a-z_]+ (fail|error) on node03' <<<"$OUTPUT" | sort -u | tr '\n' ' ')
  local want=""; for c in "$@"; do want+="$c fail on node03 "; done
  [[ $failing == "$want" ]] || die "expected only [$want] to fail, got [$failing]\n$OUTPUT"
}
detail_of() { g verify "$INVENTORY" --limit node03 --json | jq -r --arg c "$1" '.nodes[0].checks[] | select(.check == $c) | .detail'; }
"$SANDBOX_CMD" fault node03 thermal 2 || die "cannot inject thermal"
only_failing clock_slowdown gpu_temperature
expect_output 'clock_slowdown fail on node03: observed GPU [0-9A-F:.]+: HW thermal slowdown, expected no clock slowdown'
expect_output 'gpu_temperature fail on node03: observed GPU 2 at 94 C, expected <= 85 C'
"$SANDBOX_CMD" heal node03
"$SANDBOX_CMD" fault node03 power-brake 4 || die "cannot inject power-brake"
only_failing clock_slowdown
expect_output 'observed GPU [0-9A-F:.]+: HW power brake slowdown'
"$SANDBOX_CMD" heal node03
for xid in 79 48 109; do  # 63 is the catalogue's IGNORE (row_remap judges it), 109 its RESET_GPU
  "$SANDBOX_CMD" fault node03 "xid-$xid" 5 || die "cannot inject Xid $xid"
  only_failing xid_events
  expect_output "xid_events fail on node03: observed Xid $xid on [0-9a-f:]+ \\("
  detail=$(detail_of xid_events)  # not piped into grep -q: under pipefail jq's SIGPIPE would fail it
  [[ $detail == "Xid $xid: gpuctl remediate NODE (drain"* ]] || die "Xid $xid: no action in the detail: $detail"
  "$SANDBOX_CMD" heal node03
done
"$SANDBOX_CMD" fault node03 xid-94 1 || die "cannot inject Xid 94"
expect_rc 0 g verify "$INVENTORY" --limit node03
observed=$(g verify "$INVENTORY" --limit node03 --json | jq -r '.nodes[0].checks[] | select(.check == "xid_events") | .observed')
[[ $observed =~ ^Xid\ 94\ on\ .*contained\ ECC\ error.*\(application-side\)$ ]] || die "Xid 94 is not listed as application-side: $observed"
"$SANDBOX_CMD" heal node03
"$SANDBOX_CMD" ssh node03 systemctl stop nvidia-fabricmanager
only_failing fabric_state fabricmanager_active
expect_output 'fabric_state fail on node03: observed GPU [0-9A-F:.]+: Not Started'
"$SANDBOX_CMD" ssh node03 systemctl start nvidia-fabricmanager
expect_rc 0 g verify "$INVENTORY" --limit node03

echo "--- InfiniBand faults fail ib_ports (a missing HCA nccl_ib_hca too), with the fix; PCIe AER pcie_aer; DCGM's failure dcgm_diag (issue #19)"
# inject_only KIND SLOT CHECK...: the fault on node03 (SLOT "" for its default) fails exactly CHECK...
inject_only() {
  local kind=$1 slot=$2; shift 2
  "$SANDBOX_CMD" fault node03 "$kind" ${slot:+"$slot"} || die "cannot inject $kind"
  only_failing "$@"
}
detail_has() { local detail; detail=$(detail_of "$1"); [[ $detail == *"$2"* ]] || die "$1: no '$2' in the detail: $detail"; }
inject_only ib-down 3 ib_ports
expect_output 'ib_ports fail on node03: observed mlx5_3:1 DOWN/Polling, 400 Gb/sec \(4X NDR\), InfiniBand, expected mlx5_0,.*ACTIVE/LinkUp, >= 400 Gb/sec, InfiniBand'
detail_has ib_ports "no link (Polling): check the cable"
"$SANDBOX_CMD" heal node03
inject_only ib-init 2 ib_ports
expect_output 'observed mlx5_2:1 INIT/LinkUp'
detail_has ib_ports "no subnet manager"
"$SANDBOX_CMD" heal node03
inject_only ib-rate 1 ib_ports
expect_output 'observed mlx5_1:1 ACTIVE/LinkUp, 200 Gb/sec \(4X HDR\)'
"$SANDBOX_CMD" heal node03
inject_only hca-missing "" ib_ports nccl_ib_hca
expect_output 'ib_ports fail on node03: observed mlx5_7 missing'
expect_output 'nccl_ib_hca fail on node03: .*mlx5_7'
"$SANDBOX_CMD" heal node03
inject_only pcie-aer 3 pcie_aer
expect_output 'pcie_aer fail on node03: observed GPU 3 .*: non-fatal CmpltTO 1 \(TOTAL_ERR_NONFATAL 1\); correctable: GPU 3 .*RxErr 3'
detail_has pcie_aer "reseat the GPU"
"$SANDBOX_CMD" heal node03
inject_only dcgm-diag 6 dcgm_diag
expect_output 'dcgm_diag fail on node03: observed level 1: 1 tests, 1 failed: software .*GPU 6.*corrupt InfoROM'
"$SANDBOX_CMD" heal node03
expect_rc 0 g verify "$INVENTORY" --limit node03

echo "--- after a reboot nvidia-peermem loads again from modules-load.d, and the node passes"
boot_before=$("$SANDBOX_CMD" ssh node03 cat /proc/sys/kernel/random/boot_id)
"$SANDBOX_CMD" ssh node03 systemctl reboot >/dev/null 2>&1 || true
for _ in $(seq 120); do
  boot_after=$("$SANDBOX_CMD" ssh node03 cat /proc/sys/kernel/random/boot_id 2>/dev/null) && [[ $boot_after != "$boot_before" ]] && break
  sleep 0.5
done
[[ ${boot_after:-} && $boot_after != "$boot_before" ]] || die "node03 did not come back from its reboot"
expect_rc 0 g verify "$INVENTORY" --limit node03

echo "--- an unreachable node is reported while the others converge"
"$SANDBOX_CMD" fault node04 unreachable || die "cannot inject unreachable"
"$SANDBOX_CMD" ssh node01 "echo '# drift' >> /etc/nccl.conf"
expect_rc 4 g apply "$INVENTORY" --yes
expect_output 'node04 +unreachable'
expect_output 'node01 +changed'
"$SANDBOX_CMD" heal node04

echo "--- a failing driver install stops that node at that step, with apt's message"
"$SANDBOX_CMD" reimage node04 || die "cannot reimage node04"
"$SANDBOX_CMD" fault node04 package-broken || die "cannot inject package-broken"
expect_rc 3 g apply "$INVENTORY" --yes --limit node04
expect_output "step 'driver'"
expect_output 'post-installation|postinst'
"$SANDBOX_CMD" heal node04
echo "PASS"
