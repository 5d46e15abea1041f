// Test doubles for the LRS client: a fake transport whose streams record the
// raw messages sent (LoadStatsRequests, or DiscoveryRequests on an ADS
// stream) and let the test answer, complete sends, or end the stream.
//
//   auto factory = std::make_shared<FakeLrsFactory>();
//   ... lrs->AddClusterDropStats(server, "c1", "");
//   FakeStream* s = factory->LatestStream("127.0.0.1:1", client::kLrsMethod);
//   s->Respond(LrsResponseMessage(true, {}, absl::Seconds(2)));
//   LoadStatsRequest first = s->Requests<LoadStatsRequest>()[0];
//
// FakeStream is tests/support/fake_streaming_call.h, shared with the
// XdsClient's tests.
#ifndef XDSFED_TESTS_LRS_LRS_TEST_UTIL_H_
#define XDSFED_TESTS_LRS_LRS_TEST_UTIL_H_

#include <functional>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "absl/base/thread_annotations.h"
#include "absl/status/status.h"
#include "absl/strings/string_view.h"
#include "absl/time/time.h"
#include "envoy/service/load_stats/v3/lrs.pb.h"
#include "lib/base/mutex.h"
#include "lib/client/xds_transport.h"
#include "tests/support/fake_streaming_call.h"

namespace xdsfed {
namespace lrs {
namespace testing {

using envoy::service::load_stats::v3::LoadStatsRequest;
using envoy::service::load_stats::v3::LoadStatsResponse;

inline LoadStatsResponse LrsResponseMessage(
    bool send_all_clusters, const std::vector<std::string>& clusters,
    int64_t seconds, int32_t nanos = 0) {
  LoadStatsResponse response;
  response.set_send_all_clusters(send_all_clusters);
  for (const std::string& c : clusters) response.add_clusters(c);
  response.mutable_load_reporting_interval()->set_seconds(seconds);
  response.mutable_load_reporting_interval()->set_nanos(nanos);
  return response;
}

using FakeStream = client::testing::FakeStreamingCall;

// Streams are kept (shared) so a test can read those that ended.
class FakeLrsFactory final : public client::XdsTransportFactory {
 public:
  struct TransportRecord {
    std::string server_uri;
    bool destroyed = false;
    std::vector<std::shared_ptr<FakeStream>> streams;
  };

  absl::StatusOr<std::unique_ptr<client::XdsTransport>> Create(
      const XdsServerConfig& server,
      std::function<void(absl::Status)> on_connectivity_failure) override {
    MutexLock lock(&mu_);
    if (server.server_uri() == fail_uri_) {
      return absl::UnavailableError("fake transport refused");
    }
    records_.push_back(std::make_shared<TransportRecord>());
    records_.back()->server_uri = server.server_uri();
    return std::unique_ptr<client::XdsTransport>(
        new Transport(this, records_.back()));
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
  // Every stream of `method` so far, oldest first.
  std::vector<std::shared_ptr<FakeStream>> Streams(absl::string_view method) {
    MutexLock lock(&mu_);
    std::vector<std::shared_ptr<FakeStream>> out;
    for (const auto& s : streams_) {
      if (s->method() == method) out.push_back(s);
    }
    return out;
  }
  // The latest stream of `method` to `uri`, or null.
  FakeStream* LatestStream(absl::string_view uri, absl::string_view method) {
    MutexLock lock(&mu_);
    for (auto it = records_.rbegin(); it != records_.rend(); ++it) {
      if ((*it)->server_uri != uri) continue;
      for (auto s = (*it)->streams.rbegin(); s != (*it)->streams.rend(); ++s) {
        if ((*s)->method() == method) return s->get();
      }
    }
    return nullptr;
  }

 private:
  class Transport final : public client::XdsTransport {
   public:
    Transport(FakeLrsFactory* factory, std::shared_ptr<TransportRecord> record)
        : factory_(factory), record_(std::move(record)) {}
    ~Transport() override {
      std::vector<std::shared_ptr<FakeStream>> streams;
      {
        MutexLock lock(&factory_->mu_);
        record_->destroyed = true;
        streams = record_->streams;
      }
      for (auto& s : streams) s->Fail(absl::CancelledError("shutdown"));
    }
    client::StreamingCallPtr CreateStreamingCall(
        absl::string_view method,
        std::unique_ptr<client::StreamingCall::EventHandler> handler) override {
      MutexLock lock(&factory_->mu_);
      auto stream =
          std::make_shared<FakeStream>(std::string(method), std::move(handler));
      record_->streams.push_back(stream);
      factory_->streams_.push_back(stream);
      return client::StreamingCallPtr(stream.get());
    }

   private:
    FakeLrsFactory* const factory_;
    const std::shared_ptr<TransportRecord> record_;
  };

  Mutex mu_;
  std::string fail_uri_ ABSL_GUARDED_BY(mu_);
  std::vector<std::shared_ptr<TransportRecord>> records_ ABSL_GUARDED_BY(mu_);
  std::vector<std::shared_ptr<FakeStream>> streams_ ABSL_GUARDED_BY(mu_);
};

}  // namespace testing
}  // namespace lrs
}  // namespace xdsfed

#endif  // XDSFED_TESTS_LRS_LRS_TEST_UTIL_H_
