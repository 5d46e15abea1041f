// An xDS-enabled gRPC server (gRFC A36) on grpc++'s public API, built like a
// grpc::ServerBuilder:
//
// clang-format off
//   xdsfed::server::XdsServerBuilder builder;
//   builder.AddListeningPort("0.0.0.0:50051", grpc::InsecureServerCredentials());
//   builder.RegisterService(&my_service);  // sync or callback
//   builder.set_status_notifier(
//       [](const std::string& address, const absl::Status& status) {
//         std::cerr << address << (status.ok() ? " serving" : " not serving: ")
//                   << status.message() << "\n";
//       });
//   absl::StatusOr<std::unique_ptr<XdsServer>> server = builder.BuildAndStart();
//   if (!server.ok()) return server.status();
//   // ... until the process is asked to stop, then:
//   (*server)->Shutdown(absl::Seconds(10));  // running RPCs get 10 s
// clang-format on
//
// docs/server.md is the guide (bootstrap, serving state, draining, TLS).
//
// How it works (README "xDS-enabled server"):
// - The server owns its listening socket and accept loop. It listens at
//   once; while NOT_SERVING (no valid Listener yet, Listener deleted, address
//   mismatch) each connection is accepted and closed without a byte sent
//   (A36 §Serving and Not Serving).
// - The Listener (and its RDS) comes from lib/xds_config's
//   ServerConfigManager. Each Listener value is a "generation": its own
//   grpc::Server with no port, fed connections through a FROM_FD external
//   connection acceptor. A connection is matched to a filter chain
//   (A36 §FilterChainMatch) and handed to the current generation; with no
//   chain and no default chain it is closed.
// - A Listener update builds a new generation for new connections. The old
//   one keeps serving its connections with its config until they go away:
//   every generation's connections get a graceful two-phase GOAWAY at their
//   maximum age (GRPC_ARG_MAX_CONNECTION_AGE_MS, then
//   GRPC_ARG_MAX_CONNECTION_AGE_GRACE_MS = the drain grace time for RPCs
//   still running), after which the old grpc::Server is shut down. This
//   drains without failing RPCs (grpc::Server::Shutdown cancels streams that
//   race it); the trade-off: connections are recycled every
//   max_connection_age even without updates, and an update reaches an
//   existing connection within that age rather than at once.
// - An RDS-only change applies to existing connections without draining.
// - The next generation's grpc::Server is built and started ahead (a
//   "spare" serving the user's credentials and the current Listener's), so
//   a Listener's way to SERVING does not include it; a Listener whose chains
//   need other credentials builds its own. None with async service
//   factories or set_spare_generation(false).
#ifndef XDSFED_LIB_SERVER_XDS_SERVER_H_
#define XDSFED_LIB_SERVER_XDS_SERVER_H_

#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/time/time.h"
#include "grpcpp/grpcpp.h"
#include "lib/bootstrap/bootstrap.h"
#include "lib/client/xds_client.h"
#include "lib/server/async_service.h"

namespace xdsfed::server {

// Called with the listening address and OK when the server starts serving,
// or with why it is not serving. Called from the server's own threads, never
// under its locks; may be called before BuildAndStart returns.
using StatusNotifier =
    std::function<void(const std::string& address, const absl::Status& status)>;

class XdsServer;

class XdsServerBuilder {
 public:
  XdsServerBuilder();
  ~XdsServerBuilder();

  // One listening address, "IP:PORT" or "[IPv6]:PORT" (no port 0: A36).
  // `credentials` serve connections whose filter chain has no transport
  // socket (a DownstreamTlsContext chain uses the bootstrap's providers).
  XdsServerBuilder& AddListeningPort(
      const std::string& address,
      std::shared_ptr<grpc::ServerCredentials> credentials);
  // A sync or callback service, registered on every generation's
  // grpc::Server; it must outlive the XdsServer. (An async service can be
  // registered on only one grpc::Server: use RegisterAsyncServiceFactory.)
  XdsServerBuilder& RegisterService(grpc::Service* service);
  // Async services: `factory` is called once per server generation (before
  // that generation's grpc::Server starts, on the config thread) for a new
  // AsyncServiceInstance (generation.h) whose service() is registered on it;
  // Start(cq) then gives it the generation's own ServerCompletionQueue to
  // request calls on and poll, and Stop() comes after that server and queue
  // have shut down (drain the queue, join the pollers). A draining
  // generation keeps its instance until its connections are gone, so
  // several instances may be live at once.
  XdsServerBuilder& RegisterAsyncServiceFactory(AsyncServiceFactory factory);
  XdsServerBuilder& set_status_notifier(StatusNotifier notifier);
  // A36 default: 10 minutes.
  XdsServerBuilder& set_drain_grace_time(absl::Duration grace);
  // How long a connection lives before its graceful GOAWAY (see above);
  // default 30 s.
  XdsServerBuilder& set_max_connection_age(absl::Duration age);
  // Default: Bootstrap::FromEnv(federation).
  XdsServerBuilder& set_bootstrap(std::shared_ptr<const Bootstrap> bootstrap);
  // The A47 gate for the bootstrap read from the environment (default:
  // FederationEnabledFromEnv()).
  XdsServerBuilder& set_federation(bool enabled);
  // Options of the server's XdsClient (e.g. its does-not-exist timeout).
  XdsServerBuilder& set_xds_client_options(client::XdsClient::Options options);
  // The XdsClient's transport to the control plane (default: lib/transport's
  // grpc++ one).
  XdsServerBuilder& set_transport_factory(
      std::shared_ptr<client::XdsTransportFactory> factory);
  // A channel argument for every generation's grpc::Server.
  XdsServerBuilder& AddChannelArgument(const std::string& name, int value);
  // Also serve CSDS (envoy.service.status.v3, lib/admin) reporting this
  // server's own XdsClient, on the listening port like any registered
  // service: so only while serving, and subject to the Listener's routes.
  // Default off.
  XdsServerBuilder& set_csds_service(bool enabled);
  // Whether the next generation's grpc::Server is built and started ahead
  // (see above; default true). Off: no grpc::Server exists until a Listener
  // is served, and each Listener builds its own on its way to SERVING.
  XdsServerBuilder& set_spare_generation(bool enabled);
  // SO_REUSEPORT on the listening socket: servers that all ask for it share
  // the port, the kernel spreading connections among them. Default false: a
  // port another socket holds fails BuildAndStart ("address A is in use").
  XdsServerBuilder& set_allow_reuse_port(bool enabled);

  // Fails on a missing or invalid bootstrap, a bootstrap without
  // server_listener_resource_name_template, a bad address, or a port that
  // cannot be bound (A36 allows failing start for these; only the last is
  // kUnavailable: "address A is in use" or "cannot listen on A: why"). Missing
  // xDS configuration does not fail: the server starts NOT_SERVING.
  absl::StatusOr<std::unique_ptr<XdsServer>> BuildAndStart();

 private:
  friend class XdsServer;
  struct Options;
  std::unique_ptr<Options> options_;
};

class XdsServer {
 public:
  ~XdsServer();  // Shutdown()
  XdsServer(const XdsServer&) = delete;
  XdsServer& operator=(const XdsServer&) = delete;

  // Stops accepting at once (the listening socket is closed, so new
  // connections are refused), stops the xDS watch, and shuts every
  // generation down: existing connections get a GOAWAY and take no new
  // RPC, running RPCs have up to `grace` to finish (it returns as soon as
  // they have), then the rest are cancelled.
  void Shutdown(absl::Duration grace = absl::ZeroDuration());

  const std::string& listening_address() const;
  const std::string& listener_resource_name() const;
  bool serving() const;
  // Generations built so far (one per distinct Listener served).
  uint64_t generations_started() const;
  // Connections accepted / closed without a byte (NOT_SERVING or no chain).
  uint64_t connections_accepted() const;
  uint64_t connections_closed_unserved() const;

  class Impl;

 private:
  friend class XdsServerBuilder;
  explicit XdsServer(std::shared_ptr<Impl> impl);
  std::shared_ptr<Impl> impl_;
};

}  // namespace xdsfed::server

#endif  // XDSFED_LIB_SERVER_XDS_SERVER_H_
