// RetryingStream: one xDS stream kept up over an XdsTransport the way gRPC
// C-core 1.51's RetryableCall keeps its ADS and LRS streams: start a call;
// when it ends, start the next one after a backoff (1 s, x1.6, jitter 0.2,
// 120 s max by default), which a call that got a response resets. Every call
// has a generation, so the events of a call that has since been replaced
// are recognised and dropped. The XdsClient's ADS stream and
// lrs::LrsClient's LRS stream are both one RetryingStream per server.
//
// Not thread-safe: the owner calls it under its own lock, and what must not
// run under that lock (creating a call, sending, cancelling, releasing a
// transport: the transport may call back) is collected in a StreamWork that
// the owner runs after releasing the lock. The call's events reach the owner
// through RetryingStreamOwner with the stream's key and the call's
// generation, unlocked; the owner locks, finds the stream by key and drops
// the event unless IsCurrent(generation).
//
//   // Under the owner's lock:
//   stream.Start(transport, &work);      // later: owner->OnCallCreated
//   // OnCallCreated(key, gen, call), under the lock:
//   if (stream.Adopt(gen, std::move(call), &work)) {
//     stream.Send(first_request, &work);
//   }
//   // OnStatusReceived(key, gen, status), under the lock:
//   if (!stream.IsCurrent(gen)) return;
//   const bool had_response = stream.End(&work);
//   stream.ScheduleRetry();              // later: owner->OnRetryTimer
//   // OnRetryTimer(key, token), under the lock:
//   if (stream.TakeRetry(token)) stream.Start(transport, &work);
//   ...
//   // After unlocking:
//   work.Run();
//
// CallState is the owner's per-call protocol state (nonces, timers, ...):
// a fresh one per call, from Start() until End() or Stop().
#ifndef XDSFED_LIB_CLIENT_RETRYING_STREAM_H_
#define XDSFED_LIB_CLIENT_RETRYING_STREAM_H_

#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/string_view.h"
#include "lib/client/backoff.h"
#include "lib/client/timer.h"
#include "lib/client/xds_transport.h"

namespace xdsfed {
namespace client {

// What the events of a RetryingStream's calls and timer go to. Called with
// no lock held, on transport or timer threads; the events of one call never
// run concurrently. `key` is the stream's (RetryingStreamOptions::key).
class RetryingStreamOwner {
 public:
  // The call Start() asked for, created by StreamWork::Run(); the owner
  // hands it to the stream's Adopt().
  virtual void OnCallCreated(uint64_t key, uint64_t generation,
                             StreamingCallPtr call) = 0;
  virtual void OnRequestSent(uint64_t key, uint64_t generation, bool ok) = 0;
  virtual void OnRecvMessage(uint64_t key, uint64_t generation,
                             absl::string_view payload) = 0;
  virtual void OnStatusReceived(uint64_t key, uint64_t generation,
                                absl::Status status) = 0;
  // The retry timer of ScheduleRetry(); the owner asks TakeRetry(token).
  virtual void OnRetryTimer(uint64_t key, uint64_t token) = 0;

 protected:
  ~RetryingStreamOwner() = default;
};

// Transport work collected under an owner's lock, done by Run() after it is
// released: create calls, send (in order), cancel ended calls, release
// transports (after the calls that ran on them).
class StreamWork {
 public:
  StreamWork() = default;
  StreamWork(const StreamWork&) = delete;
  StreamWork& operator=(const StreamWork&) = delete;

  // A call nobody wants any more (an owner that went away since asking
  // for it): cancelled by Run().
  void Cancel(StreamingCallPtr call);
  void ReleaseTransport(std::shared_ptr<XdsTransport> transport) {
    dead_transports_.push_back(std::move(transport));
  }
  void Run();

 private:
  template <typename CallState>
  friend class RetryingStream;
  friend class RetryingStreamCore;

  // A call, shared with the unlocked senders: set once, under the owner's
  // lock, before any send to it is queued.
  struct CallBox {
    StreamingCallPtr call;
  };

  std::vector<std::function<void()>> starts_;
  std::vector<std::pair<std::shared_ptr<CallBox>, std::string>> sends_;
  std::vector<std::shared_ptr<CallBox>> dead_calls_;
  std::vector<std::shared_ptr<XdsTransport>> dead_transports_;
};

struct RetryingStreamOptions {
  // The full method path (kAdsMethod, kLrsMethod); static storage.
  absl::string_view method;
  BackoffOptions backoff;
  uint64_t jitter_seed = 0;
  std::shared_ptr<Timers> timers;
  // Held weakly: events after the owner is gone are dropped.
  std::weak_ptr<RetryingStreamOwner> owner;
  uint64_t key = 0;
};

// The part of RetryingStream that does not depend on CallState.
class RetryingStreamCore {
 public:
  explicit RetryingStreamCore(RetryingStreamOptions options);
  // Cancels a pending retry timer (never blocks). The owner Stop()s a
  // running call first: cancelling it is transport work.
  ~RetryingStreamCore();
  RetryingStreamCore(const RetryingStreamCore&) = delete;
  RetryingStreamCore& operator=(const RetryingStreamCore&) = delete;

  // A call was started and has not ended (it may not be created yet).
  bool running() const { return running_; }
  // The running call is created and adopted: Send() may be used.
  bool ready() const { return running_ && box_->call != nullptr; }
  // A retry timer is pending.
  bool backing_off() const { return retry_timer_ != Timers::kInvalidHandle; }
  // The running call's generation (unique in the process).
  uint64_t generation() const { return generation_; }
  bool IsCurrent(uint64_t generation) const {
    return running_ && generation == generation_;
  }
  // The running call got a response: the backoff restarts after it ends.
  void MarkResponse() { seen_response_ = true; }
  bool seen_response() const { return running_ && seen_response_; }

  // Queues one message on the ready call.
  void Send(std::string payload, StreamWork* work);
  // Arms the retry timer with the backoff's next delay; the owner gets
  // OnRetryTimer(key, token).
  void ScheduleRetry();
  // True (and the timer is cleared) if token is the pending retry timer's.
  bool TakeRetry(uint64_t token);
  // Forgets earlier failures: the next retry waits the initial delay.
  void ResetBackoff() { backoff_.Reset(); }

 protected:
  uint64_t StartCore(std::shared_ptr<XdsTransport> transport, StreamWork* work);
  bool AdoptCore(uint64_t generation, StreamingCallPtr call, StreamWork* work);
  bool EndCore(StreamWork* work);
  void StopCore(StreamWork* work);

 private:
  const RetryingStreamOptions options_;
  Backoff backoff_;
  bool running_ = false;
  uint64_t generation_ = 0;
  std::shared_ptr<StreamWork::CallBox> box_;
  bool seen_response_ = false;
  Timers::Handle retry_timer_ = Timers::kInvalidHandle;
  uint64_t retry_token_ = 0;
};

template <typename CallState>
class RetryingStream : public RetryingStreamCore {
 public:
  using RetryingStreamCore::RetryingStreamCore;

  // The running call's state; null when no call runs.
  CallState* call() { return state_.get(); }

  // Starts a new call (none may be running) on `transport`: it is the
  // running call from now on, with a fresh CallState; work.Run() creates it
  // and gives it to the owner (OnCallCreated). Returns its generation.
  uint64_t Start(std::shared_ptr<XdsTransport> transport, StreamWork* work) {
    state_ = std::make_unique<CallState>();
    return StartCore(std::move(transport), work);
  }
  // A created call: true if it is the running call's and now ready; else
  // (replaced, ended or stopped since) it is cancelled by work.Run().
  bool Adopt(uint64_t generation, StreamingCallPtr call, StreamWork* work) {
    return AdoptCore(generation, std::move(call), work);
  }
  // The running call ended (its status arrived): it is released, and the
  // backoff restarts if it got a response. Returns whether it did. The
  // owner then ScheduleRetry()s or Stop()s.
  bool End(StreamWork* work) {
    state_.reset();
    return EndCore(work);
  }
  // No more calls for now: cancels the retry timer and the running call.
  void Stop(StreamWork* work) {
    state_.reset();
    StopCore(work);
  }

 private:
  std::unique_ptr<CallState> state_;
};

}  // namespace client
}  // namespace xdsfed

#endif  // XDSFED_LIB_CLIENT_RETRYING_STREAM_H_
