#include "lib/base/work_serializer.h"

#include <utility>

namespace xdsfed {

void WorkSerializer::Schedule(std::function<void()> fn) {
  MutexLock lock(&mu_);
  queue_.push_back(std::move(fn));
}

void WorkSerializer::Drain() {
  {
    MutexLock lock(&mu_);
    if (draining_ || queue_.empty()) return;
    draining_ = true;
  }
  while (true) {
    std::function<void()> fn;
    {
      MutexLock lock(&mu_);
      if (queue_.empty()) {
        draining_ = false;
        return;
      }
      fn = std::move(queue_.front());
      queue_.pop_front();
    }
    fn();
  }
}

}  // namespace xdsfed
