#include "lib/channel/data_plane.h"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <optional>
#include <set>
#include <utility>
#include <variant>

#include "absl/strings/str_cat.h"
#include "lib/cluster/lb_config.h"
#include "lib/routing/route_table.h"

namespace xdsfed {
namespace channel {
namespace {

using resources::EndpointResource;

// splitmix64 over a per-thread counter: picks draw several values and must
// neither lock nor allocate.
uint64_t NextRandom() {
  thread_local uint64_t state =
      static_cast<uint64_t>(
          std::chrono::steady_clock::now().time_since_epoch().count()) ^
      reinterpret_cast<uintptr_t>(&state);
  uint64_t z = (state += 0x9e3779b97f4a7c15ULL);
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
  return z ^ (z >> 31);
}

// The RPC's metadata as routing's HeaderLookup wants it: the value, or the
// values of a repeated header joined with "," in *scratch (A28).
std::optional<absl::string_view> LookupHeader(
    absl::Span<const MetadataEntry> metadata, absl::string_view name,
    std::string* scratch) {
  const MetadataEntry* first = nullptr;
  bool joined = false;
  for (const auto& entry : metadata) {
    if (entry.first != name) continue;
    if (first == nullptr) {
      first = &entry;
      continue;
    }
    if (!joined) {
      scratch->assign(first->second.data(), first->second.size());
      joined = true;
    }
    scratch->push_back(',');
    scratch->append(entry.second.data(), entry.second.size());
  }
  if (first == nullptr) return std::nullopt;
  if (joined) return absl::string_view(*scratch);
  return first->second;
}

// What the failing endpoints of a child know about their failure (TLS:
// endpoint_tls.h), as "; 127.0.0.1:5000: <reason>", at most two, distinct.
// Cold path: only when a picker with a failing priority is published.
template <typename ChildT>
std::string EndpointFailures(const ChildT& child) {
  std::string out;
  std::vector<std::string> seen;
  for (const auto& loc : child.localities) {
    for (const auto& e : loc.endpoints) {
      if (seen.size() >= 2) return out;
      std::string why = e->failure_reason();
      if (why.empty() ||
          std::find(seen.begin(), seen.end(), why) != seen.end()) {
        continue;
      }
      absl::StrAppend(&out, "; ", e->address(), ": ", why);
      seen.push_back(std::move(why));
    }
  }
  return out;
}

PickResult Failed(absl::Status status) {
  PickResult r;
  r.status = std::move(status);
  return r;
}

}  // namespace

// One priority child: xds_cluster_impl + weighted_target + round_robin (or
// pick_first for LOGICAL_DNS).
struct DataPlane::Child {
  std::string name;
  size_t priority = 0;  // in the cluster's list; SIZE_MAX once left out
  cluster::PriorityChildAssignment assignment;
  std::string cluster;
  std::string eds_service_name;
  bool logical_dns = false;
  uint32_t max_requests = lrs::kDefaultMaxConcurrentRequests;
  std::vector<EndpointResource::DropCategory> drops;
  std::optional<XdsServerConfig> lrs_server;
  std::shared_ptr<lrs::CallCounter> counter;
  std::shared_ptr<lrs::ClusterDropStats> drop_stats;
  // The leaf cluster's UpstreamTlsContext (A29); null: plaintext.
  std::shared_ptr<const resources::UpstreamTlsContext> tls;
  struct Locality {
    EndpointResource::Locality locality;
    uint32_t weight = 0;
    std::vector<std::shared_ptr<Endpoint>> endpoints;
    std::shared_ptr<lrs::ClusterLocalityStats> stats;
  };
  std::vector<Locality> localities;
  // From the endpoints, as last computed; and what the priority policy
  // sees (TRANSIENT_FAILURE after the failover timer fired).
  Connectivity computed = Connectivity::kConnecting;
  Connectivity reported = Connectivity::kConnecting;
  std::string reason;  // why reported is TRANSIENT_FAILURE
  bool seen_ready_or_idle = true;
  uint64_t failover_token = 0;  // 0: no failover timer pending
  client::Timers::Handle failover_timer = 0;
  uint64_t retention_token = 0;  // 0: active
  client::Timers::Handle retention_timer = 0;
};

struct DataPlane::ClusterLb {
  std::string name;
  std::shared_ptr<const xds_config::ClusterConfig> config;
  cluster::PriorityConfigBuilder builder;
  absl::Status error;
  std::vector<cluster::PriorityChildAssignment> assignments;
  std::map<std::string, std::unique_ptr<Child>> children;
  int current = -1;
};

struct DataPlane::Picker {
  struct Locality {
    EndpointResource::Locality locality;
    uint64_t cumulative_weight = 0;
    std::vector<std::shared_ptr<Endpoint>> ready;
    mutable std::atomic<uint64_t> next{0};
    std::shared_ptr<lrs::ClusterLocalityStats> stats;
  };
  struct Cluster {
    enum class Mode { kPick, kQueue, kFail };
    Mode mode = Mode::kQueue;
    absl::Status error;
    size_t priority = 0;
    std::string leaf_cluster;
    bool pick_first = false;
    uint32_t max_requests = lrs::kDefaultMaxConcurrentRequests;
    std::shared_ptr<lrs::CallCounter> counter;
    std::shared_ptr<lrs::ClusterDropStats> drop_stats;
    std::vector<EndpointResource::DropCategory> drops;
    std::vector<std::unique_ptr<Locality>> localities;  // with READY endpoints
    uint64_t total_weight = 0;
    // kQueue: what a pick waits for (its DEADLINE_EXCEEDED message).
    std::string wait_reason;
  };
  bool has_config = false;
  absl::Status status;
  std::shared_ptr<const xds_config::XdsConfig> config;
  std::shared_ptr<const routing::RouteTable> routes;  // compiled vhost
  // The HttpConnectionManager's max_stream_duration (A31 default for routes
  // without one).
  std::optional<resources::ProtoDuration> hcm_max_stream_duration;
  absl::flat_hash_map<std::string, std::unique_ptr<Cluster>> clusters;
};

struct DataPlane::Waiter {
  std::string path;
  std::vector<std::pair<std::string, std::string>> metadata_storage;
  std::vector<MetadataEntry> metadata;
  std::function<void(PickResult)> done;
  client::Timers::Handle timer = 0;
};

std::shared_ptr<DataPlane> DataPlane::Create(Options options) {
  if (options.timers == nullptr) options.timers = client::DefaultTimers();
  return std::make_shared<DataPlane>(PrivateTag(), std::move(options));
}

DataPlane::DataPlane(PrivateTag, Options options)
    : options_(std::move(options)),
      call_counters_(options_.call_counters != nullptr
                         ? options_.call_counters
                         : &lrs::CallCounterRegistry::Global()),
      factory_(options_.endpoints) {}

DataPlane::~DataPlane() { Shutdown(); }

void DataPlane::Shutdown() {
  std::vector<std::unique_ptr<Waiter>> waiters;
  std::map<std::string, std::unique_ptr<ClusterLb>> clusters;
  std::shared_ptr<EndpointFactory> factory;
  std::vector<std::shared_ptr<Endpoint>> not_started;
  {
    MutexLock lock(&mu_);
    if (shutdown_) return;
    shutdown_ = true;
    for (auto& [name, lb] : clusters_) {
      for (auto& [child_name, child] : lb->children) {
        if (child->failover_timer != 0) {
          options_.timers->Cancel(child->failover_timer);
        }
        if (child->retention_timer != 0) {
          options_.timers->Cancel(child->retention_timer);
        }
      }
    }
    clusters = std::move(clusters_);
    clusters_.clear();
    endpoints_.clear();
    not_started = std::move(to_start_);
    to_start_.clear();
    for (auto& [id, w] : waiters_) {
      if (w->timer != 0) options_.timers->Cancel(w->timer);
      waiters.push_back(std::move(w));
    }
    waiters_.clear();
    async_waiting_.store(0, std::memory_order_relaxed);
    auto picker = std::make_shared<Picker>();
    picker->has_config = true;
    picker->status = absl::UnavailableError("channel shut down");
    std::atomic_store(&picker_, std::shared_ptr<const Picker>(picker));
    ++picker_version_;
    picker_changed_.notify_all();
    factory = std::move(factory_);
  }
  for (auto& w : waiters) {
    w->done(Failed(absl::UnavailableError("channel shut down")));
  }
  // clusters (and their endpoints) and the factory reference go here,
  // outside the lock.
}

void DataPlane::Update(std::shared_ptr<const xds_config::XdsConfig> config) {
  mu_.Lock();
  if (shutdown_) {
    mu_.Unlock();
    return;
  }
  config_ = config;
  routes_.reset();
  if (config->status.ok()) {
    // Compiled once per route configuration (RE2 objects included) and
    // shared by pickers; an EDS-only update keeps the table.
    if (routes_source_ == config->route_config &&
        routes_vhost_ == config->virtual_host && compiled_routes_ != nullptr) {
      routes_ = compiled_routes_;
    } else {
      absl::StatusOr<routing::RouteTable> table = routing::RouteTable::Build(
          std::shared_ptr<const resources::VirtualHost>(config->route_config,
                                                        config->virtual_host));
      if (table.ok()) {
        routes_ =
            std::make_shared<const routing::RouteTable>(*std::move(table));
        compiled_routes_ = routes_;
        routes_source_ = config->route_config;
        routes_vhost_ = config->virtual_host;
      } else {
        auto failed = std::make_shared<xds_config::XdsConfig>(*config);
        failed->status = absl::UnavailableError(table.status().message());
        config_ = failed;
      }
    }
  }
  std::set<std::string> names;
  if (config_->status.ok()) {
    config->clusters.ForEach(
        [&](const xds_config::ClusterConfig& c) { names.insert(c.name); });
  }
  for (auto it = clusters_.begin(); it != clusters_.end();) {
    if (names.count(it->first) == 0) {
      for (auto& [n, child] : it->second->children) {
        if (child->failover_timer != 0) {
          options_.timers->Cancel(child->failover_timer);
        }
        if (child->retention_timer != 0) {
          options_.timers->Cancel(child->retention_timer);
        }
      }
      it = clusters_.erase(it);
    } else {
      ++it;
    }
  }
  for (const std::string& name : names) {
    std::shared_ptr<const xds_config::ClusterConfig> c =
        config->clusters.Get(name);
    auto& lb = clusters_[name];
    if (lb == nullptr) {
      lb = std::make_unique<ClusterLb>();
      lb->name = name;
    }
    if (lb->config != c) UpdateClusterLocked(*lb, std::move(c));
  }
  RefreshStatesLocked();
  PublishLocked();
  FinishUpdate();
}

void DataPlane::UpdateClusterLocked(
    ClusterLb& lb, std::shared_ptr<const xds_config::ClusterConfig> c) {
  lb.config = c;
  absl::Status error = c->status;
  if (error.ok()) {
    absl::StatusOr<cluster::PriorityConfig> built = lb.builder.Build(c->leaves);
    if (built.ok()) {
      lb.assignments = std::move(built->children);
    } else {
      error = built.status();
    }
  }
  lb.error = error;
  if (!error.ok()) {
    for (auto& [n, child] : lb.children) {
      if (child->failover_timer != 0) {
        options_.timers->Cancel(child->failover_timer);
      }
      if (child->retention_timer != 0) {
        options_.timers->Cancel(child->retention_timer);
      }
    }
    lb.children.clear();
    lb.assignments.clear();
    lb.current = -1;
    return;
  }
  std::set<std::string> in_list;
  for (size_t p = 0; p < lb.assignments.size(); ++p) {
    const auto& a = lb.assignments[p];
    in_list.insert(a.child_name);
    auto it = lb.children.find(a.child_name);
    if (it == lb.children.end()) continue;
    it->second->priority = p;
    it->second->assignment = a;
    SetChildEndpointsLocked(lb, *it->second);
  }
  for (auto& [n, child] : lb.children) {
    if (in_list.count(n) == 0) {
      child->priority = SIZE_MAX;
      DeactivateLocked(lb, *child);
    }
  }
  ChoosePriorityLocked(lb);
}

std::shared_ptr<Endpoint> DataPlane::GetEndpointLocked(
    const std::string& address,
    const std::shared_ptr<const resources::UpstreamTlsContext>& tls) {
  auto& weak =
      endpoints_[tls == nullptr ? address
                                : absl::StrCat(address, "\ntls:", tls->Key())];
  std::shared_ptr<Endpoint> e = weak.lock();
  if (e == nullptr && factory_ != nullptr) {
    auto on_change = [weak_self = weak_from_this()] {
      if (auto self = weak_self.lock()) {
        self->OnEndpointChange();
      }
    };
    e = tls == nullptr
            ? factory_->Create(address, std::move(on_change))
            : factory_->CreateTls(address, tls, std::move(on_change));
    weak = e;
    if (e != nullptr) to_start_.push_back(e);
  }
  return e;
}

void DataPlane::SetChildEndpointsLocked(ClusterLb& lb, Child& child) {
  const auto& a = child.assignment;
  const cluster::ResolvedMechanism& m = lb.config->leaves[a.mechanism_index];
  child.cluster = m.mechanism.cluster;
  child.logical_dns =
      m.mechanism.type == cluster::DiscoveryMechanism::Type::kLogicalDns;
  child.eds_service_name =
      child.logical_dns ? "" : m.mechanism.eds_service_name;
  child.max_requests = m.mechanism.max_concurrent_requests;
  child.drops = m.endpoints != nullptr
                    ? m.endpoints->drop_categories
                    : std::vector<EndpointResource::DropCategory>();
  if (!m.mechanism.upstream_tls.has_value()) {
    child.tls.reset();
  } else if (child.tls == nullptr || *child.tls != *m.mechanism.upstream_tls) {
    child.tls = std::make_shared<const resources::UpstreamTlsContext>(
        *m.mechanism.upstream_tls);
  }
  const bool lrs_changed = child.lrs_server != m.lrs_server;
  child.lrs_server = m.lrs_server;
  if (child.counter == nullptr || child.counter->cluster() != child.cluster ||
      child.counter->eds_service_name() != child.eds_service_name) {
    child.counter =
        call_counters_->GetOrCreate(child.cluster, child.eds_service_name);
  }
  if (lrs_changed || child.drop_stats == nullptr) {
    child.drop_stats.reset();
    if (options_.lrs != nullptr && child.lrs_server.has_value()) {
      auto stats = options_.lrs->AddClusterDropStats(
          *child.lrs_server, child.cluster, child.eds_service_name);
      if (stats.ok()) child.drop_stats = *std::move(stats);
    }
  }
  std::vector<Child::Locality> localities;
  localities.reserve(a.localities.size());
  for (const cluster::LocalityAssignment& la : a.localities) {
    Child::Locality loc;
    loc.locality = la.locality;
    loc.weight = la.weight;
    loc.endpoints.reserve(la.endpoints.size());
    for (const auto& e : la.endpoints) {
      if (auto ep = GetEndpointLocked(e.address, child.tls)) {
        loc.endpoints.push_back(std::move(ep));
      }
    }
    if (!lrs_changed) {
      for (const auto& old : child.localities) {
        if (old.locality == la.locality) loc.stats = old.stats;
      }
    }
    if (loc.stats == nullptr && options_.lrs != nullptr &&
        child.lrs_server.has_value()) {
      auto stats = options_.lrs->AddClusterLocalityStats(
          *child.lrs_server, child.cluster, child.eds_service_name,
          la.locality);
      if (stats.ok()) loc.stats = *std::move(stats);
    }
    localities.push_back(std::move(loc));
  }
  child.localities = std::move(localities);
  // Endpoints no other child holds are released with the old list.
  for (auto it = endpoints_.begin(); it != endpoints_.end();) {
    if (it->second.expired()) {
      endpoints_.erase(it++);
    } else {
      ++it;
    }
  }
}

DataPlane::Child* DataPlane::CreateChildLocked(ClusterLb& lb, size_t p) {
  auto child = std::make_unique<Child>();
  child->name = lb.assignments[p].child_name;
  child->priority = p;
  child->assignment = lb.assignments[p];
  SetChildEndpointsLocked(lb, *child);
  Child* raw = child.get();
  lb.children[child->name] = std::move(child);
  // A new child has the failover timeout to connect (seen_ready_or_idle
  // starts true, as in C-core).
  raw->failover_token = next_token_++;
  raw->failover_timer = options_.timers->RunAfter(
      options_.failover_timeout,
      [weak = weak_from_this(), name = lb.name, token = raw->failover_token] {
        if (auto self = weak.lock()) self->OnFailoverTimer(name, token);
      });
  return raw;
}

// round_robin per locality, weighted_target over localities: READY if any
// endpoint is READY, else CONNECTING while any is still trying, else (all
// failed, or none) TRANSIENT_FAILURE.
Connectivity DataPlane::ComputeState(const Child& child) {
  bool any_trying = false;
  for (const auto& loc : child.localities) {
    for (const auto& ep : loc.endpoints) {
      Connectivity s = ep->state();
      if (s == Connectivity::kReady) return Connectivity::kReady;
      if (s == Connectivity::kConnecting || s == Connectivity::kIdle) {
        any_trying = true;
      }
    }
  }
  return any_trying ? Connectivity::kConnecting
                    : Connectivity::kTransientFailure;
}

bool DataPlane::RefreshStatesLocked() {
  bool any = false;
  for (auto& [name, lb] : clusters_) {
    bool changed = false;
    for (auto& [child_name, child] : lb->children) {
      Connectivity now = ComputeState(*child);
      if (now != child->computed) {
        child->computed = now;
        OnChildStateLocked(*lb, *child, now);
        changed = true;
      }
    }
    if (changed) ChoosePriorityLocked(*lb);
    any = any || changed;
  }
  return any;
}

void DataPlane::OnChildStateLocked(ClusterLb& lb, Child& child,
                                   Connectivity state) {
  child.reported = state;
  if (state == Connectivity::kConnecting) {
    if (child.seen_ready_or_idle && child.failover_token == 0) {
      child.failover_token = next_token_++;
      child.failover_timer = options_.timers->RunAfter(
          options_.failover_timeout, [weak = weak_from_this(), name = lb.name,
                                      token = child.failover_token] {
            if (auto self = weak.lock()) self->OnFailoverTimer(name, token);
          });
    }
  } else if (state == Connectivity::kReady || state == Connectivity::kIdle) {
    child.seen_ready_or_idle = true;
    if (child.failover_token != 0) {
      options_.timers->Cancel(child.failover_timer);
      child.failover_token = 0;
      child.failover_timer = 0;
    }
  } else {
    child.seen_ready_or_idle = false;
    if (child.failover_token != 0) {
      options_.timers->Cancel(child.failover_timer);
      child.failover_token = 0;
      child.failover_timer = 0;
    }
    bool empty = true;
    for (const auto& loc : child.localities) {
      if (!loc.endpoints.empty()) empty = false;
    }
    child.reason =
        empty ? "no endpoints" : "connections to all endpoints failing";
    // pick_first asks its resolver for new addresses when its connection
    // fails (LOGICAL_DNS; EDS children ignore re-resolution, A37).
    if (child.logical_dns) reresolve_.emplace_back(lb.name, child.cluster);
  }
}

void DataPlane::ChoosePriorityLocked(ClusterLb& lb) {
  lb.current = -1;
  if (!lb.error.ok() || lb.assignments.empty()) return;
  const size_t n = lb.assignments.size();
  for (size_t p = 0; p < n; ++p) {
    auto it = lb.children.find(lb.assignments[p].child_name);
    Child* child = nullptr;
    if (it == lb.children.end()) {
      child = CreateChildLocked(lb, p);
      // Its first state, from endpoints that may already be known.
      child->computed = ComputeState(*child);
      OnChildStateLocked(lb, *child, child->computed);
    } else {
      child = it->second.get();
      ReactivateLocked(*child);
    }
    if (child->reported == Connectivity::kReady ||
        child->reported == Connectivity::kIdle) {
      SetCurrentPriorityLocked(lb, p, true);
      return;
    }
    if (child->failover_token != 0) {
      SetCurrentPriorityLocked(lb, p, false);
      return;
    }
  }
  for (size_t p = 0; p < n; ++p) {
    auto it = lb.children.find(lb.assignments[p].child_name);
    if (it != lb.children.end() &&
        it->second->reported == Connectivity::kConnecting) {
      SetCurrentPriorityLocked(lb, p, false);
      return;
    }
  }
  SetCurrentPriorityLocked(lb, n - 1, false);
}

void DataPlane::SetCurrentPriorityLocked(ClusterLb& lb, size_t p,
                                         bool deactivate_lower) {
  lb.current = static_cast<int>(p);
  if (!deactivate_lower) return;
  for (size_t i = p + 1; i < lb.assignments.size(); ++i) {
    auto it = lb.children.find(lb.assignments[i].child_name);
    if (it != lb.children.end()) DeactivateLocked(lb, *it->second);
  }
}

void DataPlane::DeactivateLocked(ClusterLb& lb, Child& child) {
  if (child.retention_token != 0) return;
  child.retention_token = next_token_++;
  child.retention_timer = options_.timers->RunAfter(
      options_.retention,
      [weak = weak_from_this(), name = lb.name, token = child.retention_token] {
        if (auto self = weak.lock()) self->OnRetentionTimer(name, token);
      });
}

void DataPlane::ReactivateLocked(Child& child) {
  if (child.retention_token == 0) return;
  options_.timers->Cancel(child.retention_timer);
  child.retention_token = 0;
  child.retention_timer = 0;
}

void DataPlane::OnFailoverTimer(const std::string& cluster, uint64_t token) {
  mu_.Lock();
  auto it = shutdown_ ? clusters_.end() : clusters_.find(cluster);
  if (it != clusters_.end()) {
    ClusterLb& lb = *it->second;
    for (auto& [n, child] : lb.children) {
      if (child->failover_token != token) continue;
      child->failover_token = 0;
      child->failover_timer = 0;
      child->reported = Connectivity::kTransientFailure;
      child->seen_ready_or_idle = false;
      child->reason =
          absl::StrCat("failover timer fired after ",
                       absl::FormatDuration(options_.failover_timeout));
      if (child->logical_dns) reresolve_.emplace_back(lb.name, child->cluster);
      ChoosePriorityLocked(lb);
      PublishLocked();
      break;
    }
  }
  FinishUpdate();
}

void DataPlane::OnRetentionTimer(const std::string& cluster, uint64_t token) {
  std::unique_ptr<Child> gone;
  mu_.Lock();
  auto it = shutdown_ ? clusters_.end() : clusters_.find(cluster);
  if (it != clusters_.end()) {
    ClusterLb& lb = *it->second;
    for (auto c = lb.children.begin(); c != lb.children.end(); ++c) {
      if (c->second->retention_token != token) continue;
      gone = std::move(c->second);
      lb.children.erase(c);
      if (gone->failover_token != 0) {
        options_.timers->Cancel(gone->failover_timer);
      }
      ChoosePriorityLocked(lb);
      PublishLocked();
      break;
    }
  }
  FinishUpdate();
  // `gone` (its endpoints) is released here, outside the lock.
}

void DataPlane::OnEndpointChange() {
  if (!options_.batch_endpoint_changes ||
      waiting_picks_.load(std::memory_order_relaxed) > 0 ||
      async_waiting_.load(std::memory_order_relaxed) > 0) {
    ApplyEndpointChanges();
    return;
  }
  // Changes arriving before the batch runs join it.
  if (changes_pending_.exchange(true)) return;
  options_.timers->RunAfter(absl::ZeroDuration(), [weak = weak_from_this()] {
    if (auto self = weak.lock()) {
      self->changes_pending_.store(false);
      self->ApplyEndpointChanges();
    }
  });
}

void DataPlane::ApplyEndpointChanges() {
  mu_.Lock();
  if (!shutdown_) {
    RefreshStatesLocked();
    PublishLocked();
  }
  FinishUpdate();
}

void DataPlane::PublishLocked() {
  auto picker = std::make_shared<Picker>();
  picker->has_config = config_ != nullptr;
  if (config_ != nullptr) {
    picker->config = config_;
    picker->status = config_->status;
    picker->routes = routes_;
    if (config_->listener != nullptr) {
      if (const auto* api = std::get_if<resources::ApiListener>(
              &config_->listener->listener)) {
        picker->hcm_max_stream_duration =
            api->http_connection_manager.http_max_stream_duration;
      }
    }
  }
  for (const auto& [name, lb] : clusters_) {
    auto pc = std::make_unique<Picker::Cluster>();
    using Mode = Picker::Cluster::Mode;
    if (!lb->error.ok()) {
      pc->mode = Mode::kFail;
      pc->error = absl::UnavailableError(
          absl::StrCat("cluster ", name, ": ", lb->error.message()));
    } else if (lb->current < 0) {
      pc->mode = Mode::kFail;
      pc->error = absl::UnavailableError(
          absl::StrCat("cluster ", name, ": no priority"));
    } else {
      const Child& child =
          *lb->children.at(lb->assignments[lb->current].child_name);
      pc->priority = static_cast<size_t>(lb->current);
      pc->pick_first = child.logical_dns;
      pc->leaf_cluster = child.cluster;
      pc->max_requests = child.max_requests;
      pc->counter = child.counter;
      pc->drop_stats = child.drop_stats;
      pc->drops = child.drops;
      switch (child.reported) {
        case Connectivity::kReady:
          for (const auto& loc : child.localities) {
            auto pl = std::make_unique<Picker::Locality>();
            for (const auto& ep : loc.endpoints) {
              if (ep->state() == Connectivity::kReady) pl->ready.push_back(ep);
            }
            if (pl->ready.empty()) continue;
            pc->total_weight += child.logical_dns ? 1 : loc.weight;
            pl->cumulative_weight = pc->total_weight;
            pl->locality = loc.locality;
            pl->stats = loc.stats;
            pl->next.store(NextRandom() % pl->ready.size());
            pc->localities.push_back(std::move(pl));
            if (child.logical_dns) break;  // pick_first: the first READY
          }
          pc->mode = pc->localities.empty() ? Mode::kQueue : Mode::kPick;
          if (pc->localities.empty()) {
            pc->wait_reason =
                absl::StrCat("cluster ", name, ": priority ", lb->current, " (",
                             child.name, ") has no READY endpoint yet");
          }
          break;
        case Connectivity::kTransientFailure:
          pc->mode = Mode::kFail;
          pc->error = absl::UnavailableError(absl::StrCat(
              "cluster ", name, ": all priorities failing; priority ",
              lb->current, " (", child.name, "): ", child.reason,
              EndpointFailures(child)));
          break;
        default:
          pc->mode = Mode::kQueue;
          pc->wait_reason = absl::StrCat("cluster ", name, ": priority ",
                                         lb->current, " (", child.name, ") is ",
                                         ConnectivityName(child.reported));
      }
    }
    picker->clusters[name] = std::move(pc);
  }
  std::atomic_store(&picker_, std::shared_ptr<const Picker>(picker));
  ++picker_version_;
  picker_changed_.notify_all();
  // Async picks that can go now.
  bool stale = false;
  for (auto it = waiters_.begin(); it != waiters_.end();) {
    Waiter& w = *it->second;
    PickOutcome outcome = PickOutcome::kDone;
    PickResult r = TryPickOnce(PickArgs{w.path, w.metadata}, &outcome);
    if (outcome != PickOutcome::kDone) {
      stale = stale || outcome == PickOutcome::kStale;
      ++it;
      continue;
    }
    if (w.timer != 0) options_.timers->Cancel(w.timer);
    ready_picks_.emplace_back(std::move(w.done), std::move(r));
    it = waiters_.erase(it);
  }
  async_waiting_.store(waiters_.size(), std::memory_order_relaxed);
  // A waiter's endpoint was found no longer READY (its state is recorded
  // now): a picker without it, for the waiters still queued.
  if (stale) {
    if (republish_depth_ < kMaxRepublish) {
      ++republish_depth_;
      RepublishLocked();
      --republish_depth_;
    } else {
      ScheduleApplyLocked();
    }
  }
}

void DataPlane::RepublishLocked() {
  // A lost connection seldom comes alone (a backend going away closes the
  // connections of every endpoint it serves): every endpoint the current
  // pickers use is asked once, so one re-publication leaves them all out
  // instead of one per pick.
  for (const auto& [name, lb] : clusters_) {
    if (lb->current < 0) continue;
    auto it = lb->children.find(lb->assignments[lb->current].child_name);
    if (it == lb->children.end()) continue;
    for (const auto& loc : it->second->localities) {
      for (const auto& ep : loc.endpoints) {
        if (ep->state() == Connectivity::kReady) ep->Recheck();
      }
    }
  }
  RefreshStatesLocked();
  PublishLocked();
}

void DataPlane::ScheduleApplyLocked() {
  if (changes_pending_.exchange(true)) return;
  options_.timers->RunAfter(absl::ZeroDuration(), [weak = weak_from_this()] {
    if (auto self = weak.lock()) {
      self->changes_pending_.store(false);
      self->ApplyEndpointChanges();
    }
  });
}

void DataPlane::FinishUpdate() {
  auto to_start = std::move(to_start_);
  to_start_.clear();
  auto reresolve = std::move(reresolve_);
  reresolve_.clear();
  auto ready = std::move(ready_picks_);
  ready_picks_.clear();
  mu_.Unlock();
  // First: a failover's new priority waits for these connections. Started
  // outside the lock, so picks (and the picker that leaves a failing
  // priority, already published) do not wait for gRPC's channel setup.
  for (const auto& e : to_start) e->Start();
  to_start.clear();
  if (options_.request_reresolution) {
    for (const auto& [root, leaf] : reresolve) {
      options_.request_reresolution(root, leaf);
    }
  }
  for (auto& [done, result] : ready) done(std::move(result));
}

PickResult DataPlane::TryPick(const PickArgs& args, bool* queued) {
  PickOutcome outcome = PickOutcome::kDone;
  PickResult r = TryPickOnce(args, &outcome);
  for (int i = 0; outcome == PickOutcome::kStale; ++i) {
    mu_.Lock();
    // Unless another pick already replaced the picker that was stale.
    if (!shutdown_ && std::atomic_load(&picker_) == r.picker) {
      RepublishLocked();
    }
    FinishUpdate();
    if (i == kMaxRepublish) break;
    r = TryPickOnce(args, &outcome);
  }
  *queued = outcome != PickOutcome::kDone;
  return r;
}

PickResult DataPlane::TryPickOnce(const PickArgs& args,
                                  PickOutcome* outcome) const {
  *outcome = PickOutcome::kDone;
  std::shared_ptr<const Picker> picker = std::atomic_load(&picker_);
  if (picker == nullptr || !picker->has_config) {
    *outcome = PickOutcome::kQueued;
    return PickResult();
  }
  if (!picker->status.ok()) {
    return Failed(absl::UnavailableError(picker->status.message()));
  }
  // Reused per thread: a repeated header's joined value needs a buffer.
  thread_local std::string scratch;
  const resources::Route* route = picker->routes->Match(
      args.path,
      [&args](absl::string_view name, std::string* s) {
        return LookupHeader(args.metadata, name, s);
      },
      routing::ThreadLocalRandom, &scratch);
  if (route == nullptr) {
    return Failed(absl::UnavailableError(
        absl::StrCat("no matching route for ", args.path)));
  }
  const auto* action = std::get_if<resources::RouteAction>(&route->action);
  if (action == nullptr) {
    return Failed(absl::UnavailableError(
        absl::StrCat("matching route for ", args.path,
                     " has no cluster action (not a forwarding route)")));
  }
  const std::string& cluster_name =
      routing::PickCluster(*action, routing::ThreadLocalRandom);
  auto it = picker->clusters.find(cluster_name);
  if (it == picker->clusters.end()) {
    return Failed(absl::UnavailableError(
        absl::StrCat("cluster ", cluster_name, " is not in the config")));
  }
  const Picker::Cluster& pc = *it->second;
  switch (pc.mode) {
    case Picker::Cluster::Mode::kQueue:
      *outcome = PickOutcome::kQueued;
      return PickResult();
    case Picker::Cluster::Mode::kFail:
      return Failed(pc.error);
    case Picker::Cluster::Mode::kPick:
      break;
  }
  // xds_cluster_impl: drops by category, then the circuit breaker.
  for (const auto& drop : pc.drops) {
    if (NextRandom() % 1000000 < drop.parts_per_million) {
      if (pc.drop_stats != nullptr) pc.drop_stats->AddCallDropped(drop.name);
      return Failed(absl::UnavailableError(
          absl::StrCat("EDS-configured drop: ", drop.name)));
    }
  }
  // weighted_target over READY localities, then round robin.
  const Picker::Locality* loc = pc.localities.front().get();
  if (!pc.pick_first && pc.localities.size() > 1) {
    const uint64_t point = NextRandom() % pc.total_weight;
    auto l = std::upper_bound(
        pc.localities.begin(), pc.localities.end(), point,
        [](uint64_t v, const std::unique_ptr<Picker::Locality>& x) {
          return v < x->cumulative_weight;
        });
    loc = l->get();
  }
  const size_t index = pc.pick_first
                           ? 0
                           : loc->next.fetch_add(1, std::memory_order_relaxed) %
                                 loc->ready.size();
  const std::shared_ptr<Endpoint>& endpoint = loc->ready[index];
  // C-core queues a pick whose subchannel is no longer connected, before
  // its call tracker starts: nothing is counted for this attempt.
  if (endpoint->Recheck() != Connectivity::kReady) {
    *outcome = PickOutcome::kStale;
    PickResult stale;
    stale.picker = std::move(picker);
    return stale;
  }
  if (!lrs::StartCallOrRecordDrop(*pc.counter, pc.max_requests,
                                  pc.drop_stats.get())) {
    return Failed(absl::UnavailableError(absl::StrCat(
        "circuit breaker drop: cluster ", pc.counter->cluster(),
        " has max_concurrent_requests ", pc.max_requests, " in flight")));
  }
  PickResult result;
  result.endpoint = endpoint;
  if (loc->stats != nullptr) loc->stats->AddCallStarted();
  result.tracker = CallTracker(pc.counter, loc->stats);
  result.cluster = it->first;
  result.leaf_cluster = pc.leaf_cluster;
  result.priority = pc.priority;
  result.locality = &loc->locality;
  const std::optional<resources::ProtoDuration>& msd =
      action->max_stream_duration.has_value() ? action->max_stream_duration
                                              : picker->hcm_max_stream_duration;
  if (msd.has_value() && (msd->seconds != 0 || msd->nanos != 0)) {
    result.max_stream_duration =
        absl::Seconds(msd->seconds) + absl::Nanoseconds(msd->nanos);
  }
  result.picker = std::move(picker);
  return result;
}

PickResult DataPlane::Pick(const PickArgs& args, absl::Time deadline) {
  PickOutcome outcome = PickOutcome::kDone;
  PickResult r = TryPickOnce(args, &outcome);
  if (outcome == PickOutcome::kDone) return r;
  int republished = 0;
  mu_.Lock();
  while (true) {
    if (shutdown_) {
      FinishUpdate();
      return Failed(absl::UnavailableError("channel shut down"));
    }
    if (outcome == PickOutcome::kStale && republished < kMaxRepublish) {
      ++republished;
      // Unless another pick already replaced the stale picker.
      if (std::atomic_load(&picker_) == r.picker) RepublishLocked();
    }
    const uint64_t version = picker_version_;
    r = TryPickOnce(args, &outcome);
    if (outcome == PickOutcome::kDone) break;
    if (outcome == PickOutcome::kStale) {
      if (republished < kMaxRepublish) continue;
      ScheduleApplyLocked();
    }
    // What a re-publication here made ready (async picks, re-resolution)
    // runs before this pick waits.
    if (!ready_picks_.empty() || !reresolve_.empty()) {
      FinishUpdate();
      mu_.Lock();
      if (picker_version_ != version) continue;
    }
    bool timed_out = false;
    waiting_picks_.fetch_add(1, std::memory_order_relaxed);
    while (picker_version_ == version && !timed_out && !shutdown_) {
      if (deadline == absl::InfiniteFuture()) {
        picker_changed_.wait(mu_);
      } else if (picker_changed_.wait_until(mu_,
                                            absl::ToChronoTime(deadline)) ==
                     std::cv_status::timeout &&
                 picker_version_ == version) {
        timed_out = true;
      }
    }
    waiting_picks_.fetch_sub(1, std::memory_order_relaxed);
    if (timed_out) {
      FinishUpdate();
      return Failed(WaitTimedOut(args));
    }
  }
  FinishUpdate();
  return r;
}

void DataPlane::PickAsync(const PickArgs& args, absl::Time deadline,
                          std::function<void(PickResult)> done) {
  PickOutcome outcome = PickOutcome::kDone;
  PickResult r = TryPickOnce(args, &outcome);
  if (outcome == PickOutcome::kDone) {
    done(std::move(r));
    return;
  }
  auto w = std::make_unique<Waiter>();
  w->path = std::string(args.path);
  for (const auto& [k, v] : args.metadata) {
    w->metadata_storage.emplace_back(std::string(k), std::string(v));
  }
  for (const auto& [k, v] : w->metadata_storage) w->metadata.emplace_back(k, v);
  w->done = std::move(done);
  mu_.Lock();
  if (shutdown_) {
    mu_.Unlock();
    w->done(Failed(absl::UnavailableError("channel shut down")));
    return;
  }
  for (int republished = 0;; ++republished) {
    if (outcome == PickOutcome::kStale) {
      if (republished == kMaxRepublish) {
        ScheduleApplyLocked();
        break;  // waits for the next picker
      }
      if (std::atomic_load(&picker_) == r.picker) RepublishLocked();
    }
    // A picker published since the last attempt: try again.
    r = TryPickOnce(PickArgs{w->path, w->metadata}, &outcome);
    if (outcome == PickOutcome::kDone) {
      FinishUpdate();
      w->done(std::move(r));
      return;
    }
    if (outcome == PickOutcome::kQueued) break;
  }
  const uint64_t id = next_token_++;
  if (deadline != absl::InfiniteFuture()) {
    w->timer = options_.timers->RunAfter(deadline - options_.timers->Now(),
                                         [weak = weak_from_this(), id] {
                                           if (auto self = weak.lock())
                                             self->OnWaiterDeadline(id);
                                         });
  }
  waiters_[id] = std::move(w);
  async_waiting_.store(waiters_.size(), std::memory_order_relaxed);
  FinishUpdate();
}

void DataPlane::OnWaiterDeadline(uint64_t id) {
  std::unique_ptr<Waiter> w;
  {
    MutexLock lock(&mu_);
    auto it = waiters_.find(id);
    if (it == waiters_.end()) return;
    w = std::move(it->second);
    waiters_.erase(it);
    async_waiting_.store(waiters_.size(), std::memory_order_relaxed);
  }
  w->done(Failed(WaitTimedOut(PickArgs{w->path, w->metadata})));
}

absl::Status DataPlane::WaitTimedOut(const PickArgs& args) const {
  constexpr absl::string_view kPrefix = "deadline exceeded while waiting for ";
  std::shared_ptr<const Picker> picker = std::atomic_load(&picker_);
  if (picker == nullptr || !picker->has_config) {
    std::string missing;
    if (options_.describe_missing_config) {
      missing = options_.describe_missing_config();
    }
    return absl::DeadlineExceededError(
        absl::StrCat(kPrefix, "the xDS configuration",
                     missing.empty() ? "" : ": ", missing));
  }
  // The route and cluster the pick would take now (a weighted choice may
  // name another cluster than the one it waited on; the message is a hint).
  std::string scratch;
  const resources::Route* route =
      picker->status.ok()
          ? picker->routes->Match(
                args.path,
                [&args](absl::string_view name, std::string* s) {
                  return LookupHeader(args.metadata, name, s);
                },
                routing::ThreadLocalRandom, &scratch)
          : nullptr;
  const auto* action =
      route == nullptr ? nullptr
                       : std::get_if<resources::RouteAction>(&route->action);
  if (action != nullptr) {
    auto it = picker->clusters.find(
        routing::PickCluster(*action, routing::ThreadLocalRandom));
    if (it != picker->clusters.end() && !it->second->wait_reason.empty()) {
      return absl::DeadlineExceededError(
          absl::StrCat(kPrefix, it->second->wait_reason));
    }
  }
  return absl::DeadlineExceededError(
      absl::StrCat(kPrefix, "a connecting priority"));
}

std::map<std::string, std::string> DataPlane::DebugState() const {
  MutexLock lock(&mu_);
  std::map<std::string, std::string> out;
  for (const auto& [name, lb] : clusters_) {
    std::string s = absl::StrCat("current=", lb->current);
    if (!lb->error.ok()) absl::StrAppend(&s, " error=", lb->error.message());
    for (const auto& a : lb->assignments) {
      auto it = lb->children.find(a.child_name);
      if (it == lb->children.end()) continue;
      absl::StrAppend(&s, " ", a.child_name, ":",
                      ConnectivityName(it->second->reported),
                      it->second->retention_token != 0 ? "(retained)" : "");
    }
    out[name] = s;
  }
  return out;
}

size_t DataPlane::endpoint_count() const {
  MutexLock lock(&mu_);
  size_t n = 0;
  for (const auto& [address, weak] : endpoints_) {
    if (!weak.expired()) ++n;
  }
  return n;
}

}  // namespace channel
}  // namespace xdsfed
