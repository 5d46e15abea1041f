#!/bin/sh
# `xdsfed validate` against examples/resources (CLI.md §validate): output
# keys, exit codes, "@type" checks, binary .pb input, and a Listener whose
# HttpConnectionManager and Router arrive as Anys (their types must be linked
# into the binary for the JSON parser to resolve them).
# Usage: tests/cli/validate_test.sh [BUILD_DIR]   (default: build)
set -u
. "$(dirname "$0")/cli_test_lib.sh"
ex="$root/examples/resources"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

expect "valid EDS cluster" 0 '"resource":{"eds_service_name":"endpoints-a"' \
  "$xdsfed" validate --type Cluster "$ex/cluster_eds.json"
expect "aggregate cluster via Any" 0 '"prioritized_cluster_names":["cluster-a","cluster-dns"]' \
  "$xdsfed" validate --type cds "$ex/cluster_aggregate.json"
expect "invalid cluster, federation on" 1 'field:eds_cluster_config.service_name error:must be set if Cluster resource has an xdstp name' \
  "$xdsfed" validate --federation=on --type Cluster "$ex/cluster_invalid.json"
expect "xdstp rule off without federation" 1 '"valid":false' \
  "$xdsfed" validate --federation=off --type Cluster "$ex/cluster_invalid.json"
expect "endpoints" 0 '"parts_per_million":50000' \
  "$xdsfed" validate --type ClusterLoadAssignment "$ex/endpoints.json"
expect "invalid endpoints" 1 'field:policy.drop_overloads[0].category error:empty drop category name' \
  "$xdsfed" validate --type eds "$ex/endpoints_invalid.json"
expect "listener with HCM and Router Anys" 0 '"name":"server.example.com"' \
  "$xdsfed" validate --type Listener "$ex/listener_api.json"
expect "route configuration" 0 '"name":"route-a"' \
  "$xdsfed" validate --type RouteConfiguration "$ex/route_config.json"
expect "@type must match --type" 1 '"@type\" is \"type.googleapis.com/envoy.config.endpoint.v3.ClusterLoadAssignment\"' \
  "$xdsfed" validate --type Cluster "$ex/endpoints.json"
printf '{"name":"c","no_such_field":1}' > "$tmp/unknown.json"
expect "unknown JSON field" 1 'invalid proto3 JSON for envoy.config.cluster.v3.Cluster' \
  "$xdsfed" validate --type Cluster "$tmp/unknown.json"
# Binary: the fuzz seed minus its flag byte is a serialized Cluster.
tail -c +2 "$root/fuzz/corpus/cluster_decoder_fuzzer/cluster_logical_dns" > "$tmp/dns.pb"
expect "binary .pb" 0 '"dns_host":"dns.example.com"' \
  "$xdsfed" validate --type Cluster "$tmp/dns.pb"
expect "missing file" 2 'cannot read' \
  "$xdsfed" validate --type Cluster "$tmp/none.json"
expect "unknown type" 2 'unknown resource type' \
  "$xdsfed" validate --type Secret "$ex/cluster_eds.json"
expect "no --type" 2 '--type is required' \
  "$xdsfed" validate "$ex/cluster_eds.json"

# Issue 16 items 1, 2 and 7: hostile files are errors with messages that say
# what is wrong, never an abort.
awk 'BEGIN { for (i = 0; i < 1001; i++) printf "["; for (i = 0; i < 1001; i++) printf "]"; print "" }' > "$tmp/deep.json"
expect "deep nesting is an error, not an abort" 1 'arrays and objects nest deeper than 64 levels' \
  "$xdsfed" validate --type Listener "$tmp/deep.json"
printf '{"name":"a\000b"}' > "$tmp/nul.json"
expect "raw NUL in a string: the bootstrap's rule" 1 'control character in string' \
  "$xdsfed" validate --type Cluster "$tmp/nul.json"
expect "the same file as a bootstrap" 1 'control character in string' \
  "$xdsfed" bootstrap --bootstrap "$tmp/nul.json"
sed 's/filters.network.http_connection_manager.v3.HttpConnectionManager/filters.http.router.v3.Router/' \
  "$ex/listener_api.json" > "$tmp/wrong_inner_type.json"
expect "wrong inner @type is named" 1 'api_listener.api_listener: \"@type\" names envoy.extensions.filters.http.router.v3.Router, which has no field \"http_filters\"' \
  "$xdsfed" validate --type Listener "$tmp/wrong_inner_type.json"
mkdir "$tmp/dir"
expect "a directory" 2 'is a directory' \
  "$xdsfed" validate --type Cluster "$tmp/dir"
# Unknown groups nested 200 deep: libprotobuf's recursion limit.
awk 'BEGIN { for (i = 0; i < 200; i++) printf "\373\177"; for (i = 0; i < 200; i++) printf "\374\177" }' > "$tmp/deep.pb"
expect "binary nested too deeply says so" 1 'messages nest deeper than protobuf' \
  "$xdsfed" validate --type Cluster "$tmp/deep.pb"

[ "$failures" = 0 ] && echo "all passed" || { echo "$failures failed"; exit 1; }
