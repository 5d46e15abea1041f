// The narrow interface between the XdsClient and the wire: one transport per
// xDS server (a channel), on which the client opens streaming calls (ADS, and
// LRS later). lib/transport implements it over grpc++; unit tests of the ADS
// state machine implement it with a fake. Payloads are serialized protobuf
// bytes, so this interface carries no generated types and the grpc++
// implementation never re-serializes.
//
//   std::unique_ptr<XdsTransport> transport =
//       factory.Create(*server, on_failure);
//   StreamingCallPtr ads = transport->CreateStreamingCall(
//       kAdsMethod, std::make_unique<MyAdsHandler>(...));
//   ads->SendMessage(request.SerializeAsString());
//   ...
//   ads.reset();  // cancels; the handler still gets OnStatusReceived
#ifndef XDSFED_LIB_CLIENT_XDS_TRANSPORT_H_
#define XDSFED_LIB_CLIENT_XDS_TRANSPORT_H_

#include <functional>
#include <memory>
#include <string>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "lib/bootstrap/xds_server_config.h"

namespace xdsfed {
namespace client {

inline constexpr absl::string_view kAdsMethod =
    "/envoy.service.discovery.v3.AggregatedDiscoveryService/"
    "StreamAggregatedResources";
inline constexpr absl::string_view kLrsMethod =
    "/envoy.service.load_stats.v3.LoadReportingService/StreamLoadStats";

// One bidirectional streaming call.
class StreamingCall {
 public:
  // Receives the call's events. For one call the callbacks never run
  // concurrently; they may run on a transport thread, so implementations
  // take their own locks.
  class EventHandler {
   public:
    virtual ~EventHandler() = default;
    // One SendMessage completed (ok=false: the stream broke before it went
    // out). Sends complete in order.
    virtual void OnRequestSent(bool ok) = 0;
    // One message from the server. The view is valid during the call only.
    virtual void OnRecvMessage(absl::string_view payload) = 0;
    // The call ended (server status, a transport failure, or cancellation).
    // Always the last callback, exactly once.
    virtual void OnStatusReceived(absl::Status status) = 0;
  };

  // Queues one message; messages go out in order. Safe from any thread,
  // including from inside a callback. Ignored after the call ended.
  virtual void SendMessage(std::string payload) = 0;

  // Cancels the call if it is still running and gives up the caller's
  // reference. The handler still gets OnStatusReceived; after that the
  // transport destroys the call and its handler. Safe from inside a callback.
  virtual void Orphan() = 0;

 protected:
  virtual ~StreamingCall() = default;
};

struct StreamingCallOrphaner {
  void operator()(StreamingCall* call) const { call->Orphan(); }
};
using StreamingCallPtr = std::unique_ptr<StreamingCall, StreamingCallOrphaner>;

// One channel to one xDS server. Destroying it cancels its calls (their
// handlers still get OnStatusReceived).
class XdsTransport {
 public:
  virtual ~XdsTransport() = default;
  // method: a full method path such as kAdsMethod. The handler is owned by
  // the call from now on.
  virtual StreamingCallPtr CreateStreamingCall(
      absl::string_view method,
      std::unique_ptr<StreamingCall::EventHandler> handler) = 0;
};

class XdsTransportFactory {
 public:
  virtual ~XdsTransportFactory() = default;
  // A channel to `server` (uri + selected channel creds).
  // on_connectivity_failure runs (on a transport thread) each time the channel
  // goes to TRANSIENT_FAILURE, so watchers can hear about an unreachable server
  // even while no stream is open. Errors: creds the transport cannot build.
  virtual absl::StatusOr<std::unique_ptr<XdsTransport>> Create(
      const XdsServerConfig& server,
      std::function<void(absl::Status)> on_connectivity_failure) = 0;
};

}  // namespace client
}  // namespace xdsfed

#endif  // XDSFED_LIB_CLIENT_XDS_TRANSPORT_H_
