#!/bin/sh
# `xdsfed name [--type TYPE] NAME...` (docs/cli.md#name): --type takes the
# type URLs and the short forms `watch` and `validate` take (issue 29 item
# 6: it refused Listener, lds, ...). Table: TYPE, NAME, exit, output.
# Usage: tests/cli/name_test.sh [BUILD_DIR]   (default: build)
set -u
. "$(dirname "$0")/cli_test_lib.sh"
L=xdstp://a.com/envoy.config.listener.v3.Listener/x
R=xdstp://a.com/envoy.config.route.v3.RouteConfiguration/x
C=xdstp://a.com/envoy.config.cluster.v3.Cluster/x
E=xdstp://a.com/envoy.config.endpoint.v3.ClusterLoadAssignment/x
while IFS='|' read -r type name rc want; do
  [ -z "$type" ] && continue
  expect "name --type $type $name" "$rc" "$want" \
    "$xdsfed" --federation=on name --type "$type" "$name"
done <<TABLE
Listener|$L|0|"valid":true
lds|$L|0|"valid":true
LDS|$L|0|"valid":true
RouteConfiguration|$R|0|"valid":true
rds|$R|0|"valid":true
Cluster|$C|0|"valid":true
cds|$C|0|"valid":true
ClusterLoadAssignment|$E|0|"valid":true
eds|$E|0|"valid":true
envoy.config.listener.v3.Listener|$L|0|"valid":true
type.googleapis.com/envoy.config.listener.v3.Listener|$L|0|"valid":true
Cluster|$L|1|"valid":false
eds|$C|1|"valid":false
TABLE
[ "$failures" = 0 ] && echo "all passed" || { echo "$failures failed"; exit 1; }
