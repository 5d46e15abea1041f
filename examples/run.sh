#!/bin/sh
# Installs BUILD_DIR into a temporary prefix, builds examples/ against it
# with find_package(xdsfed), and runs each example on loopback:
#   print_cluster_tree            the A37 worked example's tree and config
#   watch_chain xds:///server.example.com
#                                 against two `xdsfed control-plane`s, one
#                                 per authority
#   greeter_server, greeter_client
#                                 configured by an `xdsfed control-plane`
#                                 serving snapshots/greeter.json (its port
#                                 50051 moved to a free one): unary, server
#                                 streaming, deadline, metadata through the
#                                 generated xDS stub; SIGTERM stops the
#                                 server gracefully
# Usage: [SHOW=1] examples/run.sh [BUILD_DIR]   (default: build; SHOW=1
# also prints what the examples printed)
set -u
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/.." && pwd)
case "${1:-build}" in
  /*) build=$1 ;;
  *) build="$root/${1:-build}" ;;
esac
work=$(mktemp -d)
pids=""
trap 'for p in $pids; do kill $p 2>/dev/null; done; rm -rf "$work"' EXIT
fail() { echo "FAIL $*"; exit 1; }

cmake --install "$build" --prefix "$work/prefix" >/dev/null || fail install
cmake -S "$here" -B "$work/build" -G Ninja \
  -DCMAKE_PREFIX_PATH="$work/prefix" >"$work/cmake.log" 2>&1 ||
  fail "configure: $(cat "$work/cmake.log")"
cmake --build "$work/build" >"$work/build.log" 2>&1 ||
  fail "build: $(cat "$work/build.log")"
echo "ok   examples build against the installed package"

"$work/build/print_cluster_tree" >"$work/tree.out" 2>&1 ||
  fail "print_cluster_tree: $(cat "$work/tree.out")"
for want in 'mechanism: B EDS B' 'mechanism: D EDS svc-d' \
            'mechanism: E LOGICAL_DNS localhost:8080' \
            '"lrsLoadReportingServer":{"channel_creds":[{"type":"insecure"}],"server_uri":"127.0.0.1:5000"}'; do
  grep -qF -- "$want" "$work/tree.out" ||
    fail "print_cluster_tree lacks $want: $(cat "$work/tree.out")"
done
echo "ok   print_cluster_tree"
[ -z "${SHOW:-}" ] || cat "$work/tree.out"

# Two authorities, two control planes: the Listener and its route from
# xds.authority.com's, the Cluster and its endpoints from xds.other.com's.
L='xdstp://xds.authority.com/envoy.config.listener.v3.Listener/grpc/client/server.example.com?project_id=1234'
R='xdstp://xds.authority.com/envoy.config.route.v3.RouteConfiguration/route-1'
C='xdstp://xds.other.com/envoy.config.cluster.v3.Cluster/backend'
E='xdstp://xds.other.com/envoy.config.endpoint.v3.ClusterLoadAssignment/backend'
cat >"$work/authority.json" <<JSON
{"version":"1","resources":{
 "envoy.config.listener.v3.Listener":{"$L":{"api_listener":{"api_listener":{
  "@type":"type.googleapis.com/envoy.extensions.filters.network.http_connection_manager.v3.HttpConnectionManager",
  "rds":{"config_source":{"ads":{}},"route_config_name":"$R"},
  "http_filters":[{"name":"router","typed_config":{
   "@type":"type.googleapis.com/envoy.extensions.filters.http.router.v3.Router"}}]}}}},
 "envoy.config.route.v3.RouteConfiguration":{"$R":{"virtual_hosts":[
  {"name":"vh","domains":["*"],"routes":[{"match":{"prefix":""},"route":{"cluster":"$C"}}]}]}}}}
JSON
cat >"$work/other.json" <<JSON
{"version":"1","resources":{
 "envoy.config.cluster.v3.Cluster":{"$C":{"type":"EDS",
  "eds_cluster_config":{"eds_config":{"ads":{}},"service_name":"$E"}}},
 "envoy.config.endpoint.v3.ClusterLoadAssignment":{"$E":{"endpoints":[
  {"locality":{"region":"r1"},"load_balancing_weight":1,"lb_endpoints":[
   {"endpoint":{"address":{"socket_address":{"address":"10.0.0.1","port_value":80}}}}]}]}}}}
JSON
# start_cp NAME: an `xdsfed control-plane` on a free port; sets port.
start_cp() {
  "$build/bin/xdsfed" control-plane --listen 127.0.0.1:0 \
    --snapshot "$work/$1.json" >"$work/$1.out" 2>&1 &
  pids="$pids $!"
  port=""
  for _ in $(seq 100); do
    port=$(sed -n 's/.*"port":\([0-9]*\).*/\1/p' "$work/$1.out")
    [ -n "$port" ] && return 0
    sleep 0.1
  done
  fail "control plane $1: $(cat "$work/$1.out")"
}
start_cp authority
authority_port=$port
start_cp other
other_port=$port
cat >"$work/bootstrap.json" <<JSON
{"xds_servers":[{"server_uri":"127.0.0.1:$authority_port","channel_creds":[{"type":"insecure"}]}],
 "node":{"id":"example"},
 "client_default_listener_resource_name_template":
   "xdstp://xds.authority.com/envoy.config.listener.v3.Listener/grpc/client/%s?project_id=1234",
 "authorities":{"xds.authority.com":{},
   "xds.other.com":{"xds_servers":[{"server_uri":"127.0.0.1:$other_port",
                                    "channel_creds":[{"type":"insecure"}]}]}}}
JSON
GRPC_XDS_BOOTSTRAP="$work/bootstrap.json" GRPC_EXPERIMENTAL_XDS_FEDERATION=true \
  "$work/build/watch_chain" xds:///server.example.com >"$work/chain.out" \
  2>"$work/chain.err" || fail "watch_chain: $(cat "$work/chain.out" "$work/chain.err")"
for type in listener.v3.Listener route.v3.RouteConfiguration cluster.v3.Cluster \
            endpoint.v3.ClusterLoadAssignment; do
  grep -qF "\"type\":\"type.googleapis.com/envoy.config.$type\"" "$work/chain.out" ||
    fail "watch_chain printed no $type: $(cat "$work/chain.out")"
done
echo "ok   watch_chain ($(wc -l <"$work/chain.out") resources)"
[ -z "${SHOW:-}" ] || cat "$work/chain.out"


# The Greeter pair. The snapshot and the bootstrap name 127.0.0.1:50051 and
# 127.0.0.1:5000; here the server gets a random high port (A36 servers take
# no port 0) and the control plane a free one.
gport=$(awk 'BEGIN { srand(); print 20000 + int(rand() * 30000) }')
sed "s/50051/$gport/g" "$here/snapshots/greeter.json" >"$work/greeter.json"
start_cp greeter
sed "s/127.0.0.1:5000/127.0.0.1:$port/" "$here/greeter/bootstrap.json" \
  >"$work/greeter_bootstrap.json"
GRPC_XDS_BOOTSTRAP="$work/greeter_bootstrap.json" \
  "$work/build/greeter_server" "127.0.0.1:$gport" >"$work/server.out" 2>&1 &
server_pid=$!
pids="$pids $server_pid"
for _ in $(seq 100); do
  grep -q ' serving$' "$work/server.out" && break
  sleep 0.1
done
grep -q "^greeter_server: 127.0.0.1:$gport serving$" "$work/server.out" ||
  fail "greeter_server: $(cat "$work/server.out")"
GRPC_XDS_BOOTSTRAP="$work/greeter_bootstrap.json" \
  "$work/build/greeter_client" xds:///greeter >"$work/client.out" 2>&1 ||
  fail "greeter_client: $(cat "$work/client.out")"
for want in \
  "SayHello: Hello world (x-user: alice) [x-served-by: greeter_server 127.0.0.1:$gport]" \
  'SayHelloStream: Hello world #3' 'SayHelloStream: 3 replies, status 0' \
  'SayHello, deadline passed: DEADLINE_EXCEEDED'; do
  grep -qxF -- "$want" "$work/client.out" ||
    fail "greeter_client lacks $want: $(cat "$work/client.out")"
done
echo "ok   greeter_client"
kill -TERM "$server_pid"
wait "$server_pid" || fail "greeter_server exited $?: $(cat "$work/server.out")"
grep -qxF 'greeter_server: stopped' "$work/server.out" ||
  fail "greeter_server did not stop cleanly: $(cat "$work/server.out")"
echo "ok   greeter_server (serving, then stopped on SIGTERM)"
if [ -n "${SHOW:-}" ]; then
  cat "$work/server.out" "$work/client.out"
fi
