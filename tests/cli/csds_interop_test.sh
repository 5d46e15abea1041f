#!/bin/sh
# Interop (issue 14 §3): `xdsfed status` reads the CSDS of another
# implementation, @grpc/grpc-js-xds (npm, from the peer harness
# ../shared/peers after its build.sh), whose XdsClient follows a chain
# served by `xdsfed control-plane`; then a NACK (version 2 of the Cluster
# is STATIC, which gRPC rejects) shows as NACKED with error and version.
# Skipped (exit 77) when node or the harness's node_modules are missing.
# Usage: tests/cli/csds_interop_test.sh [BUILD_DIR]   (default: build)
set -u
. "$(dirname "$0")/cli_test_lib.sh"
peers=${XDSFED_PEERS_DIR:-$root/../shared/peers}
[ -d "$peers/node_modules/@grpc/grpc-js-xds" ] || peers=/work/shared/peers
if ! command -v node >/dev/null ||
   [ ! -d "$peers/node_modules/@grpc/grpc-js-xds" ]; then
  echo "skipped: no node or no $peers/node_modules (run its build.sh)"
  exit 77
fi
tmp=$(mktemp -d)
pids=""
trap 'for p in $pids; do kill $p 2>/dev/null; done; rm -rf "$tmp"' EXIT

# snapshot VERSION CLUSTER_JSON: the old-style chain server.example.com ->
# route-1 -> cluster-1 -> its endpoints.
snapshot() {
  cat >"$tmp/snap.next" <<JSON
{"version":"$1","resources":{
 "envoy.config.listener.v3.Listener":{"server.example.com":{"api_listener":{"api_listener":{
  "@type":"type.googleapis.com/envoy.extensions.filters.network.http_connection_manager.v3.HttpConnectionManager",
  "rds":{"config_source":{"ads":{}},"route_config_name":"route-1"},
  "http_filters":[{"name":"router","typed_config":{
   "@type":"type.googleapis.com/envoy.extensions.filters.http.router.v3.Router"}}]}}}},
 "envoy.config.route.v3.RouteConfiguration":{"route-1":{"virtual_hosts":[
  {"name":"vh","domains":["*"],"routes":[{"match":{"prefix":""},"route":{"cluster":"cluster-1"}}]}]}},
 "envoy.config.cluster.v3.Cluster":{"cluster-1":$2},
 "envoy.config.endpoint.v3.ClusterLoadAssignment":{"cluster-1":{"endpoints":[
  {"locality":{"region":"r1"},"load_balancing_weight":1,"lb_endpoints":[
   {"endpoint":{"address":{"socket_address":{"address":"127.0.0.1","port_value":1}}}}]}]}}}}
JSON
  mv "$tmp/snap.next" "$tmp/snap.json"
}
snapshot 1 '{"type":"EDS","eds_cluster_config":{"eds_config":{"ads":{}}}}'

"$xdsfed" control-plane --listen 127.0.0.1:0 --snapshot "$tmp/snap.json" \
  >"$tmp/cp.out" 2>"$tmp/cp.err" &
pids="$pids $!"
# wait_port FILE: the "port" of FILE's first line (10 s), into PORT.
wait_port() {
  for _ in $(seq 100); do
    PORT=$(sed -n 's/.*"port":\([0-9]*\).*/\1/p' "$1" | head -1)
    [ -n "$PORT" ] && return 0
    sleep 0.1
  done
  echo "FAIL no port in $1: $(cat "$1")"
  exit 1
}
wait_port "$tmp/cp.out"
# (grpc-js-xds refuses a node without "locality".)
cat >"$tmp/bootstrap.json" <<JSON
{"xds_servers":[{"server_uri":"127.0.0.1:$PORT","channel_creds":[{"type":"insecure"}],
  "server_features":["xds_v3"]}],"node":{"id":"grpc-js-peer","locality":{}}}
JSON

GRPC_XDS_BOOTSTRAP="$tmp/bootstrap.json" NODE_PATH="$peers/node_modules" \
  node "$root/tests/cli/csds_grpc_js_peer.js" xds:///server.example.com 60 \
  >"$tmp/peer.out" 2>"$tmp/peer.err" &
pids="$pids $!"
wait_port "$tmp/peer.out"
peer="127.0.0.1:$PORT"
echo "     grpc-js-xds $(sed -n 's/.*"grpc_js_xds":"\([^"]*\)".*/\1/p' "$tmp/peer.out")"

# status_until FILE PATTERN: polls `xdsfed status` until PATTERN shows (10 s).
status_until() {
  for _ in $(seq 50); do
    "$xdsfed" status --server "$peer" >"$1" 2>&1 && grep -qF -- "$2" "$1" && return 0
    sleep 0.2
  done
  return 1
}
row() { grep -F -- "\"name\":\"$2\"" "$1"; }
expect_row() {
  if row "$2" "$3" | grep -qF -- "$4"; then
    echo "ok   $1"
  else
    echo "FAIL $1: no $4 in: $(row "$2" "$3") (all: $(cat "$2"))"
    failures=$((failures + 1))
  fi
}

status_until "$tmp/acked.out" '"name":"cluster-1","node":"grpc-js-peer","type":"type.googleapis.com/envoy.config.endpoint' || true
for n in server.example.com route-1 cluster-1; do
  expect_row "grpc-js-xds: $n ACKED at 1" "$tmp/acked.out" "$n" \
    '"client_status":"ACKED","error":null,'
done
expect_row "grpc-js-xds: node id, version, old-style name" "$tmp/acked.out" \
  server.example.com '"authority":null,'
expect_row "grpc-js-xds: version" "$tmp/acked.out" route-1 '"version":"1"}'

snapshot 2 '{"type":"STATIC"}'
status_until "$tmp/nacked.out" '"client_status":"NACKED"' || true
expect_row "grpc-js-xds: Cluster NACKED with its NACKed version" \
  "$tmp/nacked.out" cluster-1 '"client_status":"NACKED","error":{"details":"'
expect_row "grpc-js-xds: NACKed version 2" "$tmp/nacked.out" cluster-1 \
  '"version":"2"}'

[ "$failures" = 0 ] && echo "all passed" || exit 1
