#!/usr/bin/env bash
# The inventory commands of the real binary: validate, inventory, hostlist. Contacts nothing.
set -u
: "${GPUCTL:?}" "${GPUCTL_SOURCE_DIR:?}"
example="$GPUCTL_SOURCE_DIR/docs/examples/cluster.yaml"
data="$GPUCTL_SOURCE_DIR/tests/data/inventories"
failures=0
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
check() {  # check NAME EXPECTED ACTUAL
  if [[ "$2" != "$3" ]]; then
    echo "FAIL: $1"; echo "  want: $2"; echo "  got:  $3"; failures=$((failures + 1))
  else
    echo "ok: $1"
  fi
}

out=$("$GPUCTL" validate "$example" 2>&1); check "validate example exits 0" 0 $?
[[ "$out" == *"valid (9 hosts"* ]] || { echo "FAIL: validate summary: $out"; failures=$((failures + 1)); }

"$GPUCTL" validate "$data/good/lint-warnings.yaml" >/dev/null 2>&1; check "warnings do not fail validate" 0 $?

err=$("$GPUCTL" validate "$data/bad/version-float.yaml" 2>&1 >/dev/null); check "invalid inventory exits 2" 2 $?
[[ "$err" == *"version-float.yaml:5:11: error: 'cuda' must be a quoted string: 12.10 would be read as 12.1"* ]] ||
  { echo "FAIL: diagnostic text: $err"; failures=$((failures + 1)); }

json=$("$GPUCTL" validate --json "$data/bad/duplicate-key.yaml"); check "validate --json exits 2" 2 $?
[[ "$json" == *'"valid": false'* && "$json" == *'"line": 5'* ]] || { echo "FAIL: json: $json"; failures=$((failures + 1)); }

nodes=$("$GPUCTL" inventory "$example" --limit 'head,gpu0[1-2]' --expand | grep -c '^[a-z0-9]*:$')
check "inventory --limit --expand: 3 node blocks" 3 "$nodes"
# Folded by default: the GPU nodes of one rack differ only by their name and address, so one block per rack.
folded=$("$GPUCTL" inventory "$example")
check "inventory folds 9 nodes into 3 blocks" "head01:,gpu[01-04] (4 nodes):,gpu[05-08] (4 nodes):" \
  "$(grep -v '^ ' <<<"$folded" | paste -sd,)"
check "folded address" 2 "$(grep -c '^  connection: ssh root@<address>:22 ' <<<"$folded")"
check "folded addresses lines" "  addresses: 10.10.1.[1-4],  addresses: 10.10.1.[5-8]" "$(grep '^  addresses:' <<<"$folded" | paste -sd,)"
check "a single node keeps its address" 1 "$(grep -c '^  connection: ssh root@10.10.0.1:22 ' <<<"$folded")"
check "expanded view has every node" 9 "$("$GPUCTL" inventory "$example" --expand | grep -c '^[a-z0-9]*:$')"
# A node that differs in anything else gets its own block.
sed 's/^  gpu03: {address: 10.10.1.3, rack: r1}$/  gpu03: {address: 10.10.1.3, rack: r9}/' "$example" >"$work/rack.yaml"
grep -q 'rack: r9' "$work/rack.yaml" || { echo "FAIL: the test's sed did not change gpu03"; failures=$((failures + 1)); }
check "a different rack splits the fold" "head01:,gpu[01-02,04] (3 nodes):,gpu03:,gpu[05-08] (4 nodes):" \
  "$("$GPUCTL" inventory "$work/rack.yaml" | grep -v '^ ' | paste -sd,)"
"$GPUCTL" inventory "$example" --json | python3 -c 'import json,sys; assert len(json.load(sys.stdin)["nodes"]) == 9'
check "inventory --json stays per node" 0 $?
"$GPUCTL" inventory "$example" --json --expand >/dev/null 2>&1; check "--json with --expand is a usage error" 2 $?
"$GPUCTL" inventory "$example" --limit gpo >/dev/null 2>&1; check "unknown --limit exits 2" 2 $?
"$GPUCTL" inventory "$example" --json | grep -q '"digest"'; check "inventory --json has a digest" 0 $?

check "hostlist expand" "$(printf 'rack1-gpu01\nrack1-gpu02\nrack2-gpu01\nrack2-gpu02')" \
  "$("$GPUCTL" hostlist expand 'rack[1-2]-gpu[01-02]')"
check "hostlist compress" "node[01-04,10]" "$("$GPUCTL" hostlist compress 'node[01-03]' node04 node10)"
"$GPUCTL" hostlist expand 'n[3-1]' >/dev/null 2>&1; check "bad hostlist exits 2" 2 $?
"$GPUCTL" hostlist --help | grep -q 'Example:'; check "hostlist help has an example" 0 $?

# Cross-check with the real tools when they are installed (not required).
if command -v nodeset >/dev/null; then
  check "compress matches nodeset -f" "$(nodeset -f n1 n2 n3 n5 n01)" "$("$GPUCTL" hostlist compress n1 n2 n3 n5 n01)"
fi
# A mistyped command says which one it did not know and suggests the closest, exit 2.
err=$("$GPUCTL" --color never plna "$example" 2>&1 >/dev/null); check "unknown command exits 2" 2 $?
check "unknown command message" "gpuctl: unknown command 'plna' (did you mean 'plan'?); the commands are listed by gpuctl --help" "$err"
err=$("$GPUCTL" frobnicate 2>&1 >/dev/null); check "unknown command without a close one exits 2" 2 $?
[[ "$err" == "gpuctl: unknown command 'frobnicate'; "* ]] || { echo "FAIL: no-suggestion message: $err"; failures=$((failures + 1)); }

exit $((failures > 0))
