#include "lib/cluster/cluster_resolution.h"

#include <utility>
#include <variant>

#include "absl/strings/str_cat.h"
#include "lib/resources/posting_watcher.h"

namespace xdsfed {
namespace cluster {

// Watchers hold the driver weakly: a driver dropped without Stop() is not
// kept alive by its subscriptions, and late events find nobody home.
std::shared_ptr<resources::ResourceWatcher<resources::ClusterResource>>
ClusterResolution::NewCdsWatcher(std::string name, uint64_t token) {
  using Watcher =
      resources::PostingWatcher<resources::ClusterResource, ClusterResolution>;
  return std::make_shared<Watcher>(
      weak_from_this(), &ClusterResolution::Post,
      Watcher::Handlers{
          [name, token](
              ClusterResolution& r,
              std::shared_ptr<const resources::ClusterResource> value) {
            r.OnClusterChanged(name, token, std::move(value));
          },
          [name, token](ClusterResolution& r, absl::Status status) {
            r.OnClusterError(name, token, std::move(status));
          },
          [name, token](ClusterResolution& r) {
            r.OnClusterDoesNotExist(name, token);
          }});
}

std::shared_ptr<resources::ResourceWatcher<resources::EndpointResource>>
ClusterResolution::NewEdsWatcher(uint64_t token) {
  using Watcher =
      resources::PostingWatcher<resources::EndpointResource, ClusterResolution>;
  return std::make_shared<Watcher>(
      weak_from_this(), &ClusterResolution::Post,
      Watcher::Handlers{
          [token](ClusterResolution& r,
                  std::shared_ptr<const resources::EndpointResource> value) {
            r.OnEndpointsChanged(token, std::move(value));
          },
          [token](ClusterResolution& r, absl::Status status) {
            r.OnEndpointsError(token, std::move(status));
          },
          [token](ClusterResolution& r) { r.OnEndpointsDoesNotExist(token); }});
}

std::shared_ptr<ClusterResolution> ClusterResolution::Start(
    std::shared_ptr<ClusterDataSource> source, std::string root,
    Options options, Callback callback) {
  if (options.dns_resolver == nullptr) {
    options.dns_resolver = SystemDnsResolver();
  }
  auto resolution = std::make_shared<ClusterResolution>(
      PrivateTag{}, std::move(source), std::move(root), std::move(options),
      std::move(callback));
  resolution->Post([r = resolution.get()] { r->Recompute(); });
  return resolution;
}

ClusterResolution::ClusterResolution(PrivateTag,
                                     std::shared_ptr<ClusterDataSource> source,
                                     std::string root, Options options,
                                     Callback callback)
    : source_(std::move(source)),
      root_(std::move(root)),
      options_(std::move(options)),
      callback_(std::move(callback)) {}

ClusterResolution::~ClusterResolution() {
  // Nothing else can hold this object now, so the serializer is idle.
  serializer_.StopFromDestructor();
}

void ClusterResolution::Post(std::function<void()> fn) {
  serializer_.Post(shared_from_this(), std::move(fn));
}

void ClusterResolution::Stop() { serializer_.Stop(shared_from_this()); }

void ClusterResolution::RequestReresolution() {
  Post([this] {
    for (const auto& state : mechanisms_) ReresolveDns(state.get());
  });
}

void ClusterResolution::RequestReresolution(std::string cluster) {
  Post([this, cluster = std::move(cluster)] {
    for (const auto& state : mechanisms_) {
      if (state->current.mechanism.cluster == cluster) {
        ReresolveDns(state.get());
      }
    }
  });
}

void ClusterResolution::ReresolveDns(MechanismState* state) {
  // EDS: ignore_reresolution_requests (A37). In flight: its answer is as
  // fresh as a new one. Retry timer pending: it is the earliest next query.
  if (state->current.mechanism.type != DiscoveryMechanism::Type::kLogicalDns ||
      state->dns_query != 0 || state->dns_retry != 0) {
    return;
  }
  StartDns(state);
}

void ClusterResolution::CancelAll() {
  for (const auto& [name, state] : clusters_) {
    if (state.handle != 0) source_->CancelWatch(state.handle);
  }
  clusters_.clear();
  for (const auto& state : mechanisms_) StopMechanism(state.get());
  mechanisms_.clear();
  by_token_.clear();
}

void ClusterResolution::OnClusterChanged(
    const std::string& name, uint64_t token,
    std::shared_ptr<const resources::ClusterResource> value) {
  auto it = clusters_.find(name);
  if (it == clusters_.end() || it->second.token != token) return;
  const bool leaf =
      !std::holds_alternative<resources::ClusterResource::Aggregate>(
          value->kind);
  it->second.state = ClusterLookupResult::State::kReceived;
  it->second.value = std::move(value);
  // A leaf that was pending adds no clusters and no errors: while others
  // are still pending, the tree stays kPending with the same clusters.
  if (tree_pending_ && leaf && pending_clusters_.erase(name) == 1 &&
      !pending_clusters_.empty()) {
    return;
  }
  Recompute();
}

void ClusterResolution::OnClusterError(const std::string& name, uint64_t token,
                                       absl::Status status) {
  auto it = clusters_.find(name);
  if (it == clusters_.end() || it->second.token != token) return;
  // A37: TRANSIENT_FAILURE only if no config was passed on yet; after that
  // the last one stays (it may still work).
  if (reported_config_) return;
  ReportError(absl::Status(
      status.code(),
      absl::StrCat("CDS resource \"", name, "\": ", status.message())));
}

void ClusterResolution::OnClusterDoesNotExist(const std::string& name,
                                              uint64_t token) {
  auto it = clusters_.find(name);
  if (it == clusters_.end() || it->second.token != token) return;
  it->second.state = ClusterLookupResult::State::kDoesNotExist;
  it->second.value = nullptr;
  Recompute();
}

void ClusterResolution::Recompute() {
  auto lookup = [this](absl::string_view name) {
    auto it = clusters_.find(std::string(name));
    if (it == clusters_.end()) return ClusterLookupResult::Pending();
    switch (it->second.state) {
      case ClusterLookupResult::State::kReceived:
        return ClusterLookupResult::Received(*it->second.value);
      case ClusterLookupResult::State::kDoesNotExist:
        return ClusterLookupResult::DoesNotExist();
      case ClusterLookupResult::State::kPending:
        break;
    }
    return ClusterLookupResult::Pending();
  };
  ClusterTreeResult tree = ResolveClusterTree(root_, lookup);

  // Keep exactly the watches the tree needs: new ones started, clusters no
  // longer reachable released.
  absl::flat_hash_set<absl::string_view> needed(tree.clusters.begin(),
                                                tree.clusters.end());
  std::vector<std::string> unneeded;
  for (const auto& [name, state] : clusters_) {
    if (!needed.contains(name)) unneeded.push_back(name);
  }
  for (const std::string& name : unneeded) {
    auto it = clusters_.find(name);
    source_->CancelWatch(it->second.handle);
    clusters_.erase(it);
  }
  for (const std::string& name : tree.clusters) {
    if (clusters_.count(name) != 0) continue;
    ClusterState& state = clusters_[name];
    state.token = next_token_++;
    // Events the source delivers from inside WatchCluster() are queued
    // behind this closure, so the handle is stored before they run.
    state.handle =
        source_->WatchCluster(name, NewCdsWatcher(name, state.token));
  }
  tree_clusters_ = std::move(tree.clusters);
  tree_pending_ = tree.state == ClusterTreeResult::State::kPending;
  pending_clusters_.clear();
  if (tree_pending_) {
    pending_clusters_.insert(tree.pending_clusters.begin(),
                             tree.pending_clusters.end());
  }

  switch (tree.state) {
    case ClusterTreeResult::State::kPending:
      // Keep whatever config went out last until the tree is complete.
      break;
    case ClusterTreeResult::State::kError:
      SetMechanisms({});
      has_mechanisms_ = false;
      ReportError(std::move(tree.error));
      break;
    case ClusterTreeResult::State::kOk:
      SetMechanisms(tree.mechanisms);
      has_mechanisms_ = true;
      MaybeReportConfig();
      break;
  }
}

std::optional<XdsServerConfig> ClusterResolution::LrsServerFor(
    const DiscoveryMechanism& mechanism) const {
  if (!mechanism.lrs_load_reporting_server_is_self ||
      options_.bootstrap == nullptr) {
    return std::nullopt;
  }
  std::shared_ptr<const XdsServerConfig> server =
      options_.bootstrap->ServerForResourceName(mechanism.cluster);
  if (server == nullptr) return std::nullopt;
  return *server;
}

namespace {

// Mechanisms with the same key fetch the same thing, so they keep their
// watch (and last result) across updates.
std::string SourceKey(const DiscoveryMechanism& m) {
  return m.type == DiscoveryMechanism::Type::kEds
             ? absl::StrCat("eds\0", m.cluster, "\0", m.EdsResourceName())
             : absl::StrCat("dns\0", m.cluster, "\0", m.dns_hostname);
}

}  // namespace

void ClusterResolution::SetMechanisms(
    const std::vector<DiscoveryMechanism>& mechanisms) {
  std::vector<std::unique_ptr<MechanismState>> old = std::move(mechanisms_);
  mechanisms_.clear();
  absl::flat_hash_map<std::string, size_t> old_by_key;
  for (size_t i = 0; i < old.size(); ++i) {
    old_by_key.emplace(SourceKey(old[i]->current.mechanism), i);
  }
  bool changed = old.size() != mechanisms.size();
  for (size_t i = 0; i < mechanisms.size(); ++i) {
    const DiscoveryMechanism& mechanism = mechanisms[i];
    std::optional<XdsServerConfig> lrs = LrsServerFor(mechanism);
    std::unique_ptr<MechanismState> state;
    size_t old_index = old.size();
    if (auto it = old_by_key.find(SourceKey(mechanism));
        it != old_by_key.end() && old[it->second] != nullptr) {
      old_index = it->second;
      state = std::move(old[old_index]);
    }
    if (state == nullptr) {
      state = std::make_unique<MechanismState>();
      state->current.mechanism = mechanism;
      state->current.lrs_server = std::move(lrs);
      StartMechanism(state.get());
      changed = true;
    } else {
      if (state->current.mechanism != mechanism ||
          state->current.lrs_server != lrs) {
        changed = true;
      }
      state->current.mechanism = mechanism;
      state->current.lrs_server = std::move(lrs);
      if (old_index != i) changed = true;  // moved to another priority
    }
    mechanisms_.push_back(std::move(state));
  }
  for (auto& state : old) {
    if (state != nullptr) StopMechanism(state.get());
  }
  unreported_ = 0;
  for (const auto& state : mechanisms_) {
    if (!state->reported) ++unreported_;
  }
  if (changed) dirty_ = true;
}

void ClusterResolution::StartMechanism(MechanismState* state) {
  if (state->current.mechanism.type == DiscoveryMechanism::Type::kEds) {
    state->token = next_token_++;
    by_token_[state->token] = state;
    state->eds_handle =
        source_->WatchEndpoints(state->current.mechanism.EdsResourceName(),
                                NewEdsWatcher(state->token));
  } else {
    StartDns(state);
  }
}

void ClusterResolution::StartDns(MechanismState* state) {
  if (state->token == 0) {
    state->token = next_token_++;
    by_token_[state->token] = state;
  }
  std::weak_ptr<ClusterResolution> weak = weak_from_this();
  state->dns_query = options_.dns_resolver->Resolve(
      state->current.mechanism.dns_hostname,
      [weak, token = state->token](
          absl::StatusOr<std::vector<std::string>> addresses) {
        if (auto o = weak.lock()) {
          o->Post([o, token, addresses = std::move(addresses)]() mutable {
            o->OnDnsResult(token, std::move(addresses));
          });
        }
      });
}

void ClusterResolution::StopMechanism(MechanismState* state) {
  by_token_.erase(state->token);
  if (state->eds_handle != 0) source_->CancelWatch(state->eds_handle);
  state->eds_handle = 0;
  // The cluster went away: its query in flight and its retry go too (a
  // late answer would also find its token gone).
  if (state->dns_query != 0) options_.dns_resolver->Cancel(state->dns_query);
  state->dns_query = 0;
  if (state->dns_retry != 0) options_.retry_timer->Cancel(state->dns_retry);
  state->dns_retry = 0;
}

ClusterResolution::MechanismState* ClusterResolution::FindMechanism(
    uint64_t token) {
  auto it = by_token_.find(token);
  return it == by_token_.end() ? nullptr : it->second;
}

void ClusterResolution::MarkReported(MechanismState* state) {
  if (!state->reported) --unreported_;
  state->reported = true;
  dirty_ = true;
}

void ClusterResolution::OnEndpointsChanged(
    uint64_t token, std::shared_ptr<const resources::EndpointResource> value) {
  MechanismState* state = FindMechanism(token);
  if (state == nullptr) return;
  state->current.endpoints = std::move(value);
  state->last_error = absl::OkStatus();
  MarkReported(state);
  MaybeReportConfig();
}

void ClusterResolution::OnEndpointsError(uint64_t token, absl::Status status) {
  MechanismState* state = FindMechanism(token);
  if (state == nullptr) return;
  state->last_error = std::move(status);
  // A37: an error before the first result counts as one priority with no
  // endpoints; after it, the last result stays.
  if (state->reported) return;
  state->current.endpoints = nullptr;
  MarkReported(state);
  MaybeReportConfig();
}

void ClusterResolution::OnEndpointsDoesNotExist(uint64_t token) {
  MechanismState* state = FindMechanism(token);
  if (state == nullptr) return;
  // A37: does-not-exist empties the mechanism whether or not it had a
  // result.
  state->current.endpoints = nullptr;
  state->last_error = absl::NotFoundError(absl::StrCat(
      "EDS resource \"", state->current.mechanism.EdsResourceName(),
      "\" does not exist"));
  MarkReported(state);
  MaybeReportConfig();
}

void ClusterResolution::OnDnsResult(
    uint64_t token, absl::StatusOr<std::vector<std::string>> addresses) {
  MechanismState* state = FindMechanism(token);
  if (state == nullptr) return;
  state->dns_query = 0;
  if (!state->dns_backoff.has_value()) {
    state->dns_backoff.emplace(options_.dns_backoff,
                               options_.dns_jitter_seed + token);
  }
  if (!addresses.ok()) {
    state->last_error = addresses.status();
    // Retry with backoff, as gRPC's DNS resolver does; a malformed name
    // will not get better (a new CDS update brings a new mechanism).
    if (options_.retry_timer != nullptr &&
        addresses.status().code() != absl::StatusCode::kInvalidArgument) {
      std::weak_ptr<ClusterResolution> weak = weak_from_this();
      state->dns_retry = options_.retry_timer->RunAfter(
          state->dns_backoff->NextDelay(), [weak, token] {
            if (auto o = weak.lock()) {
              o->Post([o, token] { o->OnDnsRetryTimer(token); });
            }
          });
    }
    if (state->reported) return;  // keep the last addresses
    state->current.endpoints = nullptr;
    MarkReported(state);
    MaybeReportConfig();
    return;
  }
  state->dns_backoff->Reset();
  // A37: every address in one priority and one locality with empty fields.
  state->current.endpoints =
      EndpointsFromDnsAddresses(state->current.mechanism.cluster, *addresses);
  state->last_error = absl::OkStatus();
  MarkReported(state);
  MaybeReportConfig();
}

void ClusterResolution::OnDnsRetryTimer(uint64_t token) {
  MechanismState* state = FindMechanism(token);
  if (state == nullptr || state->dns_retry == 0) return;
  state->dns_retry = 0;
  StartDns(state);
}

void ClusterResolution::MaybeReportConfig() {
  // As xds_cluster_resolver: nothing goes out until every mechanism has
  // said something.
  if (!has_mechanisms_ || !dirty_ || unreported_ > 0) return;
  Update update;
  update.mechanisms.reserve(mechanisms_.size());
  update.mechanism_errors.reserve(mechanisms_.size());
  for (const auto& state : mechanisms_) {
    update.mechanisms.push_back(state->current);
    update.mechanism_errors.push_back(state->last_error);
  }
  update.clusters = tree_clusters_;
  update.cluster_resources = TreeResources();
  dirty_ = false;
  reported_config_ = true;
  last_error_reported_.clear();
  Report(std::move(update));
}

void ClusterResolution::ReportError(absl::Status status) {
  // The same failure reported twice in a row says nothing new.
  std::string text = status.ToString();
  if (!reported_config_ && text == last_error_reported_) return;
  last_error_reported_ = std::move(text);
  reported_config_ = false;
  dirty_ = true;  // the next complete config goes out even if unchanged
  Update update;
  update.status = std::move(status);
  update.clusters = tree_clusters_;
  update.cluster_resources = TreeResources();
  Report(std::move(update));
}

std::vector<std::shared_ptr<const resources::ClusterResource>>
ClusterResolution::TreeResources() const {
  std::vector<std::shared_ptr<const resources::ClusterResource>> out;
  out.reserve(tree_clusters_.size());
  for (const std::string& name : tree_clusters_) {
    auto it = clusters_.find(name);
    out.push_back(it == clusters_.end() ? nullptr : it->second.value);
  }
  return out;
}

void ClusterResolution::Report(Update update) {
  serializer_.RunCallback([&] { callback_(update); });
}

}  // namespace cluster
}  // namespace xdsfed
