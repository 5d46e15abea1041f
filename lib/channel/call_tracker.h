// What a pick hands the caller to account for its call: the circuit
// breaker's in-flight count (A37 §Use Global Circuit Breaking Atomic) and
// the locality's load-report counters (A47 §XdsClient Load Reporting APIs).
// Finish() exactly once; a tracker destroyed unfinished counts as an error,
// so a call abandoned by its caller is not lost from the load report.
//
// clang-format off
//   PickResult pick = ch->Pick({"/helloworld.Greeter/SayHello", {}});
//   if (!pick.status.ok()) return pick.status;
//   grpc::ClientContext ctx;
//   helloworld::HelloReply reply;
//   grpc::Status s =
//       StubFor<Greeter::Stub>(pick).SayHello(&ctx, request, &reply);
//   pick.tracker.Finish(s.ok());
// clang-format on
#ifndef XDSFED_LIB_CHANNEL_CALL_TRACKER_H_
#define XDSFED_LIB_CHANNEL_CALL_TRACKER_H_

#include <memory>
#include <utility>

#include "lib/lrs/call_counter.h"
#include "lib/lrs/load_stats.h"

namespace xdsfed {
namespace channel {

class CallTracker {
 public:
  // A tracker that tracks nothing (failed picks).
  CallTracker() = default;
  // Takes over one started call of `counter` (already counted in) and, if
  // `stats` is set, one AddCallStarted() of it.
  CallTracker(std::shared_ptr<lrs::CallCounter> counter,
              std::shared_ptr<lrs::ClusterLocalityStats> stats)
      : counter_(std::move(counter)), stats_(std::move(stats)) {}
  CallTracker(CallTracker&& other) noexcept
      : counter_(std::move(other.counter_)), stats_(std::move(other.stats_)) {}
  CallTracker& operator=(CallTracker&& other) noexcept {
    if (this != &other) {
      Finish(false);
      counter_ = std::move(other.counter_);
      stats_ = std::move(other.stats_);
    }
    return *this;
  }
  CallTracker(const CallTracker&) = delete;
  CallTracker& operator=(const CallTracker&) = delete;
  ~CallTracker() { Finish(false); }

  // The call ended (ok: with status OK). Later calls do nothing.
  void Finish(bool ok) {
    if (stats_ != nullptr) stats_->AddCallFinished(!ok);
    if (counter_ != nullptr) counter_->FinishCall();
    stats_.reset();
    counter_.reset();
  }
  bool active() const { return counter_ != nullptr; }

 private:
  std::shared_ptr<lrs::CallCounter> counter_;
  std::shared_ptr<lrs::ClusterLocalityStats> stats_;
};

}  // namespace channel
}  // namespace xdsfed

#endif  // XDSFED_LIB_CHANNEL_CALL_TRACKER_H_
