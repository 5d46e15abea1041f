#!/bin/sh
# `xdsfed serve` (CLI.md, issue 12): an xDS-enabled server configured by
# `xdsfed control-plane`. Its "serving" lines follow the Listener: not
# serving before it exists, serving once it (and its RDS) arrived, not
# serving when it is deleted; `xdsfed call` reaches its health service
# (x-backend-id = --id) through an xds: target; SIGTERM ends it with exit 0.
# Usage: tests/cli/serve_test.sh [BUILD_DIR]   (default: build)
set -u
. "$(dirname "$0")/cli_test_lib.sh"
dir=$(mktemp -d)
cp_pid=
serve_pid=
cleanup() {
  [ -n "$serve_pid" ] && kill "$serve_pid" 2>/dev/null && wait "$serve_pid" 2>/dev/null
  [ -n "$cp_pid" ] && kill "$cp_pid" 2>/dev/null && wait "$cp_pid" 2>/dev/null
  rm -rf "$dir"
}
trap cleanup EXIT
[ -n "${KEEP:-}" ] && trap - EXIT

# wait_for FILE TEXT: up to 20 s for TEXT to appear in FILE.
wait_for() {
  i=0
  while ! grep -qF -- "$2" "$1" 2>/dev/null && [ $i -lt 200 ]; do
    sleep 0.1
    i=$((i + 1))
  done
  grep -qF -- "$2" "$1"
}

echo '{"version":"0","resources":{}}' >"$dir/snap.json"
"$xdsfed" control-plane --listen 127.0.0.1:0 --snapshot "$dir/snap.json" \
  >"$dir/cp.out" 2>"$dir/cp.err" &
cp_pid=$!
wait_for "$dir/cp.out" '"port":'
cp_port=$(head -n 1 "$dir/cp.out" | sed 's/.*"port":\([0-9]*\).*/\1/')
# A36 servers take no port 0: a port from this shell's pid.
port=$((20000 + $$ % 20000))
name="grpc/server?xds.resource.listening_address=127.0.0.1:$port"
hcm() { echo "{\"@type\":\"type.googleapis.com/envoy.extensions.filters.network.http_connection_manager.v3.HttpConnectionManager\",\"rds\":{\"config_source\":{\"ads\":{}},\"route_config_name\":\"$1\"},\"http_filters\":[{\"name\":\"router\",\"typed_config\":{\"@type\":\"type.googleapis.com/envoy.extensions.filters.http.router.v3.Router\"}}]}"; }
client='"svc":{"api_listener":{"api_listener":'"$(hcm route)"'}}'
server='"'$name'":{"address":{"socket_address":{"address":"127.0.0.1","port_value":'$port'}},"filter_chains":[{"filters":[{"name":"hcm","typed_config":'"$(hcm server-route)"'}]}]}'
# snapshot VERSION LISTENERS
snapshot() {
  cat >"$dir/snap.json.new" <<SNAP
{"version":"$1","resources":{
 "envoy.config.listener.v3.Listener":{$2},
 "envoy.config.route.v3.RouteConfiguration":{
   "route":{"virtual_hosts":[{"name":"vh","domains":["*"],"routes":[{"match":{"prefix":""},"route":{"cluster":"c"}}]}]},
   "server-route":{"virtual_hosts":[{"name":"vh","domains":["*"],"routes":[{"match":{"prefix":""},"non_forwarding_action":{}}]}]}},
 "envoy.config.cluster.v3.Cluster":{"c":{"type":"EDS","eds_cluster_config":{"eds_config":{"ads":{}}}}},
 "envoy.config.endpoint.v3.ClusterLoadAssignment":{"c":{"endpoints":[{"locality":{"region":"r1"},"load_balancing_weight":1,"lb_endpoints":[{"endpoint":{"address":{"socket_address":{"address":"127.0.0.1","port_value":$port}}}}]}]}}}}
SNAP
  mv "$dir/snap.json.new" "$dir/snap.json"
}
snapshot 1 "$client"
boot="{\"xds_servers\":[{\"server_uri\":\"127.0.0.1:$cp_port\",\"channel_creds\":[{\"type\":\"insecure\"}]}],\"node\":{\"id\":\"cli-serve\"},\"server_listener_resource_name_template\":\"grpc/server?xds.resource.listening_address=%s\"}"

"$xdsfed" --bootstrap-json "$boot" serve --listen "127.0.0.1:$port" \
  --id s1 --drain-grace-ms 1000 >"$dir/serve.out" 2>"$dir/serve.err" &
serve_pid=$!
wait_for "$dir/serve.out" '"serving":false'
expect "serve: not serving before the Listener exists" 0 \
  "\"address\":\"127.0.0.1:$port\",\"code\":\"" cat "$dir/serve.out"
expect "serve: event line carries unix_us" 0 '"unix_us":' \
  cat "$dir/serve.out"

snapshot 2 "$client,$server"
wait_for "$dir/serve.out" '"serving":true'
expect "serve: serving once the Listener and its RDS arrived" 0 \
  "{\"address\":\"127.0.0.1:$port\",\"event\":\"serving\",\"serving\":true," \
  cat "$dir/serve.out"
expect "serve: xdsfed call reaches its health service (x-backend-id)" 0 \
  '"backends":{"s1":5}' \
  "$xdsfed" --bootstrap-json "$boot" call --target xds:///svc --count 5 \
  --deadline-ms 10000

# Issue 29 item 4: CSDS of the server's own XdsClient on its port.
expect "serve: CSDS on its own port (xdsfed status)" 0 \
  "\"name\":\"grpc/server?xds.resource.listening_address=127.0.0.1:$port\",\"node\":\"cli-serve\"" \
  "$xdsfed" status --server "127.0.0.1:$port"

snapshot 3 "$client"
i=0
while [ "$(grep -c '"serving":false' "$dir/serve.out")" -lt 2 ] && [ $i -lt 200 ]; do
  sleep 0.1
  i=$((i + 1))
done
expect "serve: Listener deleted -> not serving again" 0 2 \
  grep -c '"serving":false' "$dir/serve.out"

kill "$serve_pid"
wait "$serve_pid"
rc=$?
serve_pid=
expect "serve: SIGTERM ends it with exit 0" 0 0 echo "$rc"
# Issue 29 item 6: every JSON object has "valid" (grep -v finds no line
# without it: count 0, exit 1).
expect "serve: every event line has \"valid\":true" 1 0 \
  grep -vc '"valid":true' "$dir/serve.out"
expect "serve: SIGTERM says it stops serving" 0 \
  '"message":"shutting down on SIGTERM: new connections are refused, running RPCs have up to 1000 ms","serving":false' \
  cat "$dir/serve.out"

# Issue 29 item 6: localhost is loopback (127.0.0.1).
port2=$((20000 + ($$ + 7919) % 20000))
expect "serve: --listen localhost:PORT listens on 127.0.0.1" 0 \
  "\"address\":\"127.0.0.1:$port2\"" \
  "$xdsfed" --bootstrap-json "$boot" serve --listen "localhost:$port2" \
  --seconds 0.5

expect "serve: --listen is required" 2 'usage: xdsfed serve' \
  "$xdsfed" --bootstrap-json "$boot" serve
expect "serve: port 0 is rejected (A36)" 1 '"valid":false' \
  "$xdsfed" --bootstrap-json "$boot" serve --listen 127.0.0.1:0
expect "serve: a bootstrap without the server template fails" 1 \
  'server_listener_resource_name_template' \
  "$xdsfed" --bootstrap-json "{\"xds_servers\":[{\"server_uri\":\"127.0.0.1:1\",\"channel_creds\":[{\"type\":\"insecure\"}]}],\"node\":{\"id\":\"n\"}}" \
  serve --listen "127.0.0.1:$port"
[ "$failures" = 0 ]
