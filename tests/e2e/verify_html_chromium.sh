#!/usr/bin/env bash
# The HTML verify report in a real browser: `verify --from-json` renders a saved result of
# the example cluster (tests/data/verify/cluster-verify.json) with the example inventory's
# groups; headless Chromium loads the page, runs its script (filters preset from the URL) and
# dumps the DOM, which must hold the grid. Also a screenshot: with GPUCTL_SCREENSHOT=FILE it is
# kept there (docs/images/verify-report.png is made by scripts/screenshot). Failed checks show the command they
# read. Then a real recorded run: `verify --connection local` on this host (read-only; no GPUs
# here, so checks fail) into a private state database, and `gpuctl report last --html` renders
# it from the run history; its JSON must equal the live verify's, and Chromium must show the
# failed check's command in that page too. Exit 77 without chromium.
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

# Evidence of failures: the command each failed check read, in the DOM as Chromium built it.
python3 - "$work/dom-all.html" <<'PY' || fail "the failures' commands are not in the page"
import re, sys
dom = open(sys.argv[1]).read()
row = re.search(r'<tr [^>]*id="p-gpu03-gpu_count".*?</tr>', dom, re.S).group(0)
assert '<code class="command">$ nvidia-smi --query-gpu=' in row, row
assert re.search(r'<pre class="output">0, NVIDIA H100', row), row
row = re.search(r'<tr [^>]*id="p-gpu07-driver_version".*?</tr>', dom, re.S).group(0)
assert '$ cat /proc/driver/nvidia/version' in row and 'NVRM version' in row, row
PY

browse "file://$work/report.html" --window-size=1500,1000 --screenshot="$work/report.png" >/dev/null ||
  fail "screenshot failed: $(tail -5 "$work/chromium.log")"
[ "$(head -c 8 "$work/report.png" | od -An -tx1 | tr -d ' \n')" = 89504e470d0a1a0a ] || fail "the screenshot is not a PNG"
if [ -n "${GPUCTL_SCREENSHOT:-}" ]; then cp "$work/report.png" "$GPUCTL_SCREENSHOT"; fi
# --- a past run's report, from the run history -------------------------------------------------
export GPUCTL_STATE_DIR=$work/state
source "$(dirname "$0")/lib/local_inventory.sh"
write_local_inventory "$work/local.yaml" e2e-report 'n1'
rc=0
"$GPUCTL" verify "$work/local.yaml" --no-progress --json >"$work/live.json" 2>"$work/live.err" || rc=$?
[ "$rc" = 3 ] || fail "local verify exited $rc, expected 3 (no GPUs here): $(tail -5 "$work/live.err")"
"$GPUCTL" report last --html "$work/run.html" --junit "$work/run.xml" >"$work/run.txt" 2>&1 ||
  fail "report last: $(cat "$work/run.txt")"
# --json is a flag, as on verify: the JSON on stdout instead of the table (the old file form is refused).
"$GPUCTL" report last --json >"$work/run.json" 2>"$work/run-json.err" || fail "report last --json: $(cat "$work/run-json.err")"
rc=0; "$GPUCTL" report last --json "$work/other.json" >/dev/null 2>&1 || rc=$?
[ "$rc" = 2 ] && [ ! -e "$work/other.json" ] || fail "report last --json FILE: rc $rc, expected a usage error (2)"
run_id=$(sed -n 's/^Run \([0-9][0-9]*\): verify (failed), .*/\1/p' "$work/run.txt")
[ -n "$run_id" ] || fail "report printed no 'Run N: verify (failed)' line: $(head -3 "$work/run.txt")"
cmp -s "$work/live.json" "$work/run.json" || fail "the recorded report differs from the live verify:
$(diff "$work/live.json" "$work/run.json" | head -20)"
"$GPUCTL" report "$run_id" --html "$work/run-by-id.html" >/dev/null || fail "report $run_id failed"
cmp -s "$work/run.html" "$work/run-by-id.html" || fail "report last and report $run_id differ"
grep -Eq '<(failure|error) message=[^>]*>\$ cat /proc/modules' "$work/run.xml" || fail "JUnit lacks the command: $(head -c 2000 "$work/run.xml")"
rc=0; "$GPUCTL" report 99999 >"$work/none.txt" 2>&1 || rc=$?
[ "$rc" = 1 ] && grep -q "no run 99999" "$work/none.txt" || fail "report of an unknown run: rc $rc, $(cat "$work/none.txt")"
rc=0; "$GPUCTL" report latest >"$work/bad.txt" 2>&1 || rc=$?
[ "$rc" = 2 ] || fail "report latest: rc $rc, $(cat "$work/bad.txt")"

browse "file://$work/run.html" --dump-dom >"$work/dom-run.html" || fail "chromium failed: $(tail -5 "$work/chromium.log")"
python3 - "$work/dom-run.html" "$run_id" <<'PY' || fail "the recorded run's page is not the expected report"
import re, sys
dom, run_id = open(sys.argv[1]).read(), sys.argv[2]
assert re.search(r'<body[^>]*data-ready="1"', dom), "the page's script did not run"
assert f"gpuctl verify (run {run_id})" in dom
cell = re.search(r'<td class="cell" data-check="nvidia_loaded" data-status="(fail|error)"', dom)
assert cell, "nvidia_loaded did not fail on a host without GPUs"
row = re.search(r'<tr [^>]*id="p-n1-nvidia_loaded".*?</tr>', dom, re.S).group(0)
assert '<code class="command">$ cat /proc/modules</code>' in row, row
# The group filter comes from the inventory the run read (unchanged since).
assert '<option value="gpu">gpu</option>' in dom, "the recorded run's page has no group filter"
assert re.search(r'<tr [^>]*data-node="n1"[^>]*data-groups="gpu"', dom), "n1's row lacks its group"
PY
# Once the inventory changed, its groups may not be the run's: no group filter, and a note why.
echo "# edited after the run" >>"$work/local.yaml"
"$GPUCTL" report "$run_id" --html "$work/run-changed.html" >/dev/null 2>"$work/run-changed.err" ||
  fail "report $run_id after an inventory change failed: $(cat "$work/run-changed.err")"
grep -q "no group filter: .*local.yaml changed since run $run_id" "$work/run-changed.err" ||
  fail "no note about the changed inventory: $(cat "$work/run-changed.err")"
grep -q '<option value="gpu">' "$work/run-changed.html" && fail "groups taken from a changed inventory"
echo "PASS: verify HTML reports (saved result and recorded run $run_id) rendered and checked in headless Chromium"
