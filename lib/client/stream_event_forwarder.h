// The event handler a client gives each stream it starts (ADS in XdsClient,
// LRS in lrs::LrsClient): it forwards the stream's events to the client,
// tagged with the stream's server and call generation so the client can
// ignore events of a stream it has since replaced. It holds the client
// weakly, so a stream that outlives its client is harmless.
//
//   call = transport->CreateStreamingCall(
//       method, std::make_unique<StreamEventForwarder<Impl, ServerId>>(
//                   weak_from_this(), server, call_gen));
//
// Owner needs OnRequestSent(ServerKey, uint64_t, bool),
// OnRecvMessage(ServerKey, uint64_t, absl::string_view) and
// OnStatusReceived(ServerKey, uint64_t, absl::Status).
#ifndef XDSFED_LIB_CLIENT_STREAM_EVENT_FORWARDER_H_
#define XDSFED_LIB_CLIENT_STREAM_EVENT_FORWARDER_H_

#include <cstdint>
#include <memory>
#include <utility>

#include "absl/status/status.h"
#include "absl/strings/string_view.h"
#include "lib/client/xds_transport.h"

namespace xdsfed {
namespace client {

template <typename Owner, typename ServerKey>
class StreamEventForwarder final : public StreamingCall::EventHandler {
 public:
  StreamEventForwarder(std::weak_ptr<Owner> owner, ServerKey server,
                       uint64_t call_gen)
      : owner_(std::move(owner)), server_(server), call_gen_(call_gen) {}

  void OnRequestSent(bool ok) override {
    if (auto owner = owner_.lock())
      owner->OnRequestSent(server_, call_gen_, ok);
  }
  void OnRecvMessage(absl::string_view payload) override {
    if (auto owner = owner_.lock()) {
      owner->OnRecvMessage(server_, call_gen_, payload);
    }
  }
  void OnStatusReceived(absl::Status status) override {
    if (auto owner = owner_.lock()) {
      owner->OnStatusReceived(server_, call_gen_, std::move(status));
    }
  }

 private:
  const std::weak_ptr<Owner> owner_;
  const ServerKey server_;
  const uint64_t call_gen_;
};

}  // namespace client
}  // namespace xdsfed

#endif  // XDSFED_LIB_CLIENT_STREAM_EVENT_FORWARDER_H_
