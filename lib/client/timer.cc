// DefaultTimers: one thread sleeping on a condition variable until the
// earliest deadline.
#include "lib/client/timer.h"

#include <condition_variable>
#include <map>
#include <thread>
#include <utility>

#include "absl/base/thread_annotations.h"
#include "absl/container/flat_hash_map.h"
#include "lib/base/mutex.h"

namespace xdsfed {
namespace client {
namespace {

// Shared by the Timers object and its thread, so that the thread can outlive
// the object when the object is destroyed from inside a callback.
struct TimerState {
  Mutex mu;
  std::condition_variable_any cv;  // queue changed or shutdown
  bool shutdown ABSL_GUARDED_BY(mu) = false;
  Timers::Handle next_handle ABSL_GUARDED_BY(mu) = 1;
  // Ordered by (deadline, handle): handles grow, so equal deadlines run in
  // the order they were scheduled.
  std::map<std::pair<absl::Time, Timers::Handle>, std::function<void()>> queue
      ABSL_GUARDED_BY(mu);
  absl::flat_hash_map<Timers::Handle, absl::Time> deadlines ABSL_GUARDED_BY(mu);
};

// The analysis cannot follow the unlock / relock around each callback.
void RunTimerThread(std::shared_ptr<TimerState> state)
    ABSL_NO_THREAD_SAFETY_ANALYSIS {
  state->mu.Lock();
  while (!state->shutdown) {
    if (state->queue.empty()) {
      state->cv.wait(state->mu);
      continue;
    }
    auto first = state->queue.begin();
    const absl::Time deadline = first->first.first;
    const absl::Time now = absl::Now();
    if (now < deadline) {
      // Wakes early when the queue changes or on shutdown.
      state->cv.wait_for(state->mu, absl::ToChronoNanoseconds(deadline - now));
      continue;
    }
    std::function<void()> fn = std::move(first->second);
    state->deadlines.erase(first->first.second);
    state->queue.erase(first);
    state->mu.Unlock();
    fn();
    fn = nullptr;  // captured state dies without the lock held
    state->mu.Lock();
  }
  state->mu.Unlock();
}

class ThreadTimers final : public Timers {
 public:
  ThreadTimers() : state_(std::make_shared<TimerState>()) {
    thread_ = std::thread(RunTimerThread, state_);
  }
  ~ThreadTimers() override {
    {
      MutexLock lock(&state_->mu);
      state_->shutdown = true;
      // Callbacks dropped here may own objects whose destructors take locks:
      // destroy them after releasing ours.
      dropped_.swap(state_->queue);
      state_->deadlines.clear();
    }
    state_->cv.notify_all();
    dropped_.clear();
    if (thread_.get_id() == std::this_thread::get_id()) {
      thread_.detach();
    } else {
      thread_.join();
    }
  }

  absl::Time Now() override { return absl::Now(); }

  Handle RunAfter(absl::Duration delay, std::function<void()> fn) override {
    MutexLock lock(&state_->mu);
    const Handle handle = state_->next_handle++;
    const absl::Time deadline = absl::Now() + delay;
    state_->queue.emplace(std::make_pair(deadline, handle), std::move(fn));
    state_->deadlines.emplace(handle, deadline);
    // Notified under the lock: once it is released, `fn` may run and drop
    // the last reference to this object, so `this` is not touched after.
    state_->cv.notify_all();
    return handle;
  }

  bool Cancel(Handle handle) override {
    std::function<void()> fn;
    {
      MutexLock lock(&state_->mu);
      auto it = state_->deadlines.find(handle);
      if (it == state_->deadlines.end()) return false;
      auto q = state_->queue.find(std::make_pair(it->second, handle));
      fn = std::move(q->second);
      state_->queue.erase(q);
      state_->deadlines.erase(it);
    }
    return true;  // fn is destroyed here, without the lock
  }

 private:
  std::shared_ptr<TimerState> state_;
  std::map<std::pair<absl::Time, Timers::Handle>, std::function<void()>>
      dropped_;
  std::thread thread_;
};

}  // namespace

std::shared_ptr<Timers> DefaultTimers() {
  return std::make_shared<ThreadTimers>();
}

}  // namespace client
}  // namespace xdsfed
