#include "lib/transport/grpc_listen.h"

#include <errno.h>
#include <netdb.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cstring>
#include <utility>

#include "absl/strings/str_cat.h"
#include "absl/strings/strip.h"
#include "grpcpp/grpcpp.h"
#include "lib/transport/grpc_lifetime.h"

namespace xdsfed::transport {
namespace {

// Splits "host:port" / "[v6]:port" (after gRPC's optional "ipv4:",
// "ipv6:" or "dns:" scheme); false for anything else (e.g. "unix:").
bool SplitHostPort(absl::string_view address, std::string* host,
                   std::string* port) {
  for (absl::string_view scheme : {"ipv4:", "ipv6:", "dns:///", "dns:"}) {
    if (absl::ConsumePrefix(&address, scheme)) break;
  }
  if (!address.empty() && address[0] == '[') {
    const size_t close = address.find("]:");
    if (close == absl::string_view::npos) return false;
    *host = std::string(address.substr(1, close - 1));
    *port = std::string(address.substr(close + 2));
    return true;
  }
  const size_t colon = address.rfind(':');
  if (colon == absl::string_view::npos ||
      address.substr(0, colon).find(':') != absl::string_view::npos) {
    return false;
  }
  *host = std::string(address.substr(0, colon));
  *port = std::string(address.substr(colon + 1));
  return true;
}

// Why gRPC could not listen on `address`: binds and listens on it again the
// way gRPC's socket did (SO_REUSEADDR, SO_REUSEPORT only if asked) and
// returns the errno of a failure, EADDRINUSE first; 0 when every attempt
// works or the address is not a literal IP or "localhost" (no name lookups
// here).
int ProbeListen(absl::string_view address, bool reuse_port) {
  std::string host, port;
  if (!SplitHostPort(address, &host, &port) || port.empty()) return 0;
  addrinfo hints;
  std::memset(&hints, 0, sizeof(hints));
  hints.ai_family = AF_UNSPEC;
  hints.ai_socktype = SOCK_STREAM;
  hints.ai_flags = AI_PASSIVE | AI_NUMERICSERV;
  if (host != "localhost") hints.ai_flags |= AI_NUMERICHOST;
  addrinfo* list = nullptr;
  if (getaddrinfo(host.empty() ? nullptr : host.c_str(), port.c_str(), &hints,
                  &list) != 0) {
    return 0;
  }
  int result = 0;
  for (addrinfo* ai = list; ai != nullptr; ai = ai->ai_next) {
    const int fd =
        socket(ai->ai_family, ai->ai_socktype | SOCK_CLOEXEC, ai->ai_protocol);
    if (fd < 0) continue;
    int one = 1;
    setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
    if (reuse_port) setsockopt(fd, SOL_SOCKET, SO_REUSEPORT, &one, sizeof(one));
    if (bind(fd, ai->ai_addr, ai->ai_addrlen) != 0 || listen(fd, 1) != 0) {
      const int err = errno;
      if (result != EADDRINUSE) result = err;
    }
    close(fd);
  }
  freeaddrinfo(list);
  return result;
}

}  // namespace

absl::Status ListenError(absl::string_view address, int err) {
  if (err == EADDRINUSE) {
    return absl::UnavailableError(
        absl::StrCat("address ", address, " is in use"));
  }
  return absl::UnavailableError(
      absl::StrCat("cannot listen on ", address, ": ", std::strerror(err)));
}

absl::StatusOr<std::unique_ptr<grpc::Server>> BuildAndStartListening(
    grpc::ServerBuilder& builder, const std::string& address,
    std::shared_ptr<grpc::ServerCredentials> credentials,
    const ListenOptions& options, int* selected_port) {
  HoldGrpcCallbackQueueForProcessLife();
  int port = 0;
  builder.AddListeningPort(address, std::move(credentials), &port);
  builder.AddChannelArgument(GRPC_ARG_ALLOW_REUSEPORT,
                             options.allow_reuse_port ? 1 : 0);
  // grpc++ says only "no server" (or port 0) when a port cannot be bound.
  std::unique_ptr<grpc::Server> server = builder.BuildAndStart();
  if (server == nullptr || port == 0) {
    if (server != nullptr) server->Shutdown();
    const int err = ProbeListen(address, options.allow_reuse_port);
    if (err != 0) return ListenError(address, err);
    return absl::UnavailableError(absl::StrCat("cannot listen on ", address));
  }
  if (selected_port != nullptr) *selected_port = port;
  return server;
}

}  // namespace xdsfed::transport
