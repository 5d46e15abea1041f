#!/bin/sh
# `xdsfed call` over mTLS from the bootstrap alone (issue 24 item 4, gRFC
# A29 client side): `xdsfed serve` serves a DownstreamTlsContext chain
# (mutual TLS), the client's Cluster carries an UpstreamTlsContext naming
# the same bootstrap's file_watcher instances; `xdsfed call` gets OK. A
# Cluster whose match_subject_alt_names the server's certificate does not
# satisfy fails every RPC, the status naming the SANs presented and the
# matchers. Certificates made here by openssl.
# Usage: tests/cli/call_tls_test.sh [BUILD_DIR]   (default: build)
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

wait_for() {
  i=0
  while ! grep -qF -- "$2" "$1" 2>/dev/null && [ $i -lt 200 ]; do
    sleep 0.1
    i=$((i + 1))
  done
  grep -qF -- "$2" "$1"
}

(cd "$dir" &&
  openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:P-256 -nodes \
    -keyout ca.key -out ca.pem -subj /CN=ca -days 1 2>/dev/null &&
  for n in server client; do
    openssl req -newkey ec -pkeyopt ec_paramgen_curve:P-256 -nodes \
      -keyout $n.key -out $n.csr -subj /CN=$n 2>/dev/null &&
      printf 'subjectAltName=URI:spiffe://demo/%s\n' $n >$n.ext &&
      openssl x509 -req -in $n.csr -CA ca.pem -CAkey ca.key -CAcreateserial \
        -out $n.pem -days 1 -extfile $n.ext 2>/dev/null || exit 1
  done) || { echo "FAIL openssl"; exit 1; }

echo '{"version":"0","resources":{}}' >"$dir/snap.json"
"$xdsfed" control-plane --listen 127.0.0.1:0 --snapshot "$dir/snap.json" \
  >"$dir/cp.out" 2>"$dir/cp.err" &
cp_pid=$!
wait_for "$dir/cp.out" '"port":'
cp_port=$(head -n 1 "$dir/cp.out" | sed 's/.*"port":\([0-9]*\).*/\1/')
port=$((20000 + ($$ + 7) % 20000))
server_listener="grpc/server?xds.resource.listening_address=127.0.0.1:$port"
hcm() { echo "{\"@type\":\"type.googleapis.com/envoy.extensions.filters.network.http_connection_manager.v3.HttpConnectionManager\",\"rds\":{\"config_source\":{\"ads\":{}},\"route_config_name\":\"$1\"},\"http_filters\":[{\"name\":\"router\",\"typed_config\":{\"@type\":\"type.googleapis.com/envoy.extensions.filters.http.router.v3.Router\"}}]}"; }
downstream='{"@type":"type.googleapis.com/envoy.extensions.transport_sockets.tls.v3.DownstreamTlsContext","require_client_certificate":true,"common_tls_context":{"tls_certificate_provider_instance":{"instance_name":"server_id"},"validation_context":{"ca_certificate_provider_instance":{"instance_name":"ca"}}}}'
# upstream SAN_MATCHERS
upstream() { echo "{\"@type\":\"type.googleapis.com/envoy.extensions.transport_sockets.tls.v3.UpstreamTlsContext\",\"common_tls_context\":{\"tls_certificate_provider_instance\":{\"instance_name\":\"client_id\"},\"validation_context\":{\"ca_certificate_provider_instance\":{\"instance_name\":\"ca\"},\"match_subject_alt_names\":$1}}}"; }
# snapshot VERSION SAN_MATCHERS
snapshot() {
  cat >"$dir/snap.json.new" <<SNAP
{"version":"$1","resources":{
 "envoy.config.listener.v3.Listener":{
   "svc":{"api_listener":{"api_listener":$(hcm route)}},
   "$server_listener":{"address":{"socket_address":{"address":"127.0.0.1","port_value":$port}},"default_filter_chain":{"filters":[{"name":"hcm","typed_config":$(hcm server-route)}],"transport_socket":{"name":"tls","typed_config":$downstream}}}},
 "envoy.config.route.v3.RouteConfiguration":{
   "route":{"virtual_hosts":[{"name":"vh","domains":["*"],"routes":[{"match":{"prefix":""},"route":{"cluster":"c"}}]}]},
   "server-route":{"virtual_hosts":[{"name":"vh","domains":["*"],"routes":[{"match":{"prefix":""},"non_forwarding_action":{}}]}]}},
 "envoy.config.cluster.v3.Cluster":{"c":{"type":"EDS","eds_cluster_config":{"eds_config":{"ads":{}}},"transport_socket":{"name":"tls","typed_config":$(upstream "$2")}}},
 "envoy.config.endpoint.v3.ClusterLoadAssignment":{"c":{"endpoints":[{"locality":{"region":"r1"},"load_balancing_weight":1,"lb_endpoints":[{"endpoint":{"address":{"socket_address":{"address":"127.0.0.1","port_value":$port}}}}]}]}}}}
SNAP
  mv "$dir/snap.json.new" "$dir/snap.json"
}
snapshot 1 '[{"exact":"spiffe://demo/server"}]'
fw() { echo "{\"plugin_name\":\"file_watcher\",\"config\":{$1,\"refresh_interval\":\"1s\"}}"; }
boot="{\"xds_servers\":[{\"server_uri\":\"127.0.0.1:$cp_port\",\"channel_creds\":[{\"type\":\"insecure\"}]}],\"node\":{\"id\":\"cli-call-tls\"},\"server_listener_resource_name_template\":\"grpc/server?xds.resource.listening_address=%s\",\"certificate_providers\":{\"server_id\":$(fw "\"certificate_file\":\"$dir/server.pem\",\"private_key_file\":\"$dir/server.key\""),\"client_id\":$(fw "\"certificate_file\":\"$dir/client.pem\",\"private_key_file\":\"$dir/client.key\""),\"ca\":$(fw "\"ca_certificate_file\":\"$dir/ca.pem\"")}}"

"$xdsfed" --bootstrap-json "$boot" serve --listen "127.0.0.1:$port" \
  --id tls-server >"$dir/serve.out" 2>"$dir/serve.err" &
serve_pid=$!
wait_for "$dir/serve.out" '"serving":true' || {
  echo "FAIL serve never served"; cat "$dir/serve.out" "$dir/serve.err"; exit 1; }

expect "call tls: mTLS from the bootstrap alone, SAN exact match" 0 \
  '"backends":{"tls-server":3}' \
  "$xdsfed" --bootstrap-json "$boot" call --target xds:///svc --count 3 \
  --deadline-ms 10000

snapshot 2 '[{"exact":"spiffe://demo/other"}]'

sleep 1
expect "call tls: a SAN mismatch fails naming SANs and matchers" 1 \
  'none matches match_subject_alt_names [exact:\"spiffe://demo/other\"]' \
  "$xdsfed" --bootstrap-json "$boot" call --target xds:///svc --count 1 \
  --deadline-ms 5000
expect "call tls: ...and the SAN the server presented" 1 \
  'presents [URI:\"spiffe://demo/server\"]' \
  "$xdsfed" --bootstrap-json "$boot" call --target xds:///svc --count 1 \
  --deadline-ms 5000
[ "$failures" = 0 ]
