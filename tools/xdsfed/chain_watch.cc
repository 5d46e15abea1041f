#include "tools/xdsfed/chain_watch.h"

#include <variant>
#include <vector>

#include "lib/resources/cluster.h"
#include "lib/resources/http_connection_manager.h"
#include "lib/resources/listener.h"
#include "lib/resources/route_config.h"
#include "lib/resources/virtual_host_select.h"

namespace xdsfed::cli {

// Forwards one watch's events to the chain. Holds a plain pointer: Stop()
// waits for running events before the chain can go away.
class ChainWatch::NodeWatcher : public client::Watcher {
 public:
  NodeWatcher(ChainWatch* chain, Key key)
      : chain_(chain), key_(std::move(key)) {}

  void OnResourceChanged(std::shared_ptr<const void> value) override {
    Event event = MakeEvent(Event::Kind::kChanged);
    event.value = std::move(value);
    chain_->OnEvent(key_, std::move(event));
  }
  void OnError(absl::Status status) override {
    Event event = MakeEvent(Event::Kind::kError);
    event.error = std::move(status);
    chain_->OnEvent(key_, std::move(event));
  }
  void OnDoesNotExist() override {
    chain_->OnEvent(key_, MakeEvent(Event::Kind::kDoesNotExist));
  }

 private:
  Event MakeEvent(Event::Kind kind) const {
    Event event;
    event.type = key_.first;
    event.name = key_.second;
    event.kind = kind;
    return event;
  }

  ChainWatch* const chain_;
  const Key key_;
};

ChainWatch::ChainWatch(std::shared_ptr<client::XdsClient> client, Sink sink,
                       RootsSink roots_sink)
    : client_(std::move(client)),
      sink_(std::move(sink)),
      roots_sink_(std::move(roots_sink)) {}

ChainWatch::~ChainWatch() { Stop(); }

void ChainWatch::FollowListener(const std::string& name, Mode mode,
                                std::string data_plane_authority) {
  {
    absl::MutexLock lock(&mu_);
    data_plane_authority_ = std::move(data_plane_authority);
  }
  Watch(resources::ListenerResourceType(), name, mode);
}

void ChainWatch::Watch(const resources::ResourceType& type,
                       const std::string& name, Mode mode) {
  Key key(&type, name);
  bool start;
  std::optional<std::set<std::string>> roots;
  {
    absl::MutexLock lock(&mu_);
    if (stopped_) return;
    mode_ = mode;
    start = RefLocked(key);
    if (mode == Mode::kClient && &type == &resources::ClusterResourceType()) {
      direct_roots_.insert(name);
      roots = RootsChangedLocked();
    }
  }
  if (roots.has_value() && roots_sink_ != nullptr) roots_sink_(*roots);
  if (start) StartWatch(key);
}

std::optional<std::set<std::string>> ChainWatch::RootsChangedLocked() {
  std::set<std::string> roots = direct_roots_;
  for (const auto& [key, names] : roots_of_) {
    roots.insert(names.begin(), names.end());
  }
  if (roots == roots_seen_) return std::nullopt;
  roots_seen_ = roots;
  return roots;
}

void ChainWatch::Stop() {
  std::vector<client::WatchId> cancel;
  {
    absl::MutexLock lock(&mu_);
    stopped_ = true;
    for (const auto& [key, node] : nodes_) {
      if (node.id != 0) cancel.push_back(node.id);
    }
    nodes_.clear();
    // An event already running may still touch this object: wait for it.
    mu_.Await(absl::Condition(
        +[](int* running) { return *running == 0; }, &running_events_));
  }
  for (client::WatchId id : cancel) client_->CancelWatch(id);
}

bool ChainWatch::RefLocked(const Key& key) {
  Node& node = nodes_[key];
  return ++node.refs == 1;
}

void ChainWatch::UnrefLocked(const Key& key,
                             std::set<client::WatchId>* cancel) {
  auto it = nodes_.find(key);
  if (it == nodes_.end() || --it->second.refs > 0) return;
  if (it->second.id != 0) cancel->insert(it->second.id);
  std::set<Key> children = std::move(it->second.children);
  nodes_.erase(it);
  roots_of_.erase(key);
  for (const Key& child : children) UnrefLocked(child, cancel);
}

void ChainWatch::StartWatch(const Key& key) {
  client::WatchId id = client_->Watch(*key.first, key.second,
                                      std::make_shared<NodeWatcher>(this, key));
  bool keep = false;
  {
    absl::MutexLock lock(&mu_);
    auto it = nodes_.find(key);
    if (!stopped_ && it != nodes_.end() && it->second.id == 0) {
      it->second.id = id;
      keep = true;
    }
  }
  // Released (or stopped) while the watch was starting.
  if (!keep) client_->CancelWatch(id);
}

void ChainWatch::OnEvent(const Key& key, Event event) {
  std::vector<Key> start;
  std::set<client::WatchId> cancel;
  std::optional<std::set<std::string>> roots;
  {
    absl::MutexLock lock(&mu_);
    if (stopped_) return;
    ++running_events_;
    auto it = nodes_.find(key);
    if (it != nodes_.end() && event.kind != Event::Kind::kError) {
      // An error keeps the last value, so the chain below it stays.
      std::set<Key> children;
      if (event.kind == Event::Kind::kChanged) {
        children = ChildrenOf(key, event.value.get());
      }
      std::set<Key> old = std::move(it->second.children);
      it->second.children = children;
      for (const Key& child : children) {
        if (old.count(child) == 0 && RefLocked(child)) start.push_back(child);
      }
      for (const Key& child : old) {
        if (children.count(child) == 0) UnrefLocked(child, &cancel);
      }
      // Clusters named by a Listener or RouteConfiguration are roots; those
      // under a Cluster are its aggregate children.
      if (mode_ == Mode::kClient &&
          key.first != &resources::ClusterResourceType()) {
        std::set<std::string>& names = roots_of_[key];
        names.clear();
        for (const Key& child : children) {
          if (child.first == &resources::ClusterResourceType()) {
            names.insert(child.second);
          }
        }
      }
      roots = RootsChangedLocked();
    }
  }
  sink_(event);
  if (roots.has_value() && roots_sink_ != nullptr) roots_sink_(*roots);
  for (const Key& child : start) StartWatch(child);
  for (client::WatchId id : cancel) client_->CancelWatch(id);
  absl::MutexLock lock(&mu_);
  --running_events_;
}

std::set<ChainWatch::Key> ChainWatch::ChildrenOf(const Key& key,
                                                 const void* value) const {
  std::set<Key> children;
  // Locals: the lambdas below are not seen as holding mu_.
  const Mode mode = mode_;
  const std::string authority = data_plane_authority_;
  if (value == nullptr || mode == Mode::kNone) return children;
  const resources::ResourceType* type = key.first;
  auto add_clusters_of = [&](const resources::RouteConfig& route_config) {
    const resources::VirtualHost* vh =
        resources::FindVirtualHost(route_config.virtual_hosts, authority);
    if (vh == nullptr) return;
    for (std::string& name : resources::ClusterNamesOf(*vh)) {
      children.emplace(&resources::ClusterResourceType(), std::move(name));
    }
  };
  auto add_route_of = [&](const resources::HttpConnectionManager& hcm) {
    if (const auto* rds = std::get_if<resources::HttpConnectionManager::Rds>(
            &hcm.route_config)) {
      children.emplace(&resources::RouteConfigResourceType(),
                       rds->route_config_name);
    } else if (mode == Mode::kClient) {
      add_clusters_of(std::get<resources::RouteConfig>(hcm.route_config));
    }
  };
  if (type == &resources::ListenerResourceType()) {
    const auto& listener = *static_cast<const resources::Listener*>(value);
    if (const auto* api =
            std::get_if<resources::ApiListener>(&listener.listener)) {
      if (mode == Mode::kClient) add_route_of(api->http_connection_manager);
    } else if (mode == Mode::kServer) {
      const auto& server =
          std::get<resources::ServerListener>(listener.listener);
      for (const auto& chain : server.filter_chains) {
        add_route_of(chain.http_connection_manager);
      }
      if (server.default_filter_chain.has_value()) {
        add_route_of(server.default_filter_chain->http_connection_manager);
      }
    }
  } else if (type == &resources::RouteConfigResourceType()) {
    if (mode == Mode::kClient) {
      add_clusters_of(*static_cast<const resources::RouteConfig*>(value));
    }
  } else if (type == &resources::ClusterResourceType()) {
    const auto& cluster =
        *static_cast<const resources::ClusterResource*>(value);
    if (const auto* eds =
            std::get_if<resources::ClusterResource::Eds>(&cluster.kind)) {
      children.emplace(&resources::EndpointResourceType(),
                       eds->EdsResourceName(key.second));
    } else if (const auto* aggregate =
                   std::get_if<resources::ClusterResource::Aggregate>(
                       &cluster.kind)) {
      for (const std::string& child : aggregate->prioritized_cluster_names) {
        children.emplace(&resources::ClusterResourceType(), child);
      }
    }
  }
  return children;
}

}  // namespace xdsfed::cli
