#!/usr/bin/env bash
# The .deb: cpack builds it from this build directory; it is unpacked (dpkg-deb -x) into a
# throwaway root, never installed on this host. The unpacked binary runs, finds the packaged
# playbooks and templates beside itself, the man page is there, and bash loads the completion
# and completes subcommands and option values from it.
# Then the real install on a clean Debian 12: a fresh sandbox node (tests/sandbox, no route to
# a mirror) gets the .deb and a local repository of exactly the packages its Depends pull in
# that the node lacks (downloaded by the host's apt); `apt-get install ./gpuctl_*.deb` from that
# repository alone must give a working gpuctl. Before that, the unpacked binary must fail to
# start on the node: so its libraries come only from the Depends line, and a dependency missing
# from Depends fails the test. About 40 s; the install part needs root and the sandbox.
export GPUCTL_SANDBOX_NET=127.0.180
set -euo pipefail
: "${GPUCTL:?}" "${GPUCTL_SOURCE_DIR:?}" "${GPUCTL_BUILD_DIR:?}"
for tool in cpack dpkg-deb; do
  command -v "$tool" >/dev/null || { echo "SKIP: $tool not installed"; exit 77; }
done
[ -f "$GPUCTL_BUILD_DIR/CPackConfig.cmake" ] || { echo "SKIP: no CPackConfig.cmake in $GPUCTL_BUILD_DIR"; exit 77; }
work=$(mktemp -d /var/tmp/gpuctl-package-deb.XXXXXX)
trap 'rm -rf "$work"' EXIT
fail() { printf 'FAIL: %b\n' "$*" >&2; exit 1; }

(cd "$GPUCTL_BUILD_DIR" && cpack --config CPackConfig.cmake -B "$work/out") >"$work/cpack.log" 2>&1 ||
  fail "cpack failed: $(tail -20 "$work/cpack.log")"
deb=$(ls "$work"/out/gpuctl_*.deb 2>/dev/null | head -1)
[ -n "$deb" ] || fail "no gpuctl_*.deb in $work/out: $(ls "$work/out")"

# Control fields: a Debian architecture and shared-library dependencies worked out by dpkg-shlibdeps.
dpkg-deb -f "$deb" Package | grep -qx gpuctl || fail "Package field: $(dpkg-deb -f "$deb" Package)"
dpkg-deb -f "$deb" Architecture | grep -qx "$(dpkg --print-architecture)" || fail "Architecture field"
dpkg-deb -f "$deb" Depends | grep -q libssh || fail "Depends lacks libssh: $(dpkg-deb -f "$deb" Depends)"

root=$work/root
dpkg-deb -x "$deb" "$root"
for f in usr/bin/gpuctl usr/share/gpuctl/playbooks/gpu-node.yaml usr/share/gpuctl/templates/nccl.conf.mustache \
         usr/share/bash-completion/completions/gpuctl usr/share/zsh/vendor-completions/_gpuctl \
         usr/share/man/man1/gpuctl.1.gz usr/share/doc/gpuctl/examples/cluster.yaml; do
  [ -e "$root/$f" ] || fail "the package lacks /$f"
done
bin=$root/usr/bin/gpuctl

"$bin" --version | grep -qx "gpuctl [0-9.]*" || fail "--version: $("$bin" --version)"
"$bin" validate "$GPUCTL_SOURCE_DIR/docs/examples/cluster.yaml" >"$work/validate.txt" 2>&1 ||
  fail "validate failed: $(cat "$work/validate.txt")"

# The unpacked binary reads the packaged templates, not the source tree's: mark the packaged
# copy and look for the mark in a render.
echo "# packaged-template-marker" >>"$root/usr/share/gpuctl/templates/nccl.conf.mustache"
"$bin" render "$GPUCTL_SOURCE_DIR/docs/examples/cluster.yaml" --limit gpu01 --out "$work/rendered" >/dev/null 2>&1 ||
  fail "render failed"
grep -rq "packaged-template-marker" "$work/rendered" || fail "render did not use $root/usr/share/gpuctl/templates"

zcat "$root/usr/share/man/man1/gpuctl.1.gz" | grep -q '^\.TH GPUCTL "1"' || fail "man page has no .TH header"
zcat "$root/usr/share/man/man1/gpuctl.1.gz" | grep -q 'gpuctl verify' || fail "man page lacks the verify section"

# bash: the completion loads, is bound to gpuctl, and completes from the binary's help.
PATH="$root/usr/bin:$PATH" bash --norc --noprofile -c '
  set -u
  source "$1/usr/share/bash-completion/completions/gpuctl"
  complete -p gpuctl | grep -q -- "-F _gpuctl" || { echo "not bound: $(complete -p gpuctl)"; exit 1; }
  complete_words() { COMP_WORDS=("$@"); COMP_CWORD=$((${#COMP_WORDS[@]} - 1)); COMPREPLY=(); _gpuctl; echo "${COMPREPLY[*]}"; }
  got=$(complete_words gpuctl ve);           [[ " $got " == *" verify "* && " $got " == *" version "* ]] || { echo "subcommands: $got"; exit 1; }
  got=$(complete_words gpuctl verify --h);   [[ " $got " == *" --html "* && " $got " == *" --help "* ]] || { echo "options: $got"; exit 1; }
  got=$(complete_words gpuctl --color a);    [[ "$got" == "auto always" ]] || { echo "--color values: $got"; exit 1; }
  got=$(complete_words gpuctl hostkeys "");  [[ " $got " == *" scan "* && " $got " == *" accept "* ]] || { echo "nested: $got"; exit 1; }
' _ "$root" >"$work/bash.txt" 2>&1 || fail "bash completion: $(cat "$work/bash.txt")"

if command -v zsh >/dev/null; then
  zsh -n "$root/usr/share/zsh/vendor-completions/_gpuctl" || fail "zsh completion does not parse"
fi

# --- install on a clean Debian 12 node -------------------------------------------------------
source "$GPUCTL_SOURCE_DIR/tests/e2e/lib/cluster.sh"   # skips (77) without root or the sandbox tools
trap 'stop_cluster; rm -rf "$work"' EXIT
start_cluster -n 1 >"$work/sandbox.log" 2>&1 || fail "sandbox up: $(tail -5 "$work/sandbox.log")"
on_node() { "$SANDBOX_CMD" ssh node01 "$@"; }

# The Depends closure the node lacks, fetched on the host (the node has no mirror).
on_node "dpkg-query -W -f='\${Package}\n'" | sort -u >"$work/node-packages"
depends=$(dpkg-deb -f "$deb" Depends | tr ',' '\n' | sed 's/[(|].*//; s/ //g' | grep -v '^$')
apt-cache depends --recurse --no-recommends --no-suggests --no-conflicts --no-breaks --no-replaces --no-enhances \
  $depends 2>/dev/null | grep -E '^[a-z0-9]' | sort -u >"$work/closure"
comm -23 "$work/closure" "$work/node-packages" >"$work/missing"
grep -qx libssh-4 "$work/missing" || fail "the node already has libssh-4: not a clean system for this test"
mkdir -p "$work/push/repo"
(cd "$work/push/repo" && xargs -a "$work/missing" apt-get download -qq) >"$work/download.log" 2>&1 ||
  fail "apt-get download: $(tail -5 "$work/download.log")"
(cd "$work/push/repo" && dpkg-scanpackages -m . >Packages 2>/dev/null) || fail "dpkg-scanpackages failed"
cp "$deb" "$work/push/"
cp "$GPUCTL_SOURCE_DIR/docs/examples/cluster.yaml" "$work/push/cluster.yaml"
tar -C "$work/push" -c . | on_node 'rm -rf /root/gpuctl-deb && mkdir /root/gpuctl-deb && tar -x -C /root/gpuctl-deb' ||
  fail "cannot copy the packages onto the node"

on_node 'bash -s' >"$work/install.log" 2>&1 <<'NODE' || fail "install on the clean node:\n$(tail -30 "$work/install.log")"
set -euo pipefail
cd /root/gpuctl-deb
deb=$(ls gpuctl_*.deb)
# Unpacked without its dependencies the binary must not start: the node lacks its libraries.
dpkg-deb -x "$deb" unpacked
if unpacked/usr/bin/gpuctl --version >nodeps.txt 2>&1; then
  echo "gpuctl runs here without installing its Depends: this node cannot show that Depends is complete"; exit 1
fi
grep -q 'error while loading shared libraries' nodeps.txt || { cat nodeps.txt; exit 1; }
# apt sees only the local repository of the Depends closure.
echo "deb [trusted=yes] file:/root/gpuctl-deb/repo ./" >local.list
apt_local=(-o Dir::Etc::sourcelist=/root/gpuctl-deb/local.list -o Dir::Etc::sourceparts=- -o APT::Get::List-Cleanup=0)
apt-get "${apt_local[@]}" update -qq
DEBIAN_FRONTEND=noninteractive apt-get "${apt_local[@]}" install -y -qq --no-install-recommends "./$deb"
dpkg-query -W -f='${Status}\n' gpuctl | grep -qx 'install ok installed'
command -v gpuctl | grep -qx /usr/bin/gpuctl
gpuctl --version | grep -qx 'gpuctl [0-9.]*'
gpuctl validate cluster.yaml
gpuctl validate /usr/share/doc/gpuctl/examples/cluster.yaml
test -s /usr/share/man/man1/gpuctl.1.gz
zcat /usr/share/man/man1/gpuctl.1.gz | grep -q '^\.TH GPUCTL'
test -s /usr/share/bash-completion/completions/gpuctl
test -s /usr/share/zsh/vendor-completions/_gpuctl
bash -c 'source /usr/share/bash-completion/completions/gpuctl && complete -p gpuctl' | grep -q -- '-F _gpuctl'
echo "installed: $(gpuctl --version)"
NODE
grep -q '^installed: gpuctl ' "$work/install.log" || fail "no success line: $(tail -5 "$work/install.log")"
echo "PASS: $(basename "$deb") unpacks, runs, its completion loads, and it installs and runs on a clean Debian 12 node"
