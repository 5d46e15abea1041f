// One backend address as the data plane sees it: its connectivity and, in
// production, the grpc::Channel that carries RPCs to it. A narrow interface
// so that the pick logic (priority, localities, round robin) is tested with
// fakes while production uses one grpc::Channel per address, watched with
// GetState / NotifyOnStateChange (grpc_endpoint.h).
//
// clang-format off
//   GrpcEndpointFactory factory(GrpcEndpointFactory::Options{});
//   std::shared_ptr<Endpoint> e =
//       factory.Create("127.0.0.1:50051", [] { /* state changed */ });
//   e->Start();
//   if (e->state() == Connectivity::kReady) {
//     std::shared_ptr<grpc::Channel> channel = e->channel();
//   }
// clang-format on
#ifndef XDSFED_LIB_CHANNEL_ENDPOINT_H_
#define XDSFED_LIB_CHANNEL_ENDPOINT_H_

#include <any>
#include <functional>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "absl/base/thread_annotations.h"
#include "absl/strings/string_view.h"
#include "lib/base/mutex.h"
#include "lib/resources/upstream_tls_context.h"

namespace grpc {
class Channel;
}  // namespace grpc

namespace xdsfed {
namespace channel {

// grpc_connectivity_state without SHUTDOWN (an endpoint is never shut down
// while a picker can see it).
enum class Connectivity { kIdle, kConnecting, kReady, kTransientFailure };

absl::string_view ConnectivityName(Connectivity state);

class Endpoint {
 public:
  virtual ~Endpoint() = default;
  // "ip:port" as EDS / DNS gave it.
  virtual const std::string& address() const = 0;
  // The last state observed; cheap (an atomic load).
  virtual Connectivity state() const = 0;
  // The channel RPCs to this endpoint use; null for fakes.
  virtual const std::shared_ptr<grpc::Channel>& channel() const = 0;
  // Starts connecting; called once, by the owner, with no lock held (the
  // data plane after publishing the picker its update made): making a
  // grpc::Channel and starting its connection takes 0.3-0.6 ms. Until then
  // state() is IDLE. Default: nothing (fakes connect in Create).
  virtual void Start() {}

  // The state asked of the transport now, for a pick about to use this
  // endpoint: a connection can be lost before its change notification
  // reaches the data plane, and a call started then would fail without
  // reaching a backend (C-core re-queues such a pick). A state other than
  // READY is recorded as state() (so the next picker leaves the endpoint
  // out) without running `on_change`: the caller applies it. Default: the
  // last state observed.
  virtual Connectivity Recheck() { return state(); }

  // Why the endpoint's last connection attempt failed when more is known
  // than the state: for a TLS endpoint, the certificate file, SAN mismatch
  // or certificate problem found (endpoint_tls.h); cleared once READY. ""
  // otherwise. The data plane asks it of a failing child's endpoints only.
  // Cold path.
  virtual std::string failure_reason() const { return ""; }
  // A TLS endpoint's server as its last verified certificate named it
  // (its SANs); "" for plaintext or before a handshake passed.
  virtual std::string peer_identity() const { return ""; }

  // A generated stub (or any type constructible from the channel) over this
  // endpoint, made once and kept with the endpoint: generated stubs register
  // their methods with the channel when constructed, so one per call would
  // redo that work on every RPC.
  template <typename StubT>
  StubT& Stub() {
    MutexLock lock(&stubs_mu_);
    // std::any_cast checks the type, so a stub is only ever handed back as
    // the type it was made as (no unchecked cast from an erased pointer).
    for (std::any& slot : stubs_) {
      if (auto* stub = std::any_cast<std::shared_ptr<StubT>>(&slot)) {
        return **stub;
      }
    }
    auto stub = std::make_shared<StubT>(channel());
    StubT& ref = *stub;
    stubs_.emplace_back(std::move(stub));
    return ref;
  }

 private:
  Mutex stubs_mu_;
  // One std::shared_ptr<StubT> per stub type asked for; a handful at most.
  std::vector<std::any> stubs_ ABSL_GUARDED_BY(stubs_mu_);
};

class EndpointFactory {
 public:
  virtual ~EndpointFactory() = default;
  // A new endpoint for `address`; cheap (the data plane calls it under its
  // lock). From Endpoint::Start() on it connects and reconnects on its own
  // (round robin keeps every endpoint connected).
  // `on_change` runs after each state change, on any thread, with no lock of
  // the endpoint held; it may be called after the endpoint is released, so
  // it must not capture the endpoint.
  virtual std::shared_ptr<Endpoint> Create(const std::string& address,
                                           std::function<void()> on_change) = 0;
  // The same for an endpoint of a cluster with an UpstreamTlsContext (A29):
  // its connection uses TLS with these settings, never plaintext. Default:
  // null, no endpoint (a factory that cannot do TLS makes none, and the
  // cluster fails with "no endpoints" rather than connecting in the clear).
  virtual std::shared_ptr<Endpoint> CreateTls(
      const std::string& /*address*/,
      std::shared_ptr<const resources::UpstreamTlsContext> /*tls*/,
      std::function<void()> /*on_change*/) {
    return nullptr;
  }
};

}  // namespace channel
}  // namespace xdsfed

#endif  // XDSFED_LIB_CHANNEL_ENDPOINT_H_
