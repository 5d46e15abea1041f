// The production EndpointFactory: one grpc::Channel per endpoint address
// (pick_first over that one address), its connectivity followed with
// GetState / NotifyOnStateChange on one completion-queue thread shared by
// every endpoint of the factory. Every channel carries the data-plane
// authority (A47) as its default :authority, so RPCs name the service, not
// the backend address.
//
// clang-format off
//   GrpcEndpointFactory::Options options;
//   options.authority = "svc.example.com";
//   GrpcEndpointFactory factory(options);
//   auto e = factory.Create("127.0.0.1:50051", [] { /* state changed */ });
// clang-format on
//
// A released endpoint's channel is destroyed with its last reference (the
// endpoint's, or a call's still in flight); gRPC then ends its pending
// NotifyOnStateChange at once (grpc++ offers no other way to cancel one).
#ifndef XDSFED_LIB_CHANNEL_GRPC_ENDPOINT_H_
#define XDSFED_LIB_CHANNEL_GRPC_ENDPOINT_H_

#include <condition_variable>
#include <memory>
#include <string>
#include <thread>

#include "absl/base/thread_annotations.h"
#include "absl/time/time.h"
#include "grpcpp/grpcpp.h"
#include "lib/base/mutex.h"
#include "lib/bootstrap/bootstrap.h"
#include "lib/channel/endpoint.h"

namespace xdsfed {
namespace channel {

// The grpc++ target for an endpoint address: "ipv4:10.0.0.1:80",
// "ipv6:[::1]:80", or "dns:///host:80" for anything else.
std::string EndpointTarget(const std::string& address);

class GrpcEndpointFactory : public EndpointFactory {
 public:
  struct Options {
    // The :authority of every RPC ("" = grpc++'s default, the address).
    std::string authority;
    // Longest a watch waits before it re-arms (bounds shutdown).
    absl::Duration watch_poll = absl::Milliseconds(500);
    // Reconnect backoff of each endpoint channel. gRPC's defaults (1 s
    // initial, 120 s max) would keep a restored backend unused for minutes;
    // a failed-back priority must see it READY quickly.
    absl::Duration min_reconnect_backoff = absl::Milliseconds(100);
    absl::Duration max_reconnect_backoff = absl::Seconds(1);
    // Where TLS endpoints find their certificate provider instances (A29);
    // null: every TLS endpoint fails (never plaintext).
    std::shared_ptr<const Bootstrap> bootstrap;
    // Longest diagnostic handshake after a TLS endpoint failed
    // (endpoint_tls.h ExplainTlsFailure).
    absl::Duration tls_diagnosis_timeout = absl::Seconds(2);
  };

  explicit GrpcEndpointFactory(Options options);
  // Waits for every pending watch: at once when the endpoints' channels are
  // gone, else at most watch_poll (a call in flight still holds a channel).
  // Every endpoint must have been released.
  ~GrpcEndpointFactory() override;
  GrpcEndpointFactory(const GrpcEndpointFactory&) = delete;
  GrpcEndpointFactory& operator=(const GrpcEndpointFactory&) = delete;

  std::shared_ptr<Endpoint> Create(const std::string& address,
                                   std::function<void()> on_change) override;
  // A TLS channel (endpoint_tls.h), one set of credentials per endpoint so
  // that its verifier's report is its own. A failed TLS endpoint's reason
  // is found on the factory's diagnosis thread, never on the watch thread.
  std::shared_ptr<Endpoint> CreateTls(
      const std::string& address,
      std::shared_ptr<const resources::UpstreamTlsContext> tls,
      std::function<void()> on_change) override;

 private:
  struct Core;
  class Handle;
  // Makes the endpoint's channel into *channel (its Handle's) and watches it.
  void StartChannel(const std::shared_ptr<Core>& core,
                    std::shared_ptr<grpc::Channel>* channel);
  // One endpoint's count ends (released before its start, or its watch
  // returned after its release).
  void Done();
  void Arm(const std::shared_ptr<Core>& core, grpc::Channel& channel,
           grpc_connectivity_state last);
  void Run();
  struct Diagnoser;
  // Queues a failed TLS endpoint for diagnosis (once at a time each).
  void Diagnose(const std::shared_ptr<Core>& core);
  static void RunDiagnoses(const std::shared_ptr<Diagnoser>& d);

  const Options options_;
  grpc::CompletionQueue cq_;
  Mutex mu_;
  std::condition_variable_any idle_;
  size_t pending_ ABSL_GUARDED_BY(mu_) = 0;
  bool shutting_down_ ABSL_GUARDED_BY(mu_) = false;
  std::thread thread_;
  // The diagnosis thread's state, shared with it: the thread may run the
  // data plane's last release (a change notification), and with it this
  // factory's destructor, which then must not wait for it.
  const std::shared_ptr<Diagnoser> diagnoser_;
};

}  // namespace channel
}  // namespace xdsfed

#endif  // XDSFED_LIB_CHANNEL_GRPC_ENDPOINT_H_
