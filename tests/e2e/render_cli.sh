#!/usr/bin/env bash
# `gpuctl render` end to end: the real binary renders the example inventory into per-node
# trees equal to the unit tests' goldens; errors exit non-zero and write nothing.
set -euo pipefail
: "${GPUCTL:?set by ctest}" "${GPUCTL_SOURCE_DIR:?set by ctest}"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
example=$GPUCTL_SOURCE_DIR/docs/examples/cluster.yaml
golden=$GPUCTL_SOURCE_DIR/tests/data/golden

"$GPUCTL" render "$example" -o "$work/out"
for node in head01 gpu01; do diff -r "$golden/$node" "$work/out/$node"; done
# GPU nodes differ only in the exporters' bind addresses, which are each node's own.
for n in 2 3 4 5 6 7 8; do
  diff -r -x prometheus-node-exporter -x nvidia-dcgm-exporter.service.d "$work/out/gpu01" "$work/out/gpu0$n"
  grep -q "listen-address=10.10.1.$n:9100" "$work/out/gpu0$n/etc/default/prometheus-node-exporter"
  grep -q -- "-a 10.10.1.$n:9400$" "$work/out/gpu0$n/etc/systemd/system/nvidia-dcgm-exporter.service.d/gpuctl.conf"
done
# Secrets (the munge key) are never rendered into a tree.
[[ ! -e $work/out/gpu01/etc/munge/munge.key ]] || { echo "render wrote the munge key"; exit 1; }

# --json: per node (never folded), path, mode, owner, group and content; a secret only as a marker.
"$GPUCTL" render "$example" --limit 'head01,gpu0[1-2]' --json > "$work/render.json"
python3 - "$work/render.json" "$work/out" <<'PY'
import json, os, sys
doc, tree = json.load(open(sys.argv[1])), sys.argv[2]
assert doc["format_version"] == 1, doc.keys()
assert [n["node"] for n in doc["nodes"]] == ["head01", "gpu01", "gpu02"], [n["node"] for n in doc["nodes"]]
for node in doc["nodes"]:
    for f in node["files"]:
        assert set(f) == {"path", "template", "mode", "owner", "group", "secret", "content"}, f
        if f["secret"]:
            assert f["content"] is None, f
            continue
        # The same bytes and mode as the tree -o writes.
        on_disk = os.path.join(tree, node["node"], f["path"].lstrip("/"))
        assert open(on_disk).read() == f["content"], on_disk
        assert f["mode"] == format(os.stat(on_disk).st_mode & 0o7777, "04o"), (f["mode"], on_disk)
gpu01 = {f["path"]: f for f in doc["nodes"][1]["files"]}
key = gpu01["/etc/munge/munge.key"]
assert key["secret"] is True and key["content"] is None and key["mode"] == "0400", key
assert key["owner"] == "munge", key
assert gpu01["/etc/nccl.conf"]["owner"] == "root" and gpu01["/etc/nccl.conf"]["mode"] == "0644"
assert "listen-address=10.10.1.2:9100" in {f["path"]: f for f in doc["nodes"][2]["files"]}["/etc/default/prometheus-node-exporter"]["content"]
PY
# --json with -o: the tree is written and the JSON still printed.
"$GPUCTL" render "$example" --node gpu03 -o "$work/out3" --json 2>/dev/null | python3 -c 'import json,sys; assert json.load(sys.stdin)["nodes"][0]["node"] == "gpu03"'
[[ -f $work/out3/gpu03/etc/nccl.conf ]] || { echo "render -o --json wrote no tree"; exit 1; }

# Printing: one header per file; --node restricts to one host.
"$GPUCTL" render "$example" --node head01 > "$work/head.txt"
grep -q '^==> head01:/etc/slurm/slurm.conf (slurm.conf.mustache, 0644)$' "$work/head.txt"
! grep -q '^==> gpu' "$work/head.txt"

# A template naming a missing variable: exit 1, the message names template, line and node,
# and the previous tree is left exactly as it was.
cp -r "$GPUCTL_SOURCE_DIR/templates" "$work/templates"
printf '# ok\nNCCL_X={{node.colour}}\n' > "$work/templates/nccl.conf.mustache"
cp -r "$work/out" "$work/before"
set +e
"$GPUCTL" render "$example" --templates "$work/templates" --out "$work/out" 2> "$work/err.txt"
rc=$?
set -e
[[ $rc == 1 ]] || { echo "expected exit 1 on a template error, got $rc"; exit 1; }
grep -q "nccl.conf.mustache:2: gpu01: step 'nccl': missing variable 'node.colour'" "$work/err.txt" || { cat "$work/err.txt"; exit 1; }
diff -r "$work/before" "$work/out"

# An invalid inventory is a usage error (2); an unknown --node too.
printf 'cluster: {name: x}\nhots: {}\n' > "$work/bad.yaml"
set +e
"$GPUCTL" render "$work/bad.yaml" > /dev/null 2>&1; rc_bad=$?
"$GPUCTL" render "$example" --node gpu1 > /dev/null 2> "$work/node.txt"; rc_node=$?
set -e
[[ $rc_bad == 2 ]] || { echo "expected exit 2 on an invalid inventory, got $rc_bad"; exit 1; }
[[ $rc_node == 2 ]] || { echo "expected exit 2 on an unknown --node, got $rc_node"; exit 1; }
grep -q "did you mean 'gpu01'" "$work/node.txt"
echo "render_cli: ok"
