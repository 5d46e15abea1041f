#!/bin/sh
# `xdsfed cluster-tree --resources SNAPSHOT ROOT` (CLI.md) on
# examples/snapshots/a37_example.json: the A37 worked example A -> [B, C],
# C -> [D, E, B] gives [EDS B, EDS D, LOGICAL_DNS E] (B kept at its earliest
# position), the generated xds_cluster_resolver_experimental config, and the
# errors a channel would report.
# Usage: tests/cli/cluster_tree_test.sh [BUILD_DIR]   (default: build)
set -u
. "$(dirname "$0")/cli_test_lib.sh"
snapshot="$root/examples/snapshots/a37_example.json"
# B's lrs_server is `self`: the server a bootstrap names.
boot='{"xds_servers":[{"server_uri":"127.0.0.1:5000","channel_creds":[{"type":"insecure"}]}]}'

# (Without a bootstrap: mechanisms shown, `self` kept, exit 2: see below.)
expect "A37 example mechanisms" 2 \
  '"discovery_mechanisms":[{"cluster":"B","lrs_load_reporting_server":"self","max_concurrent_requests":1024,"type":"EDS"},{"cluster":"D","eds_service_name":"svc-d","max_concurrent_requests":100,"type":"EDS"},{"cluster":"E","dns_hostname":"localhost:8080","max_concurrent_requests":1024,"type":"LOGICAL_DNS"}]' \
  "$xdsfed" cluster-tree --resources "$snapshot" A
expect "A37 example clusters watched" 0 '"clusters":["A","B","C","D","E"]' \
  "$xdsfed" --bootstrap-json "$boot" cluster-tree --resources "$snapshot" A
# Issue 14 §2: `self` is never dropped from the LB config: without a
# bootstrap there is no config, and the error says a bootstrap is needed.
expect "LRS self without a bootstrap: fails, says so" 2 \
  '"error":"cluster \"B\" sets lrs_server: self (report load to the server the Cluster came from), which only a bootstrap names: give one' \
  env -u GRPC_XDS_BOOTSTRAP -u GRPC_XDS_BOOTSTRAP_CONFIG \
  "$xdsfed" cluster-tree --resources "$snapshot" A
expect "LRS self without a bootstrap: no lb_config" 2 \
  '"discovery_mechanisms":[{"cluster":"B","lrs_load_reporting_server":"self",' \
  env -u GRPC_XDS_BOOTSTRAP -u GRPC_XDS_BOOTSTRAP_CONFIG \
  "$xdsfed" cluster-tree --resources "$snapshot" A
expect "resolver config" 0 \
  '"lb_config":[{"xds_cluster_resolver_experimental":{"discoveryMechanisms":[{"clusterName":"B","lrsLoadReportingServer":{"channel_creds":[{"type":"insecure"}],"server_uri":"127.0.0.1:5000"},"max_concurrent_requests":1024,"type":"EDS"},{"clusterName":"D","edsServiceName":"svc-d","max_concurrent_requests":100,"type":"EDS"},{"clusterName":"E","dnsHostname":"localhost:8080","max_concurrent_requests":1024,"type":"LOGICAL_DNS"}],"xdsLbPolicy":[{"round_robin":{}}]}}]' \
  "$xdsfed" --bootstrap-json '{"xds_servers":[{"server_uri":"127.0.0.1:5000","channel_creds":[{"type":"insecure"}]}]}' \
  cluster-tree --resources "$snapshot" A
expect "LRS self expanded with a bootstrap" 0 \
  '"lrsLoadReportingServer":{"channel_creds":[{"type":"insecure"}],"server_uri":"127.0.0.1:5000"}' \
  "$xdsfed" --bootstrap-json '{"xds_servers":[{"server_uri":"127.0.0.1:5000","channel_creds":[{"type":"insecure"}]}]}' \
  cluster-tree --resources "$snapshot" A
expect "leaf root" 0 '"discovery_mechanisms":[{"cluster":"E",' \
  "$xdsfed" cluster-tree --resources "$snapshot" E
expect "missing child" 1 '"error":"CDS resource \"missing\" does not exist"' \
  "$xdsfed" cluster-tree --resources "$snapshot" broken
expect "self-referencing aggregate" 1 'aggregate cluster graph for \"loop\" has no leaf clusters' \
  "$xdsfed" cluster-tree --resources "$snapshot" loop
expect "missing root" 1 '"valid":false' \
  "$xdsfed" cluster-tree --resources "$snapshot" nope
expect "usage" 2 'usage: xdsfed cluster-tree' "$xdsfed" cluster-tree A
expect "missing snapshot file" 2 '' \
  "$xdsfed" cluster-tree --resources /nonexistent.json A

[ "$failures" -eq 0 ] || exit 1
