#!/bin/sh
# `xdsfed resolve TARGET` and `xdsfed server-name ADDRESS` (CLI.md) on the
# four bootstrap examples of gRFC A47 §Bootstrap Config Changes: every
# client target and server address the examples walk through, with the
# resource name, authority and servers the spec gives; plus the gate off.
# Usage: tests/cli/resolve_test.sh [BUILD_DIR]   (default: build)
set -u
. "$(dirname "$0")/cli_test_lib.sh"
top='{"server_uri":"xds-server.authority.com","channel_creds":[{"type":"insecure"}]}'
listener='xdstp://xds.authority.com/envoy.config.listener.v3.Listener'

# A47 Example: Bootstrap Config Contains No New Fields.
plain="{\"xds_servers\":[$top],\"server_listener_resource_name_template\":\"grpc/server?xds.resource.listening_address=%s\"}"
expect "No New Fields: xds:server.example.com" 0 \
  '"authority":null,"data_plane_authority":"server.example.com","listener_resource_name":"server.example.com","target":"xds:server.example.com","valid":true,"xds_servers":["xds-server.authority.com"]}' \
  "$xdsfed" --federation=on --bootstrap-json "$plain" resolve xds:server.example.com
expect "No New Fields: authority not in the bootstrap" 1 \
  '"error":"invalid target \"xds://xds.authority.com/server.example.com\": authority \"xds.authority.com\" is not in the bootstrap'"'"'s authorities"' \
  "$xdsfed" --federation=on --bootstrap-json "$plain" resolve xds://xds.authority.com/server.example.com
expect "No New Fields: server on 0.0.0.0:8080" 0 \
  '"authority":null,"data_plane_authority":null,"listener_resource_name":"grpc/server?xds.resource.listening_address=0.0.0.0:8080","listening_address":"0.0.0.0:8080","valid":true,"xds_servers":["xds-server.authority.com"]}' \
  "$xdsfed" --federation=on --bootstrap-json "$plain" server-name 0.0.0.0:8080

# A47 Example: New-Style Names on gRPC Client.
client="{\"xds_servers\":[$top],\"client_default_listener_resource_name_template\":\"$listener/%s\",\"authorities\":{\"xds.authority.com\":{}}}"
expect "New-Style Client: xds:server.example.com" 0 \
  "\"authority\":\"xds.authority.com\",\"data_plane_authority\":\"server.example.com\",\"listener_resource_name\":\"$listener/server.example.com\"" \
  "$xdsfed" --federation=on --bootstrap-json "$client" resolve xds:server.example.com
expect "New-Style Client: xds://xds.authority.com/server.example.com" 0 \
  "\"listener_resource_name\":\"$listener/server.example.com\",\"target\":\"xds://xds.authority.com/server.example.com\",\"valid\":true,\"xds_servers\":[\"xds-server.authority.com\"]" \
  "$xdsfed" --federation=on --bootstrap-json "$client" resolve xds://xds.authority.com/server.example.com

# A47 Example: New-Style Names on gRPC Server.
server="{\"xds_servers\":[$top],\"server_listener_resource_name_template\":\"$listener/grpc/server/%s\",\"authorities\":{\"xds.authority.com\":{}}}"
expect "New-Style Server: 0.0.0.0:8080" 0 \
  "\"authority\":\"xds.authority.com\",\"data_plane_authority\":null,\"listener_resource_name\":\"$listener/grpc/server/0.0.0.0:8080\",\"listening_address\":\"0.0.0.0:8080\",\"valid\":true,\"xds_servers\":[\"xds-server.authority.com\"]" \
  "$xdsfed" --federation=on --bootstrap-json "$server" server-name 0.0.0.0:8080
expect "New-Style Server: IPv6 brackets percent-encoded" 0 \
  "\"listener_resource_name\":\"$listener/grpc/server/%5B::1%5D:8080\"" \
  "$xdsfed" --federation=on --bootstrap-json "$server" server-name '[::1]:8080'

# A47 Example: Multiple Authorities (examples/multiple_authorities.json).
multi="$root/examples/multiple_authorities.json"
expect "Multiple Authorities: xds:server.example.com" 0 \
  "\"authority\":\"xds.authority.com\",\"data_plane_authority\":\"server.example.com\",\"listener_resource_name\":\"$listener/grpc/client/server.example.com?project_id=1234\"" \
  "$xdsfed" --federation=on --bootstrap "$multi" resolve xds:server.example.com
expect "Multiple Authorities: xds://xds.authority.com/server.example.com" 0 \
  "\"listener_resource_name\":\"$listener/grpc/client/server.example.com?project_id=1234\",\"target\":\"xds://xds.authority.com/server.example.com\",\"valid\":true,\"xds_servers\":[\"xds-server.authority.com\"]" \
  "$xdsfed" --federation=on --bootstrap "$multi" resolve xds://xds.authority.com/server.example.com
expect "Multiple Authorities: xds://xds.other.com/server.other.com" 0 \
  '"authority":"xds.other.com","data_plane_authority":"server.other.com","listener_resource_name":"xdstp://xds.other.com/envoy.config.listener.v3.Listener/server.other.com","target":"xds://xds.other.com/server.other.com","valid":true,"xds_servers":["xds-server.other.com"]}' \
  "$xdsfed" --federation=on --bootstrap "$multi" resolve xds://xds.other.com/server.other.com
expect "Multiple Authorities: server on 0.0.0.0:8080" 0 \
  "\"listener_resource_name\":\"$listener/grpc/server/0.0.0.0:8080?project_id=1234\",\"listening_address\":\"0.0.0.0:8080\",\"valid\":true,\"xds_servers\":[\"xds-server.authority.com\"]" \
  "$xdsfed" --federation=on --bootstrap "$multi" server-name 0.0.0.0:8080

# The gate off (A47 §Temporary environment variable protection): authorities
# and the client default template are ignored.
expect "gate off: old-style name" 0 \
  '"authority":null,"data_plane_authority":"server.example.com","listener_resource_name":"server.example.com"' \
  "$xdsfed" --federation=off --bootstrap "$multi" resolve xds:server.example.com
expect "gate off: target authority refused" 1 '"valid":false' \
  "$xdsfed" --federation=off --bootstrap "$multi" resolve xds://xds.other.com/server.other.com
# Issue 29 item 5: the authority is in the bootstrap; the gate is why.
expect "gate off: the error says federation is off, not that it is missing" 1 \
  'authority \"xds.other.com\" is in the bootstrap'"'"'s authorities, but federation is off, which ignores them (gRFC A47: GRPC_EXPERIMENTAL_XDS_FEDERATION=true turns it on); in xdsfed, --federation=on also does"' \
  env -u GRPC_EXPERIMENTAL_XDS_FEDERATION "$xdsfed" --bootstrap "$multi" resolve xds://xds.other.com/server.other.com

# Issue 14 §1: targets gRPC C-core accepts give its Listener names: the path
# percent-encoded into an xdstp: template, verbatim into an old-style one.
for row in '[fe80::1]:443|%5Bfe80::1%5D:443|[fe80::1]:443' \
           'svc name|svc%20name|svc%20name' \
           '50%off|50%25off|50%25off' \
           '[::1]:8080|%5B::1%5D:8080|[::1]:8080'; do
  path=${row%%|*} rest=${row#*|}
  encoded=${rest%%|*} dpa=${rest#*|}
  expect "C-core target xds:///$path, xdstp: template" 0 \
    "\"data_plane_authority\":\"$dpa\",\"listener_resource_name\":\"$listener/$encoded\"" \
    "$xdsfed" --federation=on --bootstrap-json "$client" resolve "xds:///$path"
  expect "C-core target xds:///$path, old-style template" 0 \
    "\"data_plane_authority\":\"$dpa\",\"listener_resource_name\":\"$path\"" \
    "$xdsfed" --federation=on --bootstrap-json "$plain" resolve "xds:///$path"
done

[ "$failures" -eq 0 ] || { echo "$failures failed"; exit 1; }
