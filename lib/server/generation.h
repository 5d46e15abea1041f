// One server generation (lib/server, see xds_server.h): the grpc::Server
// that serves the connections accepted while one Listener value was
// current, fed through a FROM_FD external connection acceptor.
#ifndef XDSFED_LIB_SERVER_GENERATION_H_
#define XDSFED_LIB_SERVER_GENERATION_H_

#include <cstdint>
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
#include "lib/server/chain_routes.h"
#include "lib/server/filter_chain_select.h"
#include "lib/server/socket_address.h"
#include "lib/xds_config/xds_config.h"

namespace xdsfed::server {

struct GenerationOptions {
  SocketAddress listening_address;
  std::shared_ptr<grpc::ServerCredentials> credentials;
  std::vector<grpc::Service*> services;
  absl::Duration drain_grace;
  absl::Duration max_connection_age;
  std::vector<std::pair<std::string, int>> int_args;
};

class Generation {
 public:
  // Builds and starts the grpc::Server (no listening port); *config_errors
  // gets A36's configuration errors of its routes (ChainRoutes::Build).
  static absl::StatusOr<std::unique_ptr<Generation>> Start(
      uint64_t id, std::shared_ptr<const xds_config::ServerConfig> config,
      const GenerationOptions& options,
      std::vector<std::string>* config_errors);
  ~Generation();  // Shutdown(now) if still running

  uint64_t id() const { return id_; }
  const resources::ServerListener& listener() const { return *listener_; }
  // The Listener's filter chain map, compiled (A36 §FilterChainMatch).
  const CompiledFilterChainMap& chain_map() const { return *chain_map_; }
  const std::shared_ptr<const resources::Listener>& listener_resource() const {
    return config_->listener;
  }

  // Gives the accepted, non-blocking `fd` to gRPC, which owns it from now,
  // remembering which chain the peer's connection uses (`chain` as in
  // ChainRoutes::Check). Only while running (the caller serializes this
  // with Shutdown).
  void HandOff(int listener_fd, int fd, const SocketAddress& peer,
               size_t chain);

  // An RDS change, applied to existing connections without draining: the
  // RouteConfigurations `config` has for the RDS names this generation's
  // Listener uses replace the ones it had (names `config` lacks, e.g. in a
  // draining generation whose Listener was replaced, keep their values).
  void UpdateRoutes(const xds_config::ServerConfig& config,
                    std::vector<std::string>* config_errors);

  // The per-RPC check (A36): OK or UNAVAILABLE. `peer` is
  // ServerContext::peer() ("ipv4:127.0.0.1:5000").
  absl::Status CheckRpc(absl::string_view peer, absl::string_view authority,
                        absl::string_view path, routing::HeaderLookup headers,
                        std::string* scratch);

  // Waits until `deadline` for running RPCs, then cancels the rest.
  void Shutdown(absl::Time deadline);

 private:
  Generation(uint64_t id, std::shared_ptr<const xds_config::ServerConfig> c,
             SocketAddress listening_address);
  size_t ChainForPeer(absl::string_view peer)
      ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);

  const uint64_t id_;
  const std::shared_ptr<const xds_config::ServerConfig> config_;
  const resources::ServerListener* listener_ = nullptr;
  std::unique_ptr<const CompiledFilterChainMap> chain_map_;
  std::unique_ptr<grpc::experimental::ExternalConnectionAcceptor> acceptor_;
  const SocketAddress listening_address_;
  std::unique_ptr<grpc::Server> server_;
  bool shut_down_ = false;

  Mutex mu_;
  std::shared_ptr<const ChainRoutes> routes_ ABSL_GUARDED_BY(mu_);
  // The RouteConfigurations routes_ was built from.
  xds_config::ServerConfig route_source_ ABSL_GUARDED_BY(mu_);
  // gRPC does not tell a handler which connection (or acceptor) a call came
  // on; ServerContext::peer() is the peer address recorded at accept time.
  // Bounded: when full it is cleared, and a peer not found is matched again
  // with the listening address as its destination.
  absl::flat_hash_map<std::string, size_t> chain_by_peer_ ABSL_GUARDED_BY(mu_);
};

}  // namespace xdsfed::server

#endif  // XDSFED_LIB_SERVER_GENERATION_H_
