#include "lib/client/retrying_stream.h"

#include <atomic>

namespace xdsfed {
namespace client {
namespace {

// Generations and retry tokens come from one process-wide counter, so a
// late event of a stream that was destroyed and made again under the same
// key (a channel released and re-opened) never matches the new one.
uint64_t NextId() {
  static std::atomic<uint64_t> next{1};
  return next.fetch_add(1, std::memory_order_relaxed);
}

// Forwards one call's events to the owner, tagged with the stream's key and
// the call's generation; holds the owner weakly, so a call that outlives it
// is harmless.
class EventForwarder final : public StreamingCall::EventHandler {
 public:
  EventForwarder(std::weak_ptr<RetryingStreamOwner> owner, uint64_t key,
                 uint64_t generation)
      : owner_(std::move(owner)), key_(key), generation_(generation) {}

  void OnRequestSent(bool ok) override {
    if (auto owner = owner_.lock()) {
      owner->OnRequestSent(key_, generation_, ok);
    }
  }
  void OnRecvMessage(absl::string_view payload) override {
    if (auto owner = owner_.lock()) {
      owner->OnRecvMessage(key_, generation_, payload);
    }
  }
  void OnStatusReceived(absl::Status status) override {
    if (auto owner = owner_.lock()) {
      owner->OnStatusReceived(key_, generation_, std::move(status));
    }
  }

 private:
  const std::weak_ptr<RetryingStreamOwner> owner_;
  const uint64_t key_;
  const uint64_t generation_;
};

}  // namespace

void StreamWork::Run() {
  for (auto& start : starts_) start();
  starts_.clear();
  for (auto& send : sends_)
    send.first->call->SendMessage(std::move(send.second));
  sends_.clear();
  dead_calls_.clear();
  dead_transports_.clear();
}

void StreamWork::Cancel(StreamingCallPtr call) {
  auto box = std::make_shared<CallBox>();
  box->call = std::move(call);
  dead_calls_.push_back(std::move(box));
}

RetryingStreamCore::RetryingStreamCore(RetryingStreamOptions options)
    : options_(std::move(options)),
      backoff_(options_.backoff, options_.jitter_seed) {}

RetryingStreamCore::~RetryingStreamCore() {
  if (retry_timer_ != Timers::kInvalidHandle) {
    options_.timers->Cancel(retry_timer_);
  }
}

uint64_t RetryingStreamCore::StartCore(std::shared_ptr<XdsTransport> transport,
                                       StreamWork* work) {
  running_ = true;
  generation_ = NextId();
  box_ = std::make_shared<StreamWork::CallBox>();
  seen_response_ = false;
  work->starts_.push_back([owner = options_.owner, key = options_.key,
                           generation = generation_, method = options_.method,
                           transport = std::move(transport)] {
    std::shared_ptr<RetryingStreamOwner> strong = owner.lock();
    if (strong == nullptr) return;
    StreamingCallPtr call = transport->CreateStreamingCall(
        method, std::make_unique<EventForwarder>(owner, key, generation));
    strong->OnCallCreated(key, generation, std::move(call));
    // `transport` outlives a call the owner cancelled (captured until the
    // start is destroyed, after every start of this StreamWork ran).
  });
  return generation_;
}

bool RetryingStreamCore::AdoptCore(uint64_t generation, StreamingCallPtr call,
                                   StreamWork* work) {
  if (!IsCurrent(generation) || box_->call != nullptr) {
    work->Cancel(std::move(call));  // replaced (or ended) before it was stored
    return false;
  }
  box_->call = std::move(call);
  return true;
}

void RetryingStreamCore::Send(std::string payload, StreamWork* work) {
  work->sends_.emplace_back(box_, std::move(payload));
}

bool RetryingStreamCore::EndCore(StreamWork* work) {
  const bool seen_response = running_ && seen_response_;
  if (seen_response) backoff_.Reset();
  if (box_ != nullptr) work->dead_calls_.push_back(std::move(box_));
  box_ = nullptr;
  running_ = false;
  seen_response_ = false;
  return seen_response;
}

void RetryingStreamCore::StopCore(StreamWork* work) {
  if (retry_timer_ != Timers::kInvalidHandle) {
    options_.timers->Cancel(retry_timer_);
    retry_timer_ = Timers::kInvalidHandle;
  }
  if (box_ != nullptr) work->dead_calls_.push_back(std::move(box_));
  box_ = nullptr;
  running_ = false;
  seen_response_ = false;
}

void RetryingStreamCore::ScheduleRetry() {
  retry_token_ = NextId();
  retry_timer_ = options_.timers->RunAfter(
      backoff_.NextDelay(),
      [owner = options_.owner, key = options_.key, token = retry_token_] {
        if (auto strong = owner.lock()) strong->OnRetryTimer(key, token);
      });
}

bool RetryingStreamCore::TakeRetry(uint64_t token) {
  if (retry_timer_ == Timers::kInvalidHandle || token != retry_token_) {
    return false;
  }
  retry_timer_ = Timers::kInvalidHandle;
  return true;
}

}  // namespace client
}  // namespace xdsfed
