#!/bin/sh
# TLS to the control plane, end to end on loopback (issue 16 "Security"):
# `xdsfed control-plane --tls-cert/--tls-key [--tls-client-ca]` serving, and
# `xdsfed watch` (a real XdsClient) with "tls" channel creds, certificates
# made here by openssl. TLS with ca_certificate_file and mutual TLS with
# certificate_file + private_key_file work; a wrong CA, an expired server
# certificate and a server name mismatch each fail with an error that says
# which (the transport's diagnosis, lib/transport/tls_diagnosis.h: gRPC 1.51
# says "certificate verify failed" for the first two alike), a missing client
# certificate and a plaintext server fail too, with nothing sent in
# plaintext; the client keeps retrying: it gets the resource once the
# server's certificate is fixed, and a CA file rotated on disk is picked up
# within refresh_interval.
# Usage: tests/cli/tls_test.sh [BUILD_DIR]   (default: build)
set -u
. "$(dirname "$0")/cli_test_lib.sh"
tmp=$(mktemp -d)
pids=""
trap 'for p in $pids; do kill $p 2>/dev/null; done; rm -rf "$tmp"' EXIT

# Issue 14 §2: the tls config is checked at bootstrap time, with its path.
expect "bootstrap: a tls refresh_interval that is not a duration" 1 \
  'xds_servers[0].channel_creds[0].config.refresh_interval error:is not a duration' \
  "$xdsfed" bootstrap --bootstrap-json \
  '{"xds_servers":[{"server_uri":"a:1","channel_creds":[{"type":"tls","config":{"refresh_interval":"soon"}}]}]}'

# --- certificates -------------------------------------------------------------
# ca NAME: a self-signed CA.
ca() {
  openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:P-256 -nodes \
    -keyout "$tmp/$1.key" -out "$tmp/$1.pem" -subj "/CN=$1" -days 2 \
    2>/dev/null || { echo "FAIL openssl: CA $1"; exit 1; }
}
# cert NAME CA SAN DAYS: a certificate CA signed (DAYS -1: already expired).
cert() {
  openssl req -newkey ec -pkeyopt ec_paramgen_curve:P-256 -nodes \
    -keyout "$tmp/$1.key" -out "$tmp/$1.csr" -subj "/CN=$1" 2>/dev/null &&
    printf 'subjectAltName=%s\n' "$3" >"$tmp/$1.ext" &&
    openssl x509 -req -in "$tmp/$1.csr" -CA "$tmp/$2.pem" -CAkey "$tmp/$2.key" \
      -CAcreateserial -out "$tmp/$1.pem" -days "$4" -extfile "$tmp/$1.ext" \
      2>/dev/null || { echo "FAIL openssl: certificate $1"; exit 1; }
}
ca ca
ca other-ca
cert server ca "DNS:localhost,IP:127.0.0.1" 2
cert expired ca "DNS:localhost,IP:127.0.0.1" -1
cert wrong-name ca "DNS:wrong.example.com" 2
cert client ca "DNS:client.example.com" 2

# --- control planes -----------------------------------------------------------
cat >"$tmp/snapshot.json" <<'JSON'
{"version":"1","resources":{"envoy.config.cluster.v3.Cluster":{
 "c1":{"type":"EDS","eds_cluster_config":{"eds_config":{"ads":{}}}}}}}
JSON
# start_cp NAME [FLAGS...]: a control plane on a free port; sets PORT.
start_cp() {
  name=$1
  shift
  "$xdsfed" control-plane --listen 127.0.0.1:0 --snapshot "$tmp/snapshot.json" \
    --log "$tmp/$name.log" "$@" >"$tmp/$name.out" 2>"$tmp/$name.err" &
  pids="$pids $!"
  for _ in $(seq 100); do
    PORT=$(sed -n 's/.*"port":\([0-9]*\).*/\1/p' "$tmp/$name.out")
    [ -n "$PORT" ] && return 0
    sleep 0.1
  done
  echo "FAIL control plane $name did not start: $(cat "$tmp/$name.err")"
  exit 1
}
start_cp tls --tls-cert "$tmp/server.pem" --tls-key "$tmp/server.key"
tls_port=$PORT
start_cp mtls --tls-cert "$tmp/server.pem" --tls-key "$tmp/server.key" \
  --tls-client-ca "$tmp/ca.pem"
mtls_port=$PORT
start_cp expired --tls-cert "$tmp/expired.pem" --tls-key "$tmp/expired.key"
expired_port=$PORT
start_cp wrong-name --tls-cert "$tmp/wrong-name.pem" \
  --tls-key "$tmp/wrong-name.key"
wrong_name_port=$PORT
start_cp plaintext
plaintext_port=$PORT

expect "control-plane reports tls mode" 0 '"tls":"mtls"' cat "$tmp/mtls.out"
expect "control-plane: --tls-cert needs --tls-key" 2 "usage:" \
  "$xdsfed" control-plane --listen 127.0.0.1:0 --snapshot "$tmp/snapshot.json" \
  --tls-cert "$tmp/server.pem"
expect "control-plane: unreadable certificate" 2 "cannot read certificate" \
  "$xdsfed" control-plane --listen 127.0.0.1:0 --snapshot "$tmp/snapshot.json" \
  --tls-cert "$tmp/nope.pem" --tls-key "$tmp/server.key"

# --- clients ------------------------------------------------------------------
# bootstrap PORT CREDS: a bootstrap naming 127.0.0.1:PORT with CREDS.
bootstrap() {
  printf '{"xds_servers":[{"server_uri":"127.0.0.1:%s","channel_creds":[%s]}],"node":{"id":"tls-test"}}' "$1" "$2"
}
tls_creds() {
  printf '{"type":"tls","config":{"ca_certificate_file":"%s"%s,"refresh_interval":"1s"}}' \
    "$tmp/$1" "${2:-}"
}
client_cert=$(printf ',"certificate_file":"%s","private_key_file":"%s"' \
  "$tmp/client.pem" "$tmp/client.key")
# watch PORT CREDS SECONDS: watches Cluster c1; output in $tmp/watch.out.
watch() {
  "$xdsfed" watch --bootstrap-json "$(bootstrap "$1" "$2")" --timeout "$3" \
    --quiet cds:c1 >"$tmp/watch.out" 2>&1
  echo $? >"$tmp/watch.rc"
}
requests() { wc -l <"$tmp/$1.log" | tr -d ' '; }
# same NAME WANT GOT: exact comparison.
same() {
  if [ "$2" = "$3" ]; then
    echo "ok   $1"
  else
    echo "FAIL $1: got $3, want $2"
    failures=$((failures + 1))
  fi
}

expect "tls with ca_certificate_file" 0 '"event":"changed"' \
  "$xdsfed" watch --bootstrap-json "$(bootstrap "$tls_port" "$(tls_creds ca.pem)")" \
  --timeout 3 --quiet cds:c1
expect "mutual tls with certificate_file + private_key_file" 0 \
  '"event":"changed"' \
  "$xdsfed" watch --bootstrap-json \
  "$(bootstrap "$mtls_port" "$(tls_creds ca.pem "$client_cert")")" \
  --timeout 3 --quiet cds:c1
mtls_requests=$(requests mtls)

# Failures: an error that says what is wrong, and no request ever reaches the
# server (nothing in plaintext, no fallback).
tls_requests=$(requests tls)
expect "wrong CA: the error says the certificate does not chain to it" 1 \
  "does not chain to a CA in ca_certificate_file \\\"$tmp/other-ca.pem\\\"" \
  "$xdsfed" watch --bootstrap-json \
  "$(bootstrap "$tls_port" "$(tls_creds other-ca.pem)")" --timeout 3 --quiet \
  cds:c1
same "wrong CA: nothing reached the server" "$tls_requests" "$(requests tls)"

# wait_for PATTERN FILE TENTHS: whether FILE gets a line with PATTERN.
wait_for() {
  for _ in $(seq "$3"); do
    grep -qF -- "$1" "$2" 2>/dev/null && return 0
    sleep 0.1
  done
  return 1
}
# fails_then_recovers CASE PORT LOG WANT FIX: a watch of the server at PORT
# (requests logged in $tmp/LOG.log) fails with an error containing WANT while
# no request reaches the server; the client keeps retrying, over TLS only,
# and gets the resource once the command FIX has repaired the server's
# certificate (the control plane re-reads it every second).
fails_then_recovers() {
  # (not "out": expect sets it)
  case_name=$1 port=$2 log=$3 want=$4 fix=$5
  watch_out="$tmp/$log.watch"
  "$xdsfed" watch --bootstrap-json "$(bootstrap "$port" "$(tls_creds ca.pem)")" \
    --timeout 20 --quiet cds:c1 >"$watch_out" 2>&1 &
  client=$!
  pids="$pids $client"
  if ! wait_for '"event":"error"' "$watch_out" 100; then
    echo "FAIL $case_name: no error within 10 s: $(cat "$watch_out")"
    failures=$((failures + 1))
  fi
  expect "$case_name: the error says so" 0 "$want" \
    grep -F '"event":"error"' "$watch_out"
  sleep 2 # the client keeps retrying meanwhile
  same "$case_name: nothing reached the server" 0 "$(requests "$log")"
  eval "$fix"
  if wait_for '"event":"changed"' "$watch_out" 100; then
    echo "ok   $case_name: still retrying, the resource arrives once fixed"
  else
    echo "FAIL $case_name: no resource within 10 s of the fix: $(cat "$watch_out")"
    failures=$((failures + 1))
  fi
  kill "$client" 2>/dev/null
}
# use_server_cert NAME: the files the control plane NAME serves become
# server.pem/key (the right name, valid, from ca).
use_server_cert() {
  cp "$tmp/server.key" "$tmp/$1.key.new" && cp "$tmp/server.pem" "$tmp/$1.pem.new" &&
    mv "$tmp/$1.key.new" "$tmp/$1.key" && mv "$tmp/$1.pem.new" "$tmp/$1.pem"
}
# gRPC 1.51 says only "certificate verify failed" for an expired
# certificate; the transport's diagnosis adds what and when.
fails_then_recovers "expired server certificate" "$expired_port" expired \
  "the server's certificate \\\"CN=expired\\\" expired at " \
  "use_server_cert expired"
expect "expired server certificate: in OpenSSL's words too" 0 \
  "(OpenSSL: certificate has expired)" cat "$tmp/expired.watch"
fails_then_recovers "server name mismatch" "$wrong_name_port" wrong-name \
  "is not valid for the name \\\"127.0.0.1\\\" (it names DNS:\\\"wrong.example.com\\\")" \
  "use_server_cert wrong-name"
expect "server name mismatch: gRPC's words kept" 0 \
  "Hostname Verification Check failed" cat "$tmp/wrong-name.watch"
expect "mutual tls without a client certificate fails" 1 '"event":"error"' \
  "$xdsfed" watch --bootstrap-json \
  "$(bootstrap "$mtls_port" "$(tls_creds ca.pem)")" --timeout 3 --quiet cds:c1
same "mutual tls without a client certificate: no request" \
  "$mtls_requests" "$(requests mtls)"
expect "tls client, plaintext server: no fallback" 1 '"event":"error"' \
  "$xdsfed" watch --bootstrap-json \
  "$(bootstrap "$plaintext_port" "$(tls_creds ca.pem)")" --timeout 3 \
  --quiet cds:c1
same "tls client, plaintext server: no request" 0 "$(requests plaintext)"
expect "plaintext client, tls server: fails" 1 '"event":"error"' \
  "$xdsfed" watch --bootstrap-json \
  "$(bootstrap "$tls_port" '{"type":"insecure"}')" --timeout 3 --quiet cds:c1

# Rotation: the client's CA file starts wrong; the client keeps retrying;
# the right CA written over it is picked up within refresh_interval (1 s)
# plus one reconnect attempt (<= 1.2 s).
cp "$tmp/other-ca.pem" "$tmp/rotating-ca.pem"
watch "$tls_port" "$(tls_creds rotating-ca.pem)" 15 &
watcher=$!
pids="$pids $watcher"
for _ in $(seq 100); do
  grep -q '"event":"error"' "$tmp/watch.out" 2>/dev/null && break
  sleep 0.1
done
expect "rotation: fails with the old CA, saying so" 0 \
  "does not chain to a CA in ca_certificate_file \\\"$tmp/rotating-ca.pem\\\"" \
  cat "$tmp/watch.out"
sleep 2  # the client keeps retrying meanwhile
cp "$tmp/ca.pem" "$tmp/rotating-ca.new" && mv "$tmp/rotating-ca.new" \
  "$tmp/rotating-ca.pem"
rotated=$(date +%s%N)
picked=""
for _ in $(seq 100); do
  if grep -q '"event":"changed"' "$tmp/watch.out"; then
    picked=$(( ($(date +%s%N) - rotated) / 1000000 ))
    break
  fi
  sleep 0.05
done
if [ -z "$picked" ]; then
  echo "FAIL rotation: the new CA was not picked up within 5 s"
  cat "$tmp/watch.out"
  failures=$((failures + 1))
elif [ "$picked" -gt 3500 ]; then
  echo "FAIL rotation: picked up after $picked ms, want <= 3500"
  failures=$((failures + 1))
else
  echo "ok   rotation: the new CA picked up after $picked ms"
fi
kill "$watcher" 2>/dev/null

[ "$failures" -eq 0 ] || exit 1
