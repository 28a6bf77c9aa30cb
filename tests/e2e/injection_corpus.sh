#!/usr/bin/env bash
# The trust boundary (docs/security.md), end to end with the real binary: an attacker who
# controls one inventory file, or the working directory, must get a refusal from `validate`, or
# a value that stays inert. For every inventory field that reaches a command, a rendered file or
# a path, hostile values (quotes, $(), backticks, line breaks, `{{`, `../`, a leading `-`, a
# second Key=Value on one line) go through validate; whatever validate accepts then goes
# through render, plan and verify on `connection: local` nodes (the CI host itself: the place a
# CI gate runs them). Injected means: the canary file exists, anything named CANARY appears
# anywhere under the test's directory, a rendered file holds an injected line, or a command
# hung. Nodes are this host, read-only: plan and verify never change a node; no sandbox needed.
set -uo pipefail
: "${GPUCTL:?GPUCTL must point at the gpuctl binary}"
work=$(mktemp -d)
fifo_pid=
cleanup() { [ -n "$fifo_pid" ] && kill "$fifo_pid" 2>/dev/null; rm -rf "$work"; }
trap cleanup EXIT
command -v python3 >/dev/null || { echo "SKIP: python3 missing"; exit 77; }

# The state directory sits deep in $work, so a `../` that escapes it still lands under $work,
# where the CANARY search finds it.
export GPUCTL_STATE_DIR="$work/s1/s2/s3/state"
export GPUCTL_TEST_SECRET="do-not-leak-7f3a9c"   # /proc/self/environ must never reach a plan
canary="$work/CANARY_executed"
mkdir -p "$work/cases" "$work/cwd"
# The site repository's key (containers.slurm_repository), so that the slurm-containers step and
# its pyxis line are rendered.
cp "$(dirname "$0")/../data/openpgp/repository-key.asc" "$work/site.asc" || exit 1

python3 - "$work" "$canary" <<'PY'
import json, os, sys
work, canary = sys.argv[1], sys.argv[2]

def base():
    return {
        "cluster": {
            "name": "inj",
            "os_family": "debian",
            "nvidia": {
                "driver_branch": "550", "driver_version": "550.127.08", "cuda": "12.4",
                "repository": {
                    "url": "https://developer.download.nvidia.com/compute/cuda/repos/debian12/x86_64/",
                    "key_url": "https://developer.download.nvidia.com/compute/cuda/repos/debian12/x86_64/3bf863cc.pub",
                },
            },
            "nccl": {"NCCL_DEBUG": "WARN", "NCCL_SOCKET_IFNAME": "=eth0"},
            "slurm": {
                "controller": "head01", "cluster_name": "inj",
                "partitions": [{"name": "gpu", "nodes": "gpu01", "default": True,
                                "options": {"MaxTime": "INFINITE"}}],
                "options": {"SlurmctldTimeout": "120"},
                "health_check_interval": "5m",
            },
            "containers": {"toolkit_version": "1.17.8",
                           "slurm_repository": {"url": "https://repo.example/slurm", "key_file": f"{work}/site.asc"},
                           "pyxis": {"runtime_path": "/run/pyxis", "container_scope": "job"}},
            "monitoring": {"prometheus": "head01", "dcgm_exporter": True, "node_exporter": True},
        },
        "defaults": {"connection": "local"},
        "groups": {
            "head": {"hosts": "head01", "vars": {"gpu": {"model": "none", "count": 0}}},
            "gpu": {"hosts": "gpu01", "vars": {"gpu": {"model": "H100", "count": 8},
                                              "ib_hcas": ["mlx5_0"], "rack": "r1",
                                              "labels": {"role": "train"},
                                              "containers": {"runtime": "containerd",
                                                             "gpu_test_image": "localhost/gpu-test:1"}}},
        },
        "hosts": {"head01": {"address": "127.0.0.1"}, "gpu01": {"address": "127.0.0.1"}},
    }

c = canary
# Each hostile value is tried twice where it can be: alone, and after the field's own valid value
# (`550.127.08';touch …`), since a grammar that only looks at the start lets the second through.
suffixes = {
    "quote-subst":   f"'$(touch {c})'",
    "quote-break":   f"';touch {c};'",
    "dquote-break":  f'";touch {c};"',
    "backticks":     f"`touch {c}`",
    "dollar-paren":  f"$(touch {c})",
    "newline-cmd":   f"\ntouch {c}\n",
    "newline-line":  "\nPrologSlurmctld=/tmp/CANARY_line\nNCCL_NET_PLUGIN=CANARY_line",
    "same-line-key": " PrologSlurmctld=/tmp/CANARY_line",
    "hash-comment":  " #CANARY_line",
    "mustache":      "{{cluster.name}}$(touch " + c + ")",
    "traversal":     "/../../../../CANARY_traversal",
    "space-args":    f" -o {c}",
}
whole = {
    "traversal-alone": "../../../../CANARY_traversal",
    "leading-dash":    f"-oProxyCommand=touch {c}",
}

def payloads(valid):
    for kind, suffix in suffixes.items():
        yield "x+" + kind, "x" + suffix
        if valid and valid != "x":
            yield "valid+" + kind, valid + suffix
    yield from whole.items()

def at(d, path):
    *parents, last = path
    for p in parents:
        d = d[p]
    return d, last

# Where each field sits; a path segment "KEY:" means "rename this map key" instead of a value.
fields = {
    "cluster.name": ["cluster", "name"],
    "nvidia.driver_branch": ["cluster", "nvidia", "driver_branch"],
    "nvidia.driver_version": ["cluster", "nvidia", "driver_version"],
    "nvidia.cuda": ["cluster", "nvidia", "cuda"],
    "repository.url": ["cluster", "nvidia", "repository", "url"],
    "repository.key_url": ["cluster", "nvidia", "repository", "key_url"],
    "nccl value": ["cluster", "nccl", "NCCL_DEBUG"],
    "nccl key": ["cluster", "nccl", "KEY:NCCL_DEBUG"],
    "slurm.cluster_name": ["cluster", "slurm", "cluster_name"],
    "slurm.health_check_interval": ["cluster", "slurm", "health_check_interval"],
    "containers.toolkit_version": ["cluster", "containers", "toolkit_version"],
    "containers.runtime": ["groups", "gpu", "vars", "containers", "runtime"],
    "containers.gpu_test_image": ["groups", "gpu", "vars", "containers", "gpu_test_image"],
    "containers.slurm_repository.url": ["cluster", "containers", "slurm_repository", "url"],
    "containers.pyxis.runtime_path": ["cluster", "containers", "pyxis", "runtime_path"],
    "containers.pyxis.container_scope": ["cluster", "containers", "pyxis", "container_scope"],
    "containers.pyxis key": ["cluster", "containers", "pyxis", "KEY:container_scope"],
    "slurm.options value": ["cluster", "slurm", "options", "SlurmctldTimeout"],
    "slurm.options key": ["cluster", "slurm", "options", "KEY:SlurmctldTimeout"],
    "partition name": ["cluster", "slurm", "partitions", 0, "name"],
    "partition option value": ["cluster", "slurm", "partitions", 0, "options", "MaxTime"],
    "partition option key": ["cluster", "slurm", "partitions", 0, "options", "KEY:MaxTime"],
    "gpu.model": ["groups", "gpu", "vars", "gpu", "model"],
    "rack": ["groups", "gpu", "vars", "rack"],
    "ib_hcas": ["groups", "gpu", "vars", "ib_hcas", 0],
    "labels value": ["groups", "gpu", "vars", "labels", "role"],
    "labels key": ["groups", "gpu", "vars", "labels", "KEY:role"],
    "address": ["hosts", "gpu01", "address"],
    "user": ["groups", "gpu", "vars", "user"],
    "identity_file": ["groups", "gpu", "vars", "identity_file"],
    "known_hosts": ["groups", "gpu", "vars", "known_hosts"],
    "repository.key_file": ["cluster", "nvidia", "repository", "key_file"],
}

n = 0
for field, path in fields.items():
    probe = base()
    parent, last = at(probe, path)
    is_key = isinstance(last, str) and last.startswith("KEY:")
    valid = last[4:] if is_key else (parent[last] if isinstance(parent, list) or last in parent else "")
    if field == "repository.key_file":
        valid = "/etc/apt/keyrings/cuda.asc"
    for kind, value in payloads(valid):
        inv = base()
        parent, last = at(inv, path)
        if is_key:
            parent[value if field != "nccl key" or value.startswith("NCCL_") else "NCCL_" + value] = parent.pop(last[4:])
        else:
            parent[last] = value
        if field == "repository.key_file":
            del inv["cluster"]["nvidia"]["repository"]["key_url"]
        n += 1
        with open(os.path.join(work, "cases", f"{n:03d}.json"), "w") as f:
            json.dump({"field": field, "kind": kind, "inventory": inv}, f)

# Host and group names are keys; a name also reaches Slurm's NodeName and the secrets dir.
for kind, value in payloads("gpu02"):
    for where in ("host name", "group name"):
        inv = base()
        if where == "host name":
            inv["hosts"][value] = {"address": "127.0.0.1", "gpu": {"model": "H100", "count": 8}}
        else:
            inv["groups"][value] = {"hosts": "gpu01"}
        n += 1
        with open(os.path.join(work, "cases", f"{n:03d}.json"), "w") as f:
            json.dump({"field": where, "kind": kind, "inventory": inv}, f)

# Local files that go to nodes: a secret-bearing procfs file, an endless device, a FIFO.
for kind, value in {"proc-environ": "/proc/self/environ", "dev-zero": "/dev/zero",
                    "fifo": os.path.join(work, "key.fifo")}.items():
    inv = base()
    repo = inv["cluster"]["nvidia"]["repository"]
    del repo["key_url"]
    repo["key_file"] = value
    n += 1
    with open(os.path.join(work, "cases", f"{n:03d}.json"), "w") as f:
        json.dump({"field": "repository.key_file", "kind": kind, "inventory": inv}, f)
print(n, "cases")
# Each case as YAML (block style; every scalar JSON-quoted, which YAML reads as a double-quoted
# string, so line breaks and quotes survive exactly), written here in one go rather than by one
# interpreter per case.
import glob
def emit(value, indent):
    pad = "  " * indent
    out = []
    if isinstance(value, dict):
        for k, v in value.items():
            if isinstance(v, (dict, list)) and v:
                out.append(f"{pad}{json.dumps(k)}:")
                out.extend(emit(v, indent + 1))
            else:
                out.append(f"{pad}{json.dumps(k)}: {json.dumps(v)}")
    else:
        for v in value:
            if isinstance(v, (dict, list)) and v:
                sub = emit(v, indent + 1)
                out.append(f"{pad}- " + sub[0].lstrip())
                out.extend(sub[1:])
            else:
                out.append(f"{pad}- {json.dumps(v)}")
    return out
for path in sorted(glob.glob(os.path.join(work, "cases", "*.json"))):
    case = json.load(open(path))
    stem = path[:-len(".json")]
    open(stem + ".yaml", "w").write("\n".join(emit(case["inventory"], 0)) + "\n")
    open(stem + ".label", "w").write(case["field"] + " / " + case["kind"])
PY

# A FIFO that nobody ever writes: reading it would block forever.
mkfifo "$work/key.fifo"


# Everything that counts as an injection after a command ran.
injected() {
  [ -e "$canary" ] && { echo "canary created"; return 0; }
  local found
  found=$(find "$work" -name 'CANARY*' ! -path "$work/cases/*" 2>/dev/null | head -3)
  [ -n "$found" ] && { echo "created $found"; return 0; }
  if [ -d "$work/rendered" ] && grep -rlE '^[[:space:]]*(PrologSlurmctld|NCCL_NET_PLUGIN|touch )|CANARY_line' "$work/rendered" >/dev/null 2>&1; then
    echo "a rendered file holds an injected line: $(grep -rlE 'PrologSlurmctld|NCCL_NET_PLUGIN|CANARY_line|^touch ' "$work/rendered" | head -2)"
    return 0
  fi
  return 1
}

# Runs one gpuctl command with a time limit and a memory cap; a hang or a crash is a finding.
run_gpuctl() {
  (ulimit -v 4000000; timeout 60 "$GPUCTL" "$@" >"$work/out" 2>&1 </dev/null)
  local rc=$?
  [ "$rc" -eq 124 ] && { echo "hung: gpuctl $1"; return 1; }
  [ "$rc" -ge 128 ] && { echo "crashed ($rc): gpuctl $1"; return 1; }
  if grep -q "$GPUCTL_TEST_SECRET" "$work/out"; then echo "leaked the environment: gpuctl $1"; return 1; fi
  return 0
}

refused=0 inert=0 failures=()
for case_file in "$work"/cases/*.json; do
  # Each case starts clean: what an earlier case planted must not be blamed on this one.
  rm -rf "$work/rendered" "$work/plan.json" "$GPUCTL_STATE_DIR"
  find "$work" -name 'CANARY*' ! -path "$work/cases/*" -exec rm -rf {} + 2>/dev/null
  cp "${case_file%.json}.yaml" "$work/inventory.yaml"
  label=$(<"${case_file%.json}.label")
  (ulimit -v 4000000; timeout 60 "$GPUCTL" validate "$work/inventory.yaml" >"$work/out" 2>&1 </dev/null)
  rc=$?
  if [ "$rc" -eq 124 ] || [ "$rc" -ge 128 ]; then failures+=("$label: validate hung or crashed ($rc)"); continue; fi
  if [ "$rc" -ne 0 ]; then
    # A refusal must say where: file:line:col (or file:line) of the inventory.
    if grep -q "inventory.yaml:[0-9]" "$work/out"; then refused=$((refused + 1)); continue; fi
    failures+=("$label: refused without file:line: $(head -c 300 "$work/out")"); continue
  fi
  problem=
  for cmd in "render $work/inventory.yaml --out $work/rendered" \
             "plan $work/inventory.yaml --json -o $work/plan.json" \
             "verify $work/inventory.yaml"; do
    # shellcheck disable=SC2086
    if ! why=$(run_gpuctl $cmd); then problem=$why; break; fi
    if why=$(injected); then problem="$why (after gpuctl ${cmd%% *})"; break; fi
    if [ -f "$work/plan.json" ] && grep -q "$GPUCTL_TEST_SECRET" "$work/plan.json"; then
      problem="the saved plan holds the environment"; break
    fi
  done
  if [ -n "$problem" ]; then failures+=("$label: $problem"); else inert=$((inert + 1)); fi
done

# The working directory: a file named like a shipped playbook must not replace it.
cat >"$work/cwd/gpu-node" <<YAML
name: gpu-node
steps:
  - name: planted
    resources:
      - command: "true"
        unless: "touch $canary"
YAML
cp "$work/cwd/gpu-node" "$work/cwd/head-node"; cp "$work/cwd/gpu-node" "$work/cwd/driver-upgrade"
python3 - "$work" <<'PY'
import sys
work = sys.argv[1]
open(f"{work}/cwd/inventory.yaml", "w").write("""cluster:
  name: cwd
defaults:
  connection: local
groups:
  gpu:
    hosts: gpu01
    vars: {gpu: {model: H100, count: 8}}
""")
PY
rm -f "$canary"
for cmd in plan verify; do
  (cd "$work/cwd" && timeout 60 "$GPUCTL" "$cmd" inventory.yaml >"$work/out" 2>&1 </dev/null)
  [ -e "$canary" ] && failures+=("working directory: a planted ./gpu-node ran during gpuctl $cmd")
  rm -f "$canary"
  (cd "$work/cwd" && timeout 60 "$GPUCTL" "$cmd" inventory.yaml --playbook driver-upgrade >"$work/out" 2>&1 </dev/null)
  [ -e "$canary" ] && failures+=("working directory: ./driver-upgrade ran during gpuctl $cmd --playbook driver-upgrade")
  rm -f "$canary"
done

total=$(ls "$work"/cases/*.json | wc -l)
echo "injection corpus: $total inventory cases, $refused refused by validate, $inert accepted and inert, ${#failures[@]} injected"
if ((${#failures[@]})); then
  printf 'FAIL: %s\n' "${failures[@]}" >&2
  exit 1
fi
echo "PASS"
