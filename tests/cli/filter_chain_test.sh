#!/bin/sh
# `xdsfed filter-chain` (CLI.md §filter-chain, issue 12): the chain a
# connection selects in examples/resources/listener_server.json (A36 order:
# destination prefix, source type, source prefix, source port; then the
# default chain), validation errors, usage errors.
# Usage: tests/cli/filter_chain_test.sh [BUILD_DIR]   (default: build)
set -u
. "$(dirname "$0")/cli_test_lib.sh"
ex="$root/examples/resources"
l="$ex/listener_server.json"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fc() { "$xdsfed" filter-chain "$@"; }

expect "CLI.md example: most specific source prefix + exact port" 0 \
  '"selected":{"filter_chain_index":1}' \
  fc --destination 10.1.2.3:80 --source 10.4.2.3:15000 "$l"
expect "keys" 0 \
  '"destination":"10.1.2.3:80","name":"grpc/server?xds.resource.listening_address=0.0.0.0:50051","selected":{"filter_chain_index":0},"source":"10.4.9.9:1","valid":true' \
  fc --destination 10.1.2.3:80 --source 10.4.9.9:1 "$l"
expect "A36: most specific source prefix lacks the port: default" 0 \
  '"selected":"default"' \
  fc --destination 10.1.2.3:80 --source 10.4.2.3:15001 "$l"
expect "unknown peer: no chain without source constraints: default" 0 \
  '"selected":"default","source":null' \
  fc --destination 10.1.2.3:80 "$l"
expect "SAME_IP_OR_LOOPBACK from 127.0.0.1" 0 \
  '"selected":{"filter_chain_index":2}' \
  fc --destination 127.0.0.1:50051 --source 127.0.0.1:40000 "$l"
expect "same IP counts as local" 0 '"selected":{"filter_chain_index":2}' \
  fc --destination 192.168.0.1:50051 --source 192.168.0.1:40000 "$l"
expect "EXTERNAL with only a local chain: default" 0 '"selected":"default"' \
  fc --destination 192.168.0.1:50051 --source 8.8.8.8:1 "$l"
expect "IPv6, bracketed" 0 \
  '"destination":"[fd00::1]:50051","name"' \
  fc --destination '[fd00::1]:50051' --source '[fd00::2]:1' "$l"
expect "IPv6 chain index counts chains that never match" 0 \
  '"selected":{"filter_chain_index":4}' \
  fc --destination '[fd00::1]:50051' --source '[fd00::2]:1' "$l"

cat > "$tmp/nodefault.json" <<'JSON'
{"name":"l","address":{"socket_address":{"address":"0.0.0.0","port_value":1}},
 "filter_chains":[{"filter_chain_match":{"prefix_ranges":[{"address_prefix":"10.0.0.0","prefix_len":8}]},
  "filters":[{"name":"hcm","typed_config":{"@type":"type.googleapis.com/envoy.extensions.filters.network.http_connection_manager.v3.HttpConnectionManager",
   "rds":{"config_source":{"ads":{}},"route_config_name":"r"},
   "http_filters":[{"name":"router","typed_config":{"@type":"type.googleapis.com/envoy.extensions.filters.http.router.v3.Router"}}]}}]}]}
JSON
expect "no match and no default chain: none" 0 '"selected":"none"' \
  fc --destination 11.0.0.1:1 --source 8.8.8.8:1 "$tmp/nodefault.json"
expect "match without a default chain" 0 '"selected":{"filter_chain_index":0}' \
  fc --destination 10.0.0.1:1 --source 8.8.8.8:1 "$tmp/nodefault.json"
# The source-type rule (README "Filter chain selection"): a connection whose
# own type has no chains falls back to ANY (A36 standard matching logic =
# Envoy, grpc-go); gRPC C-core 1.51 would give these peers no chain.
hcm='"filters":[{"name":"hcm","typed_config":{"@type":"type.googleapis.com/envoy.extensions.filters.network.http_connection_manager.v3.HttpConnectionManager","rds":{"config_source":{"ads":{}},"route_config_name":"r"},"http_filters":[{"name":"router","typed_config":{"@type":"type.googleapis.com/envoy.extensions.filters.http.router.v3.Router"}}]}}]'
cat > "$tmp/types.json" <<JSON
{"name":"l","address":{"socket_address":{"address":"0.0.0.0","port_value":1}},
 "filter_chains":[{$hcm},{"filter_chain_match":{"source_type":"EXTERNAL"},$hcm}]}
JSON
expect "A36/Envoy/grpc-go: EXTERNAL peer, EXTERNAL chain" 0 \
  '"selected":{"filter_chain_index":1}' \
  fc --destination 10.0.0.1:1 --source 10.0.0.2:1 "$tmp/types.json"
expect "A36/Envoy/grpc-go: same-IP peer, no SAME_IP_OR_LOOPBACK chain: ANY" 0 \
  '"selected":{"filter_chain_index":0}' \
  fc --destination 10.0.0.1:1 --source 10.0.0.1:2 "$tmp/types.json"
expect "A36/Envoy/grpc-go: loopback peer, no SAME_IP_OR_LOOPBACK chain: ANY" 0 \
  '"selected":{"filter_chain_index":0}' \
  fc --destination 127.0.0.1:1 --source 127.0.0.1:2 "$tmp/types.json"
sed 's/"filter_chains":\[{/"filter_chains":[{"filter_chain_match":{"prefix_ranges":[{"address_prefix":"10.0.0.0","prefix_len":8}]},"filters":[]},{/' \
  "$tmp/nodefault.json" > "$tmp/dup.json"
expect "A36: duplicate matchers are rejected (exit 1)" 1 \
  'duplicate matching rules detected when adding filter chain' \
  fc --destination 10.0.0.1:1 "$tmp/dup.json"
expect "rejected keeps the keys" 1 '"name":"l"' \
  fc --destination 10.0.0.1:1 "$tmp/dup.json"
expect "a client Listener is not a server Listener" 1 \
  'not a server Listener: it has api_listener' \
  fc --destination 10.0.0.1:1 "$ex/listener_api.json"
expect "no --destination" 2 '--destination IP:PORT is required' fc "$l"
expect "bad --destination" 2 'expected IP:PORT' \
  fc --destination localhost:80 "$l"
expect "bad --source (unbracketed IPv6)" 2 'expected IP:PORT' \
  fc --destination 10.0.0.1:1 --source ::1:80 "$l"
expect "missing file" 2 'cannot read' \
  fc --destination 10.0.0.1:1 "$tmp/none.json"
expect "two files" 2 'usage: xdsfed filter-chain' \
  fc --destination 10.0.0.1:1 "$l" "$l"

[ "$failures" = 0 ] || { echo "$failures failure(s)"; exit 1; }
