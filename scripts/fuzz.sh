#!/usr/bin/env bash
# Runs the libFuzzer targets for longer than CI does (scripts/test.sh gives
# each 20 s): every fuzzer, or the one named, on a copy of its seed corpus
# (fuzz/corpus/NAME), one after the other, and prints one summary line each:
#   name_fuzzer: 2400000 execs (2000/s), cov 1234 ft 5678, corpus 812 inputs
#   (96 KB), peak RSS 310 MB, findings: none
# The full libFuzzer log and anything it found (crash-*, leak-*, oom-*,
# timeout-*) go to OUT/NAME/ (default fuzz-out/, git-ignored); copy a finding
# to ../shared/repro/ and, once fixed, into the corpus.
#
# Usage: scripts/fuzz.sh [SECONDS] [NAME]    (default: 1800 s, every fuzzer)
# Env: BUILD (default build-asan; configured and built here when missing,
#      with scripts/test.sh's flags), OUT, NICE (default 10), RSS_LIMIT_MB
#      (default 2048), EXTRA (more libFuzzer flags).
# Exit status: 0 if nothing was found, 1 otherwise.
#
# Memory: ASan keeps freed memory in a quarantine (256 MB by default) to
# catch use-after-free, and libFuzzer keeps every corpus input in memory;
# RSS grows with both, not with iterations (fuzz/RESULTS.md, name_fuzzer,
# which caps its quarantine itself); -rss_limit_mb stops a real leak.
set -uo pipefail
cd "$(dirname "$0")/.."
SECONDS_EACH="${1:-1800}"
ONLY="${2:-}"
BUILD="${BUILD:-build-asan}"
OUT="${OUT:-fuzz-out}"
NICE="${NICE:-10}"
RSS_LIMIT_MB="${RSS_LIMIT_MB:-2048}"
EXTRA="${EXTRA:-}"

if [ ! -d "$BUILD/fuzz" ]; then
  CC=clang CXX=clang++ cmake -S . -B "$BUILD" -G Ninja \
    -DCMAKE_BUILD_TYPE=Debug -DXDSFED_SANITIZE=address,undefined \
    -DXDSFED_BUILD_FUZZ=ON -DXDSFED_BUILD_BENCH=OFF -DXDSFED_WERROR=ON \
    >/dev/null || exit 2
fi
if [ -n "$ONLY" ]; then
  cmake --build "$BUILD" -j "${JOBS:-2}" --target "$ONLY" || exit 2
  fuzzers=("$BUILD/fuzz/$ONLY")
else
  cmake --build "$BUILD" -j "${JOBS:-2}" || exit 2
  fuzzers=("$BUILD"/fuzz/*_fuzzer)
fi

found=0
for fuzzer in "${fuzzers[@]}"; do
  name=$(basename "$fuzzer")
  if [ ! -x "$fuzzer" ]; then
    echo "$name: no such fuzzer ($fuzzer)" >&2
    exit 2
  fi
  dir="$OUT/$name"
  rm -rf "$dir"
  mkdir -p "$dir/corpus"
  cp -r "fuzz/corpus/$name/." "$dir/corpus/" 2>/dev/null || true
  log="$dir/log.txt"
  # shellcheck disable=SC2086  # EXTRA is a list of flags
  (cd "$dir" &&
    ASAN_OPTIONS="${ASAN_OPTIONS:-detect_leaks=1}" \
      UBSAN_OPTIONS="${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1}" \
      nice -n "$NICE" "$OLDPWD/$fuzzer" -max_total_time="$SECONDS_EACH" \
      -print_final_stats=1 -rss_limit_mb="$RSS_LIMIT_MB" -timeout=10 \
      $EXTRA corpus >log.txt 2>&1)
  status=$?
  execs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log" | tail -1)
  rate=$(sed -n 's/^stat::average_exec_per_sec: *//p' "$log" | tail -1)
  rss=$(sed -n 's/^stat::peak_rss_mb: *//p' "$log" | tail -1)
  last=$(grep -E '^#[0-9]+' "$log" | grep -E ' cov: ' | tail -1)
  cov=$(printf '%s' "$last" | sed -n 's/.* cov: \([0-9]*\).*/\1/p')
  ft=$(printf '%s' "$last" | sed -n 's/.* ft: \([0-9]*\).*/\1/p')
  units=$(find "$dir/corpus" -type f | wc -l)
  kb=$(du -sk --apparent-size "$dir/corpus" | cut -f1)
  findings=$(cd "$dir" && ls crash-* leak-* oom-* timeout-* 2>/dev/null |
    tr '\n' ' ')
  if [ "$status" -ne 0 ] || [ -n "$findings" ]; then
    found=1
    findings="exit $status ${findings:-(see $log)}"
  fi
  echo "$name: ${execs:-?} execs (${rate:-?}/s), cov ${cov:-?} ft ${ft:-?}," \
    "corpus $units inputs (${kb} KB), peak RSS ${rss:-?} MB," \
    "findings: ${findings:-none}"
done
exit "$found"
