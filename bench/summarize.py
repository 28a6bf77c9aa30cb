#!/usr/bin/env python3
"""bench/summarize.py RAW.tsv [machine.txt]: medians and ratios of bench/run's samples, as Markdown.

Per job, node count and tool: the median wall time, the median CPU time (user + sys of the
control command and every child it waited for), the median peak RSS of the largest single
process, the number of samples and of failed ones (rc != 0), and wall time / gpuctl's wall time
of the same job and node count; load1 is the median 1-minute load average when the samples
started (this machine is shared). Where raw.tsv has a node_cpu_s column (bench/scale), also the
median CPU the nodes' sshd spent per node (handshakes and the commands they ran).
"""
import csv
import statistics
import sys
from collections import defaultdict

JOBS = ["serial-kex", "serial-exec", "serial-facts", "serial-plan", "serial-verify", "exec", "facts", "plan", "plan-fresh", "plan-converged", "apply-first", "apply-again", "verify"]


def main() -> None:
    rows = list(csv.DictReader(open(sys.argv[1]), delimiter="\t"))
    groups = defaultdict(list)
    for row in rows:
        groups[(row["job"], int(row["nodes"]), row["tool"])].append(row)
    if len(sys.argv) > 2:
        print("```\n" + open(sys.argv[2]).read().rstrip() + "\n```\n")
    node_cpu = bool(rows) and "node_cpu_s" in rows[0]
    extra_head, extra_rule = (" node CPU ms / node |", " ---: |") if node_cpu else ("", "")
    print("| job | nodes | tool | wall s (median) | CPU s user+sys | CPU ms / node | peak RSS MB |" + extra_head +
          " runs (failed) | load1 | wall / gpuctl |")
    print("| --- | ---: | --- | ---: | ---: | ---: | ---: |" + extra_rule + " ---: | ---: | ---: |")
    order = {job: i for i, job in enumerate(JOBS)}
    medians = {}
    for key, samples in groups.items():
        medians[key] = statistics.median(float(s["wall_s"]) for s in samples)
    for key in sorted(groups, key=lambda k: (order.get(k[0], 99), k[1], k[2] != "gpuctl", k[2])):
        job, nodes, tool = key
        samples = groups[key]
        wall = medians[key]
        cpu = statistics.median(float(s["user_s"]) + float(s["sys_s"]) for s in samples)
        rss = statistics.median(int(s["maxrss_kb"]) for s in samples) / 1024
        load = statistics.median(float(s.get("load1") or "nan") for s in samples)
        failed = sum(1 for s in samples if s["rc"] != "0")
        base = medians.get((job, nodes, "gpuctl"))
        ratio = f"{wall / base:.2f}x" if base else "-"
        extra = ""
        if node_cpu:
            extra = f" {1000 * statistics.median(float(s['node_cpu_s']) for s in samples) / nodes:.0f} |"
        print(f"| {job} | {nodes} | {tool} | {wall:.2f} | {cpu:.2f} | {1000 * cpu / nodes:.1f} | {rss:.1f} |{extra} "
              f"{len(samples)} ({failed}) | {load:.1f} | {ratio} |")


if __name__ == "__main__":
    main()
