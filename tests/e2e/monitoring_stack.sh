#!/usr/bin/env bash
# The monitoring stack on real Debian servers: `up -n 1 --head`, the inventory names head01 as
# the Prometheus host with a webhook receiver (a listener here, on loopback) whose bearer token
# is the admin's secret. plan refuses until the token is in the secret store; apply installs
# Debian's Prometheus and Alertmanager on head01, node_exporter on both nodes, and the DCGM
# exporter with gpuctl's counters file on node01; promtool and amtool accept the files on the
# node; verify passes, exporter_metrics included (the real node_exporter, and the exporter
# stand-in serving the counters file's fields). An exporter unit that runs but serves no
# /metrics fails exporter_metrics. node01's node_exporter stopped: NodeExporterDown reaches
# Alertmanager (its API) and the webhook, with the token; restarted, verify passes again.
# Runs on its own network (127.0.190).
export GPUCTL_SANDBOX_NET=127.0.190
source "$(dirname "$0")/lib/cluster.sh"
command -v python3 >/dev/null || skip "python3 missing (the webhook listener, reading JSON)"
command -v curl >/dev/null || skip "curl missing (Alertmanager's API)"
start_cluster -n 1 --gpus 2 --model H100 --head
g() { "$GPUCTL" "$@" --no-progress; }
on() { "$SANDBOX_CMD" ssh "$@"; }
head_addr=$(grep -o '^  head01: {address: [0-9.]*' "$INVENTORY" | grep -o '[0-9.]*$')
[[ -n $head_addr ]] || die "no head01 address in $INVENTORY"
hook_addr=127.0.190.250

# The webhook receiver: records each POST's Authorization header and body, one JSON per line.
hook_log=$WORK/hook.log
python3 - "$hook_addr" "$hook_log" <<'PY' &
import http.server, json, sys
addr, log = sys.argv[1], sys.argv[2]
class Hook(http.server.BaseHTTPRequestHandler):
    def do_POST(self):
        body = self.rfile.read(int(self.headers.get("Content-Length", 0)))
        with open(log, "a") as f:
            f.write(json.dumps({"auth": self.headers.get("Authorization"), "body": json.loads(body)}) + "\n")
        self.send_response(200); self.end_headers()
    def log_message(self, *a): pass
http.server.HTTPServer((addr, 9099), Hook).serve_forever()
PY
hook_pid=$!
trap 'kill "$hook_pid" 2>/dev/null; stop_cluster' EXIT

python3 - "$INVENTORY" <<'PY'
import sys
path = sys.argv[1]
text = open(path).read()
anchor = "  monitoring:\n"
assert anchor in text
text = text.replace(anchor, anchor + """    prometheus: head01
    alertmanager:
      webhook: {url: "http://127.0.190.250:9099/gpuctl", bearer_token: true}
""", 1)
open(path, "w").write(text)
PY

echo "--- plan refuses until the admin's token is in the secret store, and names where it goes"
expect_rc 1 g plan "$INVENTORY"
expect_output "secret 'alertmanager-webhook-token' is not in the secret store" "plan names the missing secret"
expect_output "install -m 0600 /dev/stdin $GPUCTL_STATE_DIR/secrets/sandbox/alertmanager-webhook-token" "plan says where it goes"
mkdir -p -m 0700 "$GPUCTL_STATE_DIR" "$GPUCTL_STATE_DIR/secrets" "$GPUCTL_STATE_DIR/secrets/sandbox"
token="e2e-token-$RANDOM$RANDOM"
(umask 077; printf '%s\n' "$token" > "$GPUCTL_STATE_DIR/secrets/sandbox/alertmanager-webhook-token")

echo "--- plan: Prometheus, Alertmanager, the token as a secret (never its value)"
expect_rc 2 g plan "$INVENTORY" --detailed-exitcode
expect_output '\+ install prometheus-alertmanager' "Alertmanager is planned on head01"
expect_output 'note: Grafana is not installed: the inventory declares no monitoring.grafana.repository' "the plan says Grafana is left out"
expect_output '\+ create /etc/prometheus/alertmanager-secrets/webhook-token \(0640 root:prometheus\)' "the token file is planned, without its content"
grep -q -- "$token" <<<"$OUTPUT" && die "the plan shows the token"

echo "--- apply"
expect_rc 0 g apply "$INVENTORY" --yes
expect_output '2 nodes: 0 ok, 2 changed, 0 failed, 0 unreachable'

echo "--- the files on the node pass Prometheus's and Alertmanager's own checks"
on head01 promtool check config /etc/prometheus/prometheus.yml >/dev/null || die "promtool check config failed on head01"
on head01 amtool check-config /etc/prometheus/alertmanager.yml >/dev/null || die "amtool check-config failed on head01"
on head01 "stat -c '%a %U:%G' /etc/prometheus/alertmanager-secrets/webhook-token" | grep -qx '640 root:prometheus' ||
  die "the token file is not 0640 root:prometheus"

echo "--- verify passes; exporter_metrics read both exporters' pages"
for attempt in 1 2 3 4 5 6; do
  OUTPUT=$(g verify "$INVENTORY" --json 2>&1) && break
  sleep 5
done
[[ $attempt != 6 ]] || die "verify does not pass:\n$OUTPUT"
python3 -c 'import json, sys
doc = json.load(sys.stdin)
seen = [(n["node"], c["status"]) for n in doc["nodes"] for c in n["checks"] if c["check"] == "exporter_metrics"]
assert sorted(seen) == [("head01", "pass"), ("node01", "pass")], seen' <<<"$OUTPUT" || die "exporter_metrics did not pass on both nodes:\n$OUTPUT"

echo "--- an exporter unit that runs but serves nothing fails exporter_metrics"
# (one string: ssh joins its arguments with spaces)
on node01 'mkdir -p /run/systemd/system/nvidia-dcgm-exporter.service.d &&
  printf "[Service]\nExecStart=\nExecStart=/bin/sleep infinity\n" > /run/systemd/system/nvidia-dcgm-exporter.service.d/zz-e2e.conf &&
  systemctl daemon-reload && systemctl restart nvidia-dcgm-exporter'
expect_rc 3 g verify "$INVENTORY" --limit node01
expect_output 'exporter_metrics +fail' "exporter_metrics fails"
expect_output 'nothing accepts connections on 127\.0\.190\.[0-9]+:9400 \(nvidia-dcgm-exporter is running\)' "it says the unit runs"
on node01 'rm /run/systemd/system/nvidia-dcgm-exporter.service.d/zz-e2e.conf && systemctl daemon-reload && systemctl restart nvidia-dcgm-exporter'

echo "--- node01's node_exporter stops: the alert reaches Alertmanager and the webhook"
on node01 systemctl stop prometheus-node-exporter
alert=""
for attempt in $(seq 1 60); do
  alert=$(curl -fsS "http://$head_addr:9093/api/v2/alerts?filter=alertname%3D%22NodeExporterDown%22" 2>/dev/null |
    python3 -c 'import json, sys
for a in json.load(sys.stdin):
    if a["labels"].get("node") == "node01" and a["status"]["state"] == "active": print(a["labels"]["severity"])' 2>/dev/null)
  [[ -n $alert ]] && break
  sleep 5
done
[[ $alert == warning ]] || die "NodeExporterDown for node01 did not reach Alertmanager within 300 s"
echo "    Alertmanager has NodeExporterDown{node=node01, severity=warning} after $((attempt * 5)) s"
for attempt in $(seq 1 24); do
  grep -q '"alertname": "NodeExporterDown"' "$hook_log" 2>/dev/null && break
  sleep 5
done
python3 - "$hook_log" "$token" <<'PY' || die "the webhook did not get NodeExporterDown with the token:\n$(cat "$hook_log" 2>/dev/null)"
import json, sys
posts = [json.loads(l) for l in open(sys.argv[1])]
hits = [p for p in posts for a in p["body"]["alerts"]
        if a["labels"]["alertname"] == "NodeExporterDown" and a["labels"]["node"] == "node01" and a["status"] == "firing"]
assert hits, posts
assert all(p["auth"] == "Bearer " + sys.argv[2] for p in hits), [p["auth"] for p in hits]
PY

echo "--- node_exporter back: verify passes again"
on node01 systemctl start prometheus-node-exporter
expect_rc 0 g verify "$INVENTORY"
echo "PASS"
