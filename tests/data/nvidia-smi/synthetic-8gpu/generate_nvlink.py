#!/usr/bin/env python3
"""SYNTHESISED `nvidia-smi topo -m` and `nvidia-smi nvlink -s` of an 8-GPU HGX H200 board.

No multi-GPU machine was available: the layout follows the REAL 1-GPU captures in
../h200-1gpu/probe.txt (escape-underlined, tab-separated header; " X " on the diagonal; an
empty cell before "GPU NUMA ID"; the legend) extended with NV18 between every GPU pair, four
NICs with a NIC legend, and 18 links of 26.562 GB/s per GPU as H100/H200 SXM report them.
Injected fault in the *-fault files: GPU 6 link 17 is <inactive> and the GPU6-GPU7 pair is NV17.
"""
gpus, nics = 8, 4
legend = """
Legend:

  X    = Self
  SYS  = Connection traversing PCIe as well as the SMP interconnect between NUMA nodes (e.g., QPI/UPI)
  NODE = Connection traversing PCIe as well as the interconnect between PCIe Host Bridges within a NUMA node
  PHB  = Connection traversing PCIe as well as a PCIe Host Bridge (typically the CPU)
  PXB  = Connection traversing multiple PCIe bridges (without traversing the PCIe Host Bridge)
  PIX  = Connection traversing at most a single PCIe bridge
  NV#  = Connection traversing a bonded set of # NVLinks

NIC Legend:

  NIC0: mlx5_0
  NIC1: mlx5_1
  NIC2: mlx5_2
  NIC3: mlx5_3
"""

def numa(gpu): return 0 if gpu < 4 else 1

def pcie(a_numa, b_numa, same_switch):
    return "PIX" if same_switch else ("NODE" if a_numa == b_numa else "SYS")

def topo(fault):
    names = [f"GPU{i}" for i in range(gpus)] + [f"NIC{i}" for i in range(nics)]
    out = "\t\x1b[4m" + "\t".join(names) + "\tCPU Affinity\tNUMA Affinity\tGPU NUMA ID\x1b[0m\n"
    for g in range(gpus):
        cells = []
        for h in range(gpus):
            if g == h: cells.append(" X ")
            elif fault and {g, h} == {6, 7}: cells.append("NV17")
            else: cells.append("NV18")
        for n in range(nics):
            cells.append(pcie(numa(g), 0 if n < 2 else 1, g // 2 == n))
        affinity = "0-55,112-167" if numa(g) == 0 else "56-111,168-223"
        out += f"GPU{g}\t" + "\t".join(cells) + f"\t{affinity}\t{numa(g)}\t\tN/A\n"
    for n in range(nics):
        cells = [pcie(numa(g), 0 if n < 2 else 1, g // 2 == n) for g in range(gpus)]
        cells += [" X " if m == n else ("NODE" if (m < 2) == (n < 2) else "SYS") for m in range(nics)]
        out += f"NIC{n}\t" + "\t".join(cells) + "\t\t\t\t\n"
    return out + legend

def nvlink(fault):
    out = ""
    for g in range(gpus):
        out += f"GPU {g}: NVIDIA H200 (UUID: GPU-3b8a4c4e-5d1f-2a6b-9c0e-7f1d2e3a4b5{g})\n"
        for link in range(18):
            out += f"\t Link {link}: " + ("<inactive>" if fault and g == 6 and link == 17 else "26.562 GB/s") + "\n"
    return out

for fault, suffix in ((False, ""), (True, "-fault")):
    open(f"topo-m{suffix}.txt", "w").write(topo(fault))
    open(f"nvlink-s{suffix}.txt", "w").write(nvlink(fault))
