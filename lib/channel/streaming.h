// Streaming RPCs through an XdsChannel with generated stubs, one line each:
// pick (waiting up to the context's deadline for a connecting priority),
// open the stream on the endpoint's cached stub, and account the call once
// with its final status.
//
// clang-format off
//   grpc::ClientContext ctx;
//   auto reader = xdsfed::channel::ServerStreaming(*ch,
//       "/routeguide.RouteGuide/ListFeatures",
//       &RouteGuide::Stub::ListFeatures, &ctx, rect);
//   Feature f;
//   while (reader.Read(&f)) { /* use f */ }
//   grpc::Status s = reader.Finish();   // the pick's status if it failed
//
//   grpc::ClientContext ctx2, ctx3;
//   auto writer = ClientStreaming(*ch, "/routeguide.RouteGuide/RecordRoute",
//                                 &RouteGuide::Stub::RecordRoute, &ctx2,
//                                 &summary);   // Write, WritesDone, Finish
//   auto stream = BidiStreaming(*ch, "/routeguide.RouteGuide/RouteChat",
//                               &RouteGuide::Stub::RouteChat,
//                               &ctx3);        // Read, Write, ..., Finish
// clang-format on
//
// The route's max_stream_duration caps the context's deadline (gRFC A31),
// as for unary calls.
//
// Accounting (CallTracker): Finish() finishes the tracker exactly once with
// the call's status. A stream destroyed before Finish() cancels its call
// (ClientContext::TryCancel), collects the status so the call is released
// cleanly, and counts as an error, so an abandoned stream is neither left
// running nor lost from the load report or the circuit breaker.
#ifndef XDSFED_LIB_CHANNEL_STREAMING_H_
#define XDSFED_LIB_CHANNEL_STREAMING_H_

#include <memory>
#include <optional>
#include <utility>

#include "absl/strings/string_view.h"
#include "absl/time/clock.h"
#include "absl/types/span.h"
#include "grpcpp/grpcpp.h"
#include "lib/channel/unary.h"
#include "lib/channel/xds_channel.h"

namespace xdsfed {
namespace channel {

// One streaming call: the pick that chose its endpoint and the generated
// stub's stream (grpc::ClientReader / ClientWriter / ClientReaderWriter, or
// any type with their Read / Write / WritesDone / Finish). Use only the
// operations the stream type has. Not thread-safe beyond what StreamT
// allows (one reader and one writer at a time for bidi).
template <typename StreamT>
class TrackedStream {
 public:
  // `stream` null: the pick failed with pick.status (or the stub gave no
  // stream); reads and writes fail and Finish() returns that status.
  TrackedStream(grpc::ClientContext* ctx, PickResult pick,
                std::unique_ptr<StreamT> stream)
      : ctx_(ctx), pick_(std::move(pick)), stream_(std::move(stream)) {
    if (stream_ == nullptr && pick_.status.ok()) {
      pick_.status = absl::InternalError("the stub returned no stream");
    }
  }
  TrackedStream(TrackedStream&& other) noexcept = default;
  TrackedStream& operator=(TrackedStream&&) = delete;
  TrackedStream(const TrackedStream&) = delete;
  TrackedStream& operator=(const TrackedStream&) = delete;

  ~TrackedStream() {
    if (stream_ != nullptr && !status_.has_value()) {
      ctx_->TryCancel();
      stream_->Finish();
      pick_.tracker.Finish(false);
    }
  }

  // The pick succeeded and the call was started.
  bool ok() const { return stream_ != nullptr; }
  // Where the call went (cluster, priority, locality, endpoint).
  const PickResult& pick() const { return pick_; }

  template <typename M>
  bool Read(M* message) {
    return stream_ != nullptr && !status_.has_value() && stream_->Read(message);
  }
  template <typename M>
  bool Write(const M& message) {
    return stream_ != nullptr && !status_.has_value() &&
           stream_->Write(message);
  }
  bool WritesDone() {
    return stream_ != nullptr && !status_.has_value() && stream_->WritesDone();
  }
  void WaitForInitialMetadata() {
    if (stream_ != nullptr && !status_.has_value()) {
      stream_->WaitForInitialMetadata();
    }
  }

  // The call's final status (after reading every message, as grpc++
  // requires), or the pick's. The tracker is finished by the first call;
  // later calls return the same status.
  grpc::Status Finish() {
    if (!status_.has_value()) {
      if (stream_ == nullptr) {
        status_ = ToGrpcStatus(pick_.status);
      } else {
        status_ = stream_->Finish();
        pick_.tracker.Finish(status_->ok());
      }
    }
    return *status_;
  }

 private:
  grpc::ClientContext* const ctx_;
  PickResult pick_;  // declared first: the stream goes before its endpoint
  std::unique_ptr<StreamT> stream_;
  std::optional<grpc::Status> status_;
};

namespace streaming_internal {

// The pick, and the route's max_stream_duration applied to `ctx` (A31).
inline PickResult PickFor(XdsChannel& channel, absl::string_view method_path,
                          grpc::ClientContext* ctx,
                          absl::Span<const MetadataEntry> metadata) {
  const absl::Time start = absl::Now();
  PickResult pick =
      channel.Pick(PickArgs{method_path, metadata}, ContextDeadline(*ctx));
  if (pick.status.ok()) CapDeadline(ctx, start, pick);
  return pick;
}

}  // namespace streaming_internal

// Server streaming: `Stub::Method(ctx, request)`.
template <typename StubT, typename Request, typename Response>
TrackedStream<grpc::ClientReader<Response>> ServerStreaming(
    XdsChannel& channel, absl::string_view method_path,
    std::unique_ptr<grpc::ClientReader<Response>> (StubT::*method)(
        grpc::ClientContext*, const Request&),
    grpc::ClientContext* ctx, const Request& request,
    absl::Span<const MetadataEntry> metadata = {}) {
  PickResult pick =
      streaming_internal::PickFor(channel, method_path, ctx, metadata);
  std::unique_ptr<grpc::ClientReader<Response>> stream;
  if (pick.status.ok()) stream = (StubFor<StubT>(pick).*method)(ctx, request);
  return {ctx, std::move(pick), std::move(stream)};
}

// Client streaming: `Stub::Method(ctx, response)`; `response` is filled when
// Finish() returns OK.
template <typename StubT, typename Request, typename Response>
TrackedStream<grpc::ClientWriter<Request>> ClientStreaming(
    XdsChannel& channel, absl::string_view method_path,
    std::unique_ptr<grpc::ClientWriter<Request>> (StubT::*method)(
        grpc::ClientContext*, Response*),
    grpc::ClientContext* ctx, Response* response,
    absl::Span<const MetadataEntry> metadata = {}) {
  PickResult pick =
      streaming_internal::PickFor(channel, method_path, ctx, metadata);
  std::unique_ptr<grpc::ClientWriter<Request>> stream;
  if (pick.status.ok()) stream = (StubFor<StubT>(pick).*method)(ctx, response);
  return {ctx, std::move(pick), std::move(stream)};
}

// Bidirectional streaming: `Stub::Method(ctx)`.
template <typename StubT, typename Request, typename Response>
TrackedStream<grpc::ClientReaderWriter<Request, Response>> BidiStreaming(
    XdsChannel& channel, absl::string_view method_path,
    std::unique_ptr<grpc::ClientReaderWriter<Request, Response>> (
        StubT::*method)(grpc::ClientContext*),
    grpc::ClientContext* ctx, absl::Span<const MetadataEntry> metadata = {}) {
  PickResult pick =
      streaming_internal::PickFor(channel, method_path, ctx, metadata);
  std::unique_ptr<grpc::ClientReaderWriter<Request, Response>> stream;
  if (pick.status.ok()) stream = (StubFor<StubT>(pick).*method)(ctx);
  return {ctx, std::move(pick), std::move(stream)};
}

}  // namespace channel
}  // namespace xdsfed

#endif  // XDSFED_LIB_CHANNEL_STREAMING_H_
