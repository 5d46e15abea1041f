#!/bin/sh
# Issue 29 "a port in use is shared": every listening socket of the CLI
# refuses a port another socket holds. Before, a second `control-plane
# --listen` (and `watch --csds-listen`, `--health-backends`) on a busy port
# (and since issue 28 `watch --metrics-listen`, Prometheus over civetweb)
# started "listening" next to the first (grpc++'s default SO_REUSEPORT) and
# clients split between the two; `serve` refused but exited 1 with nothing
# on stderr. Each row: exit 2 (CLI.md: an I/O error), exactly one JSON line
# on stdout with "valid":false and the error naming the address, the same
# message on stderr.
# Usage: tests/cli/port_in_use_test.sh [BUILD_DIR]   (default: build)
set -u
. "$(dirname "$0")/cli_test_lib.sh"
use_temp_dir

echo '{"version":"1","resources":{}}' >"$dir/snap.json"
"$xdsfed" control-plane --listen 127.0.0.1:0 --snapshot "$dir/snap.json" \
  >"$dir/cp.out" 2>"$dir/cp.err" &
cp_pid=$!
i=0
while ! grep -q '"port":' "$dir/cp.out" 2>/dev/null && [ $i -lt 200 ]; do
  sleep 0.1
  i=$((i + 1))
done
port=$(sed -n 's/.*"port":\([0-9]*\).*/\1/p' "$dir/cp.out")
if [ -z "$port" ]; then
  echo "FAIL the first control plane did not start: $(cat "$dir/cp.err")"
  exit 1
fi
busy="127.0.0.1:$port"
boot="{\"xds_servers\":[{\"server_uri\":\"$busy\",\"channel_creds\":[{\"type\":\"insecure\"}]}],\"node\":{\"id\":\"port-in-use\"},\"server_listener_resource_name_template\":\"grpc/server?xds.resource.listening_address=%s\"}"

# refuses NAME COMMAND...: COMMAND (cut off after 15 s: one that shares the
# port never exits) exits 2, prints one JSON line with "valid":false and
# "$busy is in use" on stdout, and the message on stderr.
refuses() {
  name=$1
  shift
  timeout 15 "$@" >"$dir/out" 2>"$dir/err"
  rc=$?
  lines=$(wc -l <"$dir/out")
  if [ "$rc" != 2 ]; then
    echo "FAIL $name: exit $rc, want 2: $(cat "$dir/out" "$dir/err")"
    failures=$((failures + 1))
  elif [ "$lines" != 1 ] || ! grep -qF '"valid":false' "$dir/out" ||
    ! grep -qF "$busy is in use\"" "$dir/out"; then
    echo "FAIL $name: stdout is not one invalid line naming $busy: $(cat "$dir/out")"
    failures=$((failures + 1))
  elif ! grep -qF "$busy is in use" "$dir/err"; then
    echo "FAIL $name: stderr lacks the message: $(cat "$dir/err")"
    failures=$((failures + 1))
  else
    echo "ok   $name"
  fi
}

refuses "control-plane --listen on a busy port" \
  "$xdsfed" control-plane --listen "$busy" --snapshot "$dir/snap.json"
refuses "control-plane --health-backends on a busy port" \
  "$xdsfed" control-plane --listen 127.0.0.1:0 --snapshot "$dir/snap.json" \
  --health-backends "b1@$busy"
refuses "watch --csds-listen on a busy port" \
  "$xdsfed" --bootstrap-json "$boot" watch --timeout 10 --csds-listen "$busy" \
  Cluster:c
refuses "watch --metrics-listen on a busy port (issue 28)" \
  "$xdsfed" --bootstrap-json "$boot" watch --timeout 10 --metrics-listen "$busy" \
  Cluster:c
refuses "call --metrics-listen on a busy port (issue 28)" \
  "$xdsfed" --bootstrap-json "$boot" call --target xds:///svc --metrics-listen "$busy"
refuses "serve --metrics-listen on a busy port (issue 28)" \
  "$xdsfed" --bootstrap-json "$boot" serve --listen 127.0.0.1:0 --seconds 10 \
  --metrics-listen "$busy"
refuses "serve --listen on a busy port" \
  "$xdsfed" --bootstrap-json "$boot" serve --listen "$busy" --seconds 10

# The first control plane kept its port and still runs.
if kill -0 "$cp_pid" 2>/dev/null; then
  echo "ok   the first control plane still runs"
else
  echo "FAIL the first control plane is gone: $(cat "$dir/cp.err")"
  failures=$((failures + 1))
fi

[ "$failures" = 0 ]
