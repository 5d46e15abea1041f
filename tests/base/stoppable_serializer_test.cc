// StoppableSerializer: the lifecycle the config managers and the cluster
// driver share (post after stop, stop waiting for a callback, stop from
// inside the callback, destruction). Single-thread cases are a table of
// steps and the log they leave; the cases that need a second thread follow.
// (Run under TSan and ASan in CI.)
#include "lib/base/stoppable_serializer.h"

#include <atomic>
#include <chrono>
#include <future>
#include <memory>
#include <ostream>
#include <string>
#include <thread>
#include <vector>

#include "gtest/gtest.h"
#include "lib/base/mutex.h"

namespace xdsfed {
namespace {

// An object built the way the three users are: shared, the serializer a
// member whose on_stop cancels the object's work.
class Owner : public std::enable_shared_from_this<Owner> {
 public:
  // `on_destroy` gets the final log.
  explicit Owner(
      std::function<void(std::vector<std::string>)> on_destroy = nullptr)
      : on_destroy_(std::move(on_destroy)) {}
  ~Owner() {
    serializer_.StopFromDestructor();
    Log("destroyed");
    if (on_destroy_) on_destroy_(log());
  }

  void Post(std::function<void()> fn) {
    serializer_.Post(shared_from_this(), std::move(fn));
  }
  void Stop() { serializer_.Stop(shared_from_this()); }
  // In the serializer.
  void Callback(std::function<void()> fn) { serializer_.RunCallback(fn); }

  void Log(std::string line) {
    MutexLock lock(&mu_);
    log_.push_back(std::move(line));
  }
  std::vector<std::string> log() {
    MutexLock lock(&mu_);
    return log_;
  }

 private:
  void OnStop() {
    ++on_stop_runs_;
    Log("on_stop");
  }

  const std::function<void(std::vector<std::string>)> on_destroy_;
  int on_stop_runs_ = 0;
  Mutex mu_;
  std::vector<std::string> log_ ABSL_GUARDED_BY(mu_);

 public:
  StoppableSerializer serializer_{[this] { OnStop(); }};
};

enum class Op {
  kPost,              // Post(log label)
  kPostInClosure,     // Post(log "outer"; Post(log label); log "outer end")
  kCallback,          // Post(RunCallback(log label))
  kStopInCallback,    // Post(RunCallback(log label; Stop(); log "returned"))
  kStopThenCallback,  // Post(Stop(); RunCallback(log label))
  kStop,              // Stop()
  kDestroy,           // drop the last reference
};

struct Step {
  Op op;
  std::string label;
};

struct LifecycleCase {
  std::string name;
  std::vector<Step> steps;
  std::vector<std::string> log;
};

void PrintTo(const LifecycleCase& c, std::ostream* os) { *os << c.name; }

class StoppableSerializerTableTest
    : public ::testing::TestWithParam<LifecycleCase> {};

TEST_P(StoppableSerializerTableTest, LeavesLog) {
  const LifecycleCase& c = GetParam();
  auto log = std::make_shared<std::vector<std::string>>();
  auto owner = std::make_shared<Owner>(
      [log](std::vector<std::string> final_log) { *log = final_log; });
  for (const Step& step : c.steps) {
    Owner* o = owner.get();
    const std::string label = step.label;
    switch (step.op) {
      case Op::kPost:
        o->Post([o, label] { o->Log(label); });
        break;
      case Op::kPostInClosure:
        o->Post([o, label] {
          o->Log("outer");
          o->Post([o, label] { o->Log(label); });
          o->Log("outer end");
        });
        break;
      case Op::kCallback:
        o->Post([o, label] { o->Callback([o, label] { o->Log(label); }); });
        break;
      case Op::kStopInCallback:
        o->Post([o, label] {
          o->Callback([o, label] {
            o->Log(label);
            o->Stop();
            o->Log("returned");
          });
        });
        break;
      case Op::kStopThenCallback:
        o->Post([o, label] {
          o->Stop();
          o->Callback([o, label] { o->Log(label); });
        });
        break;
      case Op::kStop:
        o->Stop();
        break;
      case Op::kDestroy:
        owner.reset();
        break;
    }
  }
  if (owner != nullptr) *log = owner->log();
  EXPECT_EQ(*log, c.log);
}

INSTANTIATE_TEST_SUITE_P(
    Cases, StoppableSerializerTableTest,
    ::testing::Values(
        LifecycleCase{"PostsRunInOrder",
                      {{Op::kPost, "a"}, {Op::kPost, "b"}},
                      {"a", "b"}},
        LifecycleCase{"PostFromInsideAClosureRunsAfterIt",
                      {{Op::kPostInClosure, "inner"}},
                      {"outer", "outer end", "inner"}},
        LifecycleCase{"PostAfterStopIsDropped",
                      {{Op::kPost, "a"}, {Op::kStop, ""}, {Op::kPost, "b"}},
                      {"a", "on_stop"}},
        LifecycleCase{"CallbackAfterStopIsDropped",
                      {{Op::kStop, ""}, {Op::kCallback, "cb"}},
                      {"on_stop"}},
        LifecycleCase{"StopTwiceRunsOnStopOnce",
                      {{Op::kStop, ""}, {Op::kStop, ""}},
                      {"on_stop"}},
        // No deadlock: Stop() does not wait for the callback it is in;
        // on_stop runs once the callback has returned.
        LifecycleCase{"StopFromInsideTheCallback",
                      {{Op::kStopInCallback, "cb"}, {Op::kCallback, "late"}},
                      {"cb", "returned", "on_stop"}},
        LifecycleCase{"CallbackInTheClosureThatStoppedIsDropped",
                      {{Op::kStopThenCallback, "cb"}},
                      {"on_stop"}},
        LifecycleCase{"DestroyedWithoutStopRunsOnStop",
                      {{Op::kPost, "a"}, {Op::kDestroy, ""}},
                      {"a", "on_stop", "destroyed"}},
        LifecycleCase{"DestroyedAfterStopRunsOnStopOnce",
                      {{Op::kStop, ""}, {Op::kDestroy, ""}},
                      {"on_stop", "destroyed"}}),
    [](const ::testing::TestParamInfo<LifecycleCase>& info) {
      return info.param.name;
    });

// Stop() on one thread while the callback runs on another: Stop() returns
// only after the callback has, so its caller may free what the callback uses.
// What the callback posts while Stop() waits is dropped.
TEST(StoppableSerializerTest, StopWaitsForACallbackOnAnotherThread) {
  auto owner = std::make_shared<Owner>();
  std::promise<void> entered;
  std::promise<void> release;
  std::shared_future<void> released = release.get_future().share();
  std::atomic<bool> callback_done{false};
  std::thread events([&] {
    owner->Post([&] {
      owner->Callback([&] {
        entered.set_value();
        released.wait();
        owner->Post([o = owner.get()] { o->Log("posted while stopping"); });
        std::this_thread::sleep_for(std::chrono::milliseconds(20));
        callback_done = true;
      });
    });
  });
  entered.get_future().wait();
  std::atomic<bool> stop_returned{false};
  std::thread stopper([&] {
    owner->Stop();
    stop_returned = true;
    EXPECT_TRUE(callback_done);
  });
  std::this_thread::sleep_for(std::chrono::milliseconds(50));
  EXPECT_FALSE(stop_returned);
  release.set_value();
  stopper.join();
  events.join();
  EXPECT_TRUE(stop_returned);
  EXPECT_EQ(owner->log(), std::vector<std::string>{"on_stop"});
}

// The user drops its last reference (after Stop()) while another thread is
// running the queue, and the closure left in the queue holds the only other
// reference. The owner must go only after that thread's drain loop is done
// with the serializer (ASan: heap-use-after-free otherwise).
TEST(StoppableSerializerTest, LastReferenceDroppedWhileAnotherThreadDrains) {
  std::atomic<bool> destroyed{false};
  auto owner = std::make_shared<Owner>(
      [&](std::vector<std::string>) { destroyed = true; });
  std::promise<void> entered;
  std::promise<void> release;
  std::shared_future<void> released = release.get_future().share();
  std::thread events([o = owner.get(), &entered, released] {
    o->Post([&entered, released] {
      entered.set_value();
      released.wait();
    });
  });
  entered.get_future().wait();
  // Queued behind the running closure, holding the owner.
  owner->Post([keep = owner] {});
  owner->Stop();  // returns at once: the events thread runs the queue
  owner.reset();
  EXPECT_FALSE(destroyed);
  release.set_value();
  events.join();
  EXPECT_TRUE(destroyed);
}

// Threads post closures and callbacks while another stops: nothing posted
// runs after on_stop, and no callback runs after Stop() returned.
TEST(StoppableSerializerTest, ConcurrentPostsAndStop) {
  for (int round = 0; round < 20; ++round) {
    auto owner = std::make_shared<Owner>();
    std::atomic<bool> stop_returned{false};
    std::atomic<int> after_stop{0};
    std::atomic<int> callbacks_after_stop{0};
    std::atomic<bool> go{false};
    std::vector<std::thread> threads;
    for (int t = 0; t < 4; ++t) {
      threads.emplace_back([&] {
        while (!go) std::this_thread::yield();
        for (int i = 0; i < 200; ++i) {
          Owner* o = owner.get();
          o->Post([&, o] {
            for (const std::string& line : o->log()) {
              if (line == "on_stop") ++after_stop;
            }
            o->Callback([&] {
              if (stop_returned) ++callbacks_after_stop;
            });
          });
        }
      });
    }
    go = true;
    std::this_thread::sleep_for(std::chrono::microseconds(200 * round));
    owner->Stop();
    stop_returned = true;
    for (std::thread& thread : threads) thread.join();
    EXPECT_EQ(after_stop, 0);
    EXPECT_EQ(callbacks_after_stop, 0);
    EXPECT_EQ(owner->log(), std::vector<std::string>{"on_stop"});
  }
}

}  // namespace
}  // namespace xdsfed
