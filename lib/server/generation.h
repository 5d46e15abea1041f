// One server generation (lib/server, see xds_server.h): the grpc::Server
// that serves the connections accepted while one Listener value was
// current, fed through a FROM_FD external connection acceptor.
#ifndef XDSFED_LIB_SERVER_GENERATION_H_
#define XDSFED_LIB_SERVER_GENERATION_H_

#include <atomic>
#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "absl/base/thread_annotations.h"
#include "absl/container/flat_hash_map.h"
#include "absl/status/statusor.h"
#include "absl/time/time.h"
#include "grpcpp/grpcpp.h"
#include "lib/base/mutex.h"
#include "lib/resources/listener.h"
#include "lib/routing/filter_chain_select.h"
#include "lib/routing/socket_address.h"
#include "lib/server/async_service.h"
#include "lib/server/chain_routes.h"
#include "lib/xds_config/xds_config.h"

namespace xdsfed::server {

struct GenerationOptions {
  routing::SocketAddress listening_address;
  // Chains without a transport socket: the user's credentials.
  std::shared_ptr<grpc::ServerCredentials> credentials;
  // Chains with a DownstreamTlsContext (null: such chains are not served).
  std::function<absl::StatusOr<std::shared_ptr<grpc::ServerCredentials>>(
      const resources::DownstreamTlsContext&)>
      tls_credentials;
  std::vector<grpc::Service*> services;
  std::vector<AsyncServiceFactory> async_factories;
  absl::Duration drain_grace;
  absl::Duration max_connection_age;
  std::vector<std::pair<std::string, int>> int_args;
};

class Generation {
 public:
  // The generation serving `config`'s Listener: `*spare` (taken from it)
  // when that was Prepare()d with an acceptor for every chain's
  // credentials, else a grpc::Server (no listening port) built and started
  // now. *config_errors gets A36's configuration errors of its routes
  // (ChainRoutes::Build) and of chains whose TLS credentials failed.
  static absl::StatusOr<std::unique_ptr<Generation>> Start(
      uint64_t id, std::shared_ptr<const xds_config::ServerConfig> config,
      const GenerationOptions& options, std::vector<std::string>* config_errors,
      std::unique_ptr<Generation>* spare = nullptr);
  // A started grpc::Server with no Listener yet, for a later Start to take
  // (building and starting one is then off the way to SERVING): one
  // acceptor per distinct (non-null) entry of `credentials`. Fails with async
  // service factories in `options` (their instances are made per generation
  // id).
  static absl::StatusOr<std::unique_ptr<Generation>> Prepare(
      const GenerationOptions& options,
      std::vector<std::shared_ptr<grpc::ServerCredentials>> credentials);
  ~Generation();  // Shutdown(now) if still running

  // The distinct credentials its acceptors serve.
  std::vector<std::shared_ptr<grpc::ServerCredentials>> credentials() const;

  uint64_t id() const { return id_; }
  const resources::ServerListener& listener() const { return *listener_; }
  // The Listener's filter chain map, compiled (A36 §FilterChainMatch).
  const routing::FilterChainSelector& chain_selector() const {
    return *chain_selector_;
  }
  const std::shared_ptr<const resources::Listener>& listener_resource() const {
    return config_->listener;
  }

  // Gives the accepted, non-blocking `fd` to gRPC, which owns it from now,
  // with the credentials of its chain (`chain` as in ChainRoutes::Check),
  // remembering which chain the peer's connection uses. Only while running
  // (the caller serializes this with Shutdown). False (fd untouched): the
  // chain's credentials could not be built; the caller closes it.
  // `local` is the connection's own address (RBAC's destination_ip / port).
  bool HandOff(int listener_fd, int fd, const routing::SocketAddress& peer,
               const routing::SocketAddress& local, size_t chain);

  // An RDS change, applied to existing connections without draining: the
  // RouteConfigurations `config` has for the RDS names this generation's
  // Listener uses replace the ones it had (names `config` lacks, e.g. in a
  // draining generation whose Listener was replaced, keep their values).
  void UpdateRoutes(const xds_config::ServerConfig& config,
                    std::vector<std::string>* config_errors);

  // The per-RPC check (A36, A41): OK, UNAVAILABLE or PERMISSION_DENIED.
  // `peer` is ServerContext::peer() ("ipv4:127.0.0.1:5000"). `rbac` (may be
  // null) carries the call's TLS peer and RBAC header lookup; its addresses
  // are set here from the connection the peer was handed off on.
  absl::Status CheckRpc(absl::string_view peer, absl::string_view authority,
                        absl::string_view path, routing::HeaderLookup headers,
                        std::string* scratch,
                        authz::RequestView* rbac = nullptr);
  // The current routes pass every RPC (ChainRoutes::allows_every_rpc): a
  // call started now needs no CheckRpc. Re-read for each call, as an RDS
  // update may change it.
  bool AllowsEveryRpc() const {
    return allows_every_rpc_.load(std::memory_order_acquire);
  }

  // Waits until `deadline` for running RPCs, then cancels the rest.
  void Shutdown(absl::Time deadline);

 private:
  explicit Generation(routing::SocketAddress listening_address);
  // The server with one acceptor per distinct non-null entry of
  // `credentials`, in their order.
  static absl::StatusOr<std::unique_ptr<Generation>> Build(
      uint64_t id, const GenerationOptions& options,
      std::vector<std::shared_ptr<grpc::ServerCredentials>> credentials);
  // The acceptor of `credentials` (null: none, or null credentials).
  grpc::experimental::ExternalConnectionAcceptor* AcceptorFor(
      const std::shared_ptr<grpc::ServerCredentials>& credentials) const;
  // Whether it has an acceptor for each (non-null) chain credentials.
  bool Serves(const std::vector<std::shared_ptr<grpc::ServerCredentials>>&
                  chain_credentials) const;
  // Gives a built server its Listener, before any connection reaches it
  // (the caller publishes it afterwards under its own lock).
  void Bind(uint64_t id, std::shared_ptr<const xds_config::ServerConfig> c,
            std::shared_ptr<const ChainRoutes> routes,
            const std::vector<std::shared_ptr<grpc::ServerCredentials>>&
                chain_credentials);
  struct PeerConnection {
    size_t chain;
    routing::SocketAddress local;
  };
  PeerConnection ChainForPeer(absl::string_view peer)
      ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);

  // Set once by Bind.
  uint64_t id_ = 0;
  std::shared_ptr<const xds_config::ServerConfig> config_;
  const resources::ServerListener* listener_ = nullptr;
  std::unique_ptr<const routing::FilterChainSelector> chain_selector_;
  // One acceptor per distinct credentials; per chain (the default chain
  // last) the one to use, null if its credentials failed.
  struct Acceptor {
    std::shared_ptr<grpc::ServerCredentials> credentials;
    std::unique_ptr<grpc::experimental::ExternalConnectionAcceptor> acceptor;
  };
  std::vector<Acceptor> acceptors_;
  std::vector<grpc::experimental::ExternalConnectionAcceptor*> chain_acceptor_;
  const routing::SocketAddress listening_address_;
  // Per async service factory, its instance and completion queue; both
  // outlive server_ (the destructor resets server_ first).
  struct Async {
    std::unique_ptr<grpc::ServerCompletionQueue> cq;
    // Destroyed first (its service outlives the server, not the queue).
    std::unique_ptr<AsyncServiceInstance> instance;
  };
  std::vector<Async> async_;
  std::unique_ptr<grpc::Server> server_;
  bool shut_down_ = false;

  Mutex mu_;
  std::shared_ptr<const ChainRoutes> routes_ ABSL_GUARDED_BY(mu_);
  // routes_->allows_every_rpc(), readable without mu_ on every call.
  std::atomic<bool> allows_every_rpc_{false};
  // The RouteConfigurations routes_ was built from.
  xds_config::ServerConfig route_source_ ABSL_GUARDED_BY(mu_);
  // gRPC does not tell a handler which connection (or acceptor) a call came
  // on; ServerContext::peer() is the peer address recorded at accept time.
  // Bounded: when full it is cleared, and a peer not found is matched again
  // with the listening address as its destination.
  absl::flat_hash_map<std::string, PeerConnection> chain_by_peer_
      ABSL_GUARDED_BY(mu_);
};

}  // namespace xdsfed::server

#endif  // XDSFED_LIB_SERVER_GENERATION_H_
