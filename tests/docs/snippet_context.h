// What the docs' snippets and the headers' usage comments take as given
// (tests/docs/snippets_test.sh compiles them after this header): the public
// headers they use, the generated helloworld and route_guide code, and a few
// objects a snippet names without making (declared only: the snippets are
// compiled, never linked or run). A snippet that makes its own object of the
// same name shadows these.
#ifndef XDSFED_TESTS_DOCS_SNIPPET_CONTEXT_H_
#define XDSFED_TESTS_DOCS_SNIPPET_CONTEXT_H_

#include <pthread.h>

#include <csignal>
#include <iostream>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <thread>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/time/clock.h"
#include "absl/time/time.h"
#include "grpcpp/grpcpp.h"
#include "helloworld.grpc.pb.h"
#include "helloworld.xds_stub.h"
#include "lib/authz/rbac_engine.h"
#include "lib/base/federation_gate.h"
#include "lib/base/status_macros.h"
#include "lib/bootstrap/bootstrap.h"
#include "lib/bootstrap/target_resolver.h"
#include "lib/channel/generic_call.h"
#include "lib/channel/streaming.h"
#include "lib/channel/streaming_callback.h"
#include "lib/channel/unary.h"
#include "lib/channel/xds_channel.h"
#include "lib/client/xds_client.h"
#include "lib/routing/route_table.h"
#include "lib/server/async_service.h"
#include "lib/server/xds_server.h"
#include "lib/transport/grpc_listen.h"
#include "lib/transport/grpc_transport.h"
#include "route_guide.grpc.pb.h"

namespace docs_snippets {

using helloworld::Greeter;
using helloworld::HelloReply;
using helloworld::HelloRequest;
using routeguide::Feature;
using routeguide::Point;
using routeguide::Rectangle;
using routeguide::RouteGuide;
using routeguide::RouteNote;
using routeguide::RouteSummary;

// A service implementation, as the user's own.
class GreeterImpl final : public helloworld::Greeter::Service {
  grpc::Status SayHello(grpc::ServerContext* ctx,
                        const helloworld::HelloRequest* request,
                        helloworld::HelloReply* reply) override;
};

// Objects the usage comments name: "given a channel `ch` ...".
extern std::shared_ptr<const xdsfed::Bootstrap> bootstrap;
extern std::unique_ptr<xdsfed::channel::XdsChannel> ch;
extern xdsfed::server::XdsServerBuilder builder;
extern GreeterImpl my_service;
extern helloworld::HelloRequest request;
extern routeguide::Rectangle rect;
extern routeguide::RouteSummary summary;
// A call's request headers (lib/routing's lookups take any multimap).
extern std::multimap<std::string, std::string> metadata;
// README's watch_chain core watches a Listener with it.
extern std::shared_ptr<
    xdsfed::resources::ResourceWatcher<xdsfed::resources::Listener>>
    watcher;
// An XdsConfig snapshot, as XdsDependencyManager publishes them.
extern std::shared_ptr<const xdsfed::xds_config::XdsConfig> snapshot;
// An RBAC filter's validated config.
extern xdsfed::resources::RbacConfig config;

}  // namespace docs_snippets

#endif  // XDSFED_TESTS_DOCS_SNIPPET_CONTEXT_H_
