#!/bin/sh
# `xdsfed watch --target` follows a federated chain (and its cluster tree)
# across two `xdsfed control-plane` processes (issue 4 "Done when"; CLI.md §watch):
# Listener + RouteConfiguration from xds.authority.com's server, Cluster +
# ClusterLoadAssignment from xds.other.com's. Also TYPE:NAME watches and a
# does-not-exist.
# Usage: tests/cli/watch_test.sh [BUILD_DIR]   (default: build)
set -u
. "$(dirname "$0")/cli_test_lib.sh"
tmp=$(mktemp -d)
pids=""
trap 'for p in $pids; do kill $p 2>/dev/null; done; rm -rf "$tmp"' EXIT

L='xdstp://xds.authority.com/envoy.config.listener.v3.Listener/grpc/client/server.example.com?project_id=1234'
R='xdstp://xds.authority.com/envoy.config.route.v3.RouteConfiguration/route-1'
C='xdstp://xds.other.com/envoy.config.cluster.v3.Cluster/backend'
E='xdstp://xds.other.com/envoy.config.endpoint.v3.ClusterLoadAssignment/backend'

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
L2='xdstp://xds.other.com/envoy.config.listener.v3.Listener/backend'
cat >"$tmp/other.json" <<JSON
{"version":"1","resources":{
 "envoy.config.listener.v3.Listener":{"$L2":{"api_listener":{"api_listener":{
  "@type":"type.googleapis.com/envoy.extensions.filters.network.http_connection_manager.v3.HttpConnectionManager",
  "rds":{"config_source":{"ads":{}},"route_config_name":"$R"},
  "http_filters":[{"name":"router","typed_config":{
   "@type":"type.googleapis.com/envoy.extensions.filters.http.router.v3.Router"}}]}}}},
 "envoy.config.cluster.v3.Cluster":{"$C":{"type":"EDS",
  "eds_cluster_config":{"eds_config":{"ads":{}},"service_name":"$E"}}},
 "envoy.config.endpoint.v3.ClusterLoadAssignment":{"$E":{"endpoints":[
  {"locality":{"region":"r1"},"load_balancing_weight":1,"lb_endpoints":[
   {"endpoint":{"address":{"socket_address":{"address":"10.0.0.1","port_value":80}}}}]}]}}}}
JSON

# start_cp NAME: runs a control plane on a free port, sets PORT.
start_cp() {
  "$xdsfed" control-plane --listen 127.0.0.1:0 --snapshot "$tmp/$1.json" \
    --log "$tmp/$1.log" >"$tmp/$1.out" 2>"$tmp/$1.err" &
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
{"xds_servers":[$(server "$authority_port")],"node":{"id":"watch-test"},
 "client_default_listener_resource_name_template":
  "xdstp://xds.authority.com/envoy.config.listener.v3.Listener/grpc/client/%s?project_id=1234",
 "authorities":{"xds.authority.com":{},
  "xds.other.com":{"xds_servers":[$(server "$other_port")]}}}
JSON

# check NAME WANT_EXIT WANT_COUNT PATTERN FILE
check() {
  count=$(grep -cF -- "$4" "$5")
  if [ "$3" != "$count" ]; then
    echo "FAIL $1: $count lines with $4, want $3:"
    cat "$5"
    failures=$((failures + 1))
  else
    echo "ok   $1"
  fi
}

"$xdsfed" watch --federation=on --bootstrap "$tmp/bootstrap.json" \
  --timeout 3 --quiet --target xds:///server.example.com >"$tmp/target.out"
rc=$?
[ "$rc" = 0 ] || { echo "FAIL target: exit $rc"; failures=$((failures + 1)); }
check "target: 4 changed events" 0 4 '"event":"changed"' "$tmp/target.out"
for n in "$L" "$R" "$C" "$E"; do
  check "target: $n" 0 1 "\"name\":\"$n\"" "$tmp/target.out"
done
check "target: quiet" 0 0 '"resource"' "$tmp/target.out"
# The route's cluster resolved as a channel's cds policy would (A37).
check "target: cluster tree" 0 1 '"event":"cluster_tree"' "$tmp/target.out"
check "target: priority config" 0 1 '"priority_experimental"' "$tmp/target.out"
# Each control plane was asked for its own authority's names only.
check "authority cp: no other.com names" 0 0 'xds.other.com' "$tmp/authority.log"
check "other cp: no authority.com names" 0 0 'xds.authority.com' "$tmp/other.log"

# Issue 11 "Done when": a target with an authority (A47's default template
# for xds.other.com) follows the same chain, from lib/xds_config: the
# Listener from xds.other.com, its RouteConfiguration from
# xds.authority.com, then the cluster and endpoints from xds.other.com.
"$xdsfed" watch --federation=on --bootstrap "$tmp/bootstrap.json" \
  --timeout 3 --quiet --target xds://xds.other.com/backend >"$tmp/other_target.out"
rc=$?
[ "$rc" = 0 ] || { echo "FAIL other target: exit $rc"; failures=$((failures + 1)); }
check "other target: 4 changed events" 0 4 '"event":"changed"' "$tmp/other_target.out"
for n in "$L2" "$R" "$C" "$E"; do
  check "other target: $n" 0 1 "\"name\":\"$n\"" "$tmp/other_target.out"
done
check "other target: one snapshot" 0 1 '"event":"xds_config"' "$tmp/other_target.out"
check "other target: cluster tree" 0 1 '"event":"cluster_tree"' "$tmp/other_target.out"

"$xdsfed" watch --federation=on --bootstrap "$tmp/bootstrap.json" \
  --timeout 2 "cds:$C" "Listener:$L" >"$tmp/plain.out"
check "plain: 2 changed" 0 2 '"event":"changed"' "$tmp/plain.out"
check "plain: resource shown" 0 2 '"resource"' "$tmp/plain.out"

# An old-style LDS name the server lacks: never received, so (as in C-core)
# the 15 s does-not-exist timer decides.
"$xdsfed" watch --federation=on --bootstrap "$tmp/bootstrap.json" \
  --timeout 17 "lds:missing" >"$tmp/missing.out"
check "does not exist" 0 1 '"event":"does_not_exist"' "$tmp/missing.out"

"$xdsfed" watch --bootstrap "$tmp/bootstrap.json" >/dev/null 2>&1
rc=$?
[ "$rc" = 2 ] && echo "ok   usage exit 2" ||
  { echo "FAIL usage: exit $rc"; failures=$((failures + 1)); }

[ "$failures" = 0 ] && echo "all passed" || exit 1
