#!/usr/bin/env bash
# The main job: set up, build, and run `xdsfed demo`: two embedded control
# planes serve the two authorities of the gRFC A47 "Multiple Authorities"
# bootstrap, and an XdsClient follows Listener -> RouteConfiguration ->
# Cluster -> ClusterLoadAssignment across both (JSON lines on stdout).
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/setup.sh
build/bin/xdsfed demo
