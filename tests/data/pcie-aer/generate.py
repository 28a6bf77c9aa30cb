#!/usr/bin/env python3
"""Writes the pcie_aer probe outputs of this directory (see README.md): KERNEL FORMAT, not captured.

Each AER file is printed as drivers/pci/pcie/aer.c's aer_stats_dev_attr prints it (torvalds/linux
at 02a06f5f1a6aa2e12b2046b51ed3462c2c340037): every named bit as "%s %llu", an unnamed bit only
when its count is not zero ("<array>_bit[%d] %llu"), then "TOTAL_%s %llu". The probe prints
"gpu <bus id>" per GPU ("port <GPU> <port>" after it where the GPU hangs off a PCIe port), then
grep's "<path>:<line>" for every line of the files.
"""

# aer_correctable_error_string / aer_uncorrectable_error_string, by bit position.
COR_BITS = {0: "RxErr", 6: "BadTLP", 7: "BadDLLP", 8: "Rollover", 12: "Timeout", 13: "NonFatalErr",
            14: "CorrIntErr", 15: "HeaderOF"}
UNC_BITS = {0: "Undefined", 4: "DLP", 5: "SDES", 12: "TLP", 13: "FCP", 14: "CmpltTO", 15: "CmpltAbrt",
            16: "UnxCmplt", 17: "RxOF", 18: "MalfTLP", 19: "ECRC", 20: "UnsupReq", 21: "ACSViol",
            22: "UncorrIntErr", 23: "BlockedTLP", 24: "AtomicOpBlocked", 25: "TLPBlockedErr",
            26: "PoisonTLPBlocked"}
# file -> (names, array size: AER_MAX_TYPEOF_COR_ERRS 16 / AER_MAX_TYPEOF_UNCOR_ERRS 27, array, total)
FILES = {
    "aer_dev_correctable": (COR_BITS, 16, "dev_cor_errs", "ERR_COR"),
    "aer_dev_fatal": (UNC_BITS, 27, "dev_fatal_errs", "ERR_FATAL"),
    "aer_dev_nonfatal": (UNC_BITS, 27, "dev_nonfatal_errs", "ERR_NONFATAL"),
}
# The synthetic 8-GPU board's bus ids (../nvidia-smi/synthetic-8gpu/), as sysfs names them.
BUS = ["0000:18:00.0", "0000:2a:00.0", "0000:3a:00.0", "0000:5d:00.0", "0000:9a:00.0", "0000:ab:00.0",
       "0000:ba:00.0", "0000:db:00.0"]


def show(name, counts, total):
    bits, size, array, total_name = FILES[name]
    out = []
    for i in range(size):
        count = counts.get(i, 0)
        if i in bits:
            out.append(f"{bits[i]} {count}")
        elif count:
            out.append(f"{array}_bit[{i}] {count}")
    out.append(f"TOTAL_{total_name} {total}")
    return out


def files(bus, state):
    lines = []
    for name in FILES:
        counts, total = state.get((bus, name), ({}, 0))
        lines += [f"/sys/bus/pci/devices/{bus}/{name}:{line}" for line in show(name, counts, total)]
    return lines


def probe(state, ports=None):
    """The probe's output; with `ports` (GPU bus id -> the port above it), its "port" lines and
    each port's files after its GPU's, in the order the probe hands them to grep."""
    lines = []
    for bus in BUS:
        lines.append(f"gpu {bus}")
        if ports:
            lines.append(f"port {bus} {ports[bus]}")
    for bus in BUS:
        lines += files(bus, state)
        if ports:
            lines += files(ports[bus], state)
    return "\n".join(lines) + "\n"


FAULTS = {
    ("0000:2a:00.0", "aer_dev_correctable"): ({0: 3, 6: 2}, 4),  # correctable only; total != sum
    ("0000:3a:00.0", "aer_dev_fatal"): ({5: 1, 14: 1}, 1),       # Surprise Down + Completion Timeout, one message
    ("0000:5d:00.0", "aer_dev_nonfatal"): ({20: 2}, 2),          # Unsupported Request, twice
    ("0000:9a:00.0", "aer_dev_nonfatal"): ({3: 1}, 1),           # an unnamed bit: dev_nonfatal_errs_bit[3]
    ("0000:ab:00.0", "aer_dev_fatal"): ({}, 1),                  # every error bit masked: the total alone
}

# An HGX-style board: each GPU behind its own PCIe switch downstream port, device 00.0 of the bus
# before the GPU's (the topology is invented; every line is one aer.c prints). The port above
# GPU 6 counted a fatal Data Link Protocol error while the GPU's own counters stayed 0, as the
# ABI document warns; the port above GPU 7 counted correctable bad TLPs.
PORTS = {bus: f"{bus[:5]}{int(bus[5:7], 16) - 1:02x}:00.0" for bus in BUS}
PORT_FAULTS = {
    (PORTS["0000:ba:00.0"], "aer_dev_fatal"): ({4: 1}, 1),
    (PORTS["0000:db:00.0"], "aer_dev_correctable"): ({6: 5}, 5),
}

if __name__ == "__main__":
    with open("probe-clean-8gpu.txt", "w") as f:
        f.write(probe({}))
    with open("probe-faults-8gpu.txt", "w") as f:
        f.write(probe(FAULTS))
    with open("probe-ports-8gpu.txt", "w") as f:
        f.write(probe(PORT_FAULTS, PORTS))
