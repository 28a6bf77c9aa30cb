#!/usr/bin/env bash
# The rendered monitoring files pass Prometheus's and Alertmanager's own tools, and the alert
# rules do what docs/monitoring.md says: `gpuctl render docs/examples/cluster.yaml` (plus every
# receiver kind), then Debian 12's promtool 2.42 (`check config`, `check rules`, `test rules`
# with tests/prometheus/gpu-alerts.test.yml: every alert fires on its fault and stays quiet on
# healthy series) and amtool 0.25 (`check-config`). A copy of the rules with a threshold and an
# Xid class changed must fail the cases, so the cases are known to be able to fail.
# promtool and amtool come from Debian's packages, unpacked here (never installed: installing
# them would start servers on this machine): the sandbox's local Debian copy when it is there,
# else `apt-get download` (a failure when neither has them).
set -euo pipefail
: "${GPUCTL:?set by ctest}" "${GPUCTL_SOURCE_DIR:?set by ctest}"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
die() { printf 'FAIL: %b\n' "$*" >&2; exit 1; }

# Debian's prometheus and prometheus-alertmanager, unpacked under $work/root.
unpack() {
  local pkg=$1 deb
  deb=$(ls "${GPUCTL_SANDBOX_CACHE:-/var/cache/gpuctl-sandbox}"/image-*/debian/"${pkg}"_*.deb 2>/dev/null | head -1 || true)
  if [[ -z $deb ]]; then
    # A failure, not a skip: CI reaches Debian's mirror (the sandbox is built from it), and a
    # skipped rules test would let broken rules land.
    (cd "$work" && apt-get download "$pkg" >"$work/apt.out" 2>&1) ||
      die "cannot get Debian's $pkg package (apt-get download):\n$(tail -3 "$work/apt.out")"
    deb=$(ls "$work"/"${pkg}"_*.deb | head -1)
  fi
  dpkg-deb -x "$deb" "$work/root"
}
unpack prometheus
unpack prometheus-alertmanager
promtool=$work/root/usr/bin/promtool
amtool=$work/root/usr/bin/amtool
"$promtool" --version 2>&1 | head -1
"$amtool" --version 2>&1 | head -1

# The example inventory with all three receivers, so every branch of alertmanager.yml renders.
python3 - "$GPUCTL_SOURCE_DIR/docs/examples/cluster.yaml" "$work/cluster.yaml" <<'PY'
import sys
text = open(sys.argv[1]).read()
anchor = "    node_exporter: true\n"
assert anchor in text
text = text.replace(anchor, anchor + """    alertmanager:
      webhook: {url: "https://relay.example.com/gpu", bearer_token: true, severity: critical}
      email: {to: gpu-team@example.com, from: alertmanager@example.com, smarthost: "smtp.example.com:587", auth_username: am}
      slack: {channel: "#gpu-alerts", severity: warning}
""", 1)
open(sys.argv[2], "w").write(text)
PY
"$GPUCTL" render "$GPUCTL_SOURCE_DIR/docs/examples/cluster.yaml" --node head01 -o "$work/plain" >/dev/null
"$GPUCTL" render "$work/cluster.yaml" --node head01 -o "$work/receivers" >/dev/null

for variant in plain receivers; do
  etc=$work/$variant/head01/etc/prometheus
  # prometheus.yml names its rule file by absolute path; check it beside the rendered one.
  sed 's|/etc/prometheus/gpu-alerts.yml|gpu-alerts.yml|' "$etc/prometheus.yml" > "$etc/prometheus.check.yml"
  (cd "$etc" && "$promtool" check config prometheus.check.yml) || die "promtool check config refuses the $variant prometheus.yml"
  "$promtool" check rules "$etc/gpu-alerts.yml" || die "promtool check rules refuses gpu-alerts.yml"
  # The secret files alertmanager.yml names must exist for amtool; their content is the admin's.
  mkdir -p "$work/secrets"
  sed "s|/etc/prometheus/alertmanager-secrets/|$work/secrets/|" "$etc/alertmanager.yml" > "$etc/alertmanager.check.yml"
  for f in webhook-token smtp-password slack-api-url; do echo "https://hooks.example.com/x" > "$work/secrets/$f"; done
  "$amtool" check-config "$etc/alertmanager.check.yml" || die "amtool check-config refuses the $variant alertmanager.yml"
done
grep -q 'credentials_file:' "$work/receivers/head01/etc/prometheus/alertmanager.yml" || die "no bearer token file in alertmanager.yml"

rules=$work/plain/head01/etc/prometheus
cp "$GPUCTL_SOURCE_DIR/tests/prometheus/gpu-alerts.test.yml" "$rules/"
(cd "$rules" && "$promtool" test rules gpu-alerts.test.yml) || die "promtool test rules: an alert does not do what its case says"
alerts=$(grep -c '^      - alert:' "$rules/gpu-alerts.yml")
tested=$(grep -o 'alertname: [A-Za-z]*' "$GPUCTL_SOURCE_DIR/tests/prometheus/gpu-alerts.test.yml" | sort -u | wc -l)
[[ $alerts == "$tested" ]] || die "$alerts alerts in gpu-alerts.yml, $tested with test cases"
echo "promtool test rules: $tested alerts, each with its cases, pass"

# The cases can fail: a threshold raised and an application Xid moved to the GPU's class.
sed -i 's/DCGM_FI_DEV_GPU_TEMP > 85/DCGM_FI_DEV_GPU_TEMP > 95/; s/DCGM_FI_DEV_XID_ERRORS == 13 or //' "$rules/gpu-alerts.yml"
if (cd "$rules" && "$promtool" test rules gpu-alerts.test.yml >"$work/broken.out" 2>&1); then
  die "promtool test rules passes rules with a changed threshold and Xid class"
fi
grep -q 'alertname: GpuTemperatureHigh' "$work/broken.out" || die "the changed threshold went unnoticed:\n$(cat "$work/broken.out")"
grep -q 'alertname: GpuXidNeedsAction' "$work/broken.out" || die "the changed Xid class went unnoticed:\n$(cat "$work/broken.out")"
echo "PASS"
