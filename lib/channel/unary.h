// One-line RPCs through an XdsChannel with generated stubs: pick (waiting up
// to the context's deadline for a connecting priority), call on the
// endpoint's cached stub, Finish the tracker with the call's status.
//
// clang-format off
//   helloworld::HelloReply reply;
//   grpc::ClientContext ctx;
//   grpc::Status s = xdsfed::channel::Unary(*ch, "/helloworld.Greeter/SayHello",
//                                           &Greeter::Stub::SayHello, &ctx,
//                                           request, &reply);
//
//   // callback API (generated Stub::async); ctx, request and reply must
//   // outlive the call:
//   xdsfed::channel::UnaryCallback<Greeter::Stub>(
//       *ch, "/helloworld.Greeter/SayHello", &Greeter::Stub::async::SayHello,
//       &ctx, &request, &reply, [](grpc::Status s) { /* done */ });
// clang-format on
//
// clang-format off
//   // By hand: pick, then use the endpoint's cached stub; Finish the
//   // tracker once the call has ended.
//   grpc::ClientContext ctx;
//   PickResult pick = ch->Pick({"/routeguide.RouteGuide/RouteChat", {}});
//   if (!pick.status.ok()) return pick.status;
//   auto stream = StubFor<RouteGuide::Stub>(pick).RouteChat(&ctx);
//   stream->WritesDone();
//   pick.tracker.Finish(stream->Finish().ok());
// clang-format on
//
// The method path is given because routing needs it before any stub is
// chosen and generated stubs do not expose it; header matchers see
// `metadata`. The route's max_stream_duration caps the context's deadline
// (gRFC A31, CapDeadline).
#ifndef XDSFED_LIB_CHANNEL_UNARY_H_
#define XDSFED_LIB_CHANNEL_UNARY_H_

#include <chrono>
#include <functional>
#include <memory>
#include <string>
#include <utility>

#include "absl/status/status.h"
#include "absl/strings/string_view.h"
#include "absl/time/clock.h"
#include "absl/time/time.h"
#include "absl/types/span.h"
#include "grpcpp/grpcpp.h"
#include "lib/channel/xds_channel.h"

namespace xdsfed {
namespace channel {

// The pick's status as the RPC's (absl and gRPC codes share their values).
inline grpc::Status ToGrpcStatus(const absl::Status& status) {
  return grpc::Status(static_cast<grpc::StatusCode>(status.code()),
                      std::string(status.message()));
}

// The context's deadline (InfiniteFuture when it has none).
inline absl::Time ContextDeadline(const grpc::ClientContext& ctx) {
  auto d = ctx.deadline();
  if (d == std::chrono::system_clock::time_point::max()) {
    return absl::InfiniteFuture();
  }
  return absl::FromChrono(d);
}

// gRFC A31: the call's deadline is the application's, capped at the call's
// start plus the route's max_stream_duration (PickResult). Must run before
// the call starts (grpc::ClientContext fixes its deadline then).
inline void CapDeadline(grpc::ClientContext* ctx, absl::Time start,
                        const PickResult& pick) {
  if (pick.max_stream_duration == absl::InfiniteDuration()) return;
  const absl::Time cap = start + pick.max_stream_duration;
  if (cap < ContextDeadline(*ctx)) ctx->set_deadline(absl::ToChronoTime(cap));
}

template <typename StubT>
StubT& StubFor(PickResult& pick) {
  return pick.endpoint->template Stub<StubT>();
}

template <typename StubT, typename Request, typename Response>
grpc::Status Unary(XdsChannel& channel, absl::string_view method_path,
                   grpc::Status (StubT::*method)(grpc::ClientContext*,
                                                 const Request&, Response*),
                   grpc::ClientContext* ctx, const Request& request,
                   Response* response,
                   absl::Span<const MetadataEntry> metadata = {},
                   PickResult* pick_out = nullptr) {
  const absl::Time start = absl::Now();
  PickResult pick =
      channel.Pick(PickArgs{method_path, metadata}, ContextDeadline(*ctx));
  if (!pick.status.ok()) return ToGrpcStatus(pick.status);
  CapDeadline(ctx, start, pick);
  grpc::Status s = (StubFor<StubT>(pick).*method)(ctx, request, response);
  pick.tracker.Finish(s.ok());
  if (pick_out != nullptr) *pick_out = std::move(pick);
  return s;
}

// The callback form: the pick waits without blocking a thread (PickAsync).
template <typename StubT, typename AsyncT, typename Request, typename Response>
void UnaryCallback(XdsChannel& channel, absl::string_view method_path,
                   void (AsyncT::*method)(grpc::ClientContext*, const Request*,
                                          Response*,
                                          std::function<void(grpc::Status)>),
                   grpc::ClientContext* ctx, const Request* request,
                   Response* response, std::function<void(grpc::Status)> done,
                   absl::Span<const MetadataEntry> metadata = {}) {
  const absl::Time start = absl::Now();
  channel.PickAsync(
      PickArgs{method_path, metadata}, ContextDeadline(*ctx),
      [method, ctx, request, response, start,
       done = std::move(done)](PickResult pick) mutable {
        if (!pick.status.ok()) {
          done(ToGrpcStatus(pick.status));
          return;
        }
        CapDeadline(ctx, start, pick);
        auto tracker = std::make_shared<CallTracker>(std::move(pick.tracker));
        auto endpoint = pick.endpoint;
        (StubFor<StubT>(pick).async()->*method)(
            ctx, request, response,
            [tracker, endpoint, done = std::move(done)](grpc::Status s) {
              tracker->Finish(s.ok());
              done(s);
            });
      });
}

}  // namespace channel
}  // namespace xdsfed

#endif  // XDSFED_LIB_CHANNEL_UNARY_H_
