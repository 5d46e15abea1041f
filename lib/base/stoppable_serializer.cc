#include "lib/base/stoppable_serializer.h"

namespace xdsfed {

StoppableSerializer::StoppableSerializer(std::function<void()> on_stop)
    : on_stop_(std::move(on_stop)) {}

void StoppableSerializer::PostAndDrain(std::function<void()> fn) {
  {
    MutexLock lock(&mu_);
    if (stopped_) return;
  }
  // Re-checked when its turn comes: Stop() may have run on_stop since.
  serializer_.Schedule([this, fn = std::move(fn)] {
    if (!on_stop_ran_) fn();
  });
  serializer_.Drain();
}

void StoppableSerializer::StopAndDrain() {
  {
    MutexLock lock(&mu_);
    if (stopped_) return;
    stopped_ = true;
    // A callback running on another thread must finish first; one running
    // on this thread is our caller.
    while (callbacks_running_ > 0 &&
           callback_thread_ != std::this_thread::get_id()) {
      callback_done_.wait(mu_);
    }
  }
  serializer_.Schedule([this] { RunOnStop(); });
  serializer_.Drain();
}

void StoppableSerializer::StopFromDestructor() {
  {
    MutexLock lock(&mu_);
    stopped_ = true;
  }
  RunOnStop();
}

void StoppableSerializer::RunOnStop() {
  if (on_stop_ran_) return;
  on_stop_ran_ = true;
  on_stop_();
}

bool StoppableSerializer::EnterCallback() {
  MutexLock lock(&mu_);
  if (stopped_) return false;
  ++callbacks_running_;
  callback_thread_ = std::this_thread::get_id();
  return true;
}

void StoppableSerializer::ExitCallback() {
  MutexLock lock(&mu_);
  --callbacks_running_;
  if (callbacks_running_ == 0) callback_thread_ = std::thread::id();
  // Under the lock: a Stop() that was waiting may let its caller destroy
  // the owner as soon as the lock is released.
  callback_done_.notify_all();
}

}  // namespace xdsfed
