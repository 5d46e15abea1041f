// Callback (reactor) streaming through an XdsChannel with generated stubs:
// the pick waits without blocking a thread (PickAsync), then binds the
// reactor on the endpoint's cached stub and starts the call.
//
// clang-format off
//   class Reader : public TrackedReactor<grpc::ClientReadReactor<Feature>> {
//     void OnStart() override { StartRead(&feature_); }  // first ops here
//     void OnReadDone(bool ok) override { if (ok) StartRead(&feature_); }
//     void OnFinished(const grpc::Status& s) override { delete this; }
//     Feature feature_;
//   };
//   grpc::ClientContext ctx;  // must outlive the call
//   ServerStreamingCallback<RouteGuide::Stub>(*ch,
//       "/routeguide.RouteGuide/ListFeatures",
//       &RouteGuide::Stub::async::ListFeatures, &ctx, &rect, new Reader);
// clang-format on
//
// grpc++ 1.51 reactors dereference their stream in StartRead / StartWrite,
// which exists only once the stub has bound the reactor -- here, after the
// asynchronous pick -- so the first operations go in OnStart(), which runs
// after binding and before StartCall. OnFinished(status) replaces OnDone:
// it runs exactly once, with the call's status after the tracker was
// finished with it, or with the pick's status when the pick failed (then no
// other callback runs). The route's max_stream_duration caps the context's
// deadline (gRFC A31), as for the other helpers.
#ifndef XDSFED_LIB_CHANNEL_STREAMING_CALLBACK_H_
#define XDSFED_LIB_CHANNEL_STREAMING_CALLBACK_H_

#include <utility>

#include "absl/strings/string_view.h"
#include "absl/time/clock.h"
#include "absl/types/span.h"
#include "grpcpp/grpcpp.h"
#include "lib/channel/unary.h"
#include "lib/channel/xds_channel.h"

namespace xdsfed {
namespace channel {

// ReactorT: grpc::ClientReadReactor<Resp>, grpc::ClientWriteReactor<Req> or
// grpc::ClientBidiReactor<Req, Resp>.
template <typename ReactorT>
class TrackedReactor : public ReactorT {
 public:
  // Bound to its call, not yet started: queue the first operations.
  virtual void OnStart() {}
  // The call's final status, or the pick's; the last callback.
  virtual void OnFinished(const grpc::Status& status) = 0;

  // Where the call went; valid from OnStart on.
  const PickResult& pick() const { return pick_; }

  // For the *Callback functions below: bind with `bind(stub, this)`, then
  // OnStart, then StartCall.
  template <typename StubT, typename BindFn>
  void Begin(PickResult pick, BindFn&& bind) {
    StubT& stub = StubFor<StubT>(pick);
    pick_ = std::move(pick);
    bind(stub, this);
    OnStart();
    this->StartCall();
  }

 private:
  void OnDone(const grpc::Status& status) final {
    pick_.tracker.Finish(status.ok());
    OnFinished(status);
  }

  PickResult pick_;  // keeps the endpoint (and its stub) while the call runs
};

namespace streaming_internal {

template <typename StubT, typename ReactorT, typename BindFn>
void PickThenBegin(XdsChannel& channel, absl::string_view method_path,
                   grpc::ClientContext* ctx,
                   absl::Span<const MetadataEntry> metadata,
                   TrackedReactor<ReactorT>* reactor, BindFn bind) {
  const absl::Time start = absl::Now();
  channel.PickAsync(
      PickArgs{method_path, metadata}, ContextDeadline(*ctx),
      [ctx, reactor, start, bind = std::move(bind)](PickResult pick) mutable {
        if (!pick.status.ok()) {
          reactor->OnFinished(ToGrpcStatus(pick.status));
          return;
        }
        CapDeadline(ctx, start, pick);
        reactor->template Begin<StubT>(std::move(pick), bind);
      });
}

}  // namespace streaming_internal

// Server streaming: `Stub::async::Method(ctx, request, reactor)`.
template <typename StubT, typename AsyncT, typename Request, typename Response>
void ServerStreamingCallback(
    XdsChannel& channel, absl::string_view method_path,
    void (AsyncT::*method)(grpc::ClientContext*, const Request*,
                           grpc::ClientReadReactor<Response>*),
    grpc::ClientContext* ctx, const Request* request,
    TrackedReactor<grpc::ClientReadReactor<Response>>* reactor,
    absl::Span<const MetadataEntry> metadata = {}) {
  streaming_internal::PickThenBegin<StubT>(
      channel, method_path, ctx, metadata, reactor,
      [method, ctx, request](StubT& stub, auto* r) {
        (stub.async()->*method)(ctx, request, r);
      });
}

// Client streaming: `Stub::async::Method(ctx, response, reactor)`.
template <typename StubT, typename AsyncT, typename Request, typename Response>
void ClientStreamingCallback(
    XdsChannel& channel, absl::string_view method_path,
    void (AsyncT::*method)(grpc::ClientContext*, Response*,
                           grpc::ClientWriteReactor<Request>*),
    grpc::ClientContext* ctx, Response* response,
    TrackedReactor<grpc::ClientWriteReactor<Request>>* reactor,
    absl::Span<const MetadataEntry> metadata = {}) {
  streaming_internal::PickThenBegin<StubT>(
      channel, method_path, ctx, metadata, reactor,
      [method, ctx, response](StubT& stub, auto* r) {
        (stub.async()->*method)(ctx, response, r);
      });
}

// Bidirectional streaming: `Stub::async::Method(ctx, reactor)`.
template <typename StubT, typename AsyncT, typename Request, typename Response>
void BidiStreamingCallback(
    XdsChannel& channel, absl::string_view method_path,
    void (AsyncT::*method)(grpc::ClientContext*,
                           grpc::ClientBidiReactor<Request, Response>*),
    grpc::ClientContext* ctx,
    TrackedReactor<grpc::ClientBidiReactor<Request, Response>>* reactor,
    absl::Span<const MetadataEntry> metadata = {}) {
  streaming_internal::PickThenBegin<StubT>(
      channel, method_path, ctx, metadata, reactor,
      [method, ctx](StubT& stub, auto* r) { (stub.async()->*method)(ctx, r); });
}

}  // namespace channel
}  // namespace xdsfed

#endif  // XDSFED_LIB_CHANNEL_STREAMING_CALLBACK_H_
