#include "lib/transport/grpc_lifetime.h"

#include "grpcpp/generic/async_generic_service.h"
#include "grpcpp/grpcpp.h"

namespace xdsfed::transport {

bool HoldGrpcCallbackQueueForProcessLife() {
  // Leaked on purpose (see the header): reachable from these statics, so
  // LeakSanitizer does not count them.
  static grpc::CallbackGenericService* const service =
      new grpc::CallbackGenericService();
  static grpc::Server* const server = [] {
    grpc::ServerBuilder builder;
    // A callback service makes Start() take a reference on the callback
    // queue; no listening port, so nothing is ever accepted.
    builder.RegisterCallbackGenericService(service);
    return builder.BuildAndStart().release();
  }();
  return server != nullptr;
}

}  // namespace xdsfed::transport
