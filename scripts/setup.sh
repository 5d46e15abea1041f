#!/usr/bin/env bash
# Installs the Debian 12 packages xdsfed needs (only those missing) and
# configures + builds the main tree in build/ (gcc, RelWithDebInfo: what the
# tests use), or in BUILD_DIR with BUILD_TYPE (scripts/demo.sh: a Release
# CLI in build-release/).
# Usage: [BUILD_DIR=dir] [BUILD_TYPE=type] [BUILD_TARGETS="t1 t2"]
#        scripts/setup.sh [extra cmake -D options...]
set -euo pipefail
cd "$(dirname "$0")/.."

PACKAGES=(
  build-essential cmake ninja-build pkg-config git
  clang libclang-rt-14-dev clang-format
  libgrpc++-dev libprotobuf-dev libprotoc-dev protobuf-compiler
  protobuf-compiler-grpc libabsl-dev libjsoncpp-dev
  libgtest-dev libgmock-dev libbenchmark-dev
  libre2-dev
  prometheus-cpp-dev
  openssl libssl-dev
)

missing=()
for p in "${PACKAGES[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" \
    || missing+=("$p")
done
if ((${#missing[@]})); then
  echo "setup: installing ${missing[*]}"
  SUDO=""
  [ "$(id -u)" -eq 0 ] || SUDO="sudo"
  $SUDO apt-get update -q
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -q --no-install-recommends "${missing[@]}"
fi

JOBS="${JOBS:-2}"
BUILD_DIR="${BUILD_DIR:-build}"
cmake -S . -B "$BUILD_DIR" -G Ninja \
  -DCMAKE_BUILD_TYPE="${BUILD_TYPE:-RelWithDebInfo}" "$@" >/dev/null
# BUILD_TARGETS: only these (scripts/demo.sh needs the CLI alone); default all.
# shellcheck disable=SC2086
cmake --build "$BUILD_DIR" -j "$JOBS" ${BUILD_TARGETS:+--target $BUILD_TARGETS}
