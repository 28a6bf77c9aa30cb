# The base image of every node (sourced). Built once by mmdebstrap, cached under
# $CACHE/image-<hash of this recipe>; also holds debian/, a flat apt repository with Debian's
# real slurm, munge, prometheus-node-exporter and RDMA user-space packages, Debian 12's real NVIDIA packages
# (non-free and contrib, with bookworm-security: the debian12-distribution profile) and whatever
# they need beyond the image: the local copy of a Debian mirror with those components enabled.

IMAGE_PACKAGES=systemd,systemd-sysv,dbus,openssh-server,ca-certificates,kmod,procps,iproute2,curl,gpg,less
# The containers step's runtimes, real (docs/containers.md): podman runs the e2e's GPU container
# through CDI; containerd and docker.io are there for the other containers.runtime values. crun:
# the nodes' cgroup file systems are read-only inside systemd-nspawn, runc refuses to run a
# container without a cgroup of its own ("runc is not compatible with NoCgroups"), and crun can.
DEBIAN_CONTAINERS="podman runc crun containerd docker.io"
# The rdma step's packages (the profiles' rdma_core, ibverbs_utils, infiniband_diags rows): real,
# on the HCAs of `sandbox up --hgx`.
DEBIAN_EXTRA="slurmd slurmctld slurm-client munge prometheus-node-exporter prometheus prometheus-alertmanager rdma-core ibverbs-utils infiniband-diags $DEBIAN_CONTAINERS"
# What tests/e2e/debian_nonfree.sh installs with gpuctl: the driver and kernel module of
# Debian's profile, nvidia-smi and the persistence daemon (playbooks/profiles/debian12-distribution.yaml).
DEBIAN_NVIDIA="nvidia-driver nvidia-kernel-dkms nvidia-smi nvidia-persistenced firmware-misc-nonfree"
DEBIAN_MIRRORS=("deb http://deb.debian.org/debian bookworm main contrib non-free non-free-firmware"
  "deb http://deb.debian.org/debian-security bookworm-security main contrib non-free non-free-firmware")
MASKED_UNITS="console-getty.service getty@.service serial-getty@.service getty.target
  systemd-networkd.service systemd-networkd.socket systemd-networkd-wait-online.service
  apt-daily.timer apt-daily-upgrade.timer fstrim.timer e2scrub_all.timer e2scrub_reap.service
  systemd-journald-audit.socket systemd-pstore.service systemd-firstboot.service
  systemd-hwdb-update.service ldconfig.service"

image_hash() {
  { echo "$SUITE $IMAGE_PACKAGES $DEBIAN_EXTRA $DEBIAN_NVIDIA ${DEBIAN_MIRRORS[*]} $MASKED_UNITS"; recipe_hash "$SANDBOX_SRC/image" "$SANDBOX_SRC/lib/image.sh"; } \
    | sha256sum | cut -c1-16
}

# Sets IMAGE_DIR (rootfs/ + debian/). Builds when not cached; serialized by a lock.
ensure_image() {
  IMAGE_DIR=$CACHE/image-$(image_hash)
  [[ -f $IMAGE_DIR/.complete ]] && return 0
  mkdir -p "$CACHE"
  exec 8>"$CACHE/.image.lock"; flock 8
  if [[ ! -f $IMAGE_DIR/.complete ]]; then
    local t0=$SECONDS tmp=$IMAGE_DIR.tmp
    rm -rf "$tmp"; mkdir -p "$tmp/debian"
    log "building base image $(basename "$IMAGE_DIR") with mmdebstrap (once; cached)"
    mmdebstrap --quiet --variant=minbase --include="$IMAGE_PACKAGES" \
      --customize-hook='chroot "$1" apt-get clean' \
      --customize-hook="chroot \"\$1\" apt-get install -y -qq --download-only $DEBIAN_EXTRA >/dev/null" \
      --customize-hook="chroot \"\$1\" apt-get install -y -qq --no-install-recommends --download-only $DEBIAN_NVIDIA >/dev/null" \
      --customize-hook="cp \"\$1\"/var/cache/apt/archives/*.deb '$tmp/debian/'" \
      "$SUITE" "$tmp/rootfs" "${DEBIAN_MIRRORS[@]}" >"$tmp/mmdebstrap.log" 2>&1 \
      || { tail -20 "$tmp/mmdebstrap.log" >&2; die "mmdebstrap failed (log: $tmp/mmdebstrap.log)"; }
    customize_image "$tmp/rootfs"
    (cd "$tmp/debian" && dpkg-scanpackages --multiversion . /dev/null 2>/dev/null > Packages && gzip -9kf Packages)
    touch "$tmp/.complete"
    mv "$tmp" "$IMAGE_DIR"
    log "base image built in $((SECONDS - t0)) s"
  fi
  flock -u 8; exec 8>&-
}

customize_image() {
  local r=$1 u
  rm -f "$r"/etc/ssh/ssh_host_*            # every node gets its own host keys
  : > "$r/etc/machine-id"                   # and its own machine id
  rm -f "$r/etc/apt/sources.list"
  # Debian's packages come from the local copy (offline, fast); the node's CUDA repository is
  # what gpuctl configures. [trusted=yes]: it holds Debian's own signed .debs, re-indexed here.
  echo "deb [trusted=yes] file:/srv/gpuctl-sandbox/debian ./" > "$r/etc/apt/sources.list.d/debian-local.list"
  for u in $MASKED_UNITS; do ln -sf /dev/null "$r/etc/systemd/system/$u"; done
  mkdir -p "$r/etc/systemd/journald.conf.d" "$r/usr/lib/gpuctl-sandbox" "$r/etc/systemd/system/sysinit.target.wants"
  printf '[Journal]\nStorage=volatile\nRuntimeMaxUse=8M\n' > "$r/etc/systemd/journald.conf.d/sandbox.conf"
  install -m 755 "$SANDBOX_SRC/image/kernel-view" "$r/usr/lib/gpuctl-sandbox/kernel-view"
  install -m 644 "$SANDBOX_SRC/image/gpuctl-sandbox-kernel.service" "$r/etc/systemd/system/"
  ln -sf ../gpuctl-sandbox-kernel.service "$r/etc/systemd/system/sysinit.target.wants/"
  install -m 755 "$SANDBOX_SRC/image/update-initramfs" "$r/usr/sbin/update-initramfs"
  for u in /usr/bin/lsmod /usr/sbin/lsmod; do
    chroot "$r" dpkg-divert --quiet --local --rename --divert "$u.kmod" --add "$u"
    install -m 755 "$SANDBOX_SRC/image/lsmod" "$r$u"
  done
  # Loads the modules the sandbox simulates (nvidia-peermem) into this boot's view; kmod's for the rest.
  chroot "$r" dpkg-divert --quiet --local --rename --divert /usr/sbin/modprobe.kmod --add /usr/sbin/modprobe
  install -m 755 "$SANDBOX_SRC/image/modprobe" "$r/usr/sbin/modprobe"
  # The node's kernel log (the NVIDIA driver's lines, injected Xids) in place of the host's.
  chroot "$r" dpkg-divert --quiet --local --rename --divert /bin/dmesg.util-linux --add /bin/dmesg
  install -m 755 "$SANDBOX_SRC/image/dmesg" "$r/bin/dmesg"
  printf 'PasswordAuthentication no\nUseDNS no\nHostKey /etc/ssh/ssh_host_ed25519_key\n' > "$r/etc/ssh/sshd_config.d/50-sandbox.conf"
  touch "$r/boot/vmlinuz-$(uname -r)"
  (cd "$r" && chroot . /usr/sbin/update-initramfs -c -k "$(uname -r)" >/dev/null)
  touch -d '2024-01-01 00:00' "$r/boot/initrd.img-$(uname -r)"
}
