// The lifecycle shared by objects that handle their events one at a time and
// hand results to a user callback (ServerConfigManager, XdsDependencyManager,
// ClusterResolution): a WorkSerializer, a Stop() after which no callback
// starts, and the guard that lets Stop() wait for a callback running on
// another thread.
//
//   class Driver : public std::enable_shared_from_this<Driver> {
//     void OnEvent(Event e) {  // any thread
//       serializer_.Post(shared_from_this(), [this, e] { Handle(e); });
//     }
//     void Handle(Event e) {  // in the serializer
//       serializer_.RunCallback([&] { callback_(Snapshot()); });
//     }
//     void Stop() { serializer_.Stop(shared_from_this()); }
//     ~Driver() { serializer_.StopFromDestructor(); }
//     StoppableSerializer serializer_{[this] { CancelWatches(); }};
//   };
//
// Rules:
// - Post() runs `fn` after everything posted before it, on this thread
//   unless another thread is running the queue (that thread runs it before
//   it returns from its own Post()).
// - Once Stop() has begun, Post() drops `fn`; a closure still queued when
//   `on_stop` runs is dropped too. `on_stop` runs once, in the serializer
//   (or in StopFromDestructor() if Stop() never ran).
// - Stop() waits for a callback running on another thread. Called from
//   inside the callback it returns at once; `on_stop` then runs after the
//   callback, on the same thread.
// - The `owner` given to Post() and Stop() is the object holding this
//   serializer. It is held until the queue this thread runs is empty: a
//   closure dropping the last other reference cannot free the serializer
//   under its own drain loop.
#ifndef XDSFED_LIB_BASE_STOPPABLE_SERIALIZER_H_
#define XDSFED_LIB_BASE_STOPPABLE_SERIALIZER_H_

#include <condition_variable>
#include <functional>
#include <memory>
#include <thread>
#include <utility>

#include "absl/base/thread_annotations.h"
#include "lib/base/mutex.h"
#include "lib/base/work_serializer.h"

namespace xdsfed {

class StoppableSerializer {
 public:
  explicit StoppableSerializer(std::function<void()> on_stop);
  StoppableSerializer(const StoppableSerializer&) = delete;
  StoppableSerializer& operator=(const StoppableSerializer&) = delete;

  // Safe on any thread, with no lock held that `fn` or a callback takes.
  template <typename Owner>
  void Post(std::shared_ptr<Owner> owner, std::function<void()> fn) {
    PostAndDrain(std::move(fn));
    owner.reset();  // only now: the queue this thread ran is empty
  }

  // In the serializer only: runs the user callback unless Stop() has begun.
  template <typename F>
  void RunCallback(F&& callback) {
    if (!EnterCallback()) return;
    CallbackExit exit(this);  // also if the callback throws
    std::forward<F>(callback)();
  }

  // Idempotent. May be called from inside the callback.
  template <typename Owner>
  void Stop(std::shared_ptr<Owner> owner) {
    StopAndDrain();
    owner.reset();
  }

  // For the owner's destructor: runs `on_stop` unless it ran. Nobody holds
  // the owner any more, so no thread is running the queue.
  void StopFromDestructor();

 private:
  class CallbackExit {
   public:
    explicit CallbackExit(StoppableSerializer* s) : s_(s) {}
    ~CallbackExit() { s_->ExitCallback(); }
    CallbackExit(const CallbackExit&) = delete;
    CallbackExit& operator=(const CallbackExit&) = delete;

   private:
    StoppableSerializer* const s_;
  };

  void PostAndDrain(std::function<void()> fn);
  void StopAndDrain();
  // In the serializer.
  void RunOnStop();
  bool EnterCallback();
  void ExitCallback();

  const std::function<void()> on_stop_;
  WorkSerializer serializer_;
  bool on_stop_ran_ = false;  // serializer state

  Mutex mu_;
  std::condition_variable_any callback_done_;
  bool stopped_ ABSL_GUARDED_BY(mu_) = false;
  // Callbacks run in the serializer, so all of them on callback_thread_.
  int callbacks_running_ ABSL_GUARDED_BY(mu_) = 0;
  std::thread::id callback_thread_ ABSL_GUARDED_BY(mu_);
};

}  // namespace xdsfed

#endif  // XDSFED_LIB_BASE_STOPPABLE_SERIALIZER_H_
