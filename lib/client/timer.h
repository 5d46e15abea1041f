// The XdsClient's clock and timers, behind a narrow interface so unit tests
// drive time with a fake (tests/client/fake_timers.h) while production uses
// one background thread.
//
//   std::shared_ptr<client::Timers> timers = client::DefaultTimers();
//   client::Timers::Handle h =
//       timers->RunAfter(absl::Seconds(15), [] { /* resource timeout */ });
//   timers->Cancel(h);  // true: it will not run
//
// Callbacks run on a timer thread with no timer lock held, so they may take
// the client's lock and schedule or cancel timers.
#ifndef XDSFED_LIB_CLIENT_TIMER_H_
#define XDSFED_LIB_CLIENT_TIMER_H_

#include <cstdint>
#include <functional>
#include <memory>

#include "absl/time/time.h"

namespace xdsfed {
namespace client {

class Timers {
 public:
  using Handle = uint64_t;
  // Never returned by RunAfter.
  static constexpr Handle kInvalidHandle = 0;

  virtual ~Timers() = default;
  virtual absl::Time Now() = 0;
  // Runs fn once, at least `delay` from now (a delay <= 0 runs it as soon as
  // possible, never inline).
  virtual Handle RunAfter(absl::Duration delay, std::function<void()> fn) = 0;
  // True if fn had not started and now never will. Never blocks on a running
  // callback, so it is safe under the caller's locks.
  virtual bool Cancel(Handle handle) = 0;
};

// The real clock and one thread that runs due callbacks in deadline order.
// Destroying it drops callbacks that have not run (it may be destroyed from
// inside one of its own callbacks).
std::shared_ptr<Timers> DefaultTimers();

}  // namespace client
}  // namespace xdsfed

#endif  // XDSFED_LIB_CLIENT_TIMER_H_
