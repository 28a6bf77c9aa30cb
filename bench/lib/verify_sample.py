#!/usr/bin/env python3
"""A `verify --json` result of N GPU nodes, every 14th failing one check (gpu_count, ecc_errors or
pcie_link in turn), built from the GPU node of tests/data/verify/cluster-verify.json: for
measuring how verify's text reads at scale with `gpuctl verify --from-json` (docs/benchmarks.md).

    bench/lib/verify_sample.py 512 > /tmp/v512.json && gpuctl verify --from-json /tmp/v512.json
"""
import json
import os
import sys

nodes_wanted = int(sys.argv[1]) if len(sys.argv) > 1 else 512
root = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..")
base = json.load(open(os.path.join(root, "tests/data/verify/cluster-verify.json")))
template = next(n for n in base["nodes"] if n["node"] != "head01")
observed = {"gpu_count": "7", "ecc_errors": "GPU 3 (1650123456789): 2 uncorrectable volatile ECC errors",
            "pcie_link": "GPU 0 at x8"}
nodes = []
for i in range(1, nodes_wanted + 1):
    node = json.loads(json.dumps(template))
    node.update(node=f"gpu{i:03}", status="ok", reason="")
    for check in node["checks"]:
        if check["status"] not in ("pass", "skipped"):
            check["status"] = "pass"
    if i % 14 == 0:
        failing = ["gpu_count", "ecc_errors", "pcie_link"][i % 3]
        for check in node["checks"]:
            if check["check"] == failing:
                check.update(status="fail", observed=observed[failing])
        node.update(status="failed", reason="1 check did not pass")
    nodes.append(node)
json.dump({"format_version": 1, "nodes": nodes}, sys.stdout, indent=1)
