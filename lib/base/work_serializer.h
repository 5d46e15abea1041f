// Runs callbacks (e.g. the XdsClient's watcher notifications) one at a time, in
// the order they were scheduled, never under the client's lock (the role of
// C-core's WorkSerializer).
//
//   // under the client's lock:
//   serializer.Schedule([w] { w->OnDoesNotExist(); });
//   // after releasing it:
//   serializer.Drain();
//
// Drain() runs the queue on the calling thread unless another thread is
// already draining (that thread then runs what was added, before it returns
// from Drain). A callback that schedules more work and calls Drain() (e.g. by
// starting a watch) gets it run after it returns, not inside itself.
#ifndef XDSFED_LIB_BASE_WORK_SERIALIZER_H_
#define XDSFED_LIB_BASE_WORK_SERIALIZER_H_

#include <deque>
#include <functional>

#include "absl/base/thread_annotations.h"
#include "lib/base/mutex.h"

namespace xdsfed {

class WorkSerializer {
 public:
  // Safe under any lock (takes only its own).
  void Schedule(std::function<void()> fn);
  // Must be called with no lock held that a callback might take.
  void Drain();

 private:
  Mutex mu_;
  std::deque<std::function<void()>> queue_ ABSL_GUARDED_BY(mu_);
  bool draining_ ABSL_GUARDED_BY(mu_) = false;
};

}  // namespace xdsfed

#endif  // XDSFED_LIB_BASE_WORK_SERIALIZER_H_
