// A mutex for code that TSan checks: std::mutex with absl's thread-safety
// annotations.
//
//   Mutex mu;
//   int n ABSL_GUARDED_BY(mu) = 0;
//   { MutexLock lock(&mu); ++n; }
//
// Why not absl::Mutex: Debian's libabsl is built without ThreadSanitizer
// annotations, so TSan cannot see absl::Mutex acquire / release and reports
// every access it guards as a race. std::mutex goes through pthread, which
// TSan intercepts; the annotations keep clang's -Wthread-safety checks.
#ifndef XDSFED_LIB_BASE_MUTEX_H_
#define XDSFED_LIB_BASE_MUTEX_H_

#include <mutex>

#include "absl/base/thread_annotations.h"

namespace xdsfed {

class ABSL_LOCKABLE Mutex {
 public:
  Mutex() = default;
  Mutex(const Mutex&) = delete;
  Mutex& operator=(const Mutex&) = delete;

  void Lock() ABSL_EXCLUSIVE_LOCK_FUNCTION() { mu_.lock(); }
  void Unlock() ABSL_UNLOCK_FUNCTION() { mu_.unlock(); }
  // BasicLockable, for std::condition_variable_any.
  void lock() ABSL_EXCLUSIVE_LOCK_FUNCTION() { mu_.lock(); }
  void unlock() ABSL_UNLOCK_FUNCTION() { mu_.unlock(); }

 private:
  std::mutex mu_;
};

class ABSL_SCOPED_LOCKABLE MutexLock {
 public:
  explicit MutexLock(Mutex* mu) ABSL_EXCLUSIVE_LOCK_FUNCTION(mu) : mu_(mu) {
    mu_->Lock();
  }
  ~MutexLock() ABSL_UNLOCK_FUNCTION() { mu_->Unlock(); }
  MutexLock(const MutexLock&) = delete;
  MutexLock& operator=(const MutexLock&) = delete;

 private:
  Mutex* const mu_;
};

}  // namespace xdsfed

#endif  // XDSFED_LIB_BASE_MUTEX_H_
