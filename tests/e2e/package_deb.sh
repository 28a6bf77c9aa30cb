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
# from Depends fails the test.
# Then, on that node, the packaged periodic verify (docs/monitoring.md): the units are in
# /usr/lib/systemd/system and pass systemd-analyze, the package enables no timer, and
# `systemctl start gpuctl-verify.service` with an inventory of the node itself (once with
# connection: local, once over SSH with accept-new, under the unit's hardening) writes the .prom
# file at the default path, and where /etc/default/gpuctl-verify says; failing checks (exit 3)
# leave the unit successful, a missing inventory (exit 2) fails it and leaves the metrics alone;
# the timer, once enabled, is listed; a purge stops it and removes its link.
# About 45 s; the install part needs root and the sandbox.
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
         usr/share/man/man1/gpuctl.1.gz usr/share/doc/gpuctl/examples/cluster.yaml \
         usr/lib/systemd/system/gpuctl-verify.service usr/lib/systemd/system/gpuctl-verify.timer \
         usr/lib/tmpfiles.d/gpuctl.conf usr/share/doc/gpuctl/examples/gpuctl-verify.default \
         usr/share/doc/gpuctl/docs/monitoring.md usr/share/doc/gpuctl/docs/exit-codes.md \
         usr/share/doc/gpuctl/docs/guides/first-cluster.md usr/share/doc/gpuctl/docs/images/verify-report.png \
         usr/share/doc/gpuctl/docs/examples/cluster.yaml; do
  [ -e "$root/$f" ] || fail "the package lacks /$f"
done
# Every document of docs/ and docs/guides/ is there (README's links and the "docs/..." of
# --help and the man page resolve under /usr/share/doc/gpuctl), the result directories are not.
for f in "$GPUCTL_SOURCE_DIR"/docs/*.md "$GPUCTL_SOURCE_DIR"/docs/guides/*.md; do
  [ -f "$root/usr/share/doc/gpuctl/${f#"$GPUCTL_SOURCE_DIR"/}" ] || fail "the package lacks the document ${f#"$GPUCTL_SOURCE_DIR"/}"
done
[ ! -e "$root/usr/share/doc/gpuctl/docs/verify-h200" ] || fail "the package carries docs/verify-h200"
! ls -d "$root"/usr/share/doc/gpuctl/docs/benchmarks-results* >/dev/null 2>&1 || fail "the package carries benchmark results"
# Nothing under /lib, /etc or /var: the units live in /usr/lib/systemd/system, settings are the admin's.
dpkg-deb -c "$deb" | awk '{print $6}' | grep -E '^\./(lib|etc|var)/' && fail "the package has files outside /usr"
grep -qx 'ExecStart=/usr/bin/gpuctl --color=never verify ${GPUCTL_INVENTORY} --no-progress --prom ${GPUCTL_PROM_FILE} $GPUCTL_VERIFY_ARGS' \
  "$root/usr/lib/systemd/system/gpuctl-verify.service" || fail "ExecStart of the packaged unit does not name /usr/bin/gpuctl"
control=$(dpkg-deb --ctrl-tarfile "$deb" | tar -tv)
for script in postinst prerm postrm; do
  grep -q -- "-rwxr-xr-x .*\./$script\$" <<<"$control" || fail "the package's $script is missing or not 0755:\n$control"
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

# Whole, then searched: under pipefail, `zcat | grep -q` fails at random once the page is larger
# than zcat's first write (grep quits at the first match, zcat gets SIGPIPE).
man_page=$(zcat "$root/usr/share/man/man1/gpuctl.1.gz") || fail "the man page does not decompress"
grep -q '^\.TH GPUCTL "1"' <<<"$man_page" || fail "man page has no .TH header: $(head -3 <<<"$man_page")"
grep -q 'gpuctl verify' <<<"$man_page" || fail "man page lacks the verify section"

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
# A virtual package in Depends (libspdlog1.10-fmt9, as dpkg-shlibdeps names spdlog) stands for
# the package that provides it: apt-cache depends lists no provider for it.
depends=$(for p in $depends; do
  if apt-cache policy "$p" | grep -q 'Candidate: (none)'; then
    apt-cache showpkg "$p" | awk '/^Reverse Provides:/ {r = 1; next} r && NF {print $1; exit}'
  else echo "$p"; fi
done)
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
# Not -qq: on failure the log must name the dependency apt could not meet (seen once, cause unknown).
DEBIAN_FRONTEND=noninteractive apt-get "${apt_local[@]}" install -y -q --no-install-recommends "./$deb"
dpkg-query -W -f='${Status}\n' gpuctl | grep -qx 'install ok installed'
command -v gpuctl | grep -qx /usr/bin/gpuctl
gpuctl --version | grep -qx 'gpuctl [0-9.]*'
gpuctl validate cluster.yaml
gpuctl validate /usr/share/doc/gpuctl/examples/cluster.yaml
test -s /usr/share/man/man1/gpuctl.1.gz
# Whole, then searched: grep -q quits at the first match, and with pipefail zcat's SIGPIPE on a
# page larger than the pipe's buffer would fail the line.
zcat /usr/share/man/man1/gpuctl.1.gz >man.txt
grep -q '^\.TH GPUCTL' man.txt
test -s /usr/share/bash-completion/completions/gpuctl
test -s /usr/share/zsh/vendor-completions/_gpuctl
bash -c 'source /usr/share/bash-completion/completions/gpuctl && complete -p gpuctl' | grep -q -- '-F _gpuctl'
echo "installed: $(gpuctl --version)"
NODE
grep -q '^installed: gpuctl ' "$work/install.log" || fail "no success line: $(tail -5 "$work/install.log")"

# --- the periodic verify: gpuctl-verify.service and .timer on the installed node -------------
on_node 'bash -s' >"$work/timer.log" 2>&1 <<'NODE' || fail "the verify timer on the node:\n$(tail -40 "$work/timer.log")"
set -euo pipefail
say() { echo "timer-test: $*"; }
no() { echo "timer-test FAILED: $*"; exit 1; }
units=/usr/lib/systemd/system
# Installed where systemd finds them, sound to systemd-analyze (no man-db on the node).
test -f $units/gpuctl-verify.service && test -f $units/gpuctl-verify.timer
systemd-analyze verify --man=no $units/gpuctl-verify.service $units/gpuctl-verify.timer >analyze.txt 2>&1 ||
  no "systemd-analyze verify: $(cat analyze.txt)"
! grep -i 'gpuctl' analyze.txt || no "systemd-analyze warns about the units: $(cat analyze.txt)"
timer=$(systemctl cat gpuctl-verify.timer)
grep -qx 'OnCalendar=hourly' <<<"$timer" || no "systemctl cat does not show the timer: $timer"
# Not enabled, not started by the package.
[ "$(systemctl is-enabled gpuctl-verify.timer || true)" = disabled ] || no "the package enabled the timer"
[ "$(systemctl is-active gpuctl-verify.timer || true)" = inactive ] || no "the package started the timer"
# Enabled as documented, the timer is listed with its next run (within the hour: not during
# this test). It also keeps the service loaded between runs, so that systemctl show reads the
# last run's result.
systemctl enable --now gpuctl-verify.timer 2>/dev/null
timers=$(systemctl list-timers --all --no-legend gpuctl-verify.timer)
grep -q 'gpuctl-verify.timer *gpuctl-verify.service' <<<"$timers" || no "list-timers: $timers"
[ -n "$(systemctl show -P NextElapseUSecRealtime gpuctl-verify.timer)" ] || no "the timer has no next run"

# The inventory at the default path: this node itself twice, over the local transport (node01)
# and over SSH to its own sshd (self: root's key, its host key unknown, accept-new records it in
# root's known_hosts through the unit's ProtectHome=read-only). It declares a driver and a GPU
# the bare node lacks, so checks fail: gpuctl verify exits 3.
mkdir -p /etc/gpuctl /var/lib/prometheus/node-exporter   # the textfile directory, as prometheus-node-exporter makes it
ssh-keygen -q -t ed25519 -N '' -f /root/.ssh/id_ed25519
cat /root/.ssh/id_ed25519.pub >>/root/.ssh/authorized_keys
rm -f /root/.ssh/known_hosts
address=$(awk '$1 == "ListenAddress" {print $2}' /etc/ssh/sshd_config.d/00-listen.conf)
cat >/etc/gpuctl/inventory.yaml <<EOI
cluster:
  name: timer-test
  nvidia:
    driver_branch: "535"
    driver_version: "535.183.01"
    cuda: "12.2"
    repository: {url: "file:/nonexistent/cuda", key_url: "file:/nonexistent/cuda/key.asc"}
  monitoring: {dcgm_exporter: false, node_exporter: false}
defaults:
  gpu: {model: H100, count: 1}
hosts:
  node01:
    connection: local
  self:
    address: $address
    host_key_checking: accept-new
EOI
prom=/var/lib/prometheus/node-exporter/gpuctl.prom
systemctl start gpuctl-verify.service || no "systemctl start failed: $(systemctl status gpuctl-verify.service --no-pager -n 30 || true)"
result=$(systemctl show -P Result gpuctl-verify.service) status=$(systemctl show -P ExecMainStatus gpuctl-verify.service)
[ "$result" = success ] && [ "$status" = 3 ] || no "failing checks: Result=$result ExecMainStatus=$status, expected success and 3: $(journalctl -u gpuctl-verify.service --no-pager | tail -40)"
# gpuctl's records reach the journal with priorities: the failing node is an error.
journalctl --sync 2>/dev/null || true
errors=$(journalctl -u gpuctl-verify.service -p err -o cat --no-pager)
grep -q '^node01: node failed' <<<"$errors" ||
  no "journalctl -p err lists no failed node01: $(journalctl -u gpuctl-verify.service -o cat --no-pager | tail -20)"
test -f $prom || no "no $prom"
[ "$(stat -c %a $prom)" = 644 ] || no "$prom is mode $(stat -c %a $prom), node_exporter could not read it"
grep -q '^gpuctl_check_status{node="node01",check="[a-z_]*"} [01]$' $prom || no "no gpuctl_check_status: $(cat $prom)"
grep -qx 'gpuctl_node_up{node="node01"} 1' $prom && grep -qx 'gpuctl_node_up{node="self"} 1' $prom ||
  no "no gpuctl_node_up 1 of both: $(cat $prom)"
grep -q "^$address " /root/.ssh/known_hosts || no "accept-new recorded no host key in /root/.ssh/known_hosts"
grep -qx 'gpuctl_node_verify_ok{node="node01"} 0' $prom || no "no gpuctl_node_verify_ok 0: $(cat $prom)"
grep -q '^gpuctl_verify_last_run_timestamp_seconds [0-9]' $prom || no "no timestamp: $(cat $prom)"
# The state directory systemd made is the one gpuctl used: root's, 0700, with the run history.
[ "$(stat -c '%U %a' /var/lib/gpuctl)" = "root 700" ] || no "/var/lib/gpuctl is $(stat -c '%U %a' /var/lib/gpuctl)"
test -s /var/lib/gpuctl/state.db || no "no run history in /var/lib/gpuctl"
ls /var/lib/gpuctl/logs/*-verify.log >/dev/null || no "no run log in /var/lib/gpuctl/logs"
# The tmpfiles entry ages logs out and leaves the directory's mode alone.
systemd-tmpfiles --create --clean /usr/lib/tmpfiles.d/gpuctl.conf
[ "$(stat -c %a /var/lib/gpuctl/logs)" = 700 ] || no "systemd-tmpfiles changed logs/ to $(stat -c %a /var/lib/gpuctl/logs)"
ls /var/lib/gpuctl/logs/*-verify.log >/dev/null || no "systemd-tmpfiles removed a fresh log"
say "default paths: Result=$result ExecMainStatus=$status, $(grep -c '^gpuctl_check_status' $prom) checks in $prom"

# /etc/default/gpuctl-verify moves the metrics and adds options.
mkdir -p /srv/metrics
cp /usr/share/doc/gpuctl/examples/gpuctl-verify.default /etc/default/gpuctl-verify
cat >>/etc/default/gpuctl-verify <<'EOE'
GPUCTL_PROM_FILE=/srv/metrics/gpuctl.prom
GPUCTL_VERIFY_ARGS=--limit node01 --junit /srv/metrics/verify.xml
EOE
systemctl start gpuctl-verify.service || no "with /etc/default/gpuctl-verify: $(systemctl status gpuctl-verify.service --no-pager -n 30 || true)"
grep -qx 'gpuctl_node_up{node="node01"} 1' /srv/metrics/gpuctl.prom || no "GPUCTL_PROM_FILE not used"
grep -q '<testsuite' /srv/metrics/verify.xml || no "GPUCTL_VERIFY_ARGS not used"

# A missing inventory: gpuctl exits 2, the unit fails, the metrics file is left as it was.
before=$(md5sum </srv/metrics/gpuctl.prom)
echo GPUCTL_INVENTORY=/etc/gpuctl/missing.yaml >>/etc/default/gpuctl-verify
systemctl start gpuctl-verify.service 2>/dev/null && no "the unit succeeded without an inventory"
result=$(systemctl show -P Result gpuctl-verify.service) status=$(systemctl show -P ExecMainStatus gpuctl-verify.service)
[ "$result" = exit-code ] && [ "$status" = 2 ] || no "missing inventory: Result=$result ExecMainStatus=$status, expected exit-code and 2"
[ "$(md5sum </srv/metrics/gpuctl.prom)" = "$before" ] || no "a failed run changed the metrics"
systemctl reset-failed gpuctl-verify.service
say "missing inventory: Result=$result ExecMainStatus=$status"

# Purged, the package stops the timer and removes the link of its enabling; the admin's
# settings and gpuctl's state stay.
dpkg --purge gpuctl >purge.txt 2>&1 || no "dpkg --purge: $(cat purge.txt)"
[ "$(systemctl is-active gpuctl-verify.timer || true)" = inactive ] || no "the timer still runs after the purge"
[ ! -e /etc/systemd/system/timers.target.wants/gpuctl-verify.timer ] &&
  [ ! -L /etc/systemd/system/timers.target.wants/gpuctl-verify.timer ] || no "the purge left the timer's link"
timers=$(systemctl list-timers --all --no-legend)
grep -q gpuctl-verify <<<"$timers" && no "the timer is still listed after the purge: $timers"
test -f /etc/default/gpuctl-verify && test -s /var/lib/gpuctl/state.db || no "the purge removed the admin's files"
say "timer listed, gone after the purge"
NODE
grep -q '^timer-test: timer listed' "$work/timer.log" || fail "no success line from the timer test: $(tail -5 "$work/timer.log")"
sed -n 's/^timer-test: /  /p' "$work/timer.log"
echo "PASS: $(basename "$deb") unpacks, runs, its completion loads, it installs and runs on a clean Debian 12 node, and its verify timer writes the metrics"
