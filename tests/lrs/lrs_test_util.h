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
// Events go through a queue drained by whichever thread adds one and finds
// nobody draining, so handler callbacks never overlap and a send made inside
// a callback completes after that callback, as on a real stream.
#ifndef XDSFED_TESTS_LRS_LRS_TEST_UTIL_H_
#define XDSFED_TESTS_LRS_LRS_TEST_UTIL_H_

#include <deque>
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
#include "lib/client/mutex.h"
#include "lib/client/xds_transport.h"

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

class FakeStream final : public client::StreamingCall {
 public:
  FakeStream(std::string method, std::unique_ptr<EventHandler> handler)
      : method_(std::move(method)), handler_(std::move(handler)) {}

  void SendMessage(std::string payload) override {
    {
      client::MutexLock lock(&mu_);
      if (ended_) return;
      sent_.push_back(std::move(payload));
      events_.push_back(Event{Event::kSent, "", absl::OkStatus()});
    }
    Drain();
  }
  void Orphan() override {
    {
      client::MutexLock lock(&mu_);
      orphaned_ = true;
      if (!end_queued_) {
        end_queued_ = true;
        events_.push_back(
            Event{Event::kStatus, "", absl::CancelledError("call cancelled")});
      }
    }
    Drain();
  }

  const std::string& method() const { return method_; }
  template <typename Message>
  std::vector<Message> Requests() {
    client::MutexLock lock(&mu_);
    std::vector<Message> out;
    for (const std::string& s : sent_) {
      out.emplace_back();
      out.back().ParseFromString(s);
    }
    return out;
  }
  size_t request_count() {
    client::MutexLock lock(&mu_);
    return sent_.size();
  }
  void Respond(const LoadStatsResponse& response) {
    RespondBytes(response.SerializeAsString());
  }
  void RespondBytes(std::string bytes) {
    {
      client::MutexLock lock(&mu_);
      if (end_queued_) return;
      events_.push_back(Event{Event::kMessage, std::move(bytes), {}});
    }
    Drain();
  }
  // The server (or network) ends the stream.
  void Fail(absl::Status status) {
    {
      client::MutexLock lock(&mu_);
      if (end_queued_) return;
      end_queued_ = true;
      events_.push_back(Event{Event::kStatus, "", std::move(status)});
    }
    Drain();
  }
  bool ended() {
    client::MutexLock lock(&mu_);
    return ended_;
  }
  bool orphaned() {
    client::MutexLock lock(&mu_);
    return orphaned_;
  }

 private:
  struct Event {
    enum Kind { kSent, kMessage, kStatus } kind;
    std::string payload;
    absl::Status status;
  };

  void Drain() {
    {
      client::MutexLock lock(&mu_);
      if (draining_) return;
      draining_ = true;
    }
    while (true) {
      Event event;
      std::unique_ptr<EventHandler> dead;
      {
        client::MutexLock lock(&mu_);
        if (events_.empty() || ended_) {
          draining_ = false;
          return;
        }
        event = std::move(events_.front());
        events_.pop_front();
      }
      switch (event.kind) {
        case Event::kSent:
          handler_->OnRequestSent(true);
          break;
        case Event::kMessage:
          handler_->OnRecvMessage(event.payload);
          break;
        case Event::kStatus:
          handler_->OnStatusReceived(event.status);
          {
            client::MutexLock lock(&mu_);
            ended_ = true;
            events_.clear();
            dead = std::move(handler_);
          }
          break;
      }
    }
  }

  const std::string method_;
  std::unique_ptr<EventHandler> handler_;  // used by the drainer only
  client::Mutex mu_;
  std::vector<std::string> sent_ ABSL_GUARDED_BY(mu_);
  std::deque<Event> events_ ABSL_GUARDED_BY(mu_);
  bool draining_ ABSL_GUARDED_BY(mu_) = false;
  bool end_queued_ ABSL_GUARDED_BY(mu_) = false;
  bool ended_ ABSL_GUARDED_BY(mu_) = false;
  bool orphaned_ ABSL_GUARDED_BY(mu_) = false;
};

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
    client::MutexLock lock(&mu_);
    if (server.server_uri() == fail_uri_) {
      return absl::UnavailableError("fake transport refused");
    }
    records_.push_back(std::make_shared<TransportRecord>());
    records_.back()->server_uri = server.server_uri();
    return std::unique_ptr<client::XdsTransport>(
        new Transport(this, records_.back()));
  }

  void set_fail_uri(std::string uri) {
    client::MutexLock lock(&mu_);
    fail_uri_ = std::move(uri);
  }
  size_t transport_count() {
    client::MutexLock lock(&mu_);
    return records_.size();
  }
  size_t live_transport_count() {
    client::MutexLock lock(&mu_);
    size_t n = 0;
    for (const auto& r : records_) n += r->destroyed ? 0 : 1;
    return n;
  }
  std::shared_ptr<TransportRecord> transport(size_t i) {
    client::MutexLock lock(&mu_);
    return i < records_.size() ? records_[i] : nullptr;
  }
  // Every stream of `method` so far, oldest first.
  std::vector<std::shared_ptr<FakeStream>> Streams(absl::string_view method) {
    client::MutexLock lock(&mu_);
    std::vector<std::shared_ptr<FakeStream>> out;
    for (const auto& s : streams_) {
      if (s->method() == method) out.push_back(s);
    }
    return out;
  }
  // The latest stream of `method` to `uri`, or null.
  FakeStream* LatestStream(absl::string_view uri, absl::string_view method) {
    client::MutexLock lock(&mu_);
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
        client::MutexLock lock(&factory_->mu_);
        record_->destroyed = true;
        streams = record_->streams;
      }
      for (auto& s : streams) s->Fail(absl::CancelledError("shutdown"));
    }
    client::StreamingCallPtr CreateStreamingCall(
        absl::string_view method,
        std::unique_ptr<client::StreamingCall::EventHandler> handler) override {
      client::MutexLock lock(&factory_->mu_);
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

  client::Mutex mu_;
  std::string fail_uri_ ABSL_GUARDED_BY(mu_);
  std::vector<std::shared_ptr<TransportRecord>> records_ ABSL_GUARDED_BY(mu_);
  std::vector<std::shared_ptr<FakeStream>> streams_ ABSL_GUARDED_BY(mu_);
};

}  // namespace testing
}  // namespace lrs
}  // namespace xdsfed

#endif  // XDSFED_TESTS_LRS_LRS_TEST_UTIL_H_
