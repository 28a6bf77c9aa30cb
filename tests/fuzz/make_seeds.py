#!/usr/bin/env python3
"""Rebuilds the seed corpora under tests/fuzz/corpus/ from the repository's real data.

Run from the repository root: python3 tests/fuzz/make_seeds.py. Seeds that are written by hand
(tests/fuzz/corpus/*/hand-*) and the plan seeds (written by `gpuctl plan -o`, see
docs/fuzzing.md) are kept; every other file is copied or cut again from its source.
"""
import pathlib
import re
import shutil

ROOT = pathlib.Path(__file__).resolve().parents[2]
CORPUS = ROOT / "tests/fuzz/corpus"
SMI = ROOT / "tests/data/nvidia-smi"


def reset(target):
    folder = CORPUS / target
    folder.mkdir(parents=True, exist_ok=True)
    for f in folder.iterdir():
        if not f.name.startswith(("hand-", "gpuctl-plan-")):
            f.unlink()
    return folder


def copy(sources, folder, prefix=""):
    for source in sources:
        shutil.copyfile(source, folder / (prefix + source.name))


def probe_sections():
    """h200-1gpu/probe.txt: each command's output after '===== $ CMD', exit code after '===== rc=N'."""
    text = (SMI / "h200-1gpu/probe.txt").read_text()
    sections = {}
    for match in re.finditer(r"^===== \$ ([^\n]*)\n(.*?)^===== rc=(\d+)\n", text, re.M | re.S):
        sections[match.group(1)] = (match.group(2), int(match.group(3)))
    return sections


def main():
    inventories = reset("inventory_loader")
    copy(sorted((ROOT / "tests/data/inventories/good").glob("*.yaml")), inventories, "good-")
    copy(sorted((ROOT / "tests/data/inventories/bad").glob("*.yaml")), inventories, "bad-")
    copy(sorted((ROOT / "docs/examples").glob("*.yaml")), inventories, "example-")

    playbooks = reset("playbook_loader")
    copy(sorted((ROOT / "playbooks").glob("*.yaml")), playbooks)

    hostlists = reset("hostlist")
    seen = set()
    for inventory in sorted((ROOT / "tests/data/inventories").rglob("*.yaml")) + sorted((ROOT / "docs/examples").glob("*.yaml")):
        for value in re.findall(r"(?:hosts|nodes):\s*\"?([^\"\n#]+)", inventory.read_text()):
            value = value.strip()
            if "[" in value and value not in seen and len(seen) < 20:
                seen.add(value)
                (hostlists / f"inventory-{len(seen):02d}").write_text(value)

    smi = reset("nvidia_smi_parsers")
    sections = probe_sections()
    wanted = {
        "query-gpu-header.csv": next(k for k in sections if k.startswith("nvidia-smi --query-gpu=index") and k.endswith("--format=csv")),
        "query-gpu-noheader-nounits.csv": next(k for k in sections if k.endswith("noheader,nounits")),
        "query-gpu-bogus-field.txt": "nvidia-smi --query-gpu=bogus.field --format=csv",
        "q-missing-device.txt": "nvidia-smi -i 7 -q",
        "q-ecc-power-rows.txt": "nvidia-smi -q -d ECC,PERFORMANCE,POWER,TEMPERATURE,CLOCK,PAGE_RETIREMENT,ROW_REMAPPER",
        "topo-m.txt": "nvidia-smi topo -m",
        "driver-version.txt": "cat /proc/driver/nvidia/version",
        "nvcc-version.txt": "nvcc --version",
        "os-release.txt": "cat /etc/os-release",
        "uname-a.txt": "uname -a",
    }
    for name, command in wanted.items():
        (smi / f"h200-{name}").write_text(sections[command][0])
    for capture in sorted((SMI / "synthetic-8gpu").glob("*")):
        if capture.suffix in (".txt", ".csv"):
            shutil.copyfile(capture, smi / f"synthetic-8gpu-{capture.name}")
    shutil.copyfile(SMI / "h200-1gpu/device-2026-12-02/topo-m.txt", smi / "h200-topo-m-2026-12-02.txt")
    copy(sorted((ROOT / "tests/data/slurm").glob("*.txt")), smi, "slurm-")

    # The facts batch as the probe script prints it (src/facts/probe_script.cpp), nonce "fuzz",
    # from the same H200 capture.
    probes = reset("probe_output")
    def q(prefix):
        return sections[next(k for k in sections if k.startswith(prefix))]
    batch = {
        "os_release": sections["cat /etc/os-release"],
        "kernel": ("6.18.44-fc-v973-gpu\n", 0),
        "boot_id": ("0b5c8d1e-2f3a-4b6c-9d7e-8f9a0b1c2d3e\n", 0),
        "uptime": ("350735.47 234388.90\n", 0),
        "modules": ("nvidia_uvm 2076672 0 - Live 0x0000000000000000 (OE)\nnvidia 104067072 2 nvidia_uvm, Live 0x0000000000000000 (OE)\n", 0),
        "driver": sections["cat /proc/driver/nvidia/version"],
        "cuda": sections["nvcc --version"],
        "packages": ("libnccl2\t2.21.5-1+cuda12.4\tinstall ok installed\nlinux-image-6.8.0-45-generic\t6.8.0-45.45\tinstall ok installed\n", 1),
        "nccl_libraries": ("/usr/lib/x86_64-linux-gnu/libnccl.so.2.28.9\n", 0),
        "gpus": q("nvidia-smi --query-gpu=index,name,uuid,serial,pci.bus_id,driver_version,vbios_version"),
        "remapped_rows": q("nvidia-smi -q -d ECC"),
        "topology": sections["nvidia-smi topo -m"],
        "nvlink": ("", 0),
    }
    marker = "@@gpuctl-fuzz"
    def batch_text(entries):
        out = "Welcome to gpu01\n"
        for name, (stdout, rc) in entries.items():
            err = "dpkg-query: no packages found matching slurm*" if name == "packages" else ""
            out += f"{marker} begin {name}\n{stdout}\n{marker} end {name} rc={rc}\n{err}\n{marker} stderr-end {name}\n"
        return out
    (probes / "h200-1gpu.txt").write_text(batch_text(batch))
    eight = dict(batch)
    eight["gpus"] = ((SMI / "synthetic-8gpu/query-gpu.csv").read_text(), 0)
    eight["remapped_rows"] = ((SMI / "synthetic-8gpu/row-remapper-q.txt").read_text(), 0)
    eight["topology"] = ((SMI / "synthetic-8gpu/topo-m.txt").read_text(), 0)
    eight["nvlink"] = ((SMI / "synthetic-8gpu/nvlink-s.txt").read_text(), 0)
    (probes / "synthetic-8gpu.txt").write_text(batch_text(eight))
    no_driver = {k: v for k, v in batch.items() if k in ("os_release", "kernel", "boot_id", "uptime")}
    no_driver["gpus"] = ("NVIDIA-SMI has failed because it couldn't communicate with the NVIDIA driver. "
                         "Make sure that the latest NVIDIA driver is installed and running.\n", 9)
    (probes / "no-driver.txt").write_text(batch_text(no_driver))


if __name__ == "__main__":
    main()
