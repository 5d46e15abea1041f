#include "lib/xds_config/xds_client_watch_source.h"

#include <utility>

namespace xdsfed {
namespace xds_config {
namespace {

// An XdsClient watcher that reports each event to the observer (if any),
// then forwards it to the xds_config watcher.
template <typename T>
class Forwarder : public ResourceWatcher<T> {
 public:
  Forwarder(std::shared_ptr<ResourceWatcher<T>> target,
            ResourceObserver observer, absl::string_view type_url,
            std::string name)
      : target_(std::move(target)),
        observer_(std::move(observer)),
        type_url_(type_url),
        name_(std::move(name)) {}
  void OnChanged(std::shared_ptr<const T> value) override {
    if (observer_) {
      ResourceEvent event = Event(ResourceEvent::Kind::kChanged);
      event.value = value;
      observer_(event);
    }
    target_->OnChanged(std::move(value));
  }
  void OnError(absl::Status status) override {
    if (observer_) {
      ResourceEvent event = Event(ResourceEvent::Kind::kError);
      event.error = status;
      observer_(event);
    }
    target_->OnError(std::move(status));
  }
  void OnDoesNotExist() override {
    if (observer_) observer_(Event(ResourceEvent::Kind::kDoesNotExist));
    target_->OnDoesNotExist();
  }

 private:
  ResourceEvent Event(ResourceEvent::Kind kind) const {
    ResourceEvent event;
    event.type_url = type_url_;
    event.name = name_;
    event.kind = kind;
    return event;
  }

  const std::shared_ptr<ResourceWatcher<T>> target_;
  const ResourceObserver observer_;
  const absl::string_view type_url_;
  const std::string name_;
};

}  // namespace

Json::Value ResourceEvent::ValueJson() const {
  return std::visit(
      [](const auto& v) -> Json::Value {
        if constexpr (std::is_same_v<std::decay_t<decltype(v)>,
                                     std::monostate>) {
          return Json::Value();
        } else {
          return v == nullptr ? Json::Value() : v->ToJson();
        }
      },
      value);
}

cluster::ClusterDataSource::WatchHandle XdsClientWatchSource::WatchListener(
    const std::string& name,
    std::shared_ptr<ResourceWatcher<resources::Listener>> watcher) {
  return client_->Watch<resources::Listener>(
      name,
      std::make_shared<Forwarder<resources::Listener>>(
          std::move(watcher), observer_, resources::kListenerTypeUrl, name));
}

cluster::ClusterDataSource::WatchHandle XdsClientWatchSource::WatchRouteConfig(
    const std::string& name,
    std::shared_ptr<ResourceWatcher<resources::RouteConfig>> watcher) {
  return client_->Watch<resources::RouteConfig>(
      name,
      std::make_shared<Forwarder<resources::RouteConfig>>(
          std::move(watcher), observer_, resources::kRouteConfigTypeUrl, name));
}

cluster::ClusterDataSource::WatchHandle XdsClientWatchSource::WatchCluster(
    const std::string& name,
    std::shared_ptr<ResourceWatcher<resources::ClusterResource>> watcher) {
  return client_->Watch<resources::ClusterResource>(
      name,
      std::make_shared<Forwarder<resources::ClusterResource>>(
          std::move(watcher), observer_, resources::kClusterTypeUrl, name));
}

cluster::ClusterDataSource::WatchHandle XdsClientWatchSource::WatchEndpoints(
    const std::string& name,
    std::shared_ptr<ResourceWatcher<resources::EndpointResource>> watcher) {
  return client_->Watch<resources::EndpointResource>(
      name,
      std::make_shared<Forwarder<resources::EndpointResource>>(
          std::move(watcher), observer_, resources::kEndpointTypeUrl, name));
}

void XdsClientWatchSource::CancelWatch(WatchHandle handle) {
  client_->CancelWatch(handle);
}

}  // namespace xds_config
}  // namespace xdsfed
