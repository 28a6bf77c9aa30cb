#!/usr/bin/env bash
# The HTML verify report in a real browser: `verify --from-json` renders a saved result of
# the example cluster (tests/data/verify/cluster-verify.json) with the example inventory's
# groups; headless Chromium loads the page, runs its script (filters preset from the URL) and
# dumps the DOM, which must hold the grid. Also a screenshot: with GPUCTL_SCREENSHOT=FILE it is
# kept there (docs/images/verify-report.png is made so). Read-only; exit 77 without chromium.
set -euo pipefail
: "${GPUCTL:?GPUCTL must point at the gpuctl binary}" "${GPUCTL_SOURCE_DIR:?}"
chromium=$(command -v chromium || command -v chromium-browser || true)
[ -n "$chromium" ] || { echo "SKIP: chromium is not installed (scripts/install-deps installs it)"; exit 77; }
work=$(mktemp -d /var/tmp/gpuctl-verify-html.XXXXXX)
trap 'rm -rf "$work"' EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }
fixture=$GPUCTL_SOURCE_DIR/tests/data/verify/cluster-verify.json
inventory=$GPUCTL_SOURCE_DIR/docs/examples/cluster.yaml

rc=0
"$GPUCTL" verify "$inventory" --from-json "$fixture" --html "$work/report.html" --prom "$work/gpuctl.prom" \
  >"$work/table.txt" || rc=$?
[ "$rc" = 3 ] || fail "verify --from-json exited $rc, expected 3 (failed nodes in the fixture)"
grep -q "Verify: 5 of 9 nodes pass every check." "$work/table.txt" || fail "table: $(cat "$work/table.txt")"
[ -s "$work/report.html" ] || fail "no report.html"
grep -q 'gpuctl_node_up{node="gpu06"} 0' "$work/gpuctl.prom" || fail "prom: $(cat "$work/gpuctl.prom")"

browse() {  # browse URL ARGS...: one headless Chromium run with its own throwaway profile
  local url=$1; shift
  timeout 120 "$chromium" --headless --no-sandbox --disable-gpu --no-first-run --disable-background-networking \
    --disable-component-update --disable-sync --disable-dev-shm-usage --user-data-dir="$work/profile" \
    --hide-scrollbars "$@" "$url" 2>>"$work/chromium.log"
}
browse "file://$work/report.html" --dump-dom >"$work/dom-all.html" || fail "chromium failed: $(tail -5 "$work/chromium.log")"
browse "file://$work/report.html#status=failed&group=gpu" --dump-dom >"$work/dom-failed.html" ||
  fail "chromium failed: $(tail -5 "$work/chromium.log")"

python3 - "$work/dom-all.html" "$work/dom-failed.html" <<'PY' || fail "the rendered DOM is not the expected report"
import sys
from html.parser import HTMLParser

class Grid(HTMLParser):
    def __init__(self):
        super().__init__()
        self.table = None; self.ready = False; self.rows = {}; self.columns = []; self.cells = {}
        self.in_th_check = False
    def handle_starttag(self, tag, attrs):
        a = dict(attrs)
        if tag == "body": self.ready = a.get("data-ready") == "1"
        if tag == "table": self.table = a.get("id")
        if self.table != "grid": return
        if tag == "th" and a.get("class") == "check": self.in_th_check = True
        if tag == "tr" and "data-node" in a:
            self.node = a["data-node"]
            self.rows[self.node] = "hidden" not in (a.get("class") or "")
        if tag == "td" and a.get("class") == "cell":
            self.cells[(self.node, a["data-check"])] = a["data-status"]
    def handle_endtag(self, tag):
        if tag == "th": self.in_th_check = False
        if tag == "table": self.table = None
    def handle_data(self, data):
        if self.in_th_check and data.strip(): self.columns.append(data.strip())

def parse(path):
    g = Grid(); g.feed(open(path).read()); return g

full = parse(sys.argv[1])
assert full.ready, "the page's script did not run"
assert sorted(full.rows) == ["gpu0%d" % i for i in range(1, 9)] + ["head01"], full.rows
assert all(full.rows.values()), "rows hidden without a filter"
assert len(full.columns) == 16 and full.columns[0] == "slurmctld_active", full.columns
statuses = list(full.cells.values())
assert statuses.count("fail") == 4 and statuses.count("error") == 1, statuses
assert full.cells[("gpu03", "gpu_count")] == "fail"
assert full.cells[("gpu05", "ecc_errors")] == "fail"
assert full.cells[("gpu01", "gpu_count")] == "pass"
assert full.cells[("head01", "gpu_count")] == "none"
assert "gpu06" not in {n for n, _ in full.cells}, "an unreachable node has no check cells"

failed = parse(sys.argv[2])
shown = sorted(n for n, visible in failed.rows.items() if visible)
assert shown == ["gpu03", "gpu05", "gpu07"], shown
PY

browse "file://$work/report.html" --window-size=1500,1000 --screenshot="$work/report.png" >/dev/null ||
  fail "screenshot failed: $(tail -5 "$work/chromium.log")"
[ "$(head -c 8 "$work/report.png" | od -An -tx1 | tr -d ' \n')" = 89504e470d0a1a0a ] || fail "the screenshot is not a PNG"
if [ -n "${GPUCTL_SCREENSHOT:-}" ]; then cp "$work/report.png" "$GPUCTL_SCREENSHOT"; fi
echo "PASS: verify HTML report rendered and checked in headless Chromium"
