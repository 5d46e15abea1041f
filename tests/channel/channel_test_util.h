// Fakes for lib/channel unit tests: endpoints whose connectivity the test
// sets, and XdsConfig snapshots built by hand (one virtual host, clusters
// with EDS / LOGICAL_DNS leaves).
#ifndef XDSFED_TESTS_CHANNEL_CHANNEL_TEST_UTIL_H_
#define XDSFED_TESTS_CHANNEL_CHANNEL_TEST_UTIL_H_

#include <atomic>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "lib/base/mutex.h"
#include "lib/channel/endpoint.h"
#include "lib/cluster/lb_config.h"
#include "lib/xds_config/xds_config.h"

namespace xdsfed {
namespace channel {
namespace testing {

// Two states: the one notified to the data plane (state()) and the one its
// transport has now (Recheck()), which differ between a connection's loss
// and its notification.
class FakeEndpoint : public Endpoint {
 public:
  FakeEndpoint(std::string address, Connectivity initial)
      : address_(std::move(address)), state_(initial), transport_(initial) {}
  const std::string& address() const override { return address_; }
  Connectivity state() const override { return state_.load(); }
  const std::shared_ptr<grpc::Channel>& channel() const override {
    return channel_;
  }
  Connectivity Recheck() override {
    rechecks_.fetch_add(1);
    Connectivity now = transport_.load();
    if (now != Connectivity::kReady) {
      Connectivity expected = Connectivity::kReady;
      state_.compare_exchange_strong(expected, now);
    }
    return now;
  }
  void Start() override {
    started_.fetch_add(1);
    if (on_start_) on_start_(address_);
  }
  void set_state(Connectivity s) {
    transport_.store(s);
    state_.store(s);
  }
  void set_on_start(std::function<void(const std::string&)> f) {
    on_start_ = std::move(f);
  }
  int started() const { return started_.load(); }
  void set_transport_state(Connectivity s) { transport_.store(s); }
  int rechecks() const { return rechecks_.load(); }
  std::string failure_reason() const override {
    MutexLock lock(&reason_mu_);
    return reason_;
  }
  void set_failure_reason(std::string r) {
    MutexLock lock(&reason_mu_);
    reason_ = std::move(r);
  }

 private:
  const std::string address_;
  std::atomic<Connectivity> state_;
  std::atomic<Connectivity> transport_;
  std::atomic<int> rechecks_{0};
  std::atomic<int> started_{0};
  std::function<void(const std::string&)> on_start_;
  std::shared_ptr<grpc::Channel> channel_;
  mutable Mutex reason_mu_;
  std::string reason_ ABSL_GUARDED_BY(reason_mu_);
};

class FakeEndpointFactory : public EndpointFactory {
 public:
  // New endpoints start in `initial`.
  explicit FakeEndpointFactory(Connectivity initial = Connectivity::kConnecting)
      : initial_(initial) {}

  std::shared_ptr<Endpoint> Create(const std::string& address,
                                   std::function<void()> on_change) override {
    auto e = std::make_shared<FakeEndpoint>(address, initial_);
    MutexLock lock(&mu_);
    e->set_on_start(on_start_);
    ++created_;
    live_[address] = Entry{e, std::move(on_change)};
    return e;
  }
  // A TLS endpoint (A29) is live as "<address>#tls"; its settings' keys in
  // creation order are tls_keys().
  std::shared_ptr<Endpoint> CreateTls(
      const std::string& address,
      std::shared_ptr<const resources::UpstreamTlsContext> tls,
      std::function<void()> on_change) override {
    auto e = std::make_shared<FakeEndpoint>(address, initial_);
    MutexLock lock(&mu_);
    e->set_on_start(on_start_);
    ++created_;
    tls_keys_.push_back(tls->Key());
    live_[address + "#tls"] = Entry{e, std::move(on_change)};
    return e;
  }
  std::vector<std::string> tls_keys() {
    MutexLock lock(&mu_);
    return tls_keys_;
  }
  // Sets the state of a live endpoint and tells its owner.
  void Set(const std::string& address, Connectivity s) {
    std::function<void()> notify;
    {
      MutexLock lock(&mu_);
      auto it = live_.find(address);
      if (it == live_.end()) return;
      auto e = it->second.endpoint.lock();
      if (e == nullptr) return;
      e->set_state(s);
      notify = it->second.on_change;
    }
    if (notify) notify();
  }
  // The connection of a live endpoint changes to `s` but the change is not
  // notified yet (only Recheck sees it).
  void SetUnnotified(const std::string& address, Connectivity s) {
    if (auto e = Get(address)) e->set_transport_state(s);
  }
  std::shared_ptr<FakeEndpoint> Get(const std::string& address) {
    MutexLock lock(&mu_);
    auto it = live_.find(address);
    return it == live_.end() ? nullptr : it->second.endpoint.lock();
  }
  bool Alive(const std::string& address) {
    MutexLock lock(&mu_);
    auto it = live_.find(address);
    return it != live_.end() && !it->second.endpoint.expired();
  }
  int created() {
    MutexLock lock(&mu_);
    return created_;
  }
  // Runs in Endpoint::Start of the endpoints created from now on.
  void set_on_start(std::function<void(const std::string&)> f) {
    MutexLock lock(&mu_);
    on_start_ = std::move(f);
  }

 private:
  struct Entry {
    std::weak_ptr<FakeEndpoint> endpoint;
    std::function<void()> on_change;
  };
  const Connectivity initial_;
  Mutex mu_;
  std::map<std::string, Entry> live_ ABSL_GUARDED_BY(mu_);
  int created_ ABSL_GUARDED_BY(mu_) = 0;
  std::vector<std::string> tls_keys_ ABSL_GUARDED_BY(mu_);
  std::function<void(const std::string&)> on_start_ ABSL_GUARDED_BY(mu_);
};

// One locality of one priority.
struct TestLocality {
  std::string zone;
  uint32_t weight = 1;
  std::vector<std::string> addresses;
};

// An EDS leaf: priorities of localities.
inline cluster::ResolvedMechanism EdsLeaf(
    const std::string& cluster,
    std::vector<std::vector<TestLocality>> priorities,
    std::vector<resources::EndpointResource::DropCategory> drops = {},
    uint32_t max_requests = 1024) {
  cluster::ResolvedMechanism m;
  m.mechanism.cluster = cluster;
  m.mechanism.type = cluster::DiscoveryMechanism::Type::kEds;
  m.mechanism.max_concurrent_requests = max_requests;
  auto eds = std::make_shared<resources::EndpointResource>();
  eds->cluster_name = cluster;
  for (const auto& localities : priorities) {
    resources::EndpointResource::Priority p;
    for (const auto& l : localities) {
      resources::EndpointResource::LocalityEndpoints group;
      group.weight = l.weight;
      for (const auto& a : l.addresses) {
        resources::EndpointResource::Endpoint e;
        e.address = a;
        group.endpoints.push_back(e);
      }
      p.localities[{"r", l.zone, ""}] = group;
    }
    eds->priorities.push_back(std::move(p));
  }
  eds->drop_categories = std::move(drops);
  m.endpoints = std::move(eds);
  return m;
}

inline cluster::ResolvedMechanism DnsLeaf(
    const std::string& cluster, const std::vector<std::string>& addresses) {
  cluster::ResolvedMechanism m;
  m.mechanism.cluster = cluster;
  m.mechanism.type = cluster::DiscoveryMechanism::Type::kLogicalDns;
  m.mechanism.dns_hostname = "localhost:1";
  m.endpoints = cluster::EndpointsFromDnsAddresses(cluster, addresses);
  return m;
}

inline std::shared_ptr<const xds_config::ClusterConfig> Cluster(
    const std::string& name, std::vector<cluster::ResolvedMechanism> leaves,
    absl::Status status = absl::OkStatus()) {
  auto c = std::make_shared<xds_config::ClusterConfig>();
  c->name = name;
  c->status = std::move(status);
  c->tree = {name};
  c->leaf_errors.resize(leaves.size());
  c->leaves = std::move(leaves);
  return c;
}

// A route: path prefix -> cluster, or weighted clusters.
struct TestRoute {
  std::string prefix;
  std::string cluster;
  std::vector<std::pair<std::string, uint32_t>> weighted;
  std::optional<resources::ProtoDuration> max_stream_duration;
};

inline std::shared_ptr<const xds_config::XdsConfig> Config(
    std::vector<TestRoute> routes,
    std::vector<std::shared_ptr<const xds_config::ClusterConfig>> clusters) {
  auto rc = std::make_shared<resources::RouteConfig>();
  rc->name = "rc";
  resources::VirtualHost vh;
  vh.name = "vh";
  vh.domains = {"*"};
  for (const auto& r : routes) {
    resources::Route route;
    route.match.path.type = resources::StringMatch::Type::kPrefix;
    route.match.path.value = r.prefix;
    resources::RouteAction action;
    action.cluster = r.cluster;
    action.max_stream_duration = r.max_stream_duration;
    for (const auto& [name, w] : r.weighted) {
      action.weighted_clusters.push_back({name, w});
    }
    route.action = action;
    vh.routes.push_back(route);
  }
  rc->virtual_hosts.push_back(vh);
  auto config = std::make_shared<xds_config::XdsConfig>();
  config->route_config = rc;
  config->virtual_host = &rc->virtual_hosts[0];
  std::map<std::string, std::shared_ptr<const xds_config::ClusterConfig>> m;
  for (auto& c : clusters) m[c->name] = c;
  std::vector<std::string> names;
  for (const auto& [n, c] : m) names.push_back(n);
  config->clusters = xds_config::ClusterMap(names);
  for (size_t i = 0; i < names.size(); ++i) {
    config->clusters.Set(i, m[names[i]]);
  }
  return config;
}

}  // namespace testing
}  // namespace channel
}  // namespace xdsfed

#endif  // XDSFED_TESTS_CHANNEL_CHANNEL_TEST_UTIL_H_
