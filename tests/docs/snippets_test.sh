#!/bin/sh
# Issue 26 item 1: every code snippet in README.md, docs/*.md and the usage
# comments of public headers compiles against the library. The snippets are
# extracted (tests/docs/extract_snippets.awk says how they are tagged) into
# one translation unit after tests/docs/snippet_context.h, with #line
# directives, and compiled with -fsyntax-only: an error names the doc or
# header line.
# Usage: tests/docs/snippets_test.sh SOURCE_DIR FLAGS_FILE CXX
#   FLAGS_FILE: the -I flags of the library and the snippets' protos, one a
#   line (written by tests/docs/CMakeLists.txt)
set -u
root=$1
flags_file=$2
cxx=$3
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
: >"$work/inc"
: >"$work/body"
: >"$work/err"
headers=$(find "$root/lib" -name '*.h' -not -path '*/internal/*' | sort)
awk -v root="$root" -v inc="$work/inc" -v out="$work/body" -v err="$work/err" \
  -f "$root/tests/docs/extract_snippets.awk" \
  "$root/README.md" "$root"/docs/*.md $headers || exit 1
if [ -s "$work/err" ]; then
  sed 's/^/FAIL /' "$work/err"
  exit 1
fi
count=$(grep -c '^namespace snippet_' "$work/body")
if [ "$count" -eq 0 ]; then
  echo "FAIL no snippet found"
  exit 1
fi
{
  echo '#include "tests/docs/snippet_context.h"'
  sort -u "$work/inc"
  echo 'namespace docs_snippets {'
  cat "$work/body"
  echo '}  // namespace docs_snippets'
} >"$work/snippets.cc"
if ! "$cxx" -std=c++17 -fsyntax-only -Wall -Wno-unused -Wno-unused-variable \
  -Wno-unused-but-set-variable -I"$root" $(cat "$flags_file") \
  "$work/snippets.cc" 2>"$work/cxx.err"; then
  echo "FAIL snippets do not compile:"
  cat "$work/cxx.err"
  exit 1
fi
if [ -s "$work/cxx.err" ]; then
  echo "FAIL snippets compile with warnings:"
  cat "$work/cxx.err"
  exit 1
fi
echo "$count snippets compiled"
