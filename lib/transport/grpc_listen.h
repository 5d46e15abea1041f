// Listening sockets for a grpc::Server that are never shared by accident.
// grpc++ sets SO_REUSEPORT on every listening socket unless told otherwise
// (GRPC_ARG_ALLOW_REUSEPORT), so a second server on a port another one holds
// starts "listening" too and the kernel splits the connections between the
// two (issue 29: 3 of 6 `xdsfed watch` runs got the cluster, 3 got
// nothing). Here a port in use is refused with an error naming the address;
// sharing a port is on only when asked for, and only with other sockets that
// asked for it too.
//
// clang-format off
//   grpc::ServerBuilder builder;
//   builder.RegisterService(&my_service);
//   int port = 0;
//   absl::StatusOr<std::unique_ptr<grpc::Server>> server =
//       xdsfed::transport::BuildAndStartListening(
//           builder, "127.0.0.1:50051", grpc::InsecureServerCredentials(),
//           xdsfed::transport::ListenOptions(), &port);
//   // held by another process: "address 127.0.0.1:50051 is in use"
// clang-format on
#ifndef XDSFED_LIB_TRANSPORT_GRPC_LISTEN_H_
#define XDSFED_LIB_TRANSPORT_GRPC_LISTEN_H_

#include <memory>
#include <string>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "grpcpp/security/server_credentials.h"
#include "grpcpp/server.h"
#include "grpcpp/server_builder.h"

namespace xdsfed::transport {

struct ListenOptions {
  // SO_REUSEPORT: servers that all ask for it may listen on one port and the
  // kernel spreads new connections among them. Off by default: a port in
  // use is an error.
  bool allow_reuse_port = false;
};

// Adds `address` ("host:port", as grpc::ServerBuilder::AddListeningPort
// takes it; port 0 picks a free one) to `builder` with `credentials`, sets
// GRPC_ARG_ALLOW_REUSEPORT from `options`, then builds and starts the
// server. *selected_port (if not null) gets the port bound. Errors
// (kUnavailable): "address A is in use" when another socket holds the port,
// else "cannot listen on A" with the reason when it is known.
absl::StatusOr<std::unique_ptr<grpc::Server>> BuildAndStartListening(
    grpc::ServerBuilder& builder, const std::string& address,
    std::shared_ptr<grpc::ServerCredentials> credentials,
    const ListenOptions& options, int* selected_port = nullptr);

// The error for a listening socket on `address` whose bind() or listen()
// failed with errno `err`: "address A is in use" for EADDRINUSE, else
// "cannot listen on A: <strerror>" (kUnavailable).
absl::Status ListenError(absl::string_view address, int err);

}  // namespace xdsfed::transport

#endif  // XDSFED_LIB_TRANSPORT_GRPC_LISTEN_H_
