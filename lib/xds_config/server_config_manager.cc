#include "lib/xds_config/server_config_manager.h"

#include <utility>
#include <variant>

#include "absl/strings/str_cat.h"
#include "lib/bootstrap/target_resolver.h"
#include "lib/resources/posting_watcher.h"
#include "lib/xds_config/xds_client_watch_source.h"

namespace xdsfed {
namespace xds_config {
namespace {

// The RDS names a server Listener's chains (and default chain) use.
std::set<std::string> RdsNamesOf(const resources::ServerListener& listener) {
  std::set<std::string> names;
  auto add = [&](const resources::FilterChainData& chain) {
    if (const auto* rds = std::get_if<resources::HttpConnectionManager::Rds>(
            &chain.http_connection_manager.route_config)) {
      names.insert(rds->route_config_name);
    }
  };
  for (const auto& chain : listener.filter_chains) add(*chain);
  if (listener.default_filter_chain.has_value()) {
    add(*listener.default_filter_chain);
  }
  return names;
}

template <typename T>
bool SameValue(const std::shared_ptr<const T>& a,
               const std::shared_ptr<const T>& b) {
  return a == b || (a != nullptr && b != nullptr && *a == *b);
}

bool SameConfig(const ServerConfig& a, const ServerConfig& b) {
  if (a.status != b.status || !SameValue(a.listener, b.listener) ||
      a.route_configs.size() != b.route_configs.size()) {
    return false;
  }
  for (auto ia = a.route_configs.begin(), ib = b.route_configs.begin();
       ia != a.route_configs.end(); ++ia, ++ib) {
    if (ia->first != ib->first || ia->second.status != ib->second.status ||
        !SameValue(ia->second.route_config, ib->second.route_config)) {
      return false;
    }
  }
  return true;
}

}  // namespace

// Watchers hold the manager weakly: a manager dropped without Stop() is not
// kept alive by its watches, and late events find nobody home.
std::shared_ptr<ResourceWatcher<resources::Listener>>
ServerConfigManager::NewListenerWatcher() {
  using Watcher =
      resources::PostingWatcher<resources::Listener, ServerConfigManager>;
  return std::make_shared<Watcher>(
      weak_from_this(), &ServerConfigManager::Post,
      Watcher::Handlers{
          [](ServerConfigManager& m,
             std::shared_ptr<const resources::Listener> value) {
            m.OnListener(std::move(value));
          },
          [](ServerConfigManager& m, absl::Status status) {
            m.OnListenerError(std::move(status));
          },
          [](ServerConfigManager& m) { m.OnListenerDoesNotExist(); }});
}

std::shared_ptr<ResourceWatcher<resources::RouteConfig>>
ServerConfigManager::NewRouteWatcher(std::string name, uint64_t token) {
  using Watcher =
      resources::PostingWatcher<resources::RouteConfig, ServerConfigManager>;
  return std::make_shared<Watcher>(
      weak_from_this(), &ServerConfigManager::Post,
      Watcher::Handlers{
          [name, token](ServerConfigManager& m,
                        std::shared_ptr<const resources::RouteConfig> value) {
            m.OnRoute(name, token, std::move(value));
          },
          [name, token](ServerConfigManager& m, absl::Status status) {
            m.OnRouteError(name, token, std::move(status));
          },
          [name, token](ServerConfigManager& m) {
            m.OnRouteDoesNotExist(name, token);
          }});
}

std::shared_ptr<ServerConfigManager> ServerConfigManager::Start(
    std::shared_ptr<WatchSource> source, std::string listener_name,
    std::string listening_address, Callback callback) {
  auto manager = std::make_shared<ServerConfigManager>(
      PrivateTag{}, std::move(source), std::move(listener_name),
      std::move(listening_address), std::move(callback));
  manager->Post([m = manager.get()] {
    m->listener_watch_ =
        m->source_->WatchListener(m->listener_name_, m->NewListenerWatcher());
  });
  return manager;
}

absl::StatusOr<std::shared_ptr<ServerConfigManager>>
ServerConfigManager::StartForAddress(std::shared_ptr<client::XdsClient> client,
                                     absl::string_view listening_address,
                                     Callback callback,
                                     ResourceObserver observer) {
  absl::StatusOr<ResolvedListener> resolved =
      ResolveServerListener(*client->bootstrap(), listening_address);
  if (!resolved.ok()) return resolved.status();
  return Start(
      std::make_shared<XdsClientWatchSource>(client, std::move(observer)),
      resolved->listener_resource_name, std::string(listening_address),
      std::move(callback));
}

ServerConfigManager::ServerConfigManager(PrivateTag,
                                         std::shared_ptr<WatchSource> source,
                                         std::string listener_name,
                                         std::string listening_address,
                                         Callback callback)
    : source_(std::move(source)),
      listener_name_(std::move(listener_name)),
      listening_address_(std::move(listening_address)),
      callback_(std::move(callback)) {}

ServerConfigManager::~ServerConfigManager() {
  serializer_.StopFromDestructor();
}

void ServerConfigManager::Post(std::function<void()> fn) {
  serializer_.Post(shared_from_this(), std::move(fn));
}

void ServerConfigManager::Stop() { serializer_.Stop(shared_from_this()); }

void ServerConfigManager::CancelAll() {
  if (listener_watch_ != 0) source_->CancelWatch(listener_watch_);
  listener_watch_ = 0;
  for (const auto& [name, state] : rds_) source_->CancelWatch(state.handle);
  rds_.clear();
}

void ServerConfigManager::OnListener(
    std::shared_ptr<const resources::Listener> listener) {
  answered_ = true;
  const auto* server =
      std::get_if<resources::ServerListener>(&listener->listener);
  absl::Status bad;
  if (server == nullptr) {
    bad = absl::InvalidArgumentError(
        absl::StrCat("Listener \"", listener_name_,
                     "\" is not a server Listener (it has an api_listener)"));
  } else if (server->address != listening_address_) {
    // A36: the Listener must be for the address the server listens on.
    bad = absl::FailedPreconditionError(absl::StrCat(
        "Listener \"", listener_name_, "\" has address ", server->address,
        ", not the listening address ", listening_address_));
  }
  if (!bad.ok()) {
    listener_ = std::move(listener);
    listener_rds_.clear();
    pending_ = nullptr;
    pending_rds_.clear();
    status_ = std::move(bad);
    ReleaseUnused();
    MaybePublish();
    return;
  }
  pending_ = std::move(listener);
  pending_rds_ = RdsNamesOf(*server);
  WatchRds(pending_rds_);
  MaybeApplyPending();
}

void ServerConfigManager::OnListenerError(absl::Status status) {
  // After a Listener, the last one stays.
  if (listener_ != nullptr || pending_ != nullptr) return;
  answered_ = true;
  status_ = absl::Status(
      status.code(),
      absl::StrCat("Listener \"", listener_name_, "\": ", status.message()));
  MaybePublish();
}

void ServerConfigManager::OnListenerDoesNotExist() {
  answered_ = true;
  listener_ = nullptr;
  listener_rds_.clear();
  pending_ = nullptr;
  pending_rds_.clear();
  status_ = absl::NotFoundError(
      absl::StrCat("Listener \"", listener_name_, "\" does not exist"));
  ReleaseUnused();
  MaybePublish();
}

void ServerConfigManager::WatchRds(const std::set<std::string>& names) {
  for (const std::string& name : names) {
    if (rds_.count(name) != 0) continue;
    RdsState& state = rds_[name];
    state.token = next_token_++;
    state.handle =
        source_->WatchRouteConfig(name, NewRouteWatcher(name, state.token));
  }
}

void ServerConfigManager::ReleaseUnused() {
  for (auto it = rds_.begin(); it != rds_.end();) {
    if (listener_rds_.count(it->first) == 0 &&
        pending_rds_.count(it->first) == 0) {
      source_->CancelWatch(it->second.handle);
      it = rds_.erase(it);
    } else {
      ++it;
    }
  }
}

void ServerConfigManager::MaybeApplyPending() {
  if (pending_ == nullptr) return;
  for (const std::string& name : pending_rds_) {
    if (!rds_[name].answered) return;
  }
  listener_ = std::move(pending_);
  listener_rds_ = std::move(pending_rds_);
  pending_ = nullptr;
  pending_rds_.clear();
  status_ = absl::OkStatus();
  ReleaseUnused();
  MaybePublish();
}

ServerConfigManager::RdsState* ServerConfigManager::FindRds(
    const std::string& name, uint64_t token) {
  auto it = rds_.find(name);
  return it == rds_.end() || it->second.token != token ? nullptr : &it->second;
}

void ServerConfigManager::OnRoute(
    const std::string& name, uint64_t token,
    std::shared_ptr<const resources::RouteConfig> route) {
  RdsState* state = FindRds(name, token);
  if (state == nullptr) return;
  state->answered = true;
  state->value = {std::move(route), absl::OkStatus()};
  MaybeApplyPending();
  MaybePublish();
}

void ServerConfigManager::OnRouteError(const std::string& name, uint64_t token,
                                       absl::Status status) {
  RdsState* state = FindRds(name, token);
  if (state == nullptr) return;
  state->answered = true;
  // After a value the last one stays; before, the chain's RPCs fail with
  // UNAVAILABLE (A36), which the status says.
  if (state->value.route_config == nullptr) {
    state->value.status = absl::Status(
        status.code(),
        absl::StrCat("RouteConfiguration \"", name, "\": ", status.message()));
  }
  MaybeApplyPending();
  MaybePublish();
}

void ServerConfigManager::OnRouteDoesNotExist(const std::string& name,
                                              uint64_t token) {
  RdsState* state = FindRds(name, token);
  if (state == nullptr) return;
  state->answered = true;
  state->value = {
      nullptr, absl::NotFoundError(absl::StrCat("RouteConfiguration \"", name,
                                                "\" does not exist"))};
  MaybeApplyPending();
  MaybePublish();
}

void ServerConfigManager::MaybePublish() {
  if (!answered_) return;
  // The first Listener is still waiting for its RDS watches.
  if (listener_ == nullptr && status_.ok()) return;
  auto config = std::make_shared<ServerConfig>();
  config->status = status_;
  config->listener = listener_;
  if (status_.ok()) {
    for (const std::string& name : listener_rds_) {
      config->route_configs[name] = rds_[name].value;
    }
  }
  // Identical updates publish nothing.
  if (last_ != nullptr && SameConfig(*last_, *config)) return;
  last_ = config;
  Publish(std::move(config));
}

void ServerConfigManager::Publish(std::shared_ptr<const ServerConfig> config) {
  serializer_.RunCallback([&] { callback_(std::move(config)); });
}

}  // namespace xds_config
}  // namespace xdsfed
