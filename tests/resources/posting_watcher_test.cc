#include "lib/resources/posting_watcher.h"

#include <functional>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "gtest/gtest.h"

namespace xdsfed {
namespace resources {
namespace {

// An owner whose serializer is a queue the test drains by hand, so a test
// controls when posted events run relative to the watcher's and the
// owner's lifetimes.
class QueueOwner : public std::enable_shared_from_this<QueueOwner> {
 public:
  using Watcher = PostingWatcher<std::string, QueueOwner>;

  std::shared_ptr<Watcher> NewWatcher(std::string tag) {
    return std::make_shared<Watcher>(
        weak_from_this(), &QueueOwner::Post,
        Watcher::Handlers{
            [tag](QueueOwner& o, std::shared_ptr<const std::string> value) {
              o.seen.push_back(tag + " changed " + *value);
            },
            [tag](QueueOwner& o, absl::Status status) {
              o.seen.push_back(tag + " error " + std::string(status.message()));
            },
            [tag](QueueOwner& o) {
              o.seen.push_back(tag + " does not exist");
            }});
  }

  void RunPosted() {
    std::vector<std::function<void()>> queue = std::move(queue_);
    queue_.clear();
    for (auto& fn : queue) fn();
  }

  std::vector<std::string> seen;

 private:
  // Private, as the real owners' Post is: the watcher reaches it only
  // through the member pointer it was given.
  void Post(std::function<void()> fn) { queue_.push_back(std::move(fn)); }

  std::vector<std::function<void()>> queue_;
};

struct Step {
  const char* name;
  // Delivers one event to the watcher.
  std::function<void(ResourceWatcher<std::string>&)> deliver;
  std::string want;
};

// Every event of ResourceWatcher (resource_type.h) reaches its handler on
// the owner's serializer, not on the caller's thread of delivery.
TEST(PostingWatcherTest, EachEventRunsItsHandlerWhenThePostedClosureRuns) {
  const Step steps[] = {
      {"changed",
       [](ResourceWatcher<std::string>& w) {
         w.OnChanged(std::make_shared<const std::string>("v1"));
       },
       "w changed v1"},
      {"error",
       [](ResourceWatcher<std::string>& w) {
         w.OnError(absl::UnavailableError("stream lost"));
       },
       "w error stream lost"},
      {"does not exist",
       [](ResourceWatcher<std::string>& w) { w.OnDoesNotExist(); },
       "w does not exist"},
  };
  for (const Step& step : steps) {
    SCOPED_TRACE(step.name);
    auto owner = std::make_shared<QueueOwner>();
    auto watcher = owner->NewWatcher("w");
    step.deliver(*watcher);
    EXPECT_TRUE(owner->seen.empty()) << "ran before the serializer did";
    owner->RunPosted();
    EXPECT_EQ(owner->seen, std::vector<std::string>{step.want});
  }
}

TEST(PostingWatcherTest, EventsKeepTheirOrder) {
  auto owner = std::make_shared<QueueOwner>();
  auto watcher = owner->NewWatcher("w");
  watcher->OnChanged(std::make_shared<const std::string>("v1"));
  watcher->OnError(absl::UnavailableError("nack"));
  watcher->OnChanged(std::make_shared<const std::string>("v2"));
  watcher->OnDoesNotExist();
  owner->RunPosted();
  EXPECT_EQ(owner->seen,
            (std::vector<std::string>{"w changed v1", "w error nack",
                                      "w changed v2", "w does not exist"}));
}

// A watch cancelled (watcher released) after an event was posted: the
// closure still holds the handlers, so the event is delivered, not lost or
// run against freed memory (ASan checks the latter).
TEST(PostingWatcherTest, PostedEventOutlivesTheWatcher) {
  auto owner = std::make_shared<QueueOwner>();
  auto watcher = owner->NewWatcher("w");
  watcher->OnChanged(std::make_shared<const std::string>("late"));
  watcher.reset();
  owner->RunPosted();
  EXPECT_EQ(owner->seen, std::vector<std::string>{"w changed late"});
}

// The owner is held weakly: once it is gone, events are dropped, and a
// watcher does not keep its owner alive.
TEST(PostingWatcherTest, OwnerGoneDropsEventsAndIsNotKeptAlive) {
  auto owner = std::make_shared<QueueOwner>();
  std::weak_ptr<QueueOwner> weak = owner;
  auto watcher = owner->NewWatcher("w");
  owner.reset();
  EXPECT_TRUE(weak.expired());
  watcher->OnChanged(std::make_shared<const std::string>("v"));
  watcher->OnError(absl::UnavailableError("e"));
  watcher->OnDoesNotExist();  // nothing to post to; must not crash
}

}  // namespace
}  // namespace resources
}  // namespace xdsfed
