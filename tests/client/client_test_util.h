// Test doubles for the XdsClient: a fake transport that records requests and
// injects responses, a fake clock, fake resource types (the real ones live in
// lib/resources and are not used here), watchers that record events.
//
//   FakeTransportFactory factory;  // (shared_ptr in practice)
//   ... client->Watch(FakeListenerType(), "l1", watcher);
//   FakeCall* ads = factory.Call(0);
//   ads->Respond(MakeResponse(kLdsUrl, "v1", "n1", {FakeResource("l1", "x")}));
//   EXPECT_EQ(ads->Requests().back().response_nonce(), "n1");
//
// FakeCall is tests/support/fake_streaming_call.h read as DiscoveryRequests;
// that header says how it orders the handler's callbacks.
#ifndef XDSFED_TESTS_CLIENT_CLIENT_TEST_UTIL_H_
#define XDSFED_TESTS_CLIENT_CLIENT_TEST_UTIL_H_

#include <functional>
#include <map>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "envoy/config/core/v3/base.pb.h"
#include "envoy/service/discovery/v3/discovery.pb.h"
#include "lib/base/mutex.h"
#include "lib/client/timer.h"
#include "lib/client/xds_client.h"
#include "lib/client/xds_transport.h"
#include "lib/resources/resource_type.h"
#include "tests/support/fake_streaming_call.h"

namespace xdsfed {
namespace client {
namespace testing {

using envoy::service::discovery::v3::DiscoveryRequest;
using envoy::service::discovery::v3::DiscoveryResponse;

// --- Fake resource types ---
//
// A fake resource is an envoy.config.core.v3.Node: id = name,
// cluster = value, user_agent_name "invalid" = fails validation. The type
// URLs are the real ones so xdstp names carry the real type segments.

struct FakeValue {
  std::string name;
  std::string value;
  // Only the value counts (an update with the same value notifies no one).
  bool operator==(const FakeValue& other) const { return value == other.value; }
  Json::Value ToJson() const {
    Json::Value json(Json::objectValue);
    json["value"] = value;
    return json;
  }
};

class FakeType : public resources::XdsResourceType<FakeValue> {
 public:
  FakeType(absl::string_view url, absl::string_view short_name,
           bool all_required)
      : url_(url), short_name_(short_name), all_required_(all_required) {}
  absl::string_view type_url() const override { return url_; }
  absl::string_view short_name() const override { return short_name_; }
  bool all_resources_required_in_sotw() const override { return all_required_; }

 protected:
  absl::StatusOr<FakeValue> DecodeValue(const resources::DecodeContext&,
                                        absl::string_view bytes,
                                        std::string* name) const override {
    envoy::config::core::v3::Node node;
    if (!node.ParseFromArray(bytes.data(), static_cast<int>(bytes.size()))) {
      return absl::InvalidArgumentError("can't parse fake resource");
    }
    *name = node.id();
    if (node.user_agent_name() == "invalid") {
      return absl::InvalidArgumentError(
          "[field:user_agent_name error:fake resource marked invalid]");
    }
    return FakeValue{node.id(), node.cluster()};
  }

 private:
  std::string url_, short_name_;
  bool all_required_;
};

inline constexpr absl::string_view kLdsUrl = resources::kListenerTypeUrl;
inline constexpr absl::string_view kRdsUrl = resources::kRouteConfigTypeUrl;
inline constexpr absl::string_view kCdsUrl = resources::kClusterTypeUrl;
inline constexpr absl::string_view kEdsUrl = resources::kEndpointTypeUrl;

inline const FakeType& FakeListenerType() {
  static const FakeType* type = new FakeType(kLdsUrl, "Listener", true);
  return *type;
}
inline const FakeType& FakeRouteType() {
  static const FakeType* type =
      new FakeType(kRdsUrl, "RouteConfiguration", false);
  return *type;
}
inline const FakeType& FakeClusterType() {
  static const FakeType* type = new FakeType(kCdsUrl, "Cluster", true);
  return *type;
}
inline const FakeType& FakeEndpointType() {
  static const FakeType* type =
      new FakeType(kEdsUrl, "ClusterLoadAssignment", false);
  return *type;
}

}  // namespace testing
}  // namespace client

// XdsClient::Watch<FakeValue> watches Listeners through the fake LDS type.
template <>
inline const resources::XdsResourceType<client::testing::FakeValue>&
resources::XdsResourceType<client::testing::FakeValue>::Get() {
  return client::testing::FakeListenerType();
}

namespace client {
namespace testing {

// One resource as an Any of `type_url` (default: the response's type).
struct FakeResource {
  std::string name;
  std::string value;
  bool invalid = false;
  std::string any_type_url;  // "" = the response's type URL
  bool wrap = false;         // inside an envoy.service.discovery.v3.Resource
};

inline std::string SerializeFake(const FakeResource& r) {
  envoy::config::core::v3::Node node;
  node.set_id(r.name);
  node.set_cluster(r.value);
  if (r.invalid) node.set_user_agent_name("invalid");
  return node.SerializeAsString();
}

inline DiscoveryResponse MakeResponse(absl::string_view type_url,
                                      absl::string_view version,
                                      absl::string_view nonce,
                                      const std::vector<FakeResource>& rs) {
  DiscoveryResponse response;
  response.set_type_url(std::string(type_url));
  response.set_version_info(std::string(version));
  response.set_nonce(std::string(nonce));
  for (const FakeResource& r : rs) {
    google::protobuf::Any* any = response.add_resources();
    const std::string url =
        r.any_type_url.empty() ? std::string(type_url) : r.any_type_url;
    if (r.wrap) {
      envoy::service::discovery::v3::Resource wrapper;
      wrapper.set_name(r.name);
      wrapper.mutable_resource()->set_type_url(url);
      wrapper.mutable_resource()->set_value(SerializeFake(r));
      any->set_type_url(
          "type.googleapis.com/envoy.service.discovery.v3.Resource");
      any->set_value(wrapper.SerializeAsString());
    } else {
      any->set_type_url(url);
      any->set_value(SerializeFake(r));
    }
  }
  return response;
}

// --- Fake transport ---

// An ADS call: the shared fake stream, read as DiscoveryRequests.
class FakeCall final : public FakeStreamingCall {
 public:
  using FakeStreamingCall::FakeStreamingCall;
  std::vector<DiscoveryRequest> Requests() {
    return FakeStreamingCall::Requests<DiscoveryRequest>();
  }
  DiscoveryRequest LastRequest() {
    std::vector<DiscoveryRequest> all = Requests();
    return all.empty() ? DiscoveryRequest() : all.back();
  }
};

// Calls are kept (shared) by the factory so a test can read the requests of
// a stream that has ended.
class FakeTransportFactory final : public XdsTransportFactory {
 public:
  struct TransportRecord {
    std::string server_uri;
    bool destroyed = false;
    std::function<void(absl::Status)> on_failure;
    std::vector<std::shared_ptr<FakeCall>> calls;
  };

  absl::StatusOr<std::unique_ptr<XdsTransport>> Create(
      const XdsServerConfig& server,
      std::function<void(absl::Status)> on_connectivity_failure) override {
    MutexLock lock(&mu_);
    if (server.server_uri() == fail_uri_) {
      return absl::UnavailableError("fake transport refused");
    }
    records_.push_back(std::make_shared<TransportRecord>());
    records_.back()->server_uri = server.server_uri();
    records_.back()->on_failure = std::move(on_connectivity_failure);
    return std::unique_ptr<XdsTransport>(new Transport(this, records_.back()));
  }

  void set_hold_sends(bool hold) {
    MutexLock lock(&mu_);
    hold_sends_ = hold;
  }
  void set_fail_uri(std::string uri) {
    MutexLock lock(&mu_);
    fail_uri_ = std::move(uri);
  }
  size_t transport_count() {
    MutexLock lock(&mu_);
    return records_.size();
  }
  size_t live_transport_count() {
    MutexLock lock(&mu_);
    size_t n = 0;
    for (const auto& r : records_) n += r->destroyed ? 0 : 1;
    return n;
  }
  std::shared_ptr<TransportRecord> transport(size_t i) {
    MutexLock lock(&mu_);
    return i < records_.size() ? records_[i] : nullptr;
  }
  // The i-th ADS call created on any transport, or null.
  FakeCall* Call(size_t i) {
    MutexLock lock(&mu_);
    return i < all_calls_.size() ? all_calls_[i].get() : nullptr;
  }
  size_t call_count() {
    MutexLock lock(&mu_);
    return all_calls_.size();
  }
  // The latest call on the transport to `uri`.
  FakeCall* LatestCall(absl::string_view uri) {
    MutexLock lock(&mu_);
    for (auto it = records_.rbegin(); it != records_.rend(); ++it) {
      if ((*it)->server_uri == uri && !(*it)->calls.empty()) {
        return (*it)->calls.back().get();
      }
    }
    return nullptr;
  }

 private:
  class Transport final : public XdsTransport {
   public:
    Transport(FakeTransportFactory* factory,
              std::shared_ptr<TransportRecord> record)
        : factory_(factory), record_(std::move(record)) {}
    ~Transport() override {
      std::vector<std::shared_ptr<FakeCall>> calls;
      {
        MutexLock lock(&factory_->mu_);
        record_->destroyed = true;
        calls = record_->calls;
      }
      for (auto& call : calls) call->Fail(absl::CancelledError("shutdown"));
    }
    StreamingCallPtr CreateStreamingCall(
        absl::string_view method,
        std::unique_ptr<StreamingCall::EventHandler> handler) override {
      MutexLock lock(&factory_->mu_);
      auto call = std::make_shared<FakeCall>(
          std::string(method), std::move(handler), factory_->hold_sends_);
      record_->calls.push_back(call);
      factory_->all_calls_.push_back(call);
      return StreamingCallPtr(call.get());
    }

   private:
    FakeTransportFactory* factory_;
    std::shared_ptr<TransportRecord> record_;
  };

  Mutex mu_;
  bool hold_sends_ ABSL_GUARDED_BY(mu_) = false;
  std::string fail_uri_ ABSL_GUARDED_BY(mu_);
  std::vector<std::shared_ptr<TransportRecord>> records_ ABSL_GUARDED_BY(mu_);
  std::vector<std::shared_ptr<FakeCall>> all_calls_ ABSL_GUARDED_BY(mu_);
};

// --- Fake clock ---

class FakeTimers final : public Timers {
 public:
  absl::Time Now() override {
    MutexLock lock(&mu_);
    return now_;
  }
  Handle RunAfter(absl::Duration delay, std::function<void()> fn) override {
    MutexLock lock(&mu_);
    const Handle h = next_++;
    timers_[h] = Timer{now_ + delay, std::move(fn)};
    delays_.push_back(delay);
    return h;
  }
  bool Cancel(Handle handle) override {
    std::function<void()> fn;
    {
      MutexLock lock(&mu_);
      auto it = timers_.find(handle);
      if (it == timers_.end()) return false;
      fn = std::move(it->second.fn);
      timers_.erase(it);
    }
    return true;
  }
  // Moves the clock forward, running due timers in deadline order.
  void Advance(absl::Duration d) {
    absl::Time target;
    {
      MutexLock lock(&mu_);
      target = now_ + d;
    }
    while (true) {
      std::function<void()> fn;
      {
        MutexLock lock(&mu_);
        auto best = timers_.end();
        for (auto it = timers_.begin(); it != timers_.end(); ++it) {
          if (it->second.deadline <= target &&
              (best == timers_.end() ||
               it->second.deadline < best->second.deadline)) {
            best = it;
          }
        }
        if (best == timers_.end()) {
          now_ = target;
          return;
        }
        now_ = best->second.deadline;
        fn = std::move(best->second.fn);
        timers_.erase(best);
      }
      fn();
    }
  }
  size_t pending() {
    MutexLock lock(&mu_);
    return timers_.size();
  }
  // Every delay ever passed to RunAfter.
  std::vector<absl::Duration> delays() {
    MutexLock lock(&mu_);
    return delays_;
  }

 private:
  struct Timer {
    absl::Time deadline;
    std::function<void()> fn;
  };
  Mutex mu_;
  absl::Time now_ ABSL_GUARDED_BY(mu_) = absl::FromUnixSeconds(1700000000);
  Handle next_ ABSL_GUARDED_BY(mu_) = 1;
  std::map<Handle, Timer> timers_ ABSL_GUARDED_BY(mu_);
  std::vector<absl::Duration> delays_ ABSL_GUARDED_BY(mu_);
};

// --- Recording watcher ---

class RecordingWatcher : public AnyWatcher {
 public:
  // "changed:<value>", "error:<status>", "does_not_exist".
  std::vector<std::string> events() {
    MutexLock lock(&mu_);
    return events_;
  }
  std::vector<std::string> TakeEvents() {
    MutexLock lock(&mu_);
    std::vector<std::string> out;
    out.swap(events_);
    return out;
  }
  void OnChanged(
      std::shared_ptr<const resources::ResourceData> value) override {
    const FakeValue* fake = FakeType::Cast(value.get());
    MutexLock lock(&mu_);
    events_.push_back(
        absl::StrCat("changed:", fake != nullptr ? fake->value : "<not fake>"));
  }
  void OnError(absl::Status status) override {
    MutexLock lock(&mu_);
    events_.push_back(absl::StrCat("error:", status.ToString()));
  }
  void OnDoesNotExist() override {
    MutexLock lock(&mu_);
    events_.push_back("does_not_exist");
  }

 private:
  Mutex mu_;
  std::vector<std::string> events_ ABSL_GUARDED_BY(mu_);
};

}  // namespace testing
}  // namespace client
}  // namespace xdsfed

#endif  // XDSFED_TESTS_CLIENT_CLIENT_TEST_UTIL_H_
