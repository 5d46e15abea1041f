// A fake client::StreamingCall for unit tests of the XdsClient (ADS) and the
// LrsClient (LRS): it records the raw messages the code under test sends and
// lets the test answer, complete sends, or end the stream.
//
//   FakeStreamingCall call(method, std::move(handler), /*hold_sends=*/false);
//   call.Respond(response);                     // any protobuf message
//   auto sent = call.Requests<DiscoveryRequest>();
//   call.Fail(absl::UnavailableError("gone"));  // the server ends the stream
//
// Events (send completions, responses, status) go through a queue drained
// by whichever thread adds one and finds nobody draining, so the handler's
// callbacks never overlap and a send made inside a callback completes after
// that callback, as on a real stream.
#ifndef XDSFED_TESTS_SUPPORT_FAKE_STREAMING_CALL_H_
#define XDSFED_TESTS_SUPPORT_FAKE_STREAMING_CALL_H_

#include <cstddef>
#include <deque>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "absl/base/thread_annotations.h"
#include "absl/status/status.h"
#include "lib/base/mutex.h"
#include "lib/client/xds_transport.h"

namespace xdsfed {
namespace client {
namespace testing {

class FakeStreamingCall : public StreamingCall {
 public:
  // hold_sends: sends complete only when the test calls CompleteSends().
  FakeStreamingCall(std::string method, std::unique_ptr<EventHandler> handler,
                    bool hold_sends = false)
      : method_(std::move(method)),
        handler_(std::move(handler)),
        hold_sends_(hold_sends) {}

  // StreamingCall
  void SendMessage(std::string payload) override {
    {
      MutexLock lock(&mu_);
      if (ended_) return;
      sent_.push_back(std::move(payload));
      if (hold_sends_) {
        ++held_;
      } else {
        events_.push_back(Event{Event::kSent, "", absl::OkStatus()});
      }
    }
    Drain();
  }
  void Orphan() override {
    {
      MutexLock lock(&mu_);
      orphaned_ = true;
      if (!end_queued_) {
        end_queued_ = true;
        events_.push_back(
            Event{Event::kStatus, "", absl::CancelledError("call cancelled")});
      }
    }
    Drain();
  }

  // Test side.
  const std::string& method() const { return method_; }
  // Every message sent so far, parsed as `Message`.
  template <typename Message>
  std::vector<Message> Requests() {
    MutexLock lock(&mu_);
    std::vector<Message> out;
    for (const std::string& s : sent_) {
      out.emplace_back();
      out.back().ParseFromString(s);
    }
    return out;
  }
  size_t request_count() {
    MutexLock lock(&mu_);
    return sent_.size();
  }
  template <typename Message>
  void Respond(const Message& response) {
    RespondBytes(response.SerializeAsString());
  }
  void RespondBytes(std::string bytes) {
    {
      MutexLock lock(&mu_);
      if (end_queued_) return;
      events_.push_back(Event{Event::kMessage, std::move(bytes), {}});
    }
    Drain();
  }
  // The server (or network) ends the stream.
  void Fail(absl::Status status) {
    {
      MutexLock lock(&mu_);
      if (end_queued_) return;
      end_queued_ = true;
      events_.push_back(Event{Event::kStatus, "", std::move(status)});
    }
    Drain();
  }
  // Completes the sends held so far (hold_sends mode).
  void CompleteSends() {
    {
      MutexLock lock(&mu_);
      for (; held_ > 0; --held_) {
        events_.push_back(Event{Event::kSent, "", absl::OkStatus()});
      }
    }
    Drain();
  }
  bool ended() {
    MutexLock lock(&mu_);
    return ended_;
  }
  bool orphaned() {
    MutexLock lock(&mu_);
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
      MutexLock lock(&mu_);
      if (draining_) return;
      draining_ = true;
    }
    while (true) {
      Event event;
      std::unique_ptr<EventHandler> dead;
      {
        MutexLock lock(&mu_);
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
            MutexLock lock(&mu_);
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
  Mutex mu_;
  const bool hold_sends_;
  std::vector<std::string> sent_ ABSL_GUARDED_BY(mu_);
  std::deque<Event> events_ ABSL_GUARDED_BY(mu_);
  bool draining_ ABSL_GUARDED_BY(mu_) = false;
  bool end_queued_ ABSL_GUARDED_BY(mu_) = false;
  bool ended_ ABSL_GUARDED_BY(mu_) = false;
  bool orphaned_ ABSL_GUARDED_BY(mu_) = false;
  size_t held_ ABSL_GUARDED_BY(mu_) = 0;
};

}  // namespace testing
}  // namespace client
}  // namespace xdsfed

#endif  // XDSFED_TESTS_SUPPORT_FAKE_STREAMING_CALL_H_
