#include "lib/xds_config/xds_dependency_manager.h"

#include <algorithm>
#include <utility>
#include <variant>

#include "absl/strings/str_cat.h"
#include "lib/bootstrap/target_resolver.h"
#include "lib/resources/posting_watcher.h"
#include "lib/resources/virtual_host_select.h"
#include "lib/xds_config/internal/retry_timer_adapter.h"
#include "lib/xds_config/xds_client_watch_source.h"

namespace xdsfed {
namespace xds_config {

// Watchers hold the manager weakly, as the cluster driver's do.
std::shared_ptr<ResourceWatcher<resources::Listener>>
XdsDependencyManager::NewListenerWatcher() {
  using Watcher =
      resources::PostingWatcher<resources::Listener, XdsDependencyManager>;
  return std::make_shared<Watcher>(
      weak_from_this(), &XdsDependencyManager::Post,
      Watcher::Handlers{
          [](XdsDependencyManager& m,
             std::shared_ptr<const resources::Listener> value) {
            m.OnListener(std::move(value));
          },
          [](XdsDependencyManager& m, absl::Status status) {
            m.OnListenerError(std::move(status));
          },
          [](XdsDependencyManager& m) { m.OnListenerDoesNotExist(); }});
}

std::shared_ptr<ResourceWatcher<resources::RouteConfig>>
XdsDependencyManager::NewRouteWatcher(uint64_t token) {
  using Watcher =
      resources::PostingWatcher<resources::RouteConfig, XdsDependencyManager>;
  return std::make_shared<Watcher>(
      weak_from_this(), &XdsDependencyManager::Post,
      Watcher::Handlers{
          [token](XdsDependencyManager& m,
                  std::shared_ptr<const resources::RouteConfig> value) {
            m.OnRoute(token, std::move(value));
          },
          [token](XdsDependencyManager& m, absl::Status status) {
            m.OnRouteError(token, std::move(status));
          },
          [token](XdsDependencyManager& m) { m.OnRouteDoesNotExist(token); }});
}

std::shared_ptr<XdsDependencyManager> XdsDependencyManager::Start(
    std::shared_ptr<WatchSource> source, std::string listener_name,
    std::string data_plane_authority, Options options, Callback callback) {
  if (options.dns_resolver == nullptr) {
    options.dns_resolver = cluster::SystemDnsResolver();
  }
  auto manager = std::make_shared<XdsDependencyManager>(
      PrivateTag{}, std::move(source), std::move(listener_name),
      std::move(data_plane_authority), std::move(options), std::move(callback));
  manager->Post([m = manager.get()] {
    m->listener_watch_ =
        m->source_->WatchListener(m->listener_name_, m->NewListenerWatcher());
  });
  return manager;
}

absl::StatusOr<std::shared_ptr<XdsDependencyManager>>
XdsDependencyManager::StartForTarget(std::shared_ptr<client::XdsClient> client,
                                     absl::string_view target,
                                     Callback callback,
                                     ResourceObserver observer) {
  absl::StatusOr<ResolvedListener> resolved =
      ResolveXdsTarget(*client->bootstrap(), target);
  if (!resolved.ok()) return resolved.status();
  Options options;
  options.bootstrap = client->bootstrap();
  options.retry_timer = RetryTimerOn(client->options().timers);
  return Start(
      std::make_shared<XdsClientWatchSource>(client, std::move(observer)),
      resolved->listener_resource_name, resolved->data_plane_authority,
      std::move(options), std::move(callback));
}

XdsDependencyManager::XdsDependencyManager(PrivateTag,
                                           std::shared_ptr<WatchSource> source,
                                           std::string listener_name,
                                           std::string data_plane_authority,
                                           Options options, Callback callback)
    : source_(std::move(source)),
      listener_name_(std::move(listener_name)),
      authority_(std::move(data_plane_authority)),
      options_(std::move(options)),
      callback_(std::move(callback)) {}

XdsDependencyManager::~XdsDependencyManager() {
  serializer_.StopFromDestructor();
}

void XdsDependencyManager::Post(std::function<void()> fn) {
  serializer_.Post(shared_from_this(), std::move(fn));
}

void XdsDependencyManager::Stop() { serializer_.Stop(shared_from_this()); }

void XdsDependencyManager::RequestReresolution(std::string root,
                                               std::string leaf) {
  Post([this, root = std::move(root), leaf = std::move(leaf)]() mutable {
    auto it = roots_.find(root);
    if (it != roots_.end()) {
      it->second.resolution->RequestReresolution(std::move(leaf));
    }
  });
}

void XdsDependencyManager::CancelAll() {
  if (listener_watch_ != 0) source_->CancelWatch(listener_watch_);
  listener_watch_ = 0;
  if (rds_watch_ != 0) source_->CancelWatch(rds_watch_);
  rds_watch_ = 0;
  for (auto& [name, root] : roots_) root.resolution->Stop();
  roots_.clear();
}

void XdsDependencyManager::OnListener(
    std::shared_ptr<const resources::Listener> listener) {
  listener_answered_ = true;
  dirty_ = true;
  const auto* api = std::get_if<resources::ApiListener>(&listener->listener);
  if (api == nullptr) {
    listener_ = nullptr;
    listener_status_ = absl::InvalidArgumentError(
        absl::StrCat("Listener \"", listener_name_,
                     "\" is a server Listener (no api_listener)"));
    SetRdsName("");
    UpdateRoutes();
    return;
  }
  listener_ = std::move(listener);
  listener_status_ = absl::OkStatus();
  const resources::HttpConnectionManager& hcm = api->http_connection_manager;
  if (const auto* rds = std::get_if<resources::HttpConnectionManager::Rds>(
          &hcm.route_config)) {
    SetRdsName(rds->route_config_name);
  } else {
    SetRdsName("");
    // Inline: shares the Listener's ownership.
    route_ = std::shared_ptr<const resources::RouteConfig>(
        listener_, &std::get<resources::RouteConfig>(hcm.route_config));
    route_answered_ = true;
    route_status_ = absl::OkStatus();
  }
  UpdateRoutes();
}

void XdsDependencyManager::OnListenerError(absl::Status status) {
  // After a value the last one stays (it may still work).
  if (listener_ != nullptr) return;
  listener_answered_ = true;
  listener_status_ = absl::Status(
      status.code(),
      absl::StrCat("Listener \"", listener_name_, "\": ", status.message()));
  dirty_ = true;
  MaybePublish();
}

void XdsDependencyManager::OnListenerDoesNotExist() {
  listener_answered_ = true;
  listener_ = nullptr;
  listener_status_ = absl::NotFoundError(
      absl::StrCat("Listener \"", listener_name_, "\" does not exist"));
  dirty_ = true;
  SetRdsName("");
  UpdateRoutes();
}

void XdsDependencyManager::SetRdsName(std::string name) {
  if (name == rds_name_ && (name.empty() || rds_watch_ != 0)) return;
  if (rds_watch_ != 0) source_->CancelWatch(rds_watch_);
  rds_watch_ = 0;
  rds_name_ = std::move(name);
  route_ = nullptr;
  route_answered_ = false;
  route_status_ = absl::OkStatus();
  dirty_ = true;
  if (rds_name_.empty()) return;
  rds_token_ = next_generation_++;
  rds_watch_ =
      source_->WatchRouteConfig(rds_name_, NewRouteWatcher(rds_token_));
}

void XdsDependencyManager::OnRoute(
    uint64_t token, std::shared_ptr<const resources::RouteConfig> route) {
  if (token != rds_token_ || rds_watch_ == 0) return;
  route_ = std::move(route);
  route_answered_ = true;
  route_status_ = absl::OkStatus();
  dirty_ = true;
  UpdateRoutes();
}

void XdsDependencyManager::OnRouteError(uint64_t token, absl::Status status) {
  if (token != rds_token_ || rds_watch_ == 0 || route_ != nullptr) return;
  route_answered_ = true;
  route_status_ = absl::Status(status.code(),
                               absl::StrCat("RouteConfiguration \"", rds_name_,
                                            "\": ", status.message()));
  dirty_ = true;
  UpdateRoutes();
}

void XdsDependencyManager::OnRouteDoesNotExist(uint64_t token) {
  if (token != rds_token_ || rds_watch_ == 0) return;
  route_ = nullptr;
  route_answered_ = true;
  route_status_ = absl::NotFoundError(
      absl::StrCat("RouteConfiguration \"", rds_name_, "\" does not exist"));
  dirty_ = true;
  UpdateRoutes();
}

void XdsDependencyManager::UpdateRoutes() {
  // While a new RDS name is pending, the clusters of the last route stay
  // watched: the new route most likely names them too.
  if (listener_status_.ok() && listener_ != nullptr && !route_answered_) {
    return;
  }
  virtual_host_ = nullptr;
  vhost_status_ = absl::OkStatus();
  std::vector<std::string> names;
  if (listener_ != nullptr && route_ != nullptr) {
    virtual_host_ =
        resources::FindVirtualHost(route_->virtual_hosts, authority_);
    if (virtual_host_ == nullptr) {
      vhost_status_ = absl::NotFoundError(
          absl::StrCat("no virtual host in RouteConfiguration \"",
                       rds_name_.empty() ? route_->name : rds_name_,
                       "\" matches the domain \"", authority_, "\""));
    } else {
      names = resources::ClusterNamesOf(*virtual_host_);
    }
  }
  SetRoots(std::move(names));
  MaybePublish();
}

void XdsDependencyManager::SetRoots(std::vector<std::string> names) {
  std::sort(names.begin(), names.end());
  // Same clusters: nothing to start or stop, the map stays.
  bool same = names.size() == clusters_.size();
  for (size_t i = 0; same && i < names.size(); ++i) {
    same = clusters_.NameAt(i) == names[i];
  }
  if (same) return;
  dirty_ = true;
  absl::flat_hash_map<std::string, Root> old = std::move(roots_);
  roots_.clear();
  roots_.reserve(names.size());
  ClusterMap map(names);
  pending_roots_ = 0;
  for (size_t slot = 0; slot < names.size(); ++slot) {
    const std::string& name = names[slot];
    Root root;
    if (auto it = old.find(name); it != old.end()) {
      root = std::move(it->second);
      old.erase(it);
    } else {
      root.generation = next_generation_++;
      cluster::ClusterResolution::Options options;
      options.dns_resolver = options_.dns_resolver;
      options.bootstrap = options_.bootstrap;
      options.retry_timer = options_.retry_timer;
      options.dns_backoff = options_.dns_backoff;
      options.dns_jitter_seed = root.generation;
      std::weak_ptr<XdsDependencyManager> weak = weak_from_this();
      root.resolution = cluster::ClusterResolution::Start(
          source_, name, std::move(options),
          [weak, name, generation = root.generation](
              const cluster::ClusterResolution::Update& update) {
            if (auto o = weak.lock()) {
              o->Post([o, name, generation, update] {
                o->OnClusterUpdate(name, generation, update);
              });
            }
          });
    }
    root.slot = slot;
    if (root.config == nullptr) {
      ++pending_roots_;
    } else {
      map.Set(slot, root.config);
    }
    roots_.emplace(name, std::move(root));
  }
  clusters_ = std::move(map);
  // Released on the update that drops them: CDS / EDS watches, DNS.
  for (auto& [name, root] : old) root.resolution->Stop();
}

void XdsDependencyManager::OnClusterUpdate(
    const std::string& name, uint64_t generation,
    const cluster::ClusterResolution::Update& update) {
  auto it = roots_.find(name);
  if (it == roots_.end() || it->second.generation != generation) return;
  Root& root = it->second;
  auto config = std::make_shared<ClusterConfig>();
  config->name = name;
  config->status = update.status;
  config->tree = update.clusters;
  config->resources = update.cluster_resources;
  config->leaves = update.mechanisms;
  config->leaf_errors = update.mechanism_errors;
  if (root.config == nullptr) --pending_roots_;
  root.config = config;
  clusters_.Set(root.slot, std::move(config));
  dirty_ = true;
  MaybePublish();
}

void XdsDependencyManager::MaybePublish() {
  if (!dirty_ || !listener_answered_) return;
  auto config = std::make_shared<XdsConfig>();
  config->listener = listener_;
  config->route_config_name = rds_name_;
  if (!listener_status_.ok()) {
    config->status = listener_status_;
  } else if (!route_answered_) {
    return;  // the RDS watch has not answered yet
  } else if (!route_status_.ok()) {
    config->status = route_status_;
  } else {
    config->route_config = route_;
    if (!vhost_status_.ok()) {
      config->status = vhost_status_;
    } else {
      if (pending_roots_ > 0) return;  // a cluster has not answered yet
      config->virtual_host = virtual_host_;
      config->clusters = clusters_;
    }
  }
  dirty_ = false;
  Publish(std::move(config));
}

void XdsDependencyManager::Publish(std::shared_ptr<const XdsConfig> config) {
  serializer_.RunCallback([&] { callback_(std::move(config)); });
}

}  // namespace xds_config
}  // namespace xdsfed
