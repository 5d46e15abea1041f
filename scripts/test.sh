#!/usr/bin/env bash
# Everything CI checks: set up, build, and run all tests.
#   1. build/       gcc RelWithDebInfo: unit + e2e tests, fuzz corpus replays
#   2. build-asan/  clang, ASan+UBSan, -Wthread-safety -Werror: the same tests,
#                   plus the libFuzzer targets run for FUZZ_SECONDS each
#   3. build-tsan/  clang, TSan: the unit tests of lib/client, lib/cluster,
#                   lib/lrs, lib/xds_config, lib/channel and lib/server (their
#                   threads and locks; lib/channel over fake endpoints,
#                   lib/server's XdsClient over a fake transport)
#   4. the install check, then clang-format --dry-run -Werror
# Env: JOBS (default 2), FUZZ_SECONDS (default 20), SKIP_ASAN=1 / SKIP_TSAN=1
# to skip step 2 / 3.
set -euo pipefail
cd "$(dirname "$0")/.."
JOBS="${JOBS:-2}"
FUZZ_SECONDS="${FUZZ_SECONDS:-20}"

scripts/setup.sh
echo "== tests (gcc) =="
ctest --test-dir build -j "$JOBS" --output-on-failure

if [ "${SKIP_ASAN:-0}" != 1 ]; then
  echo "== tests (clang, ASan+UBSan) =="
  CC=clang CXX=clang++ cmake -S . -B build-asan -G Ninja \
    -DCMAKE_BUILD_TYPE=Debug -DXDSFED_SANITIZE=address,undefined \
    -DXDSFED_BUILD_FUZZ=ON -DXDSFED_BUILD_BENCH=OFF -DXDSFED_WERROR=ON >/dev/null
  cmake --build build-asan -j "$JOBS"
  ASAN_OPTIONS=detect_leaks=1 UBSAN_OPTIONS=print_stacktrace=1 \
    ctest --test-dir build-asan -j "$JOBS" --output-on-failure

  echo "== fuzzers (${FUZZ_SECONDS}s each) =="
  shopt -s nullglob
  for fuzzer in build-asan/fuzz/*_fuzzer; do
    name=$(basename "$fuzzer")
    work=$(mktemp -d)
    cp -r "fuzz/corpus/$name/." "$work/" 2>/dev/null || true
    echo "-- $name"
    "$fuzzer" -max_total_time="$FUZZ_SECONDS" -print_final_stats=1 \
      -rss_limit_mb=2048 -timeout=10 "$work" 2>&1 |
      grep -E "^(stat::number_of_executed_units|Done|==[0-9]+==ERROR|SUMMARY)" || true
    status=${PIPESTATUS[0]}
    rm -rf "$work"
    if [ "$status" -ne 0 ]; then
      echo "fuzzer $name failed (exit $status)"
      exit 1
    fi
  done
fi

if [ "${SKIP_TSAN:-0}" != 1 ]; then
  # Only the client: Debian's grpc++ is not TSan-instrumented, so tests that
  # run real gRPC would report its internals.
  echo "== tests (clang, TSan: client) =="
  CC=clang CXX=clang++ cmake -S . -B build-tsan -G Ninja \
    -DCMAKE_BUILD_TYPE=RelWithDebInfo -DXDSFED_SANITIZE=thread \
    -DXDSFED_BUILD_BENCH=OFF -DXDSFED_WERROR=ON >/dev/null
  # Every unit test of client, cluster, lrs and xds_config (issue 11).
  tsan_tests="client_test cluster_test cluster_resolution_test lb_config_test
    lrs_test xds_config_test server_test channel_test"
  # shellcheck disable=SC2086
  cmake --build build-tsan -j "$JOBS" --target $tsan_tests
  for t in $tsan_tests; do
    TSAN_OPTIONS=halt_on_error=1 "build-tsan/tests/$t"
  done
fi

echo "== install: find_package(xdsfed) and pkg-config =="
tests/install/check.sh build

echo "== clang-format =="
git ls-files '*.h' '*.cc' | xargs -r clang-format --dry-run -Werror
echo "all checks passed"
