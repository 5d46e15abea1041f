#!/bin/sh
# Issue 29 items 5-7: every command's error paths against docs/cli.md
# ("Conventions", "Exit status" and each command's section): a usage error
# and, where the command reads something, an I/O error exit 2; input that
# is read but invalid exits 1. Every row: the documented exit code, exactly
# one line on stdout, a JSON object with "valid":false and "error", and a
# message on stderr ("xdsfed: ...").
# Usage: tests/cli/error_paths_test.sh [BUILD_DIR]   (default: build)
set -u
. "$(dirname "$0")/cli_test_lib.sh"
tmp=$(mktemp -d)
silent_pid=
cleanup() {
  [ -n "$silent_pid" ] && kill "$silent_pid" 2>/dev/null
  rm -rf "$tmp"
}
trap cleanup EXIT

boot='{"xds_servers":[{"server_uri":"127.0.0.1:1","channel_creds":[{"type":"insecure"}]}],"node":{"id":"n"},"server_listener_resource_name_template":"grpc/server?xds.resource.listening_address=%s"}'
missing="$tmp/does-not-exist.json"
mkdir "$tmp/dir"
echo '{"version":"1","resources":{}}' >"$tmp/snap.json"

# row WHERE WANT_EXIT ARGS...: runs `xdsfed ARGS...` (20 s at most) and
# checks the error-path contract. WHERE cites the issue item and the
# docs/cli.md section the row checks.
row() {
  where=$1 want_rc=$2
  shift 2
  timeout 20 env -u GRPC_XDS_BOOTSTRAP -u GRPC_XDS_BOOTSTRAP_CONFIG \
    "$xdsfed" "$@" >"$tmp/out" 2>"$tmp/err" </dev/null
  rc=$?
  lines=$(wc -l <"$tmp/out")
  problem=""
  if [ "$rc" != "$want_rc" ]; then
    problem="exit $rc, want $want_rc"
  elif [ "$lines" != 1 ]; then
    problem="$lines lines on stdout, want 1"
  elif [ "$(head -c 1 "$tmp/out")" != "{" ]; then
    problem="stdout is not a JSON object"
  elif ! grep -q '"valid":false' "$tmp/out"; then
    problem='no "valid":false'
  elif ! grep -q '"error":"' "$tmp/out"; then
    problem='no "error"'
  elif [ "$rc" = 2 ] && ! grep -q '^xdsfed: ' "$tmp/err"; then
    problem="no message on stderr"
  fi
  if [ -n "$problem" ]; then
    echo "FAIL [$where] xdsfed $*: $problem"
    echo "  stdout: $(head -c 300 "$tmp/out")"
    echo "  stderr: $(head -c 300 "$tmp/err")"
    failures=$((failures + 1))
  else
    echo "ok   [$where] xdsfed $*"
  fi
}

# A port nothing listens on (bound, then closed).
closed_port=$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])' 2>/dev/null || echo 1)

# --- the command line itself (docs/cli.md "Conventions")
row "29.6 cli.md#conventions: no command" 2
row "29.6 cli.md#conventions: unknown command" 2 nosuch
row "29.6 cli.md#conventions: --federation takes on|off" 2 --federation=maybe bootstrap
row "29.6 cli.md#conventions: --bootstrap and --bootstrap-json" 2 \
  --bootstrap "$missing" --bootstrap-json '{}' bootstrap
# --- bootstrap
row "29.6 cli.md#bootstrap: usage" 2 bootstrap extra
row "29.7 cli.md#bootstrap: I/O (missing file)" 2 bootstrap --bootstrap "$missing"
row "29.7 cli.md#bootstrap: I/O (a directory)" 2 bootstrap --bootstrap "$tmp/dir"
row "29.7 cli.md#bootstrap: invalid" 1 bootstrap --bootstrap-json '{}'
# --- name
row "29.6 cli.md#name: usage (no NAME)" 2 name
row "29.6 cli.md#name: usage (unknown flag)" 2 name --bogus x
row "29.6 cli.md#name: usage (--type without value)" 2 name x --type
row "29.7 cli.md#name: invalid" 1 --federation=on name --type Cluster xdstp://a/envoy.config.listener.v3.Listener/x
# --- resolve / server-name
row "29.6 cli.md#resolve: usage" 2 resolve
row "29.7 cli.md#resolve: I/O" 2 --bootstrap "$missing" resolve xds:///svc
row "29.7 cli.md#resolve: invalid" 1 --bootstrap-json "$boot" resolve xds://nope.com/svc
row "29.6 cli.md#server-name: usage" 2 server-name
row "29.7 cli.md#server-name: I/O" 2 --bootstrap "$missing" server-name 127.0.0.1:80
# --- validate
row "29.6 cli.md#validate: usage (no --type)" 2 validate "$tmp/snap.json"
row "29.6 cli.md#validate: usage (unknown type)" 2 validate --type Bogus "$tmp/snap.json"
row "29.6 cli.md#validate: usage (no FILE)" 2 validate --type Listener
row "29.7 cli.md#validate: I/O" 2 validate --type Listener "$missing"
# --- cluster-tree
row "29.6 cli.md#cluster-tree: usage" 2 cluster-tree A
row "29.7 cli.md#cluster-tree: I/O" 2 cluster-tree --resources "$missing" A
row "29.6 cli.md#cluster-tree: lrs_server self without a bootstrap" 2 \
  cluster-tree --resources "$root/examples/snapshots/a37_example.json" A
# --- filter-chain
row "29.6 cli.md#filter-chain: usage" 2 filter-chain
row "29.7 cli.md#filter-chain: I/O" 2 filter-chain --destination 127.0.0.1:80 "$missing"
# --- watch
row "29.6 cli.md#watch: usage (no mode)" 2 watch
row "29.6 cli.md#watch: usage (--timeout)" 2 watch --timeout -1 lds:x
row "29.6 cli.md#conventions: non-finite numbers (watch --timeout inf)" 2 \
  --bootstrap-json "$boot" watch --timeout inf lds:x
row "29.6 cli.md#watch: usage (TYPE:NAME)" 2 watch bogus:x
row "29.7 cli.md#watch: I/O" 2 --bootstrap "$missing" watch --timeout 1 lds:x
# --- control-plane
row "29.6 cli.md#control-plane: usage" 2 control-plane
row "29.6 cli.md#control-plane: usage (--tls-cert without --tls-key)" 2 \
  control-plane --listen 127.0.0.1:0 --snapshot "$tmp/snap.json" --tls-cert x
row "29.7 cli.md#control-plane: I/O" 2 \
  control-plane --listen 127.0.0.1:0 --snapshot "$missing"
# --- serve
row "29.6 cli.md#serve: usage (no --listen)" 2 serve
row "29.6 cli.md#serve: usage (--seconds)" 2 serve --listen 127.0.0.1:1 --seconds x
row "29.6 cli.md#serve: usage (--drain-grace-ms)" 2 \
  serve --listen 127.0.0.1:1 --drain-grace-ms -1
row "29.7 cli.md#serve: I/O" 2 --bootstrap "$missing" serve --listen 127.0.0.1:1
row "29.7 cli.md#serve: invalid (port 0, A36)" 1 \
  --bootstrap-json "$boot" serve --listen 127.0.0.1:0
# --- call
row "29.6 cli.md#call: usage (no --target)" 2 call
for count in inf 1e30 2.7 0 -1 x; do
  row "29.6 cli.md#call: --count $count is not a positive integer" 2 \
    call --target xds:///svc --count "$count"
done
row "29.6 cli.md#call: usage (--interval-ms inf)" 2 \
  call --target xds:///svc --interval-ms inf
row "29.6 cli.md#call: usage (--deadline-ms nan)" 2 \
  call --target xds:///svc --deadline-ms nan
row "29.7 cli.md#call: I/O" 2 --bootstrap "$missing" call --target xds:///svc
# --- status
row "29.6 cli.md#status: usage (no --server)" 2 status
row "29.6 cli.md#status: usage (--timeout 0)" 2 status --server 127.0.0.1:1 --timeout 0
row "29.5 cli.md#status: I/O (nothing listening)" 2 \
  status --server "127.0.0.1:$closed_port" --timeout 2
# --- demo
row "29.6 cli.md#demo: usage" 2 demo extra

# Issue 29 item 5: a port that accepts TCP and never speaks HTTP/2 fails
# within --connect-timeout (default 3 s), not the 10 s --timeout.
if python3 -c 'import socket' 2>/dev/null; then
  python3 -c '
import socket, sys, time
s = socket.socket()
s.bind(("127.0.0.1", 0))
s.listen(16)
print(s.getsockname()[1], flush=True)
time.sleep(60)
' >"$tmp/silent.port" &
  silent_pid=$!
  i=0
  while [ ! -s "$tmp/silent.port" ] && [ $i -lt 50 ]; do sleep 0.1; i=$((i + 1)); done
  silent=$(cat "$tmp/silent.port")
  start=$(date +%s)
  row "29.5 cli.md#status: I/O (silent port)" 2 status --server "127.0.0.1:$silent"
  took=$(($(date +%s) - start))
  if [ "$took" -le 5 ] && grep -q 'no connection within 3s' "$tmp/out"; then
    echo "ok   silent port: failed in ${took}s, saying why"
  else
    echo "FAIL silent port: ${took}s, $(cat "$tmp/out")"
    failures=$((failures + 1))
  fi
else
  echo "skip silent port: no python3"
fi

[ "$failures" = 0 ] && echo "all passed" || { echo "$failures failed"; exit 1; }
