#!/usr/bin/env bash
# The main job: set up, build, and run the xdsfed CLI on the embedded default
# (until `xdsfed demo` exists: the gRFC A47 "Multiple Authorities" bootstrap).
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/setup.sh
export GRPC_EXPERIMENTAL_XDS_FEDERATION=true
build/bin/xdsfed bootstrap --bootstrap examples/multiple_authorities.json
