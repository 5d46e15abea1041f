// Tests for lib/client/retrying_stream.h, the stream helper under the ADS
// (XdsClient) and LRS (LrsClient) streams: C-core 1.51's RetryableCall
// (xds_client.cc) restarts a failed call after a backoff that a call with a
// response resets, and ignores the events of a call it has replaced. A tiny
// owner drives it over the fake transport and clock of the client tests.
#include "lib/client/retrying_stream.h"

#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "absl/base/thread_annotations.h"
#include "gtest/gtest.h"
#include "lib/base/mutex.h"
#include "tests/client/client_test_util.h"

namespace xdsfed {
namespace client {
namespace testing {
namespace {

struct NoState {};

class NullHandler final : public StreamingCall::EventHandler {
 public:
  void OnRequestSent(bool) override {}
  void OnRecvMessage(absl::string_view) override {}
  void OnStatusReceived(absl::Status) override {}
};

// Keeps one stream up the way the clients do (under its lock, work run
// after it), sending "hello" on each new call and recording what reaches it.
class Owner final : public RetryingStreamOwner,
                    public std::enable_shared_from_this<Owner> {
 public:
  explicit Owner(std::shared_ptr<FakeTimers> timers) : timers_(timers) {}

  void Init(BackoffOptions backoff) {
    RetryingStreamOptions options;
    options.method = kLrsMethod;
    options.backoff = backoff;
    options.jitter_seed = 1;
    options.timers = timers_;
    options.owner = weak_from_this();
    options.key = 7;
    MutexLock lock(&mu_);
    stream_ = std::make_unique<RetryingStream<NoState>>(std::move(options));
  }
  void Start(std::shared_ptr<XdsTransport> transport) {
    StreamWork work;
    {
      MutexLock lock(&mu_);
      transport_ = std::move(transport);
      stream_->Start(transport_, &work);
    }
    work.Run();
  }
  void Stop() {
    StreamWork work;
    {
      MutexLock lock(&mu_);
      stream_->Stop(&work);
    }
    work.Run();
  }
  void OnCallCreated(uint64_t key, uint64_t gen,
                     StreamingCallPtr call) override {
    StreamWork work;
    {
      MutexLock lock(&mu_);
      if (stream_->Adopt(gen, std::move(call), &work)) {
        stream_->Send("hello", &work);
      }
    }
    work.Run();
  }
  void OnRequestSent(uint64_t, uint64_t, bool) override {}
  void OnRecvMessage(uint64_t key, uint64_t gen, absl::string_view) override {
    MutexLock lock(&mu_);
    keys_.push_back(key);
    if (!stream_->IsCurrent(gen)) {
      ++stale_;
      return;
    }
    stream_->MarkResponse();
  }
  void OnStatusReceived(uint64_t, uint64_t gen, absl::Status) override {
    StreamWork work;
    {
      MutexLock lock(&mu_);
      if (!stream_->IsCurrent(gen)) {
        ++stale_;
        return;
      }
      ends_with_response_.push_back(stream_->End(&work));
      stream_->ScheduleRetry();
    }
    work.Run();
  }
  void OnRetryTimer(uint64_t, uint64_t token) override {
    StreamWork work;
    {
      MutexLock lock(&mu_);
      if (!stream_->TakeRetry(token)) return;
      stream_->Start(transport_, &work);
    }
    work.Run();
  }

  bool running() {
    MutexLock lock(&mu_);
    return stream_->running();
  }
  bool backing_off() {
    MutexLock lock(&mu_);
    return stream_->backing_off();
  }
  uint64_t generation() {
    MutexLock lock(&mu_);
    return stream_->generation();
  }
  int stale() {
    MutexLock lock(&mu_);
    return stale_;
  }
  std::vector<bool> ends_with_response() {
    MutexLock lock(&mu_);
    return ends_with_response_;
  }
  std::vector<uint64_t> keys() {
    MutexLock lock(&mu_);
    return keys_;
  }

 private:
  const std::shared_ptr<FakeTimers> timers_;
  Mutex mu_;
  std::unique_ptr<RetryingStream<NoState>> stream_ ABSL_GUARDED_BY(mu_);
  std::shared_ptr<XdsTransport> transport_ ABSL_GUARDED_BY(mu_);
  int stale_ ABSL_GUARDED_BY(mu_) = 0;
  std::vector<bool> ends_with_response_ ABSL_GUARDED_BY(mu_);
  std::vector<uint64_t> keys_ ABSL_GUARDED_BY(mu_);
};

struct Fixture {
  Fixture() {
    owner->Init(BackoffOptions{absl::Seconds(1), 1.6, /*jitter=*/0,
                               absl::Seconds(120)});
    XdsServerConfig server("fake:1", "insecure", Json::Value(), {});
    auto created = factory.Create(server, [](absl::Status) {});
    transport = std::shared_ptr<XdsTransport>(*std::move(created));
  }
  std::shared_ptr<FakeTimers> timers = std::make_shared<FakeTimers>();
  std::shared_ptr<Owner> owner = std::make_shared<Owner>(timers);
  FakeTransportFactory factory;
  std::shared_ptr<XdsTransport> transport;
};

// C-core RetryableCall::OnCallFinished / StartRetryTimerLocked: each failed
// call without a response waits longer (1 s, x1.6 here without jitter); a
// call that got a response makes the next wait the initial one again.
TEST(RetryingStreamTest, BackoffGrowsAndResetsAfterAResponse) {
  struct Step {
    bool respond;          // the call gets a response before failing
    absl::Duration delay;  // the retry wait that follows
  };
  const Step kSteps[] = {
      {false, absl::Seconds(1)},    {false, absl::Seconds(1.6)},
      {false, absl::Seconds(2.56)}, {true, absl::Seconds(1)},
      {false, absl::Seconds(1.6)},
  };
  Fixture f;
  f.owner->Start(f.transport);
  size_t calls = 1;
  for (const Step& step : kSteps) {
    FakeCall* call = f.factory.Call(calls - 1);
    ASSERT_NE(call, nullptr);
    EXPECT_EQ(call->request_count(), 1u);  // "hello", sent on adoption
    if (step.respond) call->RespondBytes("x");
    call->Fail(absl::UnavailableError("down"));
    EXPECT_FALSE(f.owner->running());
    EXPECT_TRUE(f.owner->backing_off());
    EXPECT_EQ(f.timers->delays().back(), step.delay);
    f.timers->Advance(step.delay - absl::Milliseconds(1));
    EXPECT_EQ(f.factory.call_count(), calls);  // not yet
    f.timers->Advance(absl::Milliseconds(1));
    EXPECT_EQ(f.factory.call_count(), ++calls);
    EXPECT_TRUE(f.owner->running());
  }
  const std::vector<bool> want = {false, false, false, true, false};
  EXPECT_EQ(f.owner->ends_with_response(), want);
  for (uint64_t key : f.owner->keys()) EXPECT_EQ(key, 7u);
  f.owner->Stop();
}

// Events of a call that has been replaced (or stopped) are recognised by
// their generation and dropped; a call created after its stream moved on
// is cancelled, never adopted.
TEST(RetryingStreamTest, StaleCallsAreDroppedAndCancelled) {
  Fixture f;
  f.owner->Start(f.transport);
  FakeCall* first = f.factory.Call(0);
  const uint64_t first_gen = f.owner->generation();
  f.owner->Stop();
  EXPECT_TRUE(first->orphaned());
  EXPECT_FALSE(f.owner->running());
  f.owner->Start(f.transport);
  EXPECT_NE(f.owner->generation(), first_gen);
  FakeCall* second = f.factory.Call(1);
  ASSERT_NE(second, nullptr);
  EXPECT_FALSE(second->orphaned());
  // The first call's cancellation status came after Stop(): dropped. So is
  // a late message of it.
  EXPECT_EQ(f.owner->stale(), 1);
  f.owner->OnRecvMessage(7, first_gen, "late");
  EXPECT_EQ(f.owner->stale(), 2);
  // A late creation of the first call: cancelled.
  auto late = std::make_shared<FakeCall>("m", std::make_unique<NullHandler>());
  f.owner->OnCallCreated(7, first_gen, StreamingCallPtr(late.get()));
  EXPECT_TRUE(late->orphaned());
  f.owner->Stop();
  EXPECT_FALSE(f.owner->backing_off());
}

// Stop() cancels a pending retry: its timer never starts a call.
TEST(RetryingStreamTest, StopCancelsTheRetry) {
  Fixture f;
  f.owner->Start(f.transport);
  f.factory.Call(0)->Fail(absl::UnavailableError("down"));
  EXPECT_TRUE(f.owner->backing_off());
  f.owner->Stop();
  EXPECT_FALSE(f.owner->backing_off());
  f.timers->Advance(absl::Seconds(10));
  EXPECT_EQ(f.factory.call_count(), 1u);
}

// Generations are unique in the process: two streams under the same key
// (a channel released and opened again) never share one.
TEST(RetryingStreamTest, GenerationsAreUniqueAcrossStreams) {
  Fixture a;
  Fixture b;
  a.owner->Start(a.transport);
  b.owner->Start(b.transport);
  EXPECT_NE(a.owner->generation(), b.owner->generation());
  a.owner->Stop();
  b.owner->Stop();
}

// An owner that is gone: the call's events and the retry timer are dropped.
TEST(RetryingStreamTest, EventsAfterTheOwnerIsGoneAreDropped) {
  Fixture f;
  f.owner->Start(f.transport);
  FakeCall* call = f.factory.Call(0);
  call->Fail(absl::UnavailableError("down"));
  f.owner.reset();
  f.timers->Advance(absl::Seconds(10));  // the retry finds no owner
  EXPECT_EQ(f.factory.call_count(), 1u);
}

}  // namespace
}  // namespace testing
}  // namespace client
}  // namespace xdsfed
