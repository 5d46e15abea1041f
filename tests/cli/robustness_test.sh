#!/bin/sh
# Issue 16 items 1 and 2: every command given hostile input (random bytes,
# deep nesting, a directory, an empty file, /dev/null, NUL bytes, an endless
# character device) exits 1 or 2 with exactly one JSON line on stdout
# ({"valid":false,"error":...}), never by a signal and never hanging.
# Invariant per run: 1 <= exit <= 2, one line, starting '{', with
# "valid":false and "error".
# Commands whose input is a string argument (name, resolve, server-name)
# may also find random bytes valid (exit 0): there only the one-line and
# no-signal rules apply. `demo` reads no input and is not run here.
# Commands added later that this script does not know are probed with
# --bootstrap FILE and must at least exit 1 or 2 without a signal or hang.
# Usage: tests/cli/robustness_test.sh [BUILD_DIR]   (default: build)
set -u
. "$(dirname "$0")/cli_test_lib.sh"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
bootstrap_json='{"xds_servers":[{"server_uri":"127.0.0.1:1","channel_creds":[{"type":"insecure"}]}]}'

# The hostile inputs.
mkdir "$tmp/dir"
: > "$tmp/empty"
for i in 1 2 3 4; do head -c $((i * 997)) /dev/urandom > "$tmp/random$i"; done
head -c 65536 /dev/urandom > "$tmp/random.pb"
awk 'BEGIN { for (i = 0; i < 100000; i++) printf "["; for (i = 0; i < 100000; i++) printf "]" }' > "$tmp/deep_arrays"
awk 'BEGIN { for (i = 0; i < 3000; i++) printf "{\"a\":"; printf "1"; for (i = 0; i < 3000; i++) printf "}" }' > "$tmp/deep_objects"
awk 'BEGIN { printf "{\"version\":\"1\",\"resources\":"; for (i = 0; i < 2000; i++) printf "["; for (i = 0; i < 2000; i++) printf "]"; printf "}" }' > "$tmp/deep_inside"
awk 'BEGIN { for (i = 0; i < 5000; i++) printf "\373\177"; for (i = 0; i < 5000; i++) printf "\374\177" }' > "$tmp/deep.pb"
printf '{"name":"a\000b","version":"\000"}' > "$tmp/nul"
printf '{"a":1} trailing' > "$tmp/trailing"
printf '\357\273\277{}' > "$tmp/bom"
inputs="$tmp/dir $tmp/empty /dev/null $tmp/random1 $tmp/random2 $tmp/random3 $tmp/random4 $tmp/random.pb $tmp/deep_arrays $tmp/deep_objects $tmp/deep_inside $tmp/deep.pb $tmp/nul $tmp/trailing $tmp/bom $tmp/none"

runs=0
# check NAME ALLOW_ZERO COMMAND...: runs COMMAND (20 s at most) and checks
# the invariant.
check() {
  name=$1 allow_zero=$2
  shift 2
  runs=$((runs + 1))
  timeout 20 "$@" > "$tmp/out" 2> "$tmp/err" < /dev/null
  rc=$?
  lines=$(wc -l < "$tmp/out")
  first=$(head -c 1 "$tmp/out")
  problem=""
  if [ "$rc" -ge 124 ]; then
    problem="exit $rc (signal or timeout)"
  elif [ "$rc" = 0 ] && [ "$allow_zero" != yes ]; then
    problem="exit 0 on hostile input"
  elif [ "$rc" -gt 2 ]; then
    problem="exit $rc"
  elif [ "$lines" != 1 ] || [ "$first" != "{" ]; then
    problem="$lines lines on stdout, want one JSON object"
  elif [ "$rc" != 0 ] && ! grep -q '"valid":false' "$tmp/out"; then
    problem="no \"valid\":false"
  elif [ "$rc" != 0 ] && ! grep -q '"error":' "$tmp/out"; then
    problem="no \"error\""
  fi
  if [ -n "$problem" ]; then
    echo "FAIL $name: $problem"
    echo "  stdout: $(head -c 300 "$tmp/out")"
    echo "  stderr: $(head -c 300 "$tmp/err")"
    failures=$((failures + 1))
  fi
}

known="bootstrap name resolve server-name validate cluster-tree watch control-plane demo"
for f in $inputs; do
  b=$(basename "$f")
  check "bootstrap --bootstrap $b" no "$xdsfed" bootstrap --bootstrap "$f"
  check "GRPC_XDS_BOOTSTRAP=$b bootstrap" no \
    env GRPC_XDS_BOOTSTRAP="$f" GRPC_XDS_BOOTSTRAP_CONFIG= "$xdsfed" bootstrap
  for type in Listener RouteConfiguration Cluster ClusterLoadAssignment; do
    check "validate --type $type $b" no "$xdsfed" validate --type "$type" "$f"
  done
  check "cluster-tree --resources $b" no "$xdsfed" cluster-tree --resources "$f" root
  check "control-plane --snapshot $b" no \
    "$xdsfed" control-plane --listen 127.0.0.1:0 --snapshot "$f"
  check "resolve --bootstrap $b" no "$xdsfed" resolve --bootstrap "$f" xds:///svc
  check "server-name --bootstrap $b" no \
    "$xdsfed" server-name --bootstrap "$f" 127.0.0.1:8080
  check "watch --bootstrap $b" no \
    "$xdsfed" watch --bootstrap "$f" --timeout 1 lds:x
  # String arguments: the first 200 bytes of the file, NULs dropped.
  if [ -f "$f" ] || [ "$f" = /dev/null ]; then
    arg=$(head -c 200 "$f" | tr -d '\000\n')
    check "name <$b>" yes "$xdsfed" name "$arg"
    check "resolve <$b>" yes \
      "$xdsfed" resolve --bootstrap-json "$bootstrap_json" "xds:///$arg"
    check "server-name <$b>" yes \
      "$xdsfed" server-name --bootstrap-json "$bootstrap_json" "$arg"
  fi
done

# Commands this script does not know yet: at least no signal, no hang.
for command in $("$xdsfed" --help | awk '/^  [a-z]/ { print $1 }'); do
  case " $known " in *" $command "*) continue ;; esac
  for f in $tmp/dir $tmp/empty $tmp/random1 $tmp/deep_arrays; do
    runs=$((runs + 1))
    timeout 20 "$xdsfed" "$command" --bootstrap "$f" > /dev/null 2>&1 < /dev/null
    rc=$?
    if [ "$rc" != 1 ] && [ "$rc" != 2 ]; then
      echo "FAIL $command --bootstrap $(basename "$f"): exit $rc"
      failures=$((failures + 1))
    fi
  done
done

echo "$runs runs"
[ "$failures" = 0 ] && echo "all passed" || { echo "$failures failed"; exit 1; }
