#ifndef XDSFED_RESOURCES_POSTING_WATCHER_H_
#define XDSFED_RESOURCES_POSTING_WATCHER_H_

#include <functional>
#include <memory>
#include <utility>

#include "absl/status/status.h"
#include "lib/resources/resource_type.h"

namespace xdsfed {
namespace resources {

// A ResourceWatcher<T> whose events run on its owner's serializer: each event
// becomes a closure passed to `Owner::*post`, which calls the matching
// handler with the owner. The owner is held weakly (a watch outliving its
// owner drops its events), and a closure keeps the owner and the handlers
// alive but not the watcher, so an event posted before the watch was
// cancelled still finds both when it runs.
//
// The handlers are written where the owner's private members are visible,
// and `post` may name a private member:
//   using Watcher = PostingWatcher<Listener, Manager>;
//   std::make_shared<Watcher>(weak_from_this(), &Manager::Post,
//       Watcher::Handlers{
//           [](Manager& m, std::shared_ptr<const Listener> v) { ... },
//           [](Manager& m, absl::Status s) { ... },
//           [](Manager& m) { ... }});
template <typename T, typename Owner>
class PostingWatcher final : public ResourceWatcher<T> {
 public:
  using PostFn = void (Owner::*)(std::function<void()>);
  struct Handlers {
    std::function<void(Owner&, std::shared_ptr<const T>)> changed;
    std::function<void(Owner&, absl::Status)> error;
    std::function<void(Owner&)> does_not_exist;
  };

  PostingWatcher(std::weak_ptr<Owner> owner, PostFn post, Handlers handlers)
      : owner_(std::move(owner)),
        post_(post),
        handlers_(std::make_shared<const Handlers>(std::move(handlers))) {}

  void OnChanged(std::shared_ptr<const T> value) override {
    Forward([value = std::move(value)](Owner& o, const Handlers& h) {
      h.changed(o, value);
    });
  }
  void OnError(absl::Status status) override {
    Forward([status = std::move(status)](Owner& o, const Handlers& h) {
      h.error(o, status);
    });
  }
  void OnDoesNotExist() override {
    Forward([](Owner& o, const Handlers& h) { h.does_not_exist(o); });
  }

 private:
  template <typename Event>
  void Forward(Event event) {
    std::shared_ptr<Owner> owner = owner_.lock();
    if (owner == nullptr) return;
    Owner& target = *owner;
    (target.*post_)([owner = std::move(owner), handlers = handlers_,
                     event = std::move(event)] { event(*owner, *handlers); });
  }

  const std::weak_ptr<Owner> owner_;
  const PostFn post_;
  const std::shared_ptr<const Handlers> handlers_;
};

}  // namespace resources
}  // namespace xdsfed

#endif  // XDSFED_RESOURCES_POSTING_WATCHER_H_
