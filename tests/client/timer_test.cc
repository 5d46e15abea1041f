// DefaultTimers (the production clock of the XdsClient) and the
// WorkSerializer that orders watcher callbacks.
#include "lib/client/timer.h"

#include <atomic>
#include <future>
#include <memory>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "lib/base/mutex.h"
#include "lib/base/work_serializer.h"

namespace xdsfed {
namespace client {
namespace {

TEST(DefaultTimersTest, RunsInDeadlineOrderAndCancels) {
  std::shared_ptr<Timers> timers = DefaultTimers();
  Mutex mu;
  std::vector<int> order;
  std::promise<void> done;
  auto record = [&](int i) {
    MutexLock lock(&mu);
    order.push_back(i);
  };
  timers->RunAfter(absl::Milliseconds(30), [&] {
    record(3);
    done.set_value();
  });
  timers->RunAfter(absl::Milliseconds(10), [&] { record(1); });
  Timers::Handle cancelled =
      timers->RunAfter(absl::Milliseconds(20), [&] { record(2); });
  EXPECT_TRUE(timers->Cancel(cancelled));
  EXPECT_FALSE(timers->Cancel(cancelled));
  ASSERT_EQ(done.get_future().wait_for(std::chrono::seconds(5)),
            std::future_status::ready);
  MutexLock lock(&mu);
  EXPECT_THAT(order, ::testing::ElementsAre(1, 3));
}

TEST(DefaultTimersTest, DestroyedFromItsOwnCallback) {
  auto timers = std::make_shared<std::shared_ptr<Timers>>(DefaultTimers());
  std::promise<void> done;
  (*timers)->RunAfter(absl::ZeroDuration(), [timers, &done] {
    timers->reset();  // the last reference, on the timer thread
    done.set_value();
  });
  ASSERT_EQ(done.get_future().wait_for(std::chrono::seconds(5)),
            std::future_status::ready);
}

TEST(WorkSerializerTest, NestedScheduleRunsAfterCurrent) {
  // C-core WorkSerializer semantics the XdsClient relies on.
  WorkSerializer serializer;
  std::vector<int> order;
  serializer.Schedule([&] {
    order.push_back(1);
    serializer.Schedule([&] { order.push_back(3); });
    serializer.Drain();  // already draining: returns at once
    order.push_back(2);
  });
  serializer.Drain();
  EXPECT_THAT(order, ::testing::ElementsAre(1, 2, 3));
}

}  // namespace
}  // namespace client
}  // namespace xdsfed
