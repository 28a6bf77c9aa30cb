#!/usr/bin/env python3
"""Synthesises 8-GPU nvidia-smi output from the real 1-GPU H200 capture (../h200-1gpu/probe.txt).

Not captured from hardware: see README.md. Run from this directory to regenerate.
"""
import re

probe = open("../h200-1gpu/probe.txt").read()
# The real header and row of the 29-field `--query-gpu ... --format=csv` capture.
section = probe.split("--format=csv\n", 1)[1]
header, real_row = section.splitlines()[0], section.splitlines()[1]
real = [c.strip() for c in real_row.split(",")]
names = [c.strip() for c in header.split(",")]

bus = ["18", "2A", "3A", "5D", "9A", "AB", "BA", "DB"]
temps = [45, 47, 44, 49, 46, 51, 43, 48]
power = ["128.02", "131.40", "119.87", "140.11", "126.55", "135.90", "122.08", "129.73"]

def gpu(i):
    v = dict(zip(names, real))
    v["index"] = str(i)
    v["uuid"] = "GPU-45bfc1e6-e3e5-f4f6-384a-7c4dcf4496d%d" % i
    v["serial"] = str(1653724067178 + i)
    v["pci.bus_id"] = "00000000:%s:00.0" % bus[i]
    v["temperature.gpu"] = str(temps[i])
    v["power.draw [W]"] = power[i] + " W"
    if i == 3:   # a GPU whose persistence mode was turned off
        v["persistence_mode"] = "Disabled"
    if i == 5:   # a GPU with a row remap waiting for a reset and volatile uncorrectable errors
        v["remapped_rows.pending"] = "Yes"
        v["ecc.errors.uncorrected.volatile.total"] = "2"
        v["ecc.errors.uncorrected.aggregate.total"] = "2"
    if i == 7:   # a GPU whose power reading failed
        v["power.draw [W]"] = "[Unknown Error]"
    return v

gpus = [gpu(i) for i in range(8)]
with open("query-gpu.csv", "w") as f:
    f.write(header + "\n")
    for v in gpus:
        f.write(", ".join(v[n] for n in names) + "\n")

# gpuctl's own field list (facts::gpu_query_fields()), noheader,nounits.
ours = ["index", "name", "uuid", "serial", "pci.bus_id", "driver_version", "vbios_version",
        "memory.total [MiB]", "memory.used [MiB]", "persistence_mode", "ecc.mode.current",
        "ecc.errors.corrected.volatile.total", "ecc.errors.uncorrected.volatile.total",
        None, "ecc.errors.uncorrected.aggregate.total", "retired_pages.pending",
        "pcie.link.gen.current", "pcie.link.gen.max", "pcie.link.width.current",
        "pcie.link.width.max", "temperature.gpu", "power.draw [W]", "power.limit [W]"]
with open("query-gpu-noheader-nounits.csv", "w") as f:
    for v in gpus:
        cells = []
        for n in ours:
            value = "0" if n is None else v[n]  # aggregate corrected: 0, as on the real card
            cells.append(re.sub(r" (MiB|W)$", "", value))
        f.write(", ".join(cells) + "\n")

# `nvidia-smi -q -d ROW_REMAPPER`: the real card's Remapped Rows block, once per GPU.
block = probe[probe.index("    Remapped Rows\n"):probe.index("    Temperature\n")]
with open("row-remapper-q.txt", "w") as f:
    f.write("\n==============NVSMI LOG==============\n\n")
    f.write("Timestamp                                              : Wed Dec  2 14:41:50 2026\n")
    f.write("Driver Version                                         : 580.159.04\n")
    f.write("CUDA Version                                           : 13.0\n\n")
    f.write("Attached GPUs                                          : 8\n")
    for v in gpus:
        f.write("GPU %s\n" % v["pci.bus_id"])
        b = block
        if v["remapped_rows.pending"] == "Yes":
            b = b.replace("Uncorrectable Error                            : 0",
                          "Uncorrectable Error                            : 1", 1)
            b = re.sub(r"(        Pending\s+: )No", r"\1Yes", b)
        f.write(b + "\n")
