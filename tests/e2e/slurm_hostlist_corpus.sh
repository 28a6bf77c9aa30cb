#!/usr/bin/env bash
# Every hostlist gpuctl writes into Slurm's files is read by the real Slurm as the inventory
# means it, for a corpus of naming schemes (tests/data/inventories/good/slurm-hostlists.yaml:
# gpu001, r01n05 racks with holes, rack1-gpu07, rack01-gpu34, dgx-h100-01, mixed widths, names
# ending in letters, three-level c1r1n1 and d1r1n1 products). The rendered slurm.conf is started with the
# real slurmctld (own munged, state and port under a temp dir, SlurmctldHost rewritten to this
# machine); `scontrol show nodes/partition` must then list exactly the inventory's nodes, each
# with its own NodeAddr and GRES, and each partition exactly its nodes. Every NodeName=,
# NodeAddr= and Nodes= value of slurm.conf and gres.conf expands under `scontrol show
# hostnames` to the intended names in order, and `slurmd -G` finds each scheme's GPUs in
# gres.conf. Negative controls: ClusterShell's form `rack[01-04]-gpu34` is refused by scontrol
# and by slurmctld, so the checks can fail. Exits 77 when Slurm, munge or python3 is missing.
set -euo pipefail
: "${GPUCTL:?set by ctest}" "${GPUCTL_SOURCE_DIR:?set by ctest}"
tool() { command -v "$1" || { [[ -x /usr/sbin/$1 ]] && echo "/usr/sbin/$1"; } || true; }
slurmctld=$(tool slurmctld) slurmd=$(tool slurmd) scontrol=$(tool scontrol) munged=$(tool munged)
for t in slurmctld slurmd scontrol munged; do
  [[ -n ${!t} ]] || { echo "SKIP: $t not installed (apt-get install slurmctld slurmd slurm-client munge)"; exit 77; }
done
command -v python3 >/dev/null || { echo "SKIP: python3 missing"; exit 77; }

inventory=$GPUCTL_SOURCE_DIR/tests/data/inventories/good/slurm-hostlists.yaml
work=$(mktemp -d)
ctld_pid='' munge_pid=''
stop() {  # stop a daemon this script started: TERM, then KILL after 10 s
  local pid=$1
  [[ -n $pid ]] && kill -0 "$pid" 2>/dev/null || return 0
  kill "$pid" 2>/dev/null || true
  for _ in $(seq 50); do kill -0 "$pid" 2>/dev/null || return 0; sleep 0.2; done
  kill -9 "$pid" 2>/dev/null || true
}
cleanup() { stop "$ctld_pid"; stop "$munge_pid"; rm -rf "$work"; }
trap cleanup EXIT
fail() { echo "FAIL: $*"; exit 1; }

# --- render, and point every path, the controller and the port at this machine
"$GPUCTL" render "$inventory" --node head01 --out "$work/out" 2>/dev/null
etc=$work/out/head01/etc/slurm
conf=$etc/slurm.conf
echo "--- hostlists as rendered"
grep -hE '^(NodeName|PartitionName)=' "$conf" "$etc/gres.conf" | cut -c1-160
port=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
mkdir -p "$work/state" "$work/spool" "$work/munge" "$work/dev"
chmod 0700 "$work/munge"
sed -i -e "s|^SlurmctldHost=.*|SlurmctldHost=$(hostname -s)(127.0.0.1)|" \
  -e "s|^SlurmUser=.*|SlurmUser=$(id -un)|" \
  -e "s|^StateSaveLocation=.*|StateSaveLocation=$work/state|" \
  -e "s|^SlurmdSpoolDir=.*|SlurmdSpoolDir=$work/spool|" \
  -e "s|^SlurmctldPidFile=.*|SlurmctldPidFile=$work/slurmctld.pid|" \
  -e "s|^SlurmdPidFile=.*|SlurmdPidFile=$work/slurmd.pid|" \
  -e "s|^SlurmctldLogFile=.*|SlurmctldLogFile=$work/slurmctld.log|" \
  -e "s|^SlurmdLogFile=.*|SlurmdLogFile=$work/slurmd.log|" "$conf"
printf '%s\n' "SlurmctldPort=$port" "AuthInfo=socket=$work/munge/socket" MailProg=/bin/true >> "$conf"
for i in 0 1 2 3 4 5 6 7; do ln -s /dev/null "$work/dev/nvidia$i"; done
sed -i "s|File=/dev/nvidia|File=$work/dev/nvidia|" "$etc/gres.conf"
export SLURM_CONF=$conf

# --- the inventory's own reading: node -> address, GRES; partition -> nodes
"$GPUCTL" inventory "$inventory" --json > "$work/inventory.json" 2>/dev/null

# --- 1. every hostlist value of both files, expanded by scontrol, in order
python3 - "$conf" "$etc/gres.conf" > "$work/values" <<'EOF'
import sys
for path in sys.argv[1:]:
    for line in open(path):
        words = dict(w.split("=", 1) for w in line.split() if "=" in w) if not line.startswith("#") else {}
        for key in ("NodeName", "NodeAddr", "Nodes"):
            if key in words: print(path.rsplit("/", 1)[1], key, words[key])
EOF
[[ -s $work/values ]] || fail "no hostlists found in the rendered files"
while read -r file key value; do
  if ! "$scontrol" show hostnames "$value" > "$work/expanded" 2>&1; then
    fail "scontrol refuses $file $key=$value: $(cat "$work/expanded")"
  fi
  grep -q 'Invalid hostlist' "$work/expanded" && fail "scontrol refuses $file $key=$value"
  printf '%s %s %s\n' "$file" "$key" "$(paste -sd, "$work/expanded")" >> "$work/expansions"
done < "$work/values"
python3 - "$work/inventory.json" "$work/expansions" <<'EOF' || fail "a hostlist expands to other names than the inventory's (above)"
import json, sys
inv = json.load(open(sys.argv[1]))
address = {n["name"]: n["connection"]["address"] or n["name"] for n in inv["nodes"]}
gpu_nodes = {n["name"] for n in inv["nodes"] if n["gpu"]["count"] > 0}
partitions = [sorted(p["node_names"]) for p in inv["cluster"]["slurm"]["partitions"]]
bad, seen = 0, {"slurm.conf": set(), "gres.conf": set()}
lines = [l.split() for l in open(sys.argv[2])]
for i, (file, key, names) in enumerate(lines):
    names = names.split(",")
    if key == "NodeName":
        seen[file] |= set(names)
        unknown = set(names) - gpu_nodes
        if unknown: print(f"{file}: NodeName names non-GPU or unknown nodes {sorted(unknown)}"); bad += 1
        if len(names) != len(set(names)): print(f"{file}: NodeName repeats names"); bad += 1
        if file == "slurm.conf":  # NodeAddr, if any, follows on the same line, paired in order
            nxt = lines[i + 1] if i + 1 < len(lines) else None
            addrs = nxt[2].split(",") if nxt and nxt[1] == "NodeAddr" else names
            want = [address[n] for n in names]
            if addrs != want: print(f"NodeAddr pairs wrongly: {list(zip(names, addrs))[:5]}... want {want[:5]}..."); bad += 1
    elif key == "Nodes" and sorted(names) not in partitions:
        print(f"Nodes={names[:4]}... is no partition of the inventory"); bad += 1
for file, names in seen.items():
    if names != gpu_nodes: print(f"{file}: NodeName lines cover {len(names)} nodes, the inventory has {len(gpu_nodes)} GPU nodes"); bad += 1
print(f"{len(lines)} hostlists expand as intended" if not bad else "")
sys.exit(1 if bad else 0)
EOF

# --- 2. the real slurmctld reads slurm.conf; scontrol shows what it made of it
if [[ $(id -u) == 0 ]]; then force=--force; else force=; fi
head -c 1024 /dev/urandom > "$work/munge/key" && chmod 0600 "$work/munge/key"
"$munged" $force --socket="$work/munge/socket" --key-file="$work/munge/key" --pid-file="$work/munge/pid" \
  --log-file="$work/munge/log" --seed-file="$work/munge/seed" || fail "munged did not start: $(cat "$work/munge/log" 2>/dev/null)"
munge_pid=$(cat "$work/munge/pid")
"$slurmctld" -D -f "$conf" > "$work/slurmctld.out" 2>&1 &
ctld_pid=$!
for _ in $(seq 60); do
  "$scontrol" show nodes -o > "$work/nodes" 2>/dev/null && break
  kill -0 "$ctld_pid" 2>/dev/null || { cat "$work/slurmctld.out"; fail "slurmctld exited reading the rendered slurm.conf"; }
  sleep 0.5
done
[[ -s $work/nodes ]] || { cat "$work/slurmctld.out"; fail "slurmctld did not answer within 30 s"; }
"$scontrol" show partition -o > "$work/partitions"
: > "$work/partition_nodes"
while read -r name nodes; do
  echo "$name $("$scontrol" show hostnames "$nodes" | paste -sd,)" >> "$work/partition_nodes"
done < <(tr ' ' '\n' < "$work/partitions" | awk -F= '$1=="PartitionName"{p=$2} $1=="Nodes"{print p, $2}')
python3 - "$work/inventory.json" "$work/nodes" "$work/partition_nodes" <<'EOF' || fail "slurmctld's nodes or partitions differ from the inventory's (above)"
import json, sys
inv = json.load(open(sys.argv[1]))
want = {n["name"]: (n["connection"]["address"] or n["name"], f'gpu:{n["gpu"]["model"].lower()}:{n["gpu"]["count"]}')
        for n in inv["nodes"] if n["gpu"]["count"] > 0}
got = {}
for line in open(sys.argv[2]):
    words = dict(w.split("=", 1) for w in line.split() if "=" in w)
    got[words["NodeName"]] = (words["NodeAddr"], words["Gres"])
bad = 0
for name in sorted(set(want) | set(got)):
    if want.get(name) != got.get(name): print(f"node {name}: inventory {want.get(name)}, slurmctld {got.get(name)}"); bad += 1
want_p = {p["name"]: sorted(p["node_names"]) for p in inv["cluster"]["slurm"]["partitions"]}
got_p = {name: sorted(nodes.split(",")) for name, nodes in (l.split() for l in open(sys.argv[3]))}
for name in sorted(set(want_p) | set(got_p)):
    if want_p.get(name) != got_p.get(name): print(f"partition {name}: inventory {want_p.get(name)}, slurmctld {got_p.get(name)}"); bad += 1
if not bad: print(f"slurmctld: {len(got)} nodes with their NodeAddr and GRES, {len(got_p)} partitions, exactly the inventory's")
sys.exit(1 if bad else 0)
EOF
stop "$ctld_pid"; ctld_pid=''

# --- 3. slurmd finds each naming scheme's GPUs through gres.conf's NodeName
for node in gpu007 r02n08 r03n02 rack2-gpu07 rack04-gpu34 dgx-h100-03 dgx-a100-07 node9 node011 node101 gpu02-ib c2r1n2 d2r1n1; do
  gres=$(python3 -c 'import json,sys; n=[n for n in json.load(open(sys.argv[1]))["nodes"] if n["name"]==sys.argv[2]][0]; print(n["gpu"]["model"].lower(), n["gpu"]["count"])' "$work/inventory.json" "$node")
  read -r type count <<< "$gres"
  out=$(timeout 60 "$slurmd" -D -N "$node" -G -f "$conf" 2>&1) || fail "slurmd -G -N $node: $out"
  grep -q "Gres Name=gpu Type=$type Count=$count" <<< "$out" || fail "slurmd -N $node did not find its $count $type GPUs in gres.conf: $out"
done
echo "slurmd -G: every naming scheme's node finds its GPUs in gres.conf"

# --- negative controls: the form gpuctl wrote before (ClusterShell's) is refused by Slurm
grep -q 'rack\[01-04\]-gpu\[34\]' "$conf" || fail "slurm.conf lacks the bracketed form rack[01-04]-gpu[34]"
# (output captured first: `cmd | grep -q` fails under pipefail when grep exits before cmd)
refused=$("$scontrol" show hostnames 'rack[01-04]-gpu34' 2>&1 || true)
[[ $refused == *"Invalid hostlist"* ]] || fail "scontrol accepted rack[01-04]-gpu34: the hostlist check cannot fail ($refused)"
sed 's/rack\[01-04\]-gpu\[34\]/rack[01-04]-gpu34/' "$conf" > "$work/clustershell.conf"
rm -rf "$work/state" && mkdir "$work/state"
if timeout 60 "$slurmctld" -D -f "$work/clustershell.conf" > "$work/negative.out" 2>&1; then
  fail "slurmctld started with rack[01-04]-gpu34 in slurm.conf: the check cannot fail"
fi
grep -q 'Unable to create NodeName list' "$work/negative.out" || { cat "$work/negative.out"; fail "slurmctld failed for another reason than the hostlist"; }
echo "slurm_hostlist_corpus: ok ($("$slurmctld" -V))"
