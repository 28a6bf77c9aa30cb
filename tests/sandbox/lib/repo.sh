# The local "CUDA repository" (sourced): stand-ins for NVIDIA's packages under the names,
# services and version formats of gpuctl's package profile debian12-cuda-repository (read with
# `gpuctl profiles --json`, the same table the playbooks install from), a flat signed apt
# repository like NVIDIA's, cached under $CACHE/repo-<hash>/cuda.
# Served to the nodes as file:/srv/gpuctl-sandbox/cuda/ (read-only bind mount).

SANDBOX_PROFILE=debian12-cuda-repository
DRIVER_535=535.183.01
DRIVER_550=550.127.08
CUDA_VERSION=12.4
REPO_URL=file:/srv/gpuctl-sandbox/cuda/
REPO_KEY_URL=file:///srv/gpuctl-sandbox/cuda/gpuctl-sandbox-cuda.pub
PROFILES_DIR=${SANDBOX_SRC:-.}/../../playbooks/profiles

# The gpuctl that reads the profile table: $GPUCTL, else the build tree's.
sandbox_gpuctl() {
  local g=${GPUCTL:-$SANDBOX_SRC/../../build/gpuctl}
  [[ -x $g ]] || die "the sandbox's repository is built from gpuctl's package profiles: build gpuctl first (or set GPUCTL)"
  echo "$g"
}

repo_hash() {
  { echo "$SANDBOX_PROFILE $DRIVER_535 $DRIVER_550 $CUDA_VERSION";
    recipe_hash "$SANDBOX_SRC/nvidia-smi" "$SANDBOX_SRC/packages" "$SANDBOX_SRC/lib/repo.sh" "$SANDBOX_SRC/lib/toolkit.sh" \
      "$PROFILES_DIR" "$SANDBOX_SRC/../data/monitoring" "$SANDBOX_SRC/../data/containers/toolkit-packages.txt" \
      "$SANDBOX_SRC/../data/containers/slurm-container-packages.txt"; } | sha256sum | cut -c1-16
}

# Sets REPO_DIR (holds cuda/). Builds when not cached.
ensure_repo() {
  REPO_DIR=$CACHE/repo-$(repo_hash)
  [[ -f $REPO_DIR/.complete ]] && return 0
  mkdir -p "$CACHE"
  exec 7>"$CACHE/.repo.lock"; flock 7
  if [[ ! -f $REPO_DIR/.complete ]]; then
    local t0=$SECONDS tmp=$REPO_DIR.tmp
    rm -rf "$tmp"; mkdir -p "$tmp/cuda" "$tmp/build"
    log "building the local CUDA repository $(basename "$REPO_DIR") (once; cached)"
    build_repo "$tmp" || die "building the local repository failed"
    touch "$tmp/.complete"; rm -rf "$tmp/build"
    mv "$tmp" "$REPO_DIR"
    log "repository built in $((SECONDS - t0)) s"
  fi
  flock -u 7; exec 7>&-
}

# make_deb OUTDIR ROOTDIR NAME VERSION DESCRIPTION [extra control lines...]
# ROOTDIR holds the files; ROOTDIR/DEBIAN may already hold maintainer scripts.
make_deb() {
  local out=$1 root=$2 name=$3 version=$4 desc=$5; shift 5
  mkdir -p "$root/DEBIAN"
  {
    echo "Package: $name"; echo "Version: $version"; echo "Architecture: amd64"
    echo "Maintainer: gpuctl sandbox <sandbox@gpuctl.invalid>"; echo "Section: misc"; echo "Priority: optional"
    local l; for l in "$@"; do echo "$l"; done
    echo "Description: $desc (gpuctl sandbox stand-in)"
    echo " Stand-in built by tests/sandbox for end-to-end tests; not NVIDIA software."
  } > "$root/DEBIAN/control"
  chmod 755 "$root"/DEBIAN/{preinst,postinst,prerm,postrm} 2>/dev/null || true
  dpkg-deb --root-owner-group -Zxz -z1 --build "$root" "$out/${name}_${version#*:}_amd64.deb" >/dev/null
}

# A systemd service whose daemon is a sleep loop (optionally after a check command).
service_files() {
  local root=$1 unit=$2 exe=$3 pre=${4:-} service_extra=${5:-}
  mkdir -p "$root/usr/bin" "$root/lib/systemd/system"
  # The daemon becomes one sleeping process (exec): SIGTERM (systemctl stop) ends it at once, and
  # no second process is left in the unit's cgroup for systemd to wait on (in the nodes' cgroup v1
  # hierarchy a leftover was waited for until the 90 s stop timeout).
  printf '#!/bin/sh\n# gpuctl sandbox stand-in daemon\n%s\nexec sleep infinity\n' "$pre" > "$root/usr/bin/$exe"
  chmod 755 "$root/usr/bin/$exe"
  printf '[Unit]\nDescription=%s (gpuctl sandbox stand-in)\n\n[Service]\nExecStart=/usr/bin/%s\n%s\n[Install]\nWantedBy=multi-user.target\n' \
    "$unit" "$exe" "${service_extra:+$service_extra
}" > "$root/lib/systemd/system/$unit.service"
  mkdir -p "$root/DEBIAN"
  printf '#!/bin/sh\nset -e\nif [ "$1" = configure ] && [ -d /run/systemd/system ]; then\n  systemctl daemon-reload >/dev/null 2>&1 || true\n  systemctl enable %s.service >/dev/null 2>&1 || true\n  systemctl restart %s.service || true\nfi\n' \
    "$unit" "$unit" > "$root/DEBIAN/postinst"
  printf '#!/bin/sh\nset -e\nif [ -d /run/systemd/system ]; then systemctl disable --now %s.service >/dev/null 2>&1 || true; fi\n' \
    "$unit" > "$root/DEBIAN/prerm"
}

# profile_field JSON ROW KEY [BRANCH VERSION]: a row's field with {branch}, {driver_version},
# {cuda}, {cuda_dashed} and {cuda_major} filled in.
profile_field() {
  local v; v=$(jq -r --arg row "$2" --arg key "$3" '.packages[] | select(.row == $row) | .[$key] // ""' <<<"$1")
  v=${v//\{branch\}/${4:-}}; v=${v//\{driver_version\}/${5:-}}; v=${v//\{cuda_dashed\}/${CUDA_VERSION/./-}}
  v=${v//\{cuda_major\}/${CUDA_VERSION%%.*}}; v=${v//\{cuda\}/$CUDA_VERSION}
  echo "$v"
}

build_repo() {
  local top=$1 out=$1/cuda b=$1/build
  local profile; profile=$("$(sandbox_gpuctl)" profiles "$SANDBOX_PROFILE" --json) || return 1
  # The kernel module packages of every Debian 12 profile: the supervisor "loads" the module
  # whose package is installed (lib/supervise.sh), Debian's real one as well as the stand-ins.
  local p; for p in "$PROFILES_DIR"/debian12-*.yaml; do
    "$(sandbox_gpuctl)" profiles "$(basename "$p" .yaml)" --json \
      | jq -r '.packages[] | select(.row == "kernel_module") | "open \(.open)", "proprietary \(.proprietary)"'
  done | awk '$2 != ""' | sort -u > "$top/kernel-module-packages"
  # nvidia-smi: static, so it runs whatever the node has installed.
  g++ -std=c++17 -O2 -static -o "$b/nvidia-smi" "$SANDBOX_SRC"/nvidia-smi/*.cpp || return 1
  local fixtures=$SANDBOX_SRC/../data/nvidia-smi/h200-1gpu
  grep -oE '^"[a-zA-Z0-9_.]+"( or "[a-zA-Z0-9_.]+")?' "$fixtures/help-query-gpu.txt" | grep -oE '"[^"]+"' | tr -d '"' \
    > "$b/query-gpu-fields"

  local branch ver other cuda flavour
  for branch in 535 550; do
    if [[ $branch == 535 ]]; then ver=$DRIVER_535 other=550 cuda=12.2; else ver=$DRIVER_550 other=535 cuda=12.4; fi
    local smi kmod_open kmod_prop
    smi=$(profile_field "$profile" nvidia_smi name "$branch" "$ver")
    kmod_open=$(profile_field "$profile" kernel_module open "$branch" "$ver")
    kmod_prop=$(profile_field "$profile" kernel_module proprietary "$branch" "$ver")
    local deb_ver; deb_ver=$(profile_field "$profile" driver version "$branch" "$ver")

    # The user space with the simulated nvidia-smi (NVIDIA's nvidia-smi package holds the binary).
    local r=$b/smi-$branch
    mkdir -p "$r/usr/bin" "$r/usr/lib/nvidia-sandbox" "$r/usr/share/nvidia-sandbox" "$r/DEBIAN"
    cp "$b/nvidia-smi" "$r/usr/bin/nvidia-smi"
    echo "$ver" > "$r/usr/lib/nvidia-sandbox/nvml-version"     # the user-space "library" version
    echo "$cuda" > "$r/usr/lib/nvidia-sandbox/cuda-version"
    cp "$fixtures/nvidia-smi-q.txt" "$r/usr/share/nvidia-sandbox/q.txt"
    cp "$fixtures/nvidia-smi-q.xml" "$r/usr/share/nvidia-sandbox/q.xml"
    cp "$b/query-gpu-fields" "$r/usr/share/nvidia-sandbox/query-gpu-fields"
    # NVML at the driver's version, where NVIDIA's driver puts it (nvidia-ctk cdi generate mounts it).
    mkdir -p "$r/usr/lib/x86_64-linux-gnu"
    printf 'int nvmlInit_v2(void) { return 0; }\n' > "$b/nvml.c"
    gcc -shared -fPIC -Wl,-soname,libnvidia-ml.so.1 -o "$r/usr/lib/x86_64-linux-gnu/libnvidia-ml.so.$ver" "$b/nvml.c" || return 1
    ln -sf "libnvidia-ml.so.$ver" "$r/usr/lib/x86_64-linux-gnu/libnvidia-ml.so.1"
    # /dev/nvidiaN at each boot where the module "loads" (udev's job on a real machine).
    mkdir -p "$r/lib/systemd/system/sysinit.target.wants"
    install -m 755 "$SANDBOX_SRC/packages/nvidia-device-nodes" "$r/usr/lib/nvidia-sandbox/device-nodes"
    printf '%s\n' '[Unit]' 'Description=NVIDIA device nodes (gpuctl sandbox stand-in for udev)' 'DefaultDependencies=no' \
      'After=gpuctl-sandbox-kernel.service' 'Before=sysinit.target' '' '[Service]' 'Type=oneshot' 'RemainAfterExit=yes' \
      'ExecStart=/usr/lib/nvidia-sandbox/device-nodes' > "$r/lib/systemd/system/nvidia-device-nodes.service"
    ln -s ../nvidia-device-nodes.service "$r/lib/systemd/system/sysinit.target.wants/nvidia-device-nodes.service"
    make_deb "$out" "$r" "$smi" "$deb_ver" "NVIDIA System Management Interface (nvidia-smi)"

    # The kernel module of each flavour: DKMS source under /usr/src like the real packages (the
    # supervisor loads the module at the next boot); the two flavours conflict, as NVIDIA's do.
    for flavour in open proprietary; do
      local kmod=$kmod_open conflicts=$kmod_prop
      [[ $flavour == proprietary ]] && kmod=$kmod_prop conflicts=$kmod_open
      r=$b/kmod-$flavour-$branch
      mkdir -p "$r/usr/src/nvidia-$ver" "$r/DEBIAN"
      printf 'PACKAGE_NAME="nvidia"\nPACKAGE_VERSION="%s"\n# gpuctl sandbox stand-in: nothing is built\n' "$ver" > "$r/usr/src/nvidia-$ver/dkms.conf"
      sed -e "s/@PKG@/$kmod/g" -e "s/@VERSION@/$ver/g" "$SANDBOX_SRC/packages/driver.postinst" > "$r/DEBIAN/postinst"
      make_deb "$out" "$r" "$kmod" "$deb_ver" "NVIDIA kernel module ($flavour), DKMS source" \
        "Conflicts: $conflicts" "Replaces: $conflicts"
      local meta; meta=$(profile_field "$profile" driver "$flavour" "$branch" "$ver")
      r=$b/meta-$flavour-$branch; mkdir -p "$r/DEBIAN"
      # >= like NVIDIA's own metapackages: alone, it takes the newest parts (gpuctl installs the
      # parts at the exact version first).
      make_deb "$out" "$r" "$meta" "$deb_ver" "NVIDIA driver metapackage ($flavour kernel module)" \
        "Depends: $kmod (>= $deb_ver), $smi (>= $deb_ver)"
    done

    local fm; fm=$(profile_field "$profile" fabricmanager name "$branch" "$ver")
    local fm_other; fm_other=$(profile_field "$profile" fabricmanager name "$other" "$ver")
    r=$b/fm-$branch
    # Like the real one, it does not start beside a driver of another version; started, it
    # "registers" the GPUs with the fabric, which the nvidia-smi stand-in reports as fabric.state
    # Completed until the daemon stops or the node reboots (/run is emptied).
    service_files "$r" "$(profile_field "$profile" fabricmanager service)" nv-fabricmanager \
      "grep -q ' $ver ' /proc/driver/nvidia/version 2>/dev/null || { echo 'nv-fabricmanager $ver: the loaded NVIDIA driver is not version $ver (gpuctl sandbox stand-in)' >&2; exit 1; }
mkdir -p /run/nvidia-fabricmanager && echo $ver > /run/nvidia-fabricmanager/gpuctl-sandbox-registered" \
      "ExecStopPost=/bin/rm -f /run/nvidia-fabricmanager/gpuctl-sandbox-registered"
    make_deb "$out" "$r" "$fm" "$(profile_field "$profile" fabricmanager version "$branch" "$ver")" "NVIDIA Fabric Manager" \
      "Conflicts: $fm_other" "Replaces: $fm_other"

    r=$b/persistenced-$branch
    service_files "$r" "$(profile_field "$profile" persistenced service)" nvidia-persistenced \
      'nvidia-smi -pm 1 >/dev/null 2>&1 || { echo "nvidia-persistenced failed to initialize. Check syslog for more details." >&2; exit 1; }'
    make_deb "$out" "$r" "$(profile_field "$profile" persistenced name "$branch" "$ver")" \
      "$(profile_field "$profile" persistenced version "$branch" "$ver")" "NVIDIA Persistence Daemon"
  done

  local dcgm; dcgm=$(profile_field "$profile" dcgm name)
  r=$b/dcgm
  service_files "$r" "$(profile_field "$profile" dcgm service)" nv-hostengine
  local dcgm_ver; dcgm_ver=$(profile_field "$profile" dcgm version); dcgm_ver=${dcgm_ver#*:}
  sed "s/@DCGM_VERSION@/${dcgm_ver%-*}/" "$SANDBOX_SRC/packages/dcgmi" > "$r/usr/bin/dcgmi"; chmod 755 "$r/usr/bin/dcgmi"
  make_deb "$out" "$r" "$dcgm" "$(profile_field "$profile" dcgm version)" "NVIDIA Data Center GPU Manager"

  # The exporter as NVIDIA packages it: its real unit and default counters file (copies in
  # tests/data/monitoring/), and a stand-in binary that serves /metrics for the fields of the
  # counters file it is started with (packages/dcgm-exporter).
  r=$b/dcgm-exporter
  local exporter_unit; exporter_unit=$(profile_field "$profile" dcgm_exporter service)
  mkdir -p "$r/usr/bin" "$r/lib/systemd/system" "$r/etc/dcgm-exporter" "$r/DEBIAN"
  cp "$SANDBOX_SRC/packages/dcgm-exporter" "$r/usr/bin/dcgm-exporter"; chmod 755 "$r/usr/bin/dcgm-exporter"
  cp "$SANDBOX_SRC/../data/monitoring/nvidia-dcgm-exporter.service" "$r/lib/systemd/system/$exporter_unit.service"
  cp "$SANDBOX_SRC/../data/monitoring/default-counters.4.2.3-4.1.1.csv" "$r/etc/dcgm-exporter/default-counters.csv"
  echo /etc/dcgm-exporter/default-counters.csv > "$r/DEBIAN/conffiles"
  printf '#!/bin/sh\nset -e\nif [ "$1" = configure ] && [ -d /run/systemd/system ]; then\n  systemctl daemon-reload >/dev/null 2>&1 || true\n  systemctl enable %s.service >/dev/null 2>&1 || true\n  systemctl restart %s.service || true\nfi\n' \
    "$exporter_unit" "$exporter_unit" > "$r/DEBIAN/postinst"
  printf '#!/bin/sh\nset -e\nif [ -d /run/systemd/system ]; then systemctl disable --now %s.service >/dev/null 2>&1 || true; fi\n' \
    "$exporter_unit" > "$r/DEBIAN/prerm"
  chmod 755 "$r/DEBIAN/postinst" "$r/DEBIAN/prerm"
  make_deb "$out" "$r" "$(profile_field "$profile" dcgm_exporter name)" "$(profile_field "$profile" dcgm_exporter version)" \
    "NVIDIA DCGM exporter for Prometheus" "Depends: $dcgm"

  r=$b/cuda
  mkdir -p "$r/usr/local/cuda-$CUDA_VERSION/bin" "$r/DEBIAN"
  sed "s/@CUDA@/$CUDA_VERSION/g" "$SANDBOX_SRC/packages/nvcc" > "$r/usr/local/cuda-$CUDA_VERSION/bin/nvcc"
  chmod 755 "$r/usr/local/cuda-$CUDA_VERSION/bin/nvcc"
  cuda_version_json "$CUDA_VERSION" > "$r/usr/local/cuda-$CUDA_VERSION/version.json"
  printf '#!/bin/sh\nset -e\nupdate-alternatives --install /usr/local/cuda cuda /usr/local/cuda-%s 124\n' "$CUDA_VERSION" > "$r/DEBIAN/postinst"
  printf '#!/bin/sh\nset -e\n[ "$1" = remove ] && update-alternatives --remove cuda /usr/local/cuda-%s || true\n' "$CUDA_VERSION" > "$r/DEBIAN/prerm"
  make_deb "$out" "$r" "$(profile_field "$profile" cuda_toolkit name)" "$(profile_field "$profile" cuda_toolkit version)" "CUDA Toolkit $CUDA_VERSION"

  # NCCL: the builds of packages/nccl-builds.txt, runtime and headers, as NVIDIA packages them.
  local nccl_ver nccl_upstream nccl_code
  while read -r nccl_ver; do
    [[ -z $nccl_ver || $nccl_ver == '#'* ]] && continue
    nccl_upstream=${nccl_ver%%-*}
    nccl_code=$(awk -F. '{ printf "%d%02d%02d", $1, $2, $3 }' <<<"$nccl_upstream")
    r=$b/nccl-$nccl_ver
    mkdir -p "$r/usr/lib/x86_64-linux-gnu"
    printf 'int ncclGetVersion(int *v) { *v = %s; return 0; }\n' "$nccl_code" > "$b/nccl.c"
    gcc -shared -fPIC -Wl,-soname,libnccl.so.2 -o "$r/usr/lib/x86_64-linux-gnu/libnccl.so.$nccl_upstream" "$b/nccl.c" || return 1
    ln -s "libnccl.so.$nccl_upstream" "$r/usr/lib/x86_64-linux-gnu/libnccl.so.2"
    make_deb "$out" "$r" libnccl2 "$nccl_ver" "NVIDIA Collective Communication Library (NCCL) Runtime"
    r=$b/nccl-dev-$nccl_ver
    mkdir -p "$r/usr/include" "$r/usr/lib/x86_64-linux-gnu"
    printf '#define NCCL_VERSION_CODE %s\nint ncclGetVersion(int *version);\n' "$nccl_code" > "$r/usr/include/nccl.h"
    ln -s libnccl.so.2 "$r/usr/lib/x86_64-linux-gnu/libnccl.so"
    make_deb "$out" "$r" libnccl-dev "$nccl_ver" "NVIDIA Collective Communication Library (NCCL) Development Files" \
      "Depends: libnccl2 (= $nccl_ver)"
  done < "$SANDBOX_SRC/packages/nccl-builds.txt"

  # Index and sign like NVIDIA's flat repository ("deb [signed-by=KEY] URL /").
  (cd "$out" && dpkg-scanpackages --multiversion . /dev/null 2>/dev/null > Packages && gzip -9kf Packages) || return 1
  local gh=$b/gnupg; mkdir -m 700 "$gh"
  GNUPGHOME=$gh gpg --batch -q --passphrase '' --quick-generate-key \
    'gpuctl sandbox CUDA repository <sandbox@gpuctl.invalid>' ed25519 sign never 2>/dev/null || return 1
  GNUPGHOME=$gh gpg --batch -q --armor --export > "$out/gpuctl-sandbox-cuda.pub"
  GNUPGHOME=$gh gpg --batch -q --export > "$out/gpuctl-sandbox-cuda.gpg"
  {
    echo "Origin: gpuctl-sandbox"; echo "Label: gpuctl sandbox CUDA stand-in"; echo "Architectures: amd64"
    echo "Date: $(LC_ALL=C date -Ru)"; echo "SHA256:"
    local f; for f in Packages Packages.gz; do echo " $(sha256sum < "$out/$f" | cut -d' ' -f1) $(stat -c %s "$out/$f") $f"; done
  } > "$out/Release"
  GNUPGHOME=$gh gpg --batch -q --yes --clearsign -o "$out/InRelease" "$out/Release" || return 1
  GNUPGHOME=$gh gpg --batch -q --yes -abs -o "$out/Release.gpg" "$out/Release" || return 1
  build_container_toolkit "$b" "$out/libnvidia-container" "$gh" || return 1
  build_slurm_containers "$b" "$out/slurm-containers" "$gh" || return 1
  gpgconf --homedir "$gh" --kill all 2>/dev/null || true
}

# NVIDIA's libnvidia-container repository in miniature, at cuda/libnvidia-container/ (signed with
# the same key): the toolkit's packages with the names, versions and dependencies of
# tests/data/containers/toolkit-packages.txt (never gpuctl's profiles) and their files where
# NVIDIA's packages put them; nvidia-ctk is the stand-in packages/nvidia-ctk.
build_container_toolkit() {
  local b=$1 out=$2 gh=$3 name version depends r
  mkdir -p "$out"
  while read -r name version depends; do
    [[ -z $name || $name == '#'* ]] && continue
    r=$b/ctk-$name; mkdir -p "$r/usr/bin"
    case $name in
      nvidia-container-toolkit-base)
        sed "s/@VERSION@/${version%-*}/" "$SANDBOX_SRC/packages/nvidia-ctk" > "$r/usr/bin/nvidia-ctk"; chmod 755 "$r/usr/bin/nvidia-ctk"
        # The runtime and the CDI hook: runc underneath, as the real shim is in its cdi mode.
        printf '#!/bin/sh\n# gpuctl sandbox stand-in\nexec runc "$@"\n' > "$r/usr/bin/nvidia-container-runtime"
        printf '#!/bin/sh\n# gpuctl sandbox stand-in\nexit 0\n' > "$r/usr/bin/nvidia-cdi-hook"
        chmod 755 "$r/usr/bin/nvidia-container-runtime" "$r/usr/bin/nvidia-cdi-hook"
        mkdir -p "$r/etc/nvidia-container-runtime"
        printf '[nvidia-container-runtime]\nmode = "auto"\n' > "$r/etc/nvidia-container-runtime/config.toml" ;;
      libnvidia-container1)
        mkdir -p "$r/usr/lib/x86_64-linux-gnu"
        printf 'int nvc_version(void) { return 0; }\n' > "$b/nvc.c"
        gcc -shared -fPIC -Wl,-soname,libnvidia-container.so.1 -o "$r/usr/lib/x86_64-linux-gnu/libnvidia-container.so.${version%-*}" "$b/nvc.c" || return 1
        ln -sf "libnvidia-container.so.${version%-*}" "$r/usr/lib/x86_64-linux-gnu/libnvidia-container.so.1" ;;
      libnvidia-container-tools)
        printf '#!/bin/sh\necho "cli-version: %s"\n' "${version%-*}" > "$r/usr/bin/nvidia-container-cli"; chmod 755 "$r/usr/bin/nvidia-container-cli" ;;
      nvidia-container-toolkit)
        printf '#!/bin/sh\n# gpuctl sandbox stand-in (the legacy OCI hook)\nexit 0\n' > "$r/usr/bin/nvidia-container-runtime-hook"
        chmod 755 "$r/usr/bin/nvidia-container-runtime-hook" ;;
      *) echo "unknown toolkit package $name in toolkit-packages.txt" >&2; return 1 ;;
    esac
    if [[ $depends == - ]]; then make_deb "$out" "$r" "$name" "$version" "NVIDIA Container Toolkit ($name)"
    else make_deb "$out" "$r" "$name" "$version" "NVIDIA Container Toolkit ($name)" "Depends: $depends"; fi
  done < "$SANDBOX_SRC/../data/containers/toolkit-packages.txt"
  index_sub_repository "$out" "gpuctl sandbox libnvidia-container stand-in" "$gh"
}

# A site's repository of enroot and pyxis built for this cluster's Slurm, at
# cuda/slurm-containers/ (signed with the same key), as containers.slurm_repository declares one:
# the names, versions, dependencies and paths of tests/data/containers/slurm-container-packages.txt
# (never gpuctl's playbook). pyxis's plugin is a real SPANK plugin built against this machine's
# libslurm-dev (packages/spank_pyxis.c: pyxis's options, no containers); enroot answers `version`.
build_slurm_containers() {
  local b=$1 out=$2 gh=$3 name version depends files r f plugin conf
  mkdir -p "$out"
  [[ -f /usr/include/slurm/spank.h ]] || { echo "no /usr/include/slurm/spank.h: install libslurm-dev (scripts/install-deps)" >&2; return 1; }
  while read -r name version rest; do
    [[ -z $name || $name == '#'* ]] && continue
    # "Depends words... /path /path": the paths are the words that start with a slash.
    depends=; files=()
    for f in $rest; do if [[ $f == /* ]]; then files+=("$f"); else depends+="${depends:+ }$f"; fi; done
    r=$b/slurm-containers-$name
    case $name in
      enroot)
        mkdir -p "$r$(dirname "${files[0]}")"
        printf '#!/bin/sh
# gpuctl sandbox stand-in for NVIDIA enroot: answers version only
case "$1" in version) echo %s ;; *) echo "enroot: the gpuctl sandbox stand-in runs no containers" >&2; exit 1 ;; esac
' \
          "${version%-*}" > "$r${files[0]}"
        chmod 755 "$r${files[0]}" ;;
      nvslurm-plugin-pyxis)
        plugin=${files[0]} conf=${files[1]}
        mkdir -p "$r$(dirname "$plugin")" "$r$(dirname "$conf")"
        gcc -Wall -Wextra -O2 -shared -fPIC -o "$r$plugin" "$SANDBOX_SRC/packages/spank_pyxis.c" || return 1
        echo "required $plugin" > "$r$conf" ;;
      *) echo "unknown package $name in slurm-container-packages.txt" >&2; return 1 ;;
    esac
    if [[ $depends == - ]]; then make_deb "$out" "$r" "$name" "$version" "$name"
    else make_deb "$out" "$r" "$name" "$version" "$name" "Depends: $depends"; fi
  done < "$SANDBOX_SRC/../data/containers/slurm-container-packages.txt"
  index_sub_repository "$out" "gpuctl sandbox site repository (enroot, pyxis)" "$gh"
}

# OUT LABEL GNUPGHOME: index and sign a flat repository below cuda/ with the CUDA stand-in's key,
# and publish that key beside it as gpgkey.
index_sub_repository() {
  local out=$1 label=$2 gh=$3 f
  (cd "$out" && dpkg-scanpackages --multiversion . /dev/null 2>/dev/null > Packages && gzip -9kf Packages) || return 1
  {
    echo "Origin: gpuctl-sandbox"; echo "Label: $label"; echo "Architectures: amd64"
    echo "Date: $(LC_ALL=C date -Ru)"; echo "SHA256:"
    for f in Packages Packages.gz; do echo " $(sha256sum < "$out/$f" | cut -d' ' -f1) $(stat -c %s "$out/$f") $f"; done
  } > "$out/Release"
  GNUPGHOME=$gh gpg --batch -q --yes --clearsign -o "$out/InRelease" "$out/Release" || return 1
  cp "$out/../gpuctl-sandbox-cuda.pub" "$out/gpgkey"
}
