#!/usr/bin/env bash
# The .deb: cpack builds it from this build directory; it is unpacked (dpkg-deb -x) into a
# throwaway root, never installed on this host. The unpacked binary runs, finds the packaged
# playbooks and templates beside itself, the man page is there, and bash loads the completion
# and completes subcommands and option values from it.
set -euo pipefail
: "${GPUCTL:?}" "${GPUCTL_SOURCE_DIR:?}" "${GPUCTL_BUILD_DIR:?}"
for tool in cpack dpkg-deb; do
  command -v "$tool" >/dev/null || { echo "SKIP: $tool not installed"; exit 77; }
done
[ -f "$GPUCTL_BUILD_DIR/CPackConfig.cmake" ] || { echo "SKIP: no CPackConfig.cmake in $GPUCTL_BUILD_DIR"; exit 77; }
work=$(mktemp -d /var/tmp/gpuctl-package-deb.XXXXXX)
trap 'rm -rf "$work"' EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }

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
echo "PASS: $(basename "$deb") unpacks, runs, and its completion loads"
