# shellcheck shell=sh
# The containers probe (facts/containers.cpp): the GPU container stack. nvidia-ctk's version;
# each CDI spec the NVIDIA toolkit writes (nvidia-ctk cdi generate --output=/etc/cdi/nvidia.yaml,
# or its nvidia-cdi-refresh unit: /var/run/cdi/nvidia.yaml), whole; the lines of containerd's
# and docker's configuration that name the nvidia runtime or CDI; podman's version; every
# /dev/nvidia* node with its MAJOR:MINOR and where /dev/char/MAJOR:MINOR leads (runc finds
# devices through those links after a systemd daemon-reload, NVIDIA/nvidia-docker#1730); each
# GPU's MIG mode; enroot and pyxis where pyxis is installed. Read-only, no helper process beyond the tools that answer. A shell function body: `return` ends the probe.
if command -v nvidia-ctk >/dev/null 2>&1; then echo '@ctk'; nvidia-ctk --version 2>&1; fi
for f in /etc/cdi/nvidia.yaml /var/run/cdi/nvidia.yaml; do
  [ -f "$f" ] || continue; echo "@spec $f"; head -c 1048576 -- "$f"; echo; done
if [ -f /etc/containerd/config.toml ]; then echo '@containerd'; grep -e nvidia-container-runtime -e enable_cdi /etc/containerd/config.toml; fi
if [ -f /etc/docker/daemon.json ]; then echo '@docker'; grep -e nvidia-container-runtime -e '"cdi"' /etc/docker/daemon.json; fi
if command -v podman >/dev/null 2>&1; then echo '@podman'; podman --version 2>&1; fi
# The device nodes and the /dev/char links, as ls -l shows them (one process each; the parser
# reads MAJOR, MINOR and each link's target).
echo '@devices'
set --; for d in /dev/nvidia*; do if [ -e "$d" ] && [ ! -d "$d" ]; then set -- "$@" "$d"; fi; done
if [ "$#" -gt 0 ]; then ls -ld -- "$@"; fi
echo '@char'
if [ -d /dev/char ]; then ls -l /dev/char; fi
# Containers in Slurm jobs (docs/containers.md): where pyxis's package put its plugstack line
# down, enroot's version, that line, and what srun --help makes of Slurm's plugin stack: pyxis's
# --container-image, or Slurm's error loading the plugin (a pyxis built for another Slurm).
if [ -f /usr/share/pyxis/pyxis.conf ]; then
  echo '@enroot'
  if command -v enroot >/dev/null 2>&1; then enroot version 2>&1; else echo 'no enroot'; fi
  echo '@pyxis'; head -c 4096 /usr/share/pyxis/pyxis.conf; echo
  echo '@srun'
  # shellcheck disable=SC2086 # $T is the timeout command and its options, split on purpose
  # Without a slurm.conf srun retries for a minute before it says so: not asked then.
  if ! command -v srun >/dev/null 2>&1; then echo 'no srun'
  elif [ ! -f /etc/slurm/slurm.conf ]; then echo 'no slurm.conf'
  else { $T srun --help 2>&1; echo "srun exit $?"; } | grep -m 40 -e '--container-image' -e 'error:' -e 'fatal:' -e '^srun exit '; fi
fi
echo '@mig'
# shellcheck disable=SC2086 # $T is the timeout command and its options, split on purpose
command -v nvidia-smi >/dev/null 2>&1 && $T nvidia-smi --query-gpu=mig.mode.current --format=csv,noheader 2>/dev/null
return 0
