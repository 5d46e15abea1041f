// Async services on an xDS-enabled server (issue 12 API): grpc++ binds an
// async service to one grpc::Server, and the server has one grpc::Server per
// Listener generation (xds_server.h), so the user gives a factory called
// once per generation.
//
// clang-format off
//   // snippet: file
//   class MyAsync : public xdsfed::server::AsyncServiceInstance {
//    public:
//     grpc::Service* service() override { return &service_; }
//     void Start(grpc::ServerCompletionQueue* cq) override {
//       cq_ = cq;  // request the first calls, then poll cq_ on a thread
//       poller_ = std::thread([this] { Poll(); });
//     }
//     void Stop() override {  // no new Request* / Finish from now on
//       std::lock_guard<std::mutex> lock(mu_);
//       stopping_ = true;
//     }
//     void Join() override { poller_.join(); }
//
//    private:
//     void Poll() {
//       void* tag;
//       bool ok;
//       while (cq_->Next(&tag, &ok)) { /* handle the call's tag */ }
//     }
//     helloworld::Greeter::AsyncService service_;
//     grpc::ServerCompletionQueue* cq_ = nullptr;
//     std::thread poller_;
//     std::mutex mu_;
//     bool stopping_ = false;
//   };
//   void Register(xdsfed::server::XdsServerBuilder& builder) {
//     builder.RegisterAsyncServiceFactory(
//         [](uint64_t generation) { return std::make_unique<MyAsync>(); });
//   }
// clang-format on
#ifndef XDSFED_LIB_SERVER_ASYNC_SERVICE_H_
#define XDSFED_LIB_SERVER_ASYNC_SERVICE_H_

#include <cstdint>
#include <functional>
#include <memory>

#include "grpcpp/grpcpp.h"

namespace xdsfed::server {

// An async service's life on one server generation (XdsServerBuilder::
// RegisterAsyncServiceFactory).
class AsyncServiceInstance {
 public:
  virtual ~AsyncServiceInstance() = default;
  // Registered on this generation's grpc::Server before it starts; owned by
  // this object, which outlives that server.
  virtual grpc::Service* service() = 0;
  // The server has started: request calls on `cq` (this generation's own
  // completion queue) and poll it on threads this object owns. Returns
  // promptly.
  virtual void Start(grpc::ServerCompletionQueue* cq) = 0;
  // The generation's grpc::Server has shut down (every call requested from
  // now on fails at once with ok = false): once Stop returns, start no new
  // operation on `cq` (Request*, Finish, ...), since `cq` is shut down next
  // and grpc++ aborts on an operation against a shut-down queue (guard
  // "stopping + start an operation" with one lock).
  virtual void Stop() = 0;
  // `cq` has been shut down: return once the pollers have drained it
  // (Next() returned false) and exited. Called before the server is
  // destroyed (grpc++'s own tags in `cq` point at it); the instance itself
  // is destroyed after the server.
  virtual void Join() = 0;
};

// Called once per generation (its id, from 1) for a new instance.
using AsyncServiceFactory =
    std::function<std::unique_ptr<AsyncServiceInstance>(uint64_t generation)>;

}  // namespace xdsfed::server

#endif  // XDSFED_LIB_SERVER_ASYNC_SERVICE_H_
