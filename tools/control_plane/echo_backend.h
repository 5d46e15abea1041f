// A loopback gRPC backend for xDS routing checks: a server that answers any
// method with the bytes it received, and one unary call to it. Tests and
// benchmarks point a control plane's endpoints at it and prove that a real
// gRPC channel (e.g. gRPC C++'s own xDS client) reached it.
//
//   EchoBackend backend;
//   absl::StatusOr<int> port = backend.Start();  // 127.0.0.1:<port>
//   std::string reply;
//   grpc::Status s = EchoOnce(channel, absl::Seconds(30), &reply);  // "ping"
#ifndef XDSFED_TOOLS_CONTROL_PLANE_ECHO_BACKEND_H_
#define XDSFED_TOOLS_CONTROL_PLANE_ECHO_BACKEND_H_

#include <memory>
#include <string>

#include "absl/status/statusor.h"
#include "absl/time/clock.h"
#include "absl/time/time.h"
#include "grpcpp/generic/async_generic_service.h"
#include "grpcpp/grpcpp.h"

namespace xdsfed::control_plane {

inline constexpr char kEchoMethod[] = "/xdsfed.test.Echo/Echo";

class EchoBackend {
 public:
  EchoBackend();
  ~EchoBackend();  // shuts the server down
  EchoBackend(const EchoBackend&) = delete;
  EchoBackend& operator=(const EchoBackend&) = delete;

  // Listens on 127.0.0.1 at a free port and returns it.
  absl::StatusOr<int> Start();

 private:
  class Service;
  std::unique_ptr<Service> service_;
  std::unique_ptr<grpc::Server> server_;
};

// One unary call of kEchoMethod sending "ping", waiting for the channel to
// become ready (wait_for_ready) up to `deadline`; on success *reply holds the
// answer.
grpc::Status EchoOnce(const std::shared_ptr<grpc::Channel>& channel,
                      absl::Duration deadline, std::string* reply);

}  // namespace xdsfed::control_plane

#endif  // XDSFED_TOOLS_CONTROL_PLANE_ECHO_BACKEND_H_
