#!/bin/sh
# `xdsfed status --server HOST:PORT` (CLI.md; issue 14 §3 "Done when"): two
# `xdsfed control-plane` processes serve a federated chain (Listener +
# RouteConfiguration from xds.authority.com's server, Cluster +
# ClusterLoadAssignment from xds.other.com's), `xdsfed watch --target
# --csds-listen` follows it and serves its own CSDS; then the Cluster is
# replaced by an invalid one (version 2), which the client NACKs. Both views
# must show it: each control plane's (the management server's CSDS: what it
# sent and how the client answered) and the client's own.
# Usage: tests/cli/status_test.sh [BUILD_DIR]   (default: build)
set -u
. "$(dirname "$0")/cli_test_lib.sh"
tmp=$(mktemp -d)
pids=""
trap 'for p in $pids; do kill $p 2>/dev/null; done; rm -rf "$tmp"' EXIT

L='xdstp://xds.authority.com/envoy.config.listener.v3.Listener/grpc/client/server.example.com?project_id=1234'
R='xdstp://xds.authority.com/envoy.config.route.v3.RouteConfiguration/route-1'
C='xdstp://xds.other.com/envoy.config.cluster.v3.Cluster/backend'
E='xdstp://xds.other.com/envoy.config.endpoint.v3.ClusterLoadAssignment/backend'
T='type.googleapis.com/envoy.config'

cat >"$tmp/authority.json" <<JSON
{"version":"1","resources":{
 "envoy.config.listener.v3.Listener":{"$L":{"api_listener":{"api_listener":{
  "@type":"type.googleapis.com/envoy.extensions.filters.network.http_connection_manager.v3.HttpConnectionManager",
  "rds":{"config_source":{"ads":{}},"route_config_name":"$R"},
  "http_filters":[{"name":"router","typed_config":{
   "@type":"type.googleapis.com/envoy.extensions.filters.http.router.v3.Router"}}]}}}},
 "envoy.config.route.v3.RouteConfiguration":{"$R":{"virtual_hosts":[
  {"name":"vh","domains":["*"],"routes":[{"match":{"prefix":""},"route":{"cluster":"$C"}}]}]}}}}
JSON
# other_snapshot VERSION CLUSTER_JSON
other_snapshot() {
  cat >"$tmp/other.next" <<JSON
{"version":"$1","resources":{
 "envoy.config.cluster.v3.Cluster":{"$C":$2},
 "envoy.config.endpoint.v3.ClusterLoadAssignment":{"$E":{"endpoints":[
  {"locality":{"region":"r1"},"load_balancing_weight":1,"lb_endpoints":[
   {"endpoint":{"address":{"socket_address":{"address":"10.0.0.1","port_value":80}}}}]}]}}}}
JSON
  mv "$tmp/other.next" "$tmp/other.json"
}
other_snapshot 1 '{"type":"EDS","eds_cluster_config":{"eds_config":{"ads":{}},"service_name":"'"$E"'"}}'

# start_cp NAME: runs a control plane on a free port, sets PORT.
start_cp() {
  "$xdsfed" control-plane --listen 127.0.0.1:0 --snapshot "$tmp/$1.json" \
    >"$tmp/$1.out" 2>"$tmp/$1.err" &
  pids="$pids $!"
  for _ in $(seq 100); do
    PORT=$(sed -n 's/.*"port":\([0-9]*\).*/\1/p' "$tmp/$1.out")
    [ -n "$PORT" ] && return 0
    sleep 0.1
  done
  echo "FAIL control plane $1 did not start: $(cat "$tmp/$1.err")"
  exit 1
}
start_cp authority
authority_port=$PORT
start_cp other
other_port=$PORT

server() {
  printf '{"server_uri":"127.0.0.1:%s","channel_creds":[{"type":"insecure"}]}' "$1"
}
cat >"$tmp/bootstrap.json" <<JSON
{"xds_servers":[$(server "$authority_port")],"node":{"id":"status-test"},
 "client_default_listener_resource_name_template":
  "xdstp://xds.authority.com/envoy.config.listener.v3.Listener/grpc/client/%s?project_id=1234",
 "authorities":{"xds.authority.com":{},
  "xds.other.com":{"xds_servers":[$(server "$other_port")]}}}
JSON

"$xdsfed" watch --federation=on --bootstrap "$tmp/bootstrap.json" --quiet \
  --timeout 60 --csds-listen 127.0.0.1:0 --target xds:///server.example.com \
  >"$tmp/watch.out" 2>"$tmp/watch.err" &
pids="$pids $!"

# wait_for FILE PATTERN COUNT: until FILE has COUNT lines with PATTERN (10 s).
wait_for() {
  for _ in $(seq 100); do
    [ "$(grep -cF -- "$2" "$1")" -ge "$3" ] && return 0
    sleep 0.1
  done
  return 1
}
wait_for "$tmp/watch.out" '"event":"changed"' 4 ||
  { echo "FAIL watch did not get the chain: $(cat "$tmp/watch.out" "$tmp/watch.err")"; exit 1; }
csds=$(sed -n 's/.*"event":"csds".*"listening":"\([^"]*\)".*/\1/p;s/.*"listening":"\([^"]*\)".*"event":"csds".*/\1/p' "$tmp/watch.out" | head -1)
[ -n "$csds" ] || { echo "FAIL no csds line: $(cat "$tmp/watch.out")"; exit 1; }

# status_until SERVER FILE PATTERN: polls `xdsfed status` until PATTERN shows.
status_until() {
  for _ in $(seq 50); do
    "$xdsfed" status --server "$1" >"$2" 2>&1 && grep -qF -- "$3" "$2" && return 0
    sleep 0.2
  done
  return 1
}
# row FILE NAME: the status line of resource NAME.
row() { grep -F -- "\"name\":\"$2\"" "$1"; }
# expect_row WHAT FILE NAME SUBSTRING
expect_row() {
  if row "$2" "$3" | grep -qF -- "$4"; then
    echo "ok   $1"
  else
    echo "FAIL $1: no $4 in: $(row "$2" "$3")"
    failures=$((failures + 1))
  fi
}

# Everything ACKED, seen by each management server and by the client.
status_until "127.0.0.1:$authority_port" "$tmp/cp1.out" '"client_status":"ACKED"' || true
expect_row "authority cp: Listener ACKED" "$tmp/cp1.out" "$L" \
  "\"authority\":\"xds.authority.com\",\"client_scope\":\"\",\"client_status\":\"ACKED\",\"config_status\":\"SYNCED\",\"error\":null,"
expect_row "authority cp: route ACKED, node" "$tmp/cp1.out" "$R" \
  "\"client_status\":\"ACKED\""
expect_row "authority cp: node id" "$tmp/cp1.out" "$R" '"node":"status-test"'
status_until "$csds" "$tmp/client1.out" "$E" || true
for n in "$L" "$R" "$C" "$E"; do
  expect_row "client: $n ACKED at 1" "$tmp/client1.out" "$n" \
    '"client_status":"ACKED","error":null,'
done
expect_row "client: scope is the target" "$tmp/client1.out" "$L" \
  '"client_scope":"xds:///server.example.com"'
expect_row "client: version" "$tmp/client1.out" "$C" '"version":"1"'

# Version 2 of the Cluster is STATIC, which gRPC rejects (A37): NACKED,
# with the error and the NACKed version; the last good version stays 1.
other_snapshot 2 '{"type":"STATIC"}'
status_until "127.0.0.1:$other_port" "$tmp/cp2.out" '"client_status":"NACKED"' || true
expect_row "other cp: Cluster NACKED" "$tmp/cp2.out" "$C" \
  '"client_status":"NACKED","config_status":"ERROR","error":{"details":"'
expect_row "other cp: NACKed version 2" "$tmp/cp2.out" "$C" '"version":"2"},'
expect_row "other cp: last ACKed version 1" "$tmp/cp2.out" "$C" \
  '"type":"type.googleapis.com/envoy.config.cluster.v3.Cluster","valid":true,"version":"1"}'
expect_row "other cp: EDS still ACKED" "$tmp/cp2.out" "$E" \
  '"client_status":"ACKED"'
status_until "$csds" "$tmp/client2.out" '"client_status":"NACKED"' || true
expect_row "client: Cluster NACKED, error names it" "$tmp/client2.out" "$C" \
  "\"client_status\":\"NACKED\",\"error\":{\"details\":\"INVALID_ARGUMENT: "
expect_row "client: NACKed version 2, kept 1" "$tmp/client2.out" "$C" \
  '"version":"2"},"last_updated":'
expect_row "client: Cluster authority" "$tmp/client2.out" "$C" \
  '"authority":"xds.other.com"'
expect_row "client: Listener still ACKED" "$tmp/client2.out" "$L" \
  '"client_status":"ACKED"'

expect "usage" 2 'usage: xdsfed status' "$xdsfed" status
expect "nothing listening" 2 'CSDS request to 127.0.0.1:1 failed' \
  "$xdsfed" status --server 127.0.0.1:1 --timeout 2

[ "$failures" = 0 ] && echo "all passed" || exit 1
