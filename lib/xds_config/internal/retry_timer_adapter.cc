#include "lib/xds_config/internal/retry_timer_adapter.h"

#include <utility>

namespace xdsfed {
namespace xds_config {
namespace {

class Adapter : public cluster::RetryTimer {
 public:
  explicit Adapter(std::shared_ptr<client::Timers> timers)
      : timers_(std::move(timers)) {}
  Handle RunAfter(absl::Duration delay, std::function<void()> fn) override {
    return timers_->RunAfter(delay, std::move(fn));
  }
  void Cancel(Handle handle) override { timers_->Cancel(handle); }

 private:
  const std::shared_ptr<client::Timers> timers_;
};

}  // namespace

std::shared_ptr<cluster::RetryTimer> RetryTimerOn(
    std::shared_ptr<client::Timers> timers) {
  if (timers == nullptr) timers = client::DefaultTimers();
  return std::make_shared<Adapter>(std::move(timers));
}

}  // namespace xds_config
}  // namespace xdsfed
