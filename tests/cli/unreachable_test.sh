#!/bin/sh
# Issue 29 item 1: with no control plane, four `xdsfed call`s at once must
# each report the unreachable server (UNAVAILABLE naming it), 100 runs of
# 100. Before the fix a connectivity watcher that started after the ADS
# stream had already made the channel fail never reported it, and 3 of 24
# runs waited their whole deadline (DEADLINE_EXCEEDED). Then: a pick that
# waits for a Listener the control plane does not have says so (issue 29
# item 5), instead of "waiting for a connecting priority".
# Usage: tests/cli/unreachable_test.sh [BUILD_DIR]   (default: build)
set -u
. "$(dirname "$0")/cli_test_lib.sh"
use_temp_dir

start_cp() {
  echo '{"version":"0","resources":{}}' >"$dir/snap.json"
  rm -f "$dir/cp.out"
  "$xdsfed" control-plane --listen 127.0.0.1:0 --snapshot "$dir/snap.json" \
    >"$dir/cp.out" 2>"$dir/cp.err" &
  cp_pid=$!
  i=0
  while ! grep -q '"port"' "$dir/cp.out" 2>/dev/null && [ $i -lt 100 ]; do
    sleep 0.1
    i=$((i + 1))
  done
  cp_port=$(head -n 1 "$dir/cp.out" | sed 's/.*"port":\([0-9]*\).*/\1/')
  [ -n "$cp_port" ] || { echo "FAIL the control plane did not start"; exit 1; }
}
# A port nothing listens on: a control plane's, once it has stopped.
start_cp
port=$cp_port
kill "$cp_pid" && wait "$cp_pid" 2>/dev/null
cp_pid=
boot="{\"xds_servers\":[{\"server_uri\":\"127.0.0.1:$port\",\"channel_creds\":[{\"type\":\"insecure\"}]}],\"node\":{\"id\":\"cli-unreachable\"}}"
runs=0 named=0
round=0
while [ $round -lt 25 ]; do
  for i in 1 2 3 4; do
    "$xdsfed" --bootstrap-json "$boot" call --target xds:///svc \
      --deadline-ms 1000 >"$dir/call.$i" 2>&1 &
  done
  wait
  for i in 1 2 3 4; do
    runs=$((runs + 1))
    if grep -q "\"code\":\"UNAVAILABLE\".*xds channel to 127.0.0.1:$port is in TRANSIENT_FAILURE" "$dir/call.$i"; then
      named=$((named + 1))
    else
      echo "run $runs: $(head -c 400 "$dir/call.$i")"
    fi
  done
  round=$((round + 1))
done
expect "no control plane: $named of $runs runs UNAVAILABLE naming the server" \
  0 "$runs/$runs" echo "$named/$runs"

# A control plane without the Listener: the pick's deadline names what it
# waited for.
start_cp
boot="{\"xds_servers\":[{\"server_uri\":\"127.0.0.1:$cp_port\",\"channel_creds\":[{\"type\":\"insecure\"}]}],\"node\":{\"id\":\"cli-unreachable\"}}"
expect "a missing Listener: the deadline says what the pick waited for" 1 \
  "deadline exceeded while waiting for the xDS configuration: no Listener \\\"nope\\\" yet from xDS server 127.0.0.1:$cp_port" \
  "$xdsfed" --bootstrap-json "$boot" call --target xds:///nope --deadline-ms 300
[ "$failures" -eq 0 ]
