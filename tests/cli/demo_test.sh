#!/bin/sh
# `xdsfed demo`, the README's main job, on the built binary: it must exit 0
# and show every stage - both control planes, the target resolved, the chain
# across both authorities, the A37 tree with its LOGICAL_DNS fallback, then
# real RPCs through XdsChannel to the demo's loopback backends: 40 plain
# RPCs all OK over the three EDS backends, the circuit breaker (4 of 6 real
# calls admitted, one of them past its deadline), the load report the EDS
# cluster's LRS server received (43 OK, 1 error, 2 drops: exactly what the
# RPCs did), and an RPC loop without a failure while the EDS cluster is
# emptied (served by the LOGICAL_DNS fallback) and restored.
# Usage: tests/cli/demo_test.sh [BUILD_DIR]   (default: build)
set -u
. "$(dirname "$0")/cli_test_lib.sh"

stdout_file=$(mktemp)
trap 'rm -f "$stdout_file"' EXIT
"$xdsfed" demo >"$stdout_file" 2>/dev/null
rc=$?
out=$(cat "$stdout_file")
if [ "$rc" != 0 ]; then
  echo "FAIL demo: exit $rc: $out"
  failures=$((failures + 1))
fi

# Issue 14 §2: stdout is JSON lines only, each a step (so that
# `scripts/demo.sh 2>/dev/null | jq -c .step` prints only steps).
not_steps=$(printf '%s\n' "$out" | grep -cv '^{.*"step":"[a-z_]*".*}$')
if [ "$not_steps" != 0 ]; then
  echo "FAIL stdout lines that are not step objects: $not_steps"
  printf '%s\n' "$out" | grep -v '^{.*"step":"[a-z_]*".*}$' | head -3
  failures=$((failures + 1))
else
  echo "ok   stdout is step lines only"
fi

# expect_lines NAME COUNT_AT_LEAST SUBSTRING: lines of the output containing it
expect_lines() {
  n=$(printf '%s\n' "$out" | grep -cF -- "$3")
  if [ "$n" -lt "$2" ]; then
    echo "FAIL $1: $n lines with $3, want >= $2"
    failures=$((failures + 1))
  else
    echo "ok   $1"
  fi
}

expect_lines "two control planes" 2 '"step":"control_plane"'
expect_lines "target resolved" 1 '"data_plane_authority":"server.example.com"'
expect_lines "four types followed" 4 '"step":"event"'
expect_lines "tree with DNS fallback" 1 '"dns_hostname":"localhost:'
expect_lines "priority config" 1 '"priority_experimental"'
expect_lines "circuit breaker" 1 '"dropped_by_circuit_breaker":2'
expect_lines "calls admitted" 1 '"started":4'
expect_lines "load report drops" 1 '"total_dropped_requests":"2"'
expect_lines "load report errors" 1 '"total_error_requests":"1"'
expect_lines "40 real RPCs, none failed" 1 '"fail":0,"ok":40,"sent":40,"step":"rpcs"'
for b in east-1 east-2 west-1; do
  expect_lines "RPCs reached $b" 1 "\"$b\":"
done
expect_lines "load report successes = OK RPCs" 1 '"total_successful_requests":"43"'
expect_lines "failover to the DNS fallback" 1 '"step":"failover","valid":true'
expect_lines "failback to EDS" 1 '"step":"failback","valid":true'
expect_lines "RPC loop without failure" 1 '"fail":0,"ok":'
expect_lines "RPC loop served by the fallback" 1 '{"backends":{"dns-fallback":'
expect_lines "summary" 1 '"step":"summary","valid":true'

invalid=$(printf '%s\n' "$out" | grep -cF '"valid":false')
if [ "$invalid" != 0 ]; then
  echo "FAIL invalid lines: $invalid"
  failures=$((failures + 1))
fi

[ "$failures" = 0 ] || { echo "$failures failure(s)"; exit 1; }
echo "all demo checks passed"
