#!/bin/sh
# One light node (bench/lightnodes): run by `unshare -m --propagation private`, so every mount
# below is private to this node. Lays the node's simulated GPU world over the host's files, makes
# the host's root file system read-only *for this node*, then becomes the node's sshd.
#
#   lightnode-init.sh NODE_DIR LAYER_DIR
#
# NODE_DIR holds sshd_config, the host key, gpus.conf and nvidia.version; LAYER_DIR/usr is laid
# over /usr (nvidia-smi, its data, lsmod). Runs as root.
set -eu
node=$1 layer=$2
k=/run/gpuctl-sandbox/kernel

# /run: sshd's privilege-separation directory and the node's GPU state (nvidia-smi reads it).
mount -t tmpfs -o mode=755,size=4m lightnode-run /run
mkdir -p /run/sshd /run/gpuctl-sandbox/hw /run/gpuctl-sandbox/state "$k"
cp "$node/gpus.conf" /run/gpuctl-sandbox/hw/gpus.conf
cp "$node/nvidia.version" "$k/nvidia.version"
# The modules of a node whose nvidia driver is loaded and nouveau is not (the host kernel has no
# /proc/modules: the probes fall back to lsmod, which the layer makes read this file).
printf '%s\n' "nvidia_uvm 4911104 0 - Live 0x0000000000000000 (PO)" \
  "nvidia_modeset 1507328 0 - Live 0x0000000000000000 (PO)" \
  "nvidia 56823808 2 nvidia_uvm,nvidia_modeset, Live 0x0000000000000000 (PO)" > "$k/modules"
[ -e /proc/modules ] && mount --bind "$k/modules" /proc/modules

# /proc/driver/nvidia/version, as the loaded kernel module shows it.
mount -t tmpfs -o mode=755,size=1m lightnode-driver /proc/driver
mkdir -p /proc/driver/nvidia
printf 'NVRM version: NVIDIA UNIX x86_64 Kernel Module  %s  Release Build  (dvs-builder@U16-I3-B03-4-3)  \nGCC version:  gcc version 12.2.0 (Debian 12.2.0-14) \n' \
  "$(cat "$node/nvidia.version")" > /proc/driver/nvidia/version

# nvidia-smi and friends over /usr (read-only overlay: the layer on top of the host's /usr).
mount -t overlay -o "lowerdir=$layer/usr:/usr" lightnode-usr /usr

# Scratch space the node's shells may need, and an empty home: root's shell start-up files on
# the host (pyenv and the like) are no part of a node.
mount -t tmpfs -o mode=1777,size=16m lightnode-tmp /tmp
mount -t tmpfs -o mode=700,size=1m lightnode-home /root

# The node's directory stays writable (sshd's log); everything else of the host's root file
# system becomes read-only in this namespace, so that no command sent to a light node (an
# `apply` by mistake) can change the host.
mount --bind "$node" "$node"
mount -o remount,bind,ro /

exec /usr/sbin/sshd -D -f "$node/sshd_config" -E "$node/sshd.log"
