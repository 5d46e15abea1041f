#!/bin/sh
# `xdsfed authz` (docs/cli.md §authz, issue 25 item 5): would an RPC pass
# the routes (A36) and RBAC filters (A41) of its connection's chain? A
# Listener whose chain runs a DENY filter and an ALLOW filter, with an
# RBACPerRoute override on one route; usage and I/O errors.
# Usage: tests/cli/authz_test.sh [BUILD_DIR]   (default: build)
set -u
. "$(dirname "$0")/cli_test_lib.sh"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
az() { "$xdsfed" authz "$@"; }

cat > "$tmp/l.json" <<'JSON'
{"name":"l","address":{"socket_address":{"address":"127.0.0.1","port_value":50051}},
 "default_filter_chain":{"filters":[{"name":"hcm","typed_config":{
  "@type":"type.googleapis.com/envoy.extensions.filters.network.http_connection_manager.v3.HttpConnectionManager",
  "route_config":{"name":"inline","virtual_hosts":[{"name":"vh","domains":["*"],
    "routes":[
     {"match":{"prefix":"/open/"},"non_forwarding_action":{},
      "typed_per_filter_config":{"allow-alice":{
        "@type":"type.googleapis.com/envoy.extensions.filters.http.rbac.v3.RBACPerRoute"}}},
     {"match":{"prefix":"/fwd/"},"route":{"cluster":"c"}},
     {"match":{"prefix":""},"non_forwarding_action":{}}]}]},
  "http_filters":[
   {"name":"deny-admin","typed_config":{"@type":"type.googleapis.com/envoy.extensions.filters.http.rbac.v3.RBAC",
     "rules":{"action":"DENY","policies":{"admin-path":{
       "permissions":[{"url_path":{"path":{"prefix":"/admin."}}}],"principals":[{"any":true}]}}}}},
   {"name":"allow-alice","typed_config":{"@type":"type.googleapis.com/envoy.extensions.filters.http.rbac.v3.RBAC",
     "rules":{"action":"ALLOW","policies":{"alice-from-1":{
       "permissions":[{"header":{"name":"x-user","exact_match":"alice"}}],
       "principals":[{"direct_remote_ip":{"address_prefix":"127.0.0.1","prefix_len":32}},
                     {"authenticated":{"principal_name":{"exact":"spiffe://td/ns/a/sa/admin"}}}]}}}}},
   {"name":"router","typed_config":{"@type":"type.googleapis.com/envoy.extensions.filters.http.router.v3.Router"}}]}}]}}
JSON
l="$tmp/l.json"

expect "both filters allow; the matched policy is named" 0 \
  '"allowed":true,"decision":"allow","destination":"127.0.0.1:50051","filter_chain":"default","path":"/svc.S/M","policy":"alice-from-1","rbac_filters":[{"allowed":true,"config":"filter","enforcing":true,"filter":"deny-admin","policy":null},{"allowed":true,"config":"filter","enforcing":true,"filter":"allow-alice","policy":"alice-from-1"}],"source":"127.0.0.1:0","valid":true' \
  az --listener "$l" --path /svc.S/M --header x-user:alice
expect "A41 direct_remote_ip: 127.0.0.2 is not 127.0.0.1/32" 0 \
  '"allowed":false,"decision":"permission_denied"' \
  az --listener "$l" --path /svc.S/M --header x-user:alice --source 127.0.0.2:1
expect "...the ALLOW filter says no policy matched" 0 \
  '"reason":"RBAC: access denied: no policy matched"' \
  az --listener "$l" --path /svc.S/M --header x-user:alice --source 127.0.0.2:1
expect "A41 authenticated principal_name: a URI SAN from --principal" 0 \
  '"allowed":true' \
  az --listener "$l" --path /svc.S/M --header x-user:alice --source 127.0.0.2:1 \
  --principal spiffe://td/ns/a/sa/admin
expect "the DENY filter runs first and names its policy" 0 \
  '"policy":"admin-path","rbac_filters":[{"allowed":false,"config":"filter","enforcing":true,"filter":"deny-admin","policy":"admin-path"}],"reason":"RBAC: access denied by policy \"admin-path\""' \
  az --listener "$l" --path /admin.A/M --header x-user:alice
expect "A39: the route's RBACPerRoute without rbac disables allow-alice" 0 \
  '"allowed":true,"decision":"allow","destination":"127.0.0.1:50051","filter_chain":"default","path":"/open/x","policy":null,"rbac_filters":[{"allowed":true,"config":"filter","enforcing":true,"filter":"deny-admin","policy":null},{"allowed":true,"config":"route","enforcing":false,"filter":"allow-alice","policy":null}]' \
  az --listener "$l" --path /open/x --source 127.0.0.2:1
expect "A36: a route that is not non_forwarding_action: unavailable, no RBAC" 0 \
  '"allowed":false,"decision":"unavailable","destination":"127.0.0.1:50051","filter_chain":"default","path":"/fwd/x","policy":null,"rbac_filters":[],"reason":"the matched route' \
  az --listener "$l" --path /fwd/x --header x-user:alice
expect "header names are taken in lower case" 0 '"allowed":true' \
  az --listener "$l" --path /svc.S/M --header X-User:alice
# --header is repeatable: the first of two is kept too (it used to be lost).
expect "--header repeated: every one is seen" 0 '"allowed":true,"decision":"allow"' \
  az --listener "$l" --path /svc.S/M --header x-user:alice --header x-other:1

# Bad input.
expect "usage: no --path" 2 '{"error":"usage: xdsfed authz' \
  az --listener "$l"
expect "usage: --header without a ':'" 2 '"--header \"x\": expected NAME:VALUE' \
  az --listener "$l" --path /a --header x
expect "usage: --source not IP:PORT" 2 '--source \"localhost\": expected IP:PORT' \
  az --listener "$l" --path /a --source localhost
expect "I/O: missing file" 2 '"error":"cannot read' \
  az --listener "$tmp/missing.json" --path /a
sed 's/"principals":\[{"any":true}\]/"principals":[{"any":true}],"condition":{}/' \
  "$l" > "$tmp/cond.json"
expect "A41: a condition NACKs the Listener, with its path" 1 \
  'rules.policies[\"admin-path\"].condition error:condition not supported' \
  az --listener "$tmp/cond.json" --path /a

[ "$failures" -eq 0 ] || { echo "$failures failure(s)"; exit 1; }
echo "all ok"
