#include "tools/control_plane/echo_backend.h"

#include <vector>

#include "absl/strings/str_cat.h"
#include "grpcpp/generic/generic_stub.h"
#include "grpcpp/support/byte_buffer.h"
#include "lib/transport/grpc_listen.h"

namespace xdsfed::control_plane {

// Reads one message, writes it back, finishes.
class EchoBackend::Service : public grpc::CallbackGenericService {
  class Reactor : public grpc::ServerGenericBidiReactor {
   public:
    Reactor() { StartRead(&message_); }
    void OnReadDone(bool ok) override {
      if (!ok) {
        Finish(grpc::Status::OK);
        return;
      }
      StartWrite(&message_);
    }
    void OnWriteDone(bool /*ok*/) override { Finish(grpc::Status::OK); }
    void OnDone() override { delete this; }

   private:
    grpc::ByteBuffer message_;
  };

  grpc::ServerGenericBidiReactor* CreateReactor(
      grpc::GenericCallbackServerContext* /*context*/) override {
    return new Reactor();
  }
};

EchoBackend::EchoBackend() : service_(std::make_unique<Service>()) {}

EchoBackend::~EchoBackend() {
  if (server_ != nullptr) server_->Shutdown();
}

absl::StatusOr<int> EchoBackend::Start() {
  if (server_ != nullptr) return absl::FailedPreconditionError("started");
  int port = 0;
  grpc::ServerBuilder builder;
  builder.RegisterCallbackGenericService(service_.get());
  absl::StatusOr<std::unique_ptr<grpc::Server>> server =
      transport::BuildAndStartListening(builder, "127.0.0.1:0",
                                        grpc::InsecureServerCredentials(),
                                        transport::ListenOptions(), &port);
  if (!server.ok()) {
    return absl::Status(
        server.status().code(),
        absl::StrCat("echo backend: ", server.status().message()));
  }
  server_ = *std::move(server);
  return port;
}

grpc::Status EchoOnce(const std::shared_ptr<grpc::Channel>& channel,
                      absl::Duration deadline, std::string* reply) {
  grpc::GenericStub stub(channel);
  grpc::ClientContext context;
  context.set_wait_for_ready(true);
  context.set_deadline(absl::ToChronoTime(absl::Now() + deadline));
  grpc::Slice slice(std::string("ping"));
  grpc::ByteBuffer request(&slice, 1);
  grpc::ByteBuffer response;
  grpc::CompletionQueue cq;
  std::unique_ptr<grpc::GenericClientAsyncResponseReader> call =
      stub.PrepareUnaryCall(&context, kEchoMethod, request, &cq);
  call->StartCall();
  grpc::Status status;
  call->Finish(&response, &status, reinterpret_cast<void*>(1));
  void* tag = nullptr;
  bool ok = false;
  if (!cq.Next(&tag, &ok)) {
    return grpc::Status(grpc::StatusCode::INTERNAL, "completion queue shut");
  }
  if (status.ok()) {
    std::vector<grpc::Slice> slices;
    (void)response.Dump(&slices);
    reply->clear();
    for (const grpc::Slice& s : slices) {
      reply->append(reinterpret_cast<const char*>(s.begin()), s.size());
    }
  }
  return status;
}

}  // namespace xdsfed::control_plane
