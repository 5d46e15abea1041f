#!/usr/bin/env node
'use strict';
// A gRPC-js xDS client (@grpc/grpc-js-xds) serving its own CSDS through
// grpc-js's admin services, for tests/cli/csds_interop_test.sh.
//   GRPC_XDS_BOOTSTRAP=bootstrap.json NODE_PATH=.../node_modules \
//     node csds_grpc_js_peer.js TARGET SECONDS
// Opens a channel to TARGET (so its XdsClient subscribes to the chain),
// serves CSDS on 127.0.0.1 (a free port), prints {"event":"csds","port":N,
// "grpc_js_xds":"<version>"} and exits after SECONDS.
const grpc = require('@grpc/grpc-js');
const xds = require('@grpc/grpc-js-xds');

const [target, seconds] = process.argv.slice(2);
if (!target) {
  console.error('usage: csds_grpc_js_peer.js TARGET SECONDS');
  process.exit(2);
}
xds.register();
const server = new grpc.Server();
grpc.addAdminServicesToServer(server);
server.bindAsync('127.0.0.1:0', grpc.ServerCredentials.createInsecure(),
                 (error, port) => {
  if (error) {
    console.error(error.message);
    process.exit(1);
  }
  const client = new grpc.Client(target, grpc.credentials.createInsecure());
  // Connecting starts name resolution: the xds resolver's watches.
  client.getChannel().getConnectivityState(true);
  console.log(JSON.stringify({
    event: 'csds', port,
    grpc_js_xds: require('@grpc/grpc-js-xds/package.json').version,
  }));
});
setTimeout(() => process.exit(0), Number(seconds || 30) * 1000);
