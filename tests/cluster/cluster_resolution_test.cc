// Tests for lib/cluster/cluster_resolution.h: the A37 driver over a fake
// data source and a fake DNS resolver, so every event is delivered by the
// test thread in a chosen order. Each test names the A37 (or A47) rule it
// checks.
#include "lib/cluster/cluster_resolution.h"

#include <algorithm>
#include <chrono>
#include <condition_variable>
#include <map>
#include <memory>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"
#include "gtest/gtest.h"

namespace xdsfed {
namespace cluster {
namespace {

using resources::ClusterResource;
using resources::EndpointResource;

// Watches recorded by name; events delivered to every watcher of a name.
class FakeSource : public ClusterDataSource {
 public:
  WatchHandle WatchCluster(
      const std::string& name,
      std::shared_ptr<resources::ResourceWatcher<ClusterResource>> watcher)
      override {
    return Add(&cds_, name, std::move(watcher));
  }
  WatchHandle WatchEndpoints(
      const std::string& name,
      std::shared_ptr<resources::ResourceWatcher<EndpointResource>> watcher)
      override {
    return Add(&eds_, name, std::move(watcher));
  }
  void CancelWatch(WatchHandle handle) override {
    Remove(&cds_, handle);
    Remove(&eds_, handle);
  }

  // "A,B,C": the watched CDS names, sorted, each once per watch.
  std::string CdsWatches() const { return Names(cds_); }
  std::string EdsWatches() const { return Names(eds_); }

  void Cluster(const ClusterResource& value) {
    auto shared = std::make_shared<const ClusterResource>(value);
    for (const auto& w : WatchersOf(cds_, value.name)) w->OnChanged(shared);
  }
  void ClusterError(const std::string& name, absl::Status status) {
    for (const auto& w : WatchersOf(cds_, name)) w->OnError(status);
  }
  void ClusterDoesNotExist(const std::string& name) {
    for (const auto& w : WatchersOf(cds_, name)) w->OnDoesNotExist();
  }
  void Endpoints(const std::string& name, const std::string& address) {
    auto value = std::make_shared<EndpointResource>();
    value->cluster_name = name;
    EndpointResource::Locality locality{"r", "z", ""};
    auto& entry = value->priorities.emplace_back().localities[locality];
    entry.weight = 1;
    entry.endpoints.push_back({address});
    for (const auto& w : WatchersOf(eds_, name)) w->OnChanged(value);
  }
  void EndpointsError(const std::string& name, absl::Status status) {
    for (const auto& w : WatchersOf(eds_, name)) w->OnError(status);
  }
  void EndpointsDoesNotExist(const std::string& name) {
    for (const auto& w : WatchersOf(eds_, name)) w->OnDoesNotExist();
  }

 private:
  template <typename T>
  struct Watches {
    std::map<
        std::string,
        std::map<WatchHandle, std::shared_ptr<resources::ResourceWatcher<T>>>>
        by_name;
    std::map<WatchHandle, std::string> names;
  };

  template <typename T>
  WatchHandle Add(Watches<T>* watches, const std::string& name,
                  std::shared_ptr<resources::ResourceWatcher<T>> watcher) {
    WatchHandle handle = next_++;
    watches->by_name[name][handle] = std::move(watcher);
    watches->names[handle] = name;
    return handle;
  }
  template <typename T>
  static void Remove(Watches<T>* watches, WatchHandle handle) {
    auto it = watches->names.find(handle);
    if (it == watches->names.end()) return;
    auto& of_name = watches->by_name[it->second];
    of_name.erase(handle);
    if (of_name.empty()) watches->by_name.erase(it->second);
    watches->names.erase(it);
  }
  template <typename T>
  static std::string Names(const Watches<T>& watches) {
    std::vector<std::string> names;
    for (const auto& [handle, name] : watches.names) names.push_back(name);
    std::sort(names.begin(), names.end());
    return absl::StrJoin(names, ",");
  }
  // A copy: a callback may start or cancel watches.
  template <typename T>
  static std::vector<std::shared_ptr<resources::ResourceWatcher<T>>> WatchersOf(
      const Watches<T>& watches, const std::string& name) {
    std::vector<std::shared_ptr<resources::ResourceWatcher<T>>> out;
    auto it = watches.by_name.find(name);
    if (it == watches.by_name.end()) return out;
    for (const auto& [handle, watcher] : it->second) out.push_back(watcher);
    return out;
  }

  WatchHandle next_ = 1;
  Watches<ClusterResource> cds_;
  Watches<EndpointResource> eds_;
};

// Requests are held until the test answers them.
class FakeDns : public DnsResolver {
 public:
  Handle Resolve(std::string host_port, Callback done) override {
    pending_.push_back({next_, std::move(host_port), std::move(done)});
    ++queries_;
    return next_++;
  }
  void Cancel(Handle handle) override {
    for (auto it = pending_.begin(); it != pending_.end(); ++it) {
      if (it->handle == handle) {
        pending_.erase(it);
        ++cancelled_;
        return;
      }
    }
  }
  size_t pending() const { return pending_.size(); }
  int queries() const { return queries_; }
  int cancelled() const { return cancelled_; }
  std::string PendingName(size_t i) const { return pending_[i].host_port; }
  // Answers the oldest request.
  void Answer(absl::StatusOr<std::vector<std::string>> result) {
    Query request = std::move(pending_.front());
    pending_.erase(pending_.begin());
    request.done(std::move(result));
  }

 private:
  struct Query {
    Handle handle;
    std::string host_port;
    Callback done;
  };
  std::vector<Query> pending_;
  Handle next_ = 1;
  int queries_ = 0;
  int cancelled_ = 0;
};

// Timers the test fires by hand; records the delays asked for.
class FakeRetryTimer : public RetryTimer {
 public:
  Handle RunAfter(absl::Duration delay, std::function<void()> fn) override {
    delays_.push_back(delay);
    timers_[next_] = std::move(fn);
    return next_++;
  }
  void Cancel(Handle handle) override { timers_.erase(handle); }
  size_t pending() const { return timers_.size(); }
  const std::vector<absl::Duration>& delays() const { return delays_; }
  // Runs every pending timer.
  void FireAll() {
    auto timers = std::move(timers_);
    timers_.clear();
    for (auto& [handle, fn] : timers) fn();
  }

 private:
  std::map<Handle, std::function<void()>> timers_;
  std::vector<absl::Duration> delays_;
  Handle next_ = 1;
};

ClusterResource Eds(const std::string& name, const std::string& service = "") {
  ClusterResource c;
  c.name = name;
  c.kind = ClusterResource::Eds{service};
  return c;
}
ClusterResource Dns(const std::string& name, const std::string& host,
                    uint32_t port) {
  ClusterResource c;
  c.name = name;
  c.kind = ClusterResource::LogicalDns{host, port};
  return c;
}
ClusterResource Aggregate(const std::string& name, absl::string_view children) {
  ClusterResource c;
  c.name = name;
  c.kind = ClusterResource::Aggregate{absl::StrSplit(children, ',')};
  return c;
}

// "EDS B(10.0.0.1:80) | LOGICAL_DNS E(none)" or "error: <status>".
std::string Describe(const ClusterResolution::Update& update) {
  if (!update.status.ok())
    return absl::StrCat("error: ", update.status.ToString());
  std::vector<std::string> parts;
  for (const auto& m : update.mechanisms) {
    std::vector<std::string> addresses;
    if (m.endpoints != nullptr) {
      for (const auto& priority : m.endpoints->priorities) {
        for (const auto& [locality, entry] : priority.localities) {
          for (const auto& endpoint : entry.endpoints) {
            addresses.push_back(endpoint.address);
          }
        }
      }
    }
    parts.push_back(absl::StrCat(
        m.mechanism.type == DiscoveryMechanism::Type::kEds ? "EDS "
                                                           : "LOGICAL_DNS ",
        m.mechanism.cluster, "(",
        m.endpoints == nullptr ? "none" : absl::StrJoin(addresses, " "), ")"));
  }
  return absl::StrJoin(parts, " | ");
}

class ClusterResolutionTest : public ::testing::Test {
 protected:
  void Start(const std::string& root, ClusterResolution::Options options = {}) {
    options.dns_resolver = dns_;
    resolution_ = ClusterResolution::Start(
        source_, root, std::move(options),
        [this](const ClusterResolution::Update& update) {
          updates_.push_back(Describe(update));
          last_ = update;
        });
  }
  // The updates since the last call, joined by "\n".
  std::string TakeUpdates() {
    std::string out = absl::StrJoin(updates_, "\n");
    updates_.clear();
    return out;
  }
  // The A37 example: A -> [B, C], C -> [D, E]; B, D EDS, E LOGICAL_DNS.
  void DeliverA37Example() {
    source_->Cluster(Aggregate("A", "B,C"));
    source_->Cluster(Eds("B"));
    source_->Cluster(Aggregate("C", "D,E"));
    source_->Cluster(Eds("D", "svc-d"));
    source_->Cluster(Dns("E", "dns.example.com", 443));
  }

  std::shared_ptr<FakeSource> source_ = std::make_shared<FakeSource>();
  std::shared_ptr<FakeDns> dns_ = std::make_shared<FakeDns>();
  std::shared_ptr<FakeRetryTimer> timer_ = std::make_shared<FakeRetryTimer>();
  std::shared_ptr<ClusterResolution> resolution_;
  std::vector<std::string> updates_;
  ClusterResolution::Update last_;
};

// A37 §CDS LB Policy Support: the worked example gives
// [EDS for B, EDS for D, logical DNS for E]; the update waits until every
// mechanism has reported (as xds_cluster_resolver does).
TEST_F(ClusterResolutionTest, A37ExampleReportsOnceEveryMechanismReported) {
  Start("A");
  EXPECT_EQ(source_->CdsWatches(), "A");
  DeliverA37Example();
  EXPECT_EQ(source_->CdsWatches(), "A,B,C,D,E");
  EXPECT_EQ(source_->EdsWatches(), "B,svc-d");
  ASSERT_EQ(dns_->pending(), 1u);
  EXPECT_EQ(dns_->PendingName(0), "dns.example.com:443");
  source_->Endpoints("B", "10.0.0.1:80");
  source_->Endpoints("svc-d", "10.0.0.2:80");
  EXPECT_EQ(TakeUpdates(), "");
  dns_->Answer(std::vector<std::string>{"10.0.0.3:443", "[::1]:443"});
  EXPECT_EQ(TakeUpdates(),
            "EDS B(10.0.0.1:80) | EDS D(10.0.0.2:80) | "
            "LOGICAL_DNS E(10.0.0.3:443 [::1]:443)");
  EXPECT_EQ(absl::StrJoin(last_.clusters, ","), "A,B,C,D,E");
  // A37 §Discovery Mechanisms: DNS: one priority, one locality, empty fields.
  const auto& dns_endpoints = *last_.mechanisms[2].endpoints;
  ASSERT_EQ(dns_endpoints.priorities.size(), 1u);
  ASSERT_EQ(dns_endpoints.priorities[0].localities.size(), 1u);
  EXPECT_EQ(dns_endpoints.priorities[0].localities.begin()->first,
            EndpointResource::Locality{});
  // An endpoint update goes out on its own.
  source_->Endpoints("B", "10.0.0.9:80");
  EXPECT_EQ(TakeUpdates(),
            "EDS B(10.0.0.9:80) | EDS D(10.0.0.2:80) | "
            "LOGICAL_DNS E(10.0.0.3:443 [::1]:443)");
}

// A37: "If any of a CDS policy's watchers reports that the resource does not
// exist, the policy should report that it is in TRANSIENT_FAILURE."
TEST_F(ClusterResolutionTest, MissingChildIsTransientFailure) {
  Start("A");
  source_->Cluster(Aggregate("A", "B,C"));
  source_->Cluster(Eds("B"));
  source_->ClusterDoesNotExist("C");
  EXPECT_EQ(TakeUpdates(),
            "error: UNAVAILABLE: CDS resource \"C\" does not exist");
  EXPECT_EQ(source_->EdsWatches(), "");  // no mechanisms while failing
  // The same failure again says nothing new.
  source_->Cluster(Eds("B", "other"));
  EXPECT_EQ(TakeUpdates(), "");
  // C appears: the tree recovers.
  source_->Cluster(Eds("C"));
  source_->Endpoints("other", "10.0.0.1:80");
  source_->Endpoints("C", "10.0.0.2:80");
  EXPECT_EQ(TakeUpdates(), "EDS B(10.0.0.1:80) | EDS C(10.0.0.2:80)");
}

// A37: a transient ADS error is TRANSIENT_FAILURE only if no config was
// passed to the child yet; after that the last config stays.
TEST_F(ClusterResolutionTest, TransientErrorFailsOnlyBeforeFirstConfig) {
  Start("A");
  source_->ClusterError("A", absl::UnavailableError("connection refused"));
  EXPECT_EQ(TakeUpdates(),
            "error: UNAVAILABLE: CDS resource \"A\": connection refused");
  source_->Cluster(Eds("A"));
  source_->Endpoints("A", "10.0.0.1:80");
  EXPECT_EQ(TakeUpdates(), "EDS A(10.0.0.1:80)");
  source_->ClusterError("A", absl::UnavailableError("connection reset"));
  EXPECT_EQ(TakeUpdates(), "");
}

// A37 §CDS LB Policy Support: depth limit 16 (root = depth 0).
TEST_F(ClusterResolutionTest, DepthOverSixteenIsTransientFailure) {
  Start("c0");
  for (int i = 0; i < 16; ++i) {
    source_->Cluster(Aggregate(absl::StrCat("c", i), absl::StrCat("c", i + 1)));
  }
  std::string updates = TakeUpdates();
  EXPECT_NE(updates.find("exceeds max depth of 16"), std::string::npos)
      << updates;
}

// The driver keeps exactly the watches the tree needs: when A drops C, the
// watches of C, D, E and D's EDS go, and E's late DNS answer is ignored.
TEST_F(ClusterResolutionTest, UnreachableWatchesAreCancelled) {
  Start("A");
  DeliverA37Example();
  source_->Endpoints("B", "10.0.0.1:80");
  source_->Endpoints("svc-d", "10.0.0.2:80");
  source_->Cluster(Aggregate("A", "B"));
  EXPECT_EQ(source_->CdsWatches(), "A,B");
  EXPECT_EQ(source_->EdsWatches(), "B");
  EXPECT_EQ(TakeUpdates(), "EDS B(10.0.0.1:80)");
  // Issue 11 item 3: E's query in flight was cancelled with its cluster.
  EXPECT_EQ(dns_->pending(), 0u);
  EXPECT_EQ(dns_->cancelled(), 1);
}

// Issue 11 item 3: after a failed resolution the name is tried again with
// gRPC's DNS backoff (1 s, x1.6, jitter 0.2, at most 120 s); a success
// resets it; a malformed name is not retried.
TEST_F(ClusterResolutionTest, DnsRetriesWithBackoff) {
  ClusterResolution::Options options;
  options.retry_timer = timer_;
  Start("d", options);
  source_->Cluster(Dns("d", "flaky.example.com", 80));
  ASSERT_EQ(dns_->pending(), 1u);
  dns_->Answer(absl::UnavailableError("SERVFAIL"));
  EXPECT_EQ(TakeUpdates(), "LOGICAL_DNS d(none)");
  for (int attempt = 0; attempt < 20; ++attempt) {
    ASSERT_EQ(timer_->pending(), 1u) << attempt;
    EXPECT_EQ(dns_->pending(), 0u);      // nothing until the timer fires
    resolution_->RequestReresolution();  // the timer sets the earliest query
    EXPECT_EQ(dns_->pending(), 0u);
    timer_->FireAll();
    ASSERT_EQ(dns_->pending(), 1u);
    dns_->Answer(absl::UnavailableError("SERVFAIL"));
  }
  const std::vector<absl::Duration>& delays = timer_->delays();
  ASSERT_EQ(delays.size(), 21u);
  EXPECT_EQ(delays[0], absl::Seconds(1));
  EXPECT_GE(delays[1], absl::Seconds(1.6 * 0.8));
  EXPECT_LE(delays[1], absl::Seconds(1.6 * 1.2));
  EXPECT_GE(delays[2], absl::Seconds(2.56 * 0.8));
  EXPECT_LE(delays[2], absl::Seconds(2.56 * 1.2));
  for (absl::Duration d : delays) EXPECT_LE(d, absl::Seconds(120 * 1.2));
  EXPECT_GE(delays[20], absl::Seconds(120 * 0.8));  // capped at 120 s
  // Success resets the backoff; the next failure waits 1 s again.
  timer_->FireAll();
  dns_->Answer(std::vector<std::string>{"10.0.0.1:80"});
  EXPECT_EQ(TakeUpdates(), "LOGICAL_DNS d(10.0.0.1:80)");
  EXPECT_EQ(timer_->pending(), 0u);
  resolution_->RequestReresolution();
  dns_->Answer(absl::UnavailableError("SERVFAIL"));
  EXPECT_EQ(timer_->delays().back(), absl::Seconds(1));
  EXPECT_EQ(TakeUpdates(), "");  // the last addresses stay
  // The cluster goes away: its retry timer is cancelled.
  source_->Cluster(Dns("d", "other.example.com", 80));
  EXPECT_EQ(timer_->pending(), 0u);
  EXPECT_EQ(dns_->PendingName(0), "other.example.com:80");
  // kInvalidArgument: the name is malformed, retrying cannot help.
  dns_->Answer(absl::InvalidArgumentError("bad DNS name"));
  EXPECT_EQ(timer_->pending(), 0u);
}

// Re-resolution (issue 11 item 3): a query in flight is not duplicated, and
// a request naming an EDS cluster is ignored (A37: its priority children
// have ignore_reresolution_requests), one naming a LOGICAL_DNS cluster
// resolves it again.
TEST_F(ClusterResolutionTest, ReresolutionPerCluster) {
  Start("A");
  source_->Cluster(Aggregate("A", "e,d"));
  source_->Cluster(Eds("e"));
  source_->Cluster(Dns("d", "localhost", 80));
  ASSERT_EQ(dns_->pending(), 1u);
  resolution_->RequestReresolution();
  resolution_->RequestReresolution("d");
  EXPECT_EQ(dns_->queries(), 1);  // in flight: not asked again
  dns_->Answer(std::vector<std::string>{"127.0.0.1:80"});
  resolution_->RequestReresolution("e");
  resolution_->RequestReresolution("unknown");
  EXPECT_EQ(dns_->queries(), 1);
  EXPECT_EQ(source_->EdsWatches(), "e");
  resolution_->RequestReresolution("d");
  EXPECT_EQ(dns_->queries(), 2);
}

// Issue 11 item 3: stopping the driver cancels the query in flight.
TEST_F(ClusterResolutionTest, StopCancelsDnsQuery) {
  Start("d");
  source_->Cluster(Dns("d", "slow.example.com", 80));
  ASSERT_EQ(dns_->pending(), 1u);
  resolution_->Stop();
  EXPECT_EQ(dns_->pending(), 0u);
  EXPECT_EQ(dns_->cancelled(), 1);
}

// A37 §Discovery Mechanisms: EDS does-not-exist = one priority with no
// endpoints, so the DNS fallback below it carries the traffic.
TEST_F(ClusterResolutionTest, EdsMissingFallsBackToDns) {
  Start("A");
  source_->Cluster(Aggregate("A", "primary,fallback"));
  source_->Cluster(Eds("primary"));
  source_->Cluster(Dns("fallback", "localhost", 8080));
  source_->EndpointsDoesNotExist("primary");
  dns_->Answer(std::vector<std::string>{"127.0.0.1:8080"});
  EXPECT_EQ(TakeUpdates(),
            "EDS primary(none) | LOGICAL_DNS fallback(127.0.0.1:8080)");
  EXPECT_EQ(last_.mechanism_errors[0].code(), absl::StatusCode::kNotFound);
  // The primary comes back.
  source_->Endpoints("primary", "10.0.0.1:80");
  EXPECT_EQ(TakeUpdates(),
            "EDS primary(10.0.0.1:80) | LOGICAL_DNS fallback(127.0.0.1:8080)");
  // A37: does-not-exist empties the mechanism even after a result.
  source_->EndpointsDoesNotExist("primary");
  EXPECT_EQ(TakeUpdates(),
            "EDS primary(none) | LOGICAL_DNS fallback(127.0.0.1:8080)");
}

// A37 §Discovery Mechanisms: an error before any result = one priority with
// no endpoints; an error after a result keeps it. Both for EDS and DNS.
TEST_F(ClusterResolutionTest, MechanismErrorsBeforeAndAfterFirstResult) {
  Start("A");
  source_->Cluster(Aggregate("A", "e,d"));
  source_->Cluster(Eds("e"));
  source_->Cluster(Dns("d", "nowhere.invalid", 80));
  source_->EndpointsError("e", absl::UnavailableError("stream reset"));
  dns_->Answer(absl::UnavailableError("no such host"));
  EXPECT_EQ(TakeUpdates(), "EDS e(none) | LOGICAL_DNS d(none)");
  source_->Endpoints("e", "10.0.0.1:80");
  EXPECT_EQ(TakeUpdates(), "EDS e(10.0.0.1:80) | LOGICAL_DNS d(none)");
  resolution_->RequestReresolution();
  ASSERT_EQ(dns_->pending(), 1u);
  dns_->Answer(std::vector<std::string>{"10.1.1.1:80"});
  EXPECT_EQ(TakeUpdates(), "EDS e(10.0.0.1:80) | LOGICAL_DNS d(10.1.1.1:80)");
  source_->EndpointsError("e", absl::UnavailableError("stream reset"));
  resolution_->RequestReresolution();
  dns_->Answer(absl::UnavailableError("no such host"));
  EXPECT_EQ(TakeUpdates(), "");  // both keep their last result
}

// A37: a cluster reached twice is one mechanism, at its earliest position;
// the watch is shared.
TEST_F(ClusterResolutionTest, DuplicateClusterKeptAtEarliestPosition) {
  Start("A");
  source_->Cluster(Aggregate("A", "B,C,B"));
  source_->Cluster(Eds("B"));
  source_->Cluster(Aggregate("C", "B,D"));
  source_->Cluster(Eds("D"));
  EXPECT_EQ(source_->CdsWatches(), "A,B,C,D");
  source_->Endpoints("B", "10.0.0.1:80");
  source_->Endpoints("D", "10.0.0.2:80");
  EXPECT_EQ(TakeUpdates(), "EDS B(10.0.0.1:80) | EDS D(10.0.0.2:80)");
}

// Self-referencing aggregates terminate: no leaf means TRANSIENT_FAILURE.
TEST_F(ClusterResolutionTest, SelfReferencingAggregate) {
  Start("A");
  source_->Cluster(Aggregate("A", "A"));
  EXPECT_EQ(TakeUpdates(),
            "error: FAILED_PRECONDITION: aggregate cluster graph for \"A\" "
            "has no leaf clusters");
}

// 10,000-wide aggregate: one watch per child, one report when all are in.
TEST_F(ClusterResolutionTest, TenThousandWideAggregate) {
  Start("A");
  std::vector<std::string> children;
  for (int i = 0; i < 10000; ++i) children.push_back(absl::StrCat("c", i));
  source_->Cluster(Aggregate("A", absl::StrJoin(children, ",")));
  for (const std::string& child : children) source_->Cluster(Eds(child));
  for (const std::string& child : children) {
    source_->Endpoints(child, "10.0.0.1:80");
  }
  ASSERT_EQ(updates_.size(), 1u);
  EXPECT_EQ(last_.mechanisms.size(), 10000u);
}

// Stop() from inside the callback: no further callbacks, watches released.
TEST_F(ClusterResolutionTest, StopInsideCallback) {
  int calls = 0;
  resolution_ = ClusterResolution::Start(source_, "A", {dns_, nullptr},
                                         [&](const ClusterResolution::Update&) {
                                           ++calls;
                                           resolution_->Stop();
                                         });
  source_->Cluster(Eds("A"));
  source_->Endpoints("A", "10.0.0.1:80");
  EXPECT_EQ(calls, 1);
  EXPECT_EQ(source_->CdsWatches(), "");
  EXPECT_EQ(source_->EdsWatches(), "");
  resolution_->Stop();  // idempotent
}

// Dropping the last reference releases the watches too.
TEST_F(ClusterResolutionTest, DestructionReleasesWatches) {
  Start("A");
  DeliverA37Example();
  resolution_.reset();
  EXPECT_EQ(source_->CdsWatches(), "");
  EXPECT_EQ(source_->EdsWatches(), "");
  EXPECT_EQ(dns_->pending(), 0u);  // E's query cancelled (issue 11 item 3)
}

// A47 §LRS Server Representation: `self` is the server the Cluster came
// from — for an xdstp: cluster, its authority's server.
TEST_F(ClusterResolutionTest, LrsSelfIsTheClustersServer) {
  absl::StatusOr<std::shared_ptr<const Bootstrap>> bootstrap =
      Bootstrap::Parse(R"json({
        "xds_servers": [{"server_uri": "top:1",
                         "channel_creds": [{"type": "insecure"}]}],
        "authorities": {
          "a.com": {"xds_servers": [{"server_uri": "a:1",
                                     "channel_creds": [{"type": "insecure"}]}]}
        }})json",
                       /*federation=*/true);
  ASSERT_TRUE(bootstrap.ok()) << bootstrap.status();
  Start("A", {nullptr, *bootstrap});
  const std::string fed = "xdstp://a.com/envoy.config.cluster.v3.Cluster/fed";
  source_->Cluster(Aggregate("A", absl::StrCat("old,", fed, ",plain")));
  ClusterResource old_style = Eds("old");
  old_style.lrs_load_reporting_server_is_self = true;
  ClusterResource federated = Eds(fed, "svc");
  federated.lrs_load_reporting_server_is_self = true;
  source_->Cluster(old_style);
  source_->Cluster(federated);
  source_->Cluster(Eds("plain"));
  source_->Endpoints("old", "10.0.0.1:80");
  source_->Endpoints("svc", "10.0.0.2:80");
  source_->Endpoints("plain", "10.0.0.3:80");
  ASSERT_EQ(last_.mechanisms.size(), 3u);
  ASSERT_TRUE(last_.mechanisms[0].lrs_server.has_value());
  EXPECT_EQ(last_.mechanisms[0].lrs_server->server_uri(), "top:1");
  ASSERT_TRUE(last_.mechanisms[1].lrs_server.has_value());
  EXPECT_EQ(last_.mechanisms[1].lrs_server->server_uri(), "a:1");
  EXPECT_FALSE(last_.mechanisms[2].lrs_server.has_value());
}

// DNS answers arrive on resolver threads while other threads ask for
// re-resolution and then stop the driver: callbacks never overlap, and none
// runs after Stop() returns. (Run under TSan in CI.)
TEST_F(ClusterResolutionTest, ConcurrentDnsAnswersAndStop) {
  Mutex mu;
  int running = 0;
  int calls = 0;
  bool overlapped = false;
  resolution_ =
      ClusterResolution::Start(source_, "A", {SystemDnsResolver(), nullptr},
                               [&](const ClusterResolution::Update&) {
                                 {
                                   MutexLock lock(&mu);
                                   if (++running > 1) overlapped = true;
                                   ++calls;
                                 }
                                 MutexLock lock(&mu);
                                 --running;
                               });
  source_->Cluster(Dns("A", "localhost", 8080));
  std::vector<std::thread> threads;
  for (int t = 0; t < 2; ++t) {
    threads.emplace_back([this] {
      for (int i = 0; i < 50; ++i) resolution_->RequestReresolution();
    });
  }
  for (std::thread& thread : threads) thread.join();
  resolution_->Stop();
  int calls_at_stop;
  {
    MutexLock lock(&mu);
    calls_at_stop = calls;
    EXPECT_FALSE(overlapped);
  }
  std::this_thread::sleep_for(std::chrono::milliseconds(200));
  MutexLock lock(&mu);
  EXPECT_EQ(calls, calls_at_stop);
}

// The system resolver: real names, bad names, bad ports (issue 5 bad input).
TEST(SystemDnsResolverTest, ResolvesLocalhostAndRejectsBadInput) {
  struct Case {
    const char* host_port;
    absl::StatusCode code;
  } cases[] = {
      {"localhost:8080", absl::StatusCode::kOk},
      {"127.0.0.1:1", absl::StatusCode::kOk},
      {"[::1]:443", absl::StatusCode::kOk},
      {"name.invalid:80", absl::StatusCode::kUnavailable},  // RFC 6761
      {"localhost:99999", absl::StatusCode::kInvalidArgument},
      {"localhost:", absl::StatusCode::kInvalidArgument},
      {"localhost", absl::StatusCode::kInvalidArgument},
      {"::1:80", absl::StatusCode::kInvalidArgument},
      {":80", absl::StatusCode::kInvalidArgument},
      {"[::1:80", absl::StatusCode::kInvalidArgument},
      {"localhost:8o", absl::StatusCode::kInvalidArgument},
  };
  std::shared_ptr<DnsResolver> dns = SystemDnsResolver();
  for (const Case& c : cases) {
    Mutex mu;
    std::condition_variable_any cv;
    bool done = false;
    absl::StatusOr<std::vector<std::string>> result;
    dns->Resolve(c.host_port, [&](absl::StatusOr<std::vector<std::string>> r) {
      MutexLock lock(&mu);
      result = std::move(r);
      done = true;
      cv.notify_all();
    });
    MutexLock lock(&mu);
    while (!done) cv.wait(mu);
    EXPECT_EQ(result.status().code(), c.code)
        << c.host_port << ": " << result.status();
    if (std::string(c.host_port) == "localhost:8080" && result.ok()) {
      EXPECT_TRUE(std::find(result->begin(), result->end(), "127.0.0.1:8080") !=
                      result->end() ||
                  std::find(result->begin(), result->end(), "[::1]:8080") !=
                      result->end())
          << absl::StrJoin(*result, " ");
    }
  }
}

// The system resolver's queue with cancels racing the workers (issue 11
// item 3): every query not cancelled answers exactly once, even with more
// queries than workers, and nothing races (TSan). Which cancelled ones
// still answered depends on timing (they may have finished first).
TEST(SystemDnsResolverTest, CancelledQueriesNeverCallBack) {
  std::shared_ptr<DnsResolver> dns = SystemDnsResolver();
  // Shared with the callbacks: a cancelled query's callback that a worker
  // had already taken may still run after the test body.
  struct State {
    Mutex mu;
    std::condition_variable_any cv;
    std::vector<int> calls = std::vector<int>(40, 0);
    int odd_answered = 0;
  };
  auto state = std::make_shared<State>();
  std::vector<DnsResolver::Handle> handles;
  for (int i = 0; i < 40; ++i) {
    handles.push_back(dns->Resolve(
        "127.0.0.1:80", [state, i](absl::StatusOr<std::vector<std::string>>) {
          MutexLock lock(&state->mu);
          ++state->calls[i];
          if (i % 2 == 1) ++state->odd_answered;
          state->cv.notify_all();
        }));
  }
  for (int i = 0; i < 40; i += 2) dns->Cancel(handles[i]);
  MutexLock lock(&state->mu);
  while (state->odd_answered < 20) state->cv.wait(state->mu);
  for (int i = 0; i < 40; ++i) EXPECT_LE(state->calls[i], 1) << i;
}

}  // namespace
}  // namespace cluster
}  // namespace xdsfed
