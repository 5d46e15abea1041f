#!/usr/bin/env bash
# Installs build/ into a temporary prefix, then builds and runs a consumer
# with find_package(xdsfed) and with pkg-config.
# Usage: tests/install/check.sh BUILD_DIR
set -euo pipefail
build=$(cd "$1" && pwd)
here=$(cd "$(dirname "$0")" && pwd)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cmake --install "$build" --prefix "$work/prefix" >/dev/null
cmake -S "$here" -B "$work/cmake" -G Ninja -DCMAKE_PREFIX_PATH="$work/prefix" >/dev/null
cmake --build "$work/cmake" >/dev/null
"$work/cmake/consumer" >/dev/null
PKG_CONFIG_PATH="$work/prefix/lib/pkgconfig" \
  g++ -std=c++17 "$here/consumer.cc" -o "$work/pc_consumer" \
  $(PKG_CONFIG_PATH="$work/prefix/lib/pkgconfig" pkg-config --cflags --libs xdsfed)
"$work/pc_consumer" >/dev/null
echo "install check passed: find_package(xdsfed) and pkg-config xdsfed"
