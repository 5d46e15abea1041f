#include "lib/server/generation.h"

#include <unistd.h>

#include <variant>

#include "absl/strings/str_cat.h"
#include "absl/time/clock.h"

namespace xdsfed::server {

Generation::Generation(uint64_t id,
                       std::shared_ptr<const xds_config::ServerConfig> c)
    : id_(id), config_(std::move(c)) {
  listener_ = &std::get<resources::ServerListener>(config_->listener->listener);
}

absl::StatusOr<std::unique_ptr<Generation>> Generation::Start(
    uint64_t id, std::shared_ptr<const xds_config::ServerConfig> config,
    const GenerationOptions& options) {
  if (config == nullptr || config->listener == nullptr ||
      !std::holds_alternative<resources::ServerListener>(
          config->listener->listener)) {
    return absl::InvalidArgumentError("not a server Listener");
  }
  std::unique_ptr<Generation> g(new Generation(id, std::move(config)));
  grpc::ServerBuilder builder;
  for (grpc::Service* s : options.services) builder.RegisterService(s);
  for (const auto& [name, value] : options.int_args) {
    builder.AddChannelArgument(name, value);
  }
  // The drain (xds_server.h): every connection gets a graceful GOAWAY at
  // its maximum age, then RPCs still running get the drain grace time.
  auto ms = [](absl::Duration d) {
    int64_t v = absl::ToInt64Milliseconds(d);
    return static_cast<int>(v > INT32_MAX ? INT32_MAX : (v < 1 ? 1 : v));
  };
  builder.AddChannelArgument(GRPC_ARG_MAX_CONNECTION_AGE_MS,
                             ms(options.max_connection_age));
  builder.AddChannelArgument(GRPC_ARG_MAX_CONNECTION_AGE_GRACE_MS,
                             ms(options.drain_grace));
  g->acceptor_ = builder.experimental().AddExternalConnectionAcceptor(
      grpc::ServerBuilder::experimental_type::ExternalConnectionType::FROM_FD,
      options.credentials);
  g->server_ = builder.BuildAndStart();
  if (g->server_ == nullptr) {
    return absl::InternalError(
        absl::StrCat("generation ", id, ": grpc::ServerBuilder failed"));
  }
  return g;
}

Generation::~Generation() { Shutdown(absl::Now()); }

void Generation::HandOff(int listener_fd, int fd) {
  grpc::experimental::ExternalConnectionAcceptor::NewConnectionParameters p;
  p.listener_fd = listener_fd;
  p.fd = fd;
  acceptor_->HandleNewConnection(&p);
}

void Generation::Shutdown(absl::Time deadline) {
  if (shut_down_ || server_ == nullptr) return;
  shut_down_ = true;
  server_->Shutdown(absl::ToChronoTime(deadline));
  server_->Wait();
}

}  // namespace xdsfed::server
