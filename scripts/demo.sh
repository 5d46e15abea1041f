#!/usr/bin/env bash
# The main job: set up, build, and run `xdsfed demo`: two embedded control
# planes serve the two authorities of the gRFC A47 "Multiple Authorities"
# bootstrap, and an XdsClient follows Listener -> RouteConfiguration ->
# Cluster -> ClusterLoadAssignment across both; real RPCs then go through an
# XdsChannel to loopback health backends (circuit breaker, load report,
# failover to the LOGICAL_DNS fallback and back).
# stdout carries only the demo's JSON lines (one object per line, each with
# "step"), so `scripts/demo.sh | jq .` works; setup, apt and build output go
# to stderr.
set -euo pipefail
cd "$(dirname "$0")/.."
# Only the CLI is built here, optimized (Release) and in its own
# build-release/, without tests, benches and fuzzers; scripts/test.sh keeps
# its RelWithDebInfo build/.
BUILD_DIR=build-release BUILD_TYPE=Release BUILD_TARGETS=xdsfed_cli \
  scripts/setup.sh -DXDSFED_BUILD_TESTS=OFF -DXDSFED_BUILD_BENCH=OFF >&2
exec build-release/bin/xdsfed demo
