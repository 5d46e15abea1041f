// One backend address as the data plane sees it: its connectivity and, in
// production, the grpc::Channel that carries RPCs to it. A narrow interface
// so that the pick logic (priority, localities, round robin) is tested with
// fakes while production uses one grpc::Channel per address, watched with
// GetState / NotifyOnStateChange (grpc_endpoint.h).
//
//   std::shared_ptr<Endpoint> e = factory.Create("127.0.0.1:50051", on_change);
//   if (e->state() == Connectivity::kReady) use(e->channel());
#ifndef XDSFED_LIB_CHANNEL_ENDPOINT_H_
#define XDSFED_LIB_CHANNEL_ENDPOINT_H_

#include <functional>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "absl/base/thread_annotations.h"
#include "absl/strings/string_view.h"
#include "lib/base/mutex.h"

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

  // A generated stub (or any type constructible from the channel) over this
  // endpoint, made once and kept with the endpoint: generated stubs register
  // their methods with the channel when constructed, so one per call would
  // redo that work on every RPC.
  template <typename StubT>
  StubT& Stub() {
    static const char kKey = 0;
    return *static_cast<StubT*>(GetOrMake(&kKey, [this] {
      return std::shared_ptr<void>(std::make_shared<StubT>(channel()));
    }));
  }

 private:
  void* GetOrMake(const void* key,
                  const std::function<std::shared_ptr<void>()>& make) {
    MutexLock lock(&stubs_mu_);
    for (const auto& [k, stub] : stubs_) {
      if (k == key) return stub.get();
    }
    stubs_.emplace_back(key, make());
    return stubs_.back().second.get();
  }

  Mutex stubs_mu_;
  std::vector<std::pair<const void*, std::shared_ptr<void>>> stubs_
      ABSL_GUARDED_BY(stubs_mu_);
};

class EndpointFactory {
 public:
  virtual ~EndpointFactory() = default;
  // A new endpoint for `address` that starts connecting at once and
  // reconnects on its own (round robin keeps every endpoint connected).
  // `on_change` runs after each state change, on any thread, with no lock of
  // the endpoint held; it may be called after the endpoint is released, so
  // it must not capture the endpoint.
  virtual std::shared_ptr<Endpoint> Create(const std::string& address,
                                           std::function<void()> on_change) = 0;
};

}  // namespace channel
}  // namespace xdsfed

#endif  // XDSFED_LIB_CHANNEL_ENDPOINT_H_
