#!/bin/sh
# `xdsfed call` (CLI.md): real RPCs through lib/channel's XdsChannel to two
# health backends that `xdsfed control-plane --health-backends` runs on
# loopback, routed by the control plane's Listener -> RouteConfiguration ->
# EDS cluster; one "rpc" line per RPC (cluster, priority, locality,
# endpoint, backend) and the summary; plus a target that never resolves
# (picks wait to their deadline) and a usage error.
# Usage: tests/cli/call_test.sh [BUILD_DIR]   (default: build)
set -u
. "$(dirname "$0")/cli_test_lib.sh"
use_temp_dir

echo '{"version":"0","resources":{}}' >"$dir/snap.json"
"$xdsfed" control-plane --listen 127.0.0.1:0 --snapshot "$dir/snap.json" \
  --health-backends b1@127.0.0.1:0,b2@127.0.0.1:0 \
  >"$dir/cp.out" 2>"$dir/cp.err" &
cp_pid=$!
i=0
while [ ! -s "$dir/cp.out" ] && [ $i -lt 100 ]; do sleep 0.1; i=$((i + 1)); done
line=$(head -n 1 "$dir/cp.out")
cp_port=$(printf '%s' "$line" | sed 's/.*"port":\([0-9]*\).*/\1/')
b1=$(printf '%s' "$line" | sed 's/.*"b1":"127.0.0.1:\([0-9]*\)".*/\1/')
b2=$(printf '%s' "$line" | sed 's/.*"b2":"127.0.0.1:\([0-9]*\)".*/\1/')
hcm='{"@type":"type.googleapis.com/envoy.extensions.filters.network.http_connection_manager.v3.HttpConnectionManager","rds":{"config_source":{"ads":{}},"route_config_name":"route"},"http_filters":[{"name":"router","typed_config":{"@type":"type.googleapis.com/envoy.extensions.filters.http.router.v3.Router"}}]}'
ep() { echo "{\"endpoint\":{\"address\":{\"socket_address\":{\"address\":\"127.0.0.1\",\"port_value\":$1}}}}"; }
cat >"$dir/snap.json.new" <<SNAP
{"version":"1","resources":{
 "envoy.config.listener.v3.Listener":{"svc":{"api_listener":{"api_listener":$hcm}}},
 "envoy.config.route.v3.RouteConfiguration":{"route":{"virtual_hosts":[{"name":"vh","domains":["svc"],"routes":[{"match":{"prefix":""},"route":{"cluster":"c"}}]}]}},
 "envoy.config.cluster.v3.Cluster":{"c":{"type":"EDS","eds_cluster_config":{"eds_config":{"ads":{}}}}},
 "envoy.config.endpoint.v3.ClusterLoadAssignment":{"c":{"endpoints":[{"locality":{"region":"r1","zone":"z1"},"load_balancing_weight":1,"lb_endpoints":[$(ep "$b1"),$(ep "$b2")]}]}}}}
SNAP
mv "$dir/snap.json.new" "$dir/snap.json"
boot="{\"xds_servers\":[{\"server_uri\":\"127.0.0.1:$cp_port\",\"channel_creds\":[{\"type\":\"insecure\"}]}],\"node\":{\"id\":\"cli-call\"}}"

"$xdsfed" --bootstrap-json "$boot" call --target xds:///svc --count 20 \
  --deadline-ms 10000 >"$dir/call.out" 2>&1
rc=$?
expect "call: 20 RPCs, exit 0" 0 '"event":"summary","fail":0,"ok":20' \
  sh -c "cat '$dir/call.out'; exit $rc"
expect "call: rpc line says where the pick went" 0 \
  '"cluster":"c","code":"OK","endpoint":"127.0.0.1:' cat "$dir/call.out"
expect "call: locality and priority" 0 \
  '"locality":{"region":"r1","sub_zone":"","zone":"z1"},"priority":0' \
  cat "$dir/call.out"
expect "call: both backends answered" 0 '"b1":' \
  grep '"event":"summary"' "$dir/call.out"
expect "call: both backends answered (b2)" 0 '"b2":' \
  grep '"event":"summary"' "$dir/call.out"
expect "call: a target that never resolves waits to its deadline" 1 \
  '"code":"DEADLINE_EXCEEDED"' \
  "$xdsfed" --bootstrap-json "$boot" call --target xds:///nothere \
  --deadline-ms 300
# Issue 29 item 4: a signal stops the loop after the RPC in flight, with
# the summary, exit 0; a second one ends it at once. (SIGTERM: a shell's
# background jobs ignore SIGINT.)
: >"$dir/sig.out"
"$xdsfed" --bootstrap-json "$boot" call --target xds:///svc --seconds 20 \
  --interval-ms 50 --deadline-ms 10000 >>"$dir/sig.out" 2>&1 &
call_pid=$!
i=0
# (Until 3 RPCs are done: by then the signals are the command's.)
while [ "$(grep -c '"event":"rpc"' "$dir/sig.out")" -lt 3 ] && [ $i -lt 100 ]; do
  sleep 0.1
  i=$((i + 1))
done
kill -TERM "$call_pid"
wait "$call_pid"
rc=$?
expect "call: SIGTERM prints the summary and exits 0" 0 \
  '"event":"summary","fail":0,' sh -c "cat '$dir/sig.out'; exit $rc"
expect "call: the summary says which signal ended it" 0 '"signal":"SIGTERM"' \
  grep '"event":"summary"' "$dir/sig.out"
"$xdsfed" --bootstrap-json "$boot" call --target xds:///nothere --count 5 \
  --deadline-ms 10000 >"$dir/sig2.out" 2>&1 &
call_pid=$!
sleep 1.5
kill -TERM "$call_pid"
sleep 0.3
kill -TERM "$call_pid"
wait "$call_pid"
rc=$?
expect "call: a second signal exits at once (128 + SIGTERM)" 0 143 echo "$rc"
expect "call: ... without a summary" 1 0 grep -c summary "$dir/sig2.out"
expect "call: --target is required" 2 'usage: xdsfed call' \
  "$xdsfed" --bootstrap-json "$boot" call
[ "$failures" = 0 ]
