#!/usr/bin/env bash
# Reconnect after a control-plane outage, measured for real (issue 16 item
# 3): CLIENTS `xdsfed watch` processes (each a real XdsClient, own node id)
# subscribe to one `xdsfed control-plane` on loopback; once every client has
# its resource the control plane is killed (SIGKILL), and OUTAGE seconds
# later restarted on the same port. A client has resubscribed when its first
# request reaches the new control plane (received_unix_nanos in --log);
# delays are from the restart (the new process launched). Prints one line
# per client and a summary JSON line:
#   {"clients":10,"outage_s":12,"resubscribed":10,"median_ms":...,
#    "min_ms":...,"max_ms":...,"delays_ms":[...]}
# Usage: bench/reconnect_outage.sh [CLIENTS] [OUTAGE_SECONDS] [BUILD_DIR]
#        (defaults: 10, 12, build)
set -euo pipefail
cd "$(dirname "$0")/.."
CLIENTS="${1:-10}"
OUTAGE="${2:-12}"
BUILD="${3:-build}"
xdsfed="$BUILD/bin/xdsfed"
tmp=$(mktemp -d)
pids=()
cleanup() {
  for p in "${pids[@]}"; do kill "$p" 2>/dev/null || true; done
  rm -rf "$tmp"
}
trap cleanup EXIT

cat >"$tmp/snapshot.json" <<'JSON'
{"version":"1","resources":{"envoy.config.cluster.v3.Cluster":{
 "c1":{"type":"EDS","eds_cluster_config":{"eds_config":{"ads":{}}}}}}}
JSON

# start_cp LISTEN LOG: starts a control plane; sets CP_PID and CP_PORT.
start_cp() {
  "$xdsfed" control-plane --listen "$1" --snapshot "$tmp/snapshot.json" \
    --log "$2" >"$tmp/cp.out" 2>"$tmp/cp.err" &
  CP_PID=$!
  pids+=("$CP_PID")
  for _ in $(seq 500); do
    CP_PORT=$(sed -n 's/.*"port":\([0-9]*\).*/\1/p' "$tmp/cp.out")
    [ -n "$CP_PORT" ] && return 0
    sleep 0.01
  done
  echo "control plane did not start: $(cat "$tmp/cp.err")" >&2
  exit 1
}

start_cp 127.0.0.1:0 "$tmp/before.log"
port=$CP_PORT
for i in $(seq "$CLIENTS"); do
  bootstrap=$(printf '{"xds_servers":[{"server_uri":"127.0.0.1:%s","channel_creds":[{"type":"insecure"}]}],"node":{"id":"client-%s"}}' "$port" "$i")
  "$xdsfed" watch --bootstrap-json "$bootstrap" --timeout $((OUTAGE + 60)) \
    --quiet cds:c1 >"$tmp/client-$i.out" 2>&1 &
  pids+=("$!")
done
# Every client has its resource.
for _ in $(seq 1000); do
  n=$(cat "$tmp"/client-*.out | grep -c '"event":"changed"' || true)
  [ "$n" -ge "$CLIENTS" ] && break
  sleep 0.01
done
[ "$n" -ge "$CLIENTS" ] || { echo "clients did not start" >&2; exit 1; }

kill -KILL "$CP_PID"
wait "$CP_PID" 2>/dev/null || true
sleep "$OUTAGE"
restart_ns=$(date +%s%N)
start_cp "127.0.0.1:$port" "$tmp/after.log"
# Wait for every client (at most the 120 s gRPC backoff cap + margin).
for _ in $(seq 1300); do
  n=$(sed -n 's/.*"node_id":"\([^"]*\)".*/\1/p' "$tmp/after.log" | sort -u |
    wc -l)
  [ "$n" -ge "$CLIENTS" ] && break
  sleep 0.1
done

# First request per node id, relative to the restart.
awk -v restart="$restart_ns" -v clients="$CLIENTS" -v outage="$OUTAGE" '
  match($0, /"node_id":"[^"]*"/) {
    node = substr($0, RSTART + 11, RLENGTH - 12)
    if (node in first) next
    if (match($0, /"received_unix_nanos":[0-9]+/)) {
      t = substr($0, RSTART + 22, RLENGTH - 22)
      first[node] = (t - restart) / 1e6
    }
  }
  END {
    n = 0
    for (node in first) { d[++n] = first[node]; name[n] = node }
    for (i = 1; i <= n; i++) for (j = i + 1; j <= n; j++)
      if (d[j] < d[i]) { t = d[i]; d[i] = d[j]; d[j] = t;
                         s = name[i]; name[i] = name[j]; name[j] = s }
    list = ""
    for (i = 1; i <= n; i++) {
      printf "%s resubscribed after %.0f ms\n", name[i], d[i]
      list = list (i > 1 ? "," : "") sprintf("%.0f", d[i])
    }
    median = n == 0 ? 0 : (n % 2 ? d[(n + 1) / 2] : (d[n / 2] + d[n / 2 + 1]) / 2)
    printf "{\"clients\":%d,\"outage_s\":%d,\"resubscribed\":%d,", clients, outage, n
    printf "\"median_ms\":%.0f,\"min_ms\":%.0f,\"max_ms\":%.0f,\"delays_ms\":[%s]}\n",
      median, d[1], d[n], list
  }' "$tmp/after.log"
