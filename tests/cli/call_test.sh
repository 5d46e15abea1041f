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
 "envoy.config.route.v3.RouteConfiguration":{"route":{"virtual_hosts":[{"name":"vh","domains":["svc"],"routes":[
   {"match":{"prefix":"","headers":[{"name":"x-pick","exact_match":"b2"}]},"route":{"cluster":"c2"}},
   {"match":{"prefix":""},"route":{"cluster":"c"}}]}]}},
 "envoy.config.cluster.v3.Cluster":{"c":{"type":"EDS","eds_cluster_config":{"eds_config":{"ads":{}}}},
                                    "c2":{"type":"EDS","eds_cluster_config":{"eds_config":{"ads":{}}}}},
 "envoy.config.endpoint.v3.ClusterLoadAssignment":{"c":{"endpoints":[{"locality":{"region":"r1","zone":"z1"},"load_balancing_weight":1,"lb_endpoints":[$(ep "$b1"),$(ep "$b2")]}]},
   "c2":{"endpoints":[{"locality":{"region":"r1","zone":"z1"},"load_balancing_weight":1,"lb_endpoints":[$(ep "$b2")]}]}}}}
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

# Issue 26 item 4. --metadata (repeatable) reaches the route's header
# matcher (x-pick: b2 -> cluster c2, whose only endpoint is b2; the first of
# two flags, so a flag that kept only its last value would fail).
call() { "$xdsfed" --bootstrap-json "$boot" call --target xds:///svc \
  --deadline-ms 10000 "$@"; }
expect "call: --metadata reaches the route's header matcher" 0 \
  '"backends":{"b2":6},"codes":{"OK":6}' \
  call --count 6 --metadata x-pick:b2 --metadata x-other:1
call --count 6 --metadata x-pick:b2 --metadata x-other:1 >"$dir/md.out" 2>&1
expect "call: ... so every RPC went to cluster c2" 0 6 \
  grep -c '"cluster":"c2"' "$dir/md.out"
expect "call: a -bin key's value is base64" 0 '"fail":0,"ok":1' \
  call --metadata trace-bin:AAEC/w==
expect "call: a -bin value that is not base64" 2 \
  'trace-bin: the value of a -bin key must be base64' \
  call --metadata 'trace-bin:not base64!'
expect "call: metadata keys are lowercase" 2 \
  '--metadata key \"X-Pick\": only lowercase letters' call --metadata X-Pick:b2
expect "call: grpc- keys are reserved" 2 'grpc- keys are reserved' \
  call --metadata grpc-timeout:1S
expect "call: --metadata without a ':'" 2 'expected KEY:VALUE' \
  call --metadata x-pick
expect "call: a non-printable value needs a -bin key" 2 \
  'the value must be printable ASCII' call --metadata "$(printf 'x:a\tb')"
# --request: the health request as proto3 JSON; the backends answer
# {"service":"sleep:MS"} after MS.
call --count 1 --request '{"service":"sleep:300"}' >"$dir/req.out" 2>&1
latency=$(grep '"event":"rpc"' "$dir/req.out" |
  sed 's/.*"latency_ms":\([0-9]*\).*/\1/')
expect "call: --request sleep:300 takes >= 300 ms" 0 yes \
  sh -c "[ '${latency:-0}' -ge 300 ] && echo yes; cat '$dir/req.out'"
expect "call: --request is for the health method only" 2 \
  '--request is a grpc.health.v1.HealthCheckRequest for --method' \
  call --method /x.Y/Z --request '{}'
expect "call: --request with an unknown field" 2 \
  'invalid proto3 JSON for grpc.health.v1.HealthCheckRequest' \
  call --request '{"nope":1}'
# --concurrency: 4 RPCs of 300 ms at once end within 250 ms of each other
# (one after another they would end >= 300 ms apart).
call --count 4 --concurrency 4 --request '{"service":"sleep:300"}' \
  >"$dir/conc.out" 2>&1
spread=$(grep '"event":"rpc"' "$dir/conc.out" |
  sed 's/.*"unix_us":\([0-9]*\).*/\1/' | sort -n |
  awk 'NR == 1 { first = $1 } { last = $1 } END { print last - first }')
expect "call: --concurrency 4 runs 4 RPCs at once" 0 '"fail":0,"ok":4' \
  cat "$dir/conc.out"
expect "call: ... ending within 250 ms of each other" 0 yes \
  sh -c "[ '${spread:-999999999}' -lt 250000 ] && echo yes || echo spread $spread us"
# --qps 20: RPC i starts i / 20 s after the command started, so the last of
# 6 starts >= 250 ms in (its t_ms minus its latency_ms; a lower bound only:
# the first RPC also waits for the configuration).
call --count 6 --qps 20 >"$dir/qps.out" 2>&1
last_start=$(grep '"event":"rpc"' "$dir/qps.out" |
  sed 's/.*"latency_ms":\([0-9.]*\).*"t_ms":\([0-9.]*\).*/\1 \2/' |
  awk '{ s = $2 - $1; if (s > max) max = s } END { printf "%d", max }')
expect "call: --qps 20 starts the 6th RPC >= 250 ms in" 0 yes \
  sh -c "[ '${last_start:-0}' -ge 249 ] && echo yes; cat '$dir/qps.out'"
expect "call: the summary's latency percentiles" 0 \
  '"rpc_latency_ms":{"max":' grep '"event":"summary"' "$dir/qps.out"
expect "call: ... p50, p90, p99" 0 '"p50":' grep -o '"p50":[0-9.]*,"p90":[0-9.]*,"p99":' "$dir/qps.out"
expect "call: --qps and --interval-ms together" 2 'are alternatives' \
  call --qps 5 --interval-ms 10
expect "call: --qps 0" 2 '--qps takes a finite positive number' call --qps 0
expect "call: --concurrency 0" 2 '--concurrency takes an integer from 1 to 1000' \
  call --concurrency 0
[ "$failures" = 0 ]
