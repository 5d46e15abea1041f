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

#include "absl/status/statusor.h"
#include "absl/time/time.h"
#include "grpcpp/grpcpp.h"
#include "lib/resources/listener.h"
#include "lib/xds_config/xds_config.h"

namespace xdsfed::server {

struct GenerationOptions {
  std::shared_ptr<grpc::ServerCredentials> credentials;
  std::vector<grpc::Service*> services;
  absl::Duration drain_grace;
  absl::Duration max_connection_age;
  std::vector<std::pair<std::string, int>> int_args;
};

class Generation {
 public:
  // Builds and starts the grpc::Server (no listening port).
  static absl::StatusOr<std::unique_ptr<Generation>> Start(
      uint64_t id, std::shared_ptr<const xds_config::ServerConfig> config,
      const GenerationOptions& options);
  ~Generation();  // Shutdown(now) if still running

  uint64_t id() const { return id_; }
  const resources::ServerListener& listener() const { return *listener_; }
  const std::shared_ptr<const resources::Listener>& listener_resource() const {
    return config_->listener;
  }

  // Gives the accepted, non-blocking `fd` to gRPC, which owns it from now.
  // Only while running (the caller serializes this with Shutdown).
  void HandOff(int listener_fd, int fd);

  // Waits until `deadline` for running RPCs, then cancels the rest.
  void Shutdown(absl::Time deadline);

 private:
  Generation(uint64_t id, std::shared_ptr<const xds_config::ServerConfig> c);

  const uint64_t id_;
  const std::shared_ptr<const xds_config::ServerConfig> config_;
  const resources::ServerListener* listener_ = nullptr;
  std::unique_ptr<grpc::experimental::ExternalConnectionAcceptor> acceptor_;
  std::unique_ptr<grpc::Server> server_;
  bool shut_down_ = false;
};

}  // namespace xdsfed::server

#endif  // XDSFED_LIB_SERVER_GENERATION_H_
