// DataPlane over fake endpoints and a fake clock: the priority policy
// (C-core 1.51 priority.cc, as A37's aggregate failover relies on it),
// weighted_target + round_robin, pick_first for LOGICAL_DNS, drops and the
// circuit breaker (A37 §xds_cluster_impl), waiting picks, and picks from
// many threads while updates arrive (TSan).
#include "lib/channel/data_plane.h"

#include <atomic>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "gtest/gtest.h"
#include "tests/channel/channel_test_util.h"
#include "tests/client/client_test_util.h"

namespace xdsfed {
namespace channel {
namespace {

using testing::Cluster;
using testing::Config;
using testing::DnsLeaf;
using testing::EdsLeaf;
using testing::FakeEndpointFactory;
using C = Connectivity;

class DataPlaneTest : public ::testing::Test {
 protected:
  void Start(C initial = C::kConnecting, bool batch = false) {
    factory_ = std::make_shared<FakeEndpointFactory>(initial);
    DataPlane::Options o;
    o.batch_endpoint_changes = batch;
    o.endpoints = factory_;
    o.timers = timers_;
    o.call_counters = &counters_;
    o.request_reresolution = [this](const std::string& root,
                                    const std::string& leaf) {
      MutexLock lock(&mu_);
      reresolutions_.push_back(root + "/" + leaf);
    };
    dp_ = DataPlane::Create(o);
  }
  // Where a pick of `path` goes: "address" or the status.
  std::string PickOnce(const std::string& path = "/svc/M") {
    bool queued = false;
    PickResult r = dp_->TryPick({path, {}}, &queued);
    if (queued) return "QUEUED";
    if (!r.status.ok()) return r.status.ToString();
    r.tracker.Finish(true);
    return r.endpoint->address();
  }
  std::map<std::string, int> Count(int n, const std::string& path = "/svc/M") {
    std::map<std::string, int> out;
    for (int i = 0; i < n; ++i) ++out[PickOnce(path)];
    return out;
  }

  std::shared_ptr<client::testing::FakeTimers> timers_ =
      std::make_shared<client::testing::FakeTimers>();
  lrs::CallCounterRegistry counters_;
  std::shared_ptr<FakeEndpointFactory> factory_;
  std::shared_ptr<DataPlane> dp_;
  Mutex mu_;
  std::vector<std::string> reresolutions_ ABSL_GUARDED_BY(mu_);
};

// Two priorities of one EDS cluster: p0 = a, p1 = b.
std::shared_ptr<const xds_config::XdsConfig> TwoPriorities() {
  return Config(
      {{"/", "c"}},
      {Cluster("c",
               {EdsLeaf("c", {{{"z0", 1, {"a:1"}}}, {{"z1", 1, {"b:1"}}}})})});
}

TEST_F(DataPlaneTest, QueuesUntilFirstConfig) {
  Start();
  EXPECT_EQ(PickOnce(), "QUEUED");
}

// round_robin (A27): only READY endpoints take picks, in turn.
TEST_F(DataPlaneTest, RoundRobinOverReadyEndpoints) {
  Start();
  dp_->Update(Config(
      {{"/", "c"}},
      {Cluster("c", {EdsLeaf("c", {{{"z", 1, {"a:1", "b:1", "c:1"}}}})})}));
  EXPECT_EQ(PickOnce(), "QUEUED");  // connecting: the pick waits
  factory_->Set("a:1", C::kReady);
  factory_->Set("c:1", C::kReady);
  auto counts = Count(100);
  EXPECT_EQ(counts.size(), 2u);
  EXPECT_EQ(counts["a:1"], 50);
  EXPECT_EQ(counts["c:1"], 50);
}

// Priority policy: TRANSIENT_FAILURE moves on at once.
TEST_F(DataPlaneTest, FailoverOnTransientFailure) {
  Start();
  dp_->Update(TwoPriorities());
  EXPECT_EQ(factory_->created(), 1);  // p1 not created until needed
  factory_->Set("a:1", C::kTransientFailure);
  EXPECT_TRUE(factory_->Alive("b:1"));
  EXPECT_EQ(PickOnce(), "QUEUED");  // p1 connecting
  factory_->Set("b:1", C::kReady);
  EXPECT_EQ(PickOnce(), "b:1");
  EXPECT_EQ(dp_->DebugState()["c"].substr(0, 9), "current=1");
}

// Endpoint::Start (production: the grpc::Channel made and asked to
// connect, 0.3-0.6 ms) runs once per endpoint after the update's picker is
// published and the data plane's lock released: a failover's picks already
// wait on the new priority while its connection is set up, and no pick
// waits on channel setup. (DebugState takes the lock: a Start under it
// would deadlock.)
TEST_F(DataPlaneTest, EndpointsStartAfterTheirPickerIsPublished) {
  Start();
  std::vector<std::string> seen;
  factory_->set_on_start([&](const std::string& address) {
    seen.push_back(absl::StrCat(address, " ", PickOnce(), " ",
                                dp_->DebugState()["c"].substr(0, 9)));
  });
  dp_->Update(TwoPriorities());
  factory_->Set("a:1", C::kTransientFailure);
  EXPECT_EQ(seen, (std::vector<std::string>{"a:1 QUEUED current=0",
                                            "b:1 QUEUED current=1"}));
  EXPECT_EQ(factory_->Get("a:1")->started(), 1);
  EXPECT_EQ(factory_->Get("b:1")->started(), 1);
  factory_->Set("b:1", C::kReady);
  EXPECT_EQ(PickOnce(), "b:1");
}

// Priority policy: a child that does not connect within the failover
// timeout (10 s) gives way to the next priority.
TEST_F(DataPlaneTest, FailoverTimerMovesOn) {
  Start();
  dp_->Update(TwoPriorities());
  timers_->Advance(absl::Seconds(9));
  EXPECT_FALSE(factory_->Alive("b:1"));
  timers_->Advance(absl::Seconds(1));
  EXPECT_TRUE(factory_->Alive("b:1"));
  factory_->Set("b:1", C::kReady);
  EXPECT_EQ(PickOnce(), "b:1");
  // p0 connecting late still wins back at once.
  factory_->Set("a:1", C::kReady);
  EXPECT_EQ(PickOnce(), "a:1");
}

// Failback as soon as a higher priority is READY; the lower child is kept
// 15 min (retention), so a second failover reuses its connections.
TEST_F(DataPlaneTest, FailbackRetainsLowerChildFifteenMinutes) {
  Start();
  dp_->Update(TwoPriorities());
  factory_->Set("a:1", C::kTransientFailure);
  factory_->Set("b:1", C::kReady);
  EXPECT_EQ(PickOnce(), "b:1");
  factory_->Set("a:1", C::kReady);
  EXPECT_EQ(PickOnce(), "a:1");
  EXPECT_NE(dp_->DebugState()["c"].find("(retained)"), std::string::npos);
  timers_->Advance(absl::Minutes(14));
  factory_->Set("a:1", C::kTransientFailure);
  EXPECT_EQ(PickOnce(), "b:1");  // no reconnect: the kept child is READY
  EXPECT_EQ(factory_->created(), 2);
  factory_->Set("a:1", C::kReady);
  EXPECT_EQ(PickOnce(), "a:1");
  timers_->Advance(absl::Minutes(15));
  EXPECT_FALSE(factory_->Alive("b:1"));
  EXPECT_EQ(dp_->endpoint_count(), 1u);
}

// A child that was READY and goes CONNECTING gets a new failover timer;
// picks wait meanwhile instead of failing.
TEST_F(DataPlaneTest, ReadyThenConnectingRestartsFailoverTimer) {
  Start();
  dp_->Update(TwoPriorities());
  factory_->Set("a:1", C::kReady);
  EXPECT_EQ(PickOnce(), "a:1");
  factory_->Set("a:1", C::kConnecting);
  EXPECT_EQ(PickOnce(), "QUEUED");
  timers_->Advance(absl::Seconds(9));
  EXPECT_FALSE(factory_->Alive("b:1"));  // p0 still has time
  timers_->Advance(absl::Seconds(1));
  EXPECT_TRUE(factory_->Alive("b:1"));
  factory_->Set("b:1", C::kReady);
  EXPECT_EQ(PickOnce(), "b:1");
}

// All priorities failing: UNAVAILABLE with the reason.
TEST_F(DataPlaneTest, AllPrioritiesFailing) {
  Start();
  dp_->Update(TwoPriorities());
  factory_->Set("a:1", C::kTransientFailure);
  factory_->Set("b:1", C::kTransientFailure);
  std::string r = PickOnce();
  EXPECT_NE(r.find("UNAVAILABLE"), std::string::npos) << r;
  EXPECT_NE(r.find("all priorities failing"), std::string::npos) << r;
}

// A37: an EDS resource emptied makes its priority TRANSIENT_FAILURE ("no
// endpoints") and the aggregate's next mechanism takes over; restored, it
// is chosen again once READY.
TEST_F(DataPlaneTest, AggregateEdsEmptiedThenRestored) {
  Start();
  auto with = [](std::vector<std::string> primary) {
    return Config({{"/", "agg"}},
                  {Cluster("agg", {EdsLeaf("primary", {{{"z", 1, primary}}}),
                                   DnsLeaf("fallback", {"127.0.0.1:2"})})});
  };
  dp_->Update(with({"p:1"}));
  factory_->Set("p:1", C::kReady);
  EXPECT_EQ(PickOnce(), "p:1");
  dp_->Update(with({}));
  EXPECT_EQ(PickOnce(), "QUEUED");
  factory_->Set("127.0.0.1:2", C::kReady);
  EXPECT_EQ(PickOnce(), "127.0.0.1:2");
  dp_->Update(with({"p:1"}));
  // The primary reconnects while the fallback keeps serving.
  EXPECT_EQ(PickOnce(), "127.0.0.1:2");
  factory_->Set("p:1", C::kReady);
  EXPECT_EQ(PickOnce(), "p:1");
}

// weighted_target: localities by weight (80/20 within 3%).
TEST_F(DataPlaneTest, LocalitiesByWeight) {
  Start(C::kReady);
  dp_->Update(Config({{"/", "c"}},
                     {Cluster("c", {EdsLeaf("c", {{{"z0", 80, {"a:1", "a:2"}},
                                                   {"z1", 20, {"b:1"}}}})})}));
  auto counts = Count(20000);
  double a = counts["a:1"] + counts["a:2"];
  EXPECT_NEAR(a / 20000, 0.8, 0.03);
  EXPECT_NEAR(counts["a:1"], counts["a:2"], 0.03 * 20000);
}

// weighted_clusters in the route action (80/20 within 3%).
TEST_F(DataPlaneTest, WeightedClusters) {
  Start(C::kReady);
  dp_->Update(Config({{"/", "", {{"x", 80}, {"y", 20}}}},
                     {Cluster("x", {EdsLeaf("x", {{{"z", 1, {"x:1"}}}})}),
                      Cluster("y", {EdsLeaf("y", {{{"z", 1, {"y:1"}}}})})}));
  auto counts = Count(20000);
  EXPECT_NEAR(counts["x:1"] / 20000.0, 0.8, 0.03);
  EXPECT_NEAR(counts["y:1"] / 20000.0, 0.2, 0.03);
}

TEST_F(DataPlaneTest, RouteByPathPrefix) {
  Start(C::kReady);
  dp_->Update(Config({{"/a.", "x"}, {"/", "y"}},
                     {Cluster("x", {EdsLeaf("x", {{{"z", 1, {"x:1"}}}})}),
                      Cluster("y", {EdsLeaf("y", {{{"z", 1, {"y:1"}}}})})}));
  EXPECT_EQ(PickOnce("/a.S/M"), "x:1");
  EXPECT_EQ(PickOnce("/b.S/M"), "y:1");
}

// Routing through lib/routing (A28): header matchers see the pick's
// metadata, repeated values joined with ","; safe_regex paths via RE2.
TEST_F(DataPlaneTest, RouteByHeadersAndRegex) {
  Start(C::kReady);
  auto config = Config({{"/", "y"}},
                       {Cluster("x", {EdsLeaf("x", {{{"z", 1, {"x:1"}}}})}),
                        Cluster("y", {EdsLeaf("y", {{{"z", 1, {"y:1"}}}})}),
                        Cluster("r", {EdsLeaf("r", {{{"z", 1, {"r:1"}}}})})});
  auto rc = std::make_shared<resources::RouteConfig>(*config->route_config);
  auto& routes = rc->virtual_hosts[0].routes;
  resources::Route by_header = routes[0];
  resources::HeaderMatch h;
  h.name = "x-user";
  h.string_match.type = resources::StringMatch::Type::kExact;
  h.string_match.value = "alice,bob";
  by_header.match.headers.push_back(h);
  std::get<resources::RouteAction>(by_header.action).cluster = "x";
  resources::Route by_regex = routes[0];
  by_regex.match.path.type = resources::StringMatch::Type::kSafeRegex;
  by_regex.match.path.value = "/re[0-9]+/M";
  std::get<resources::RouteAction>(by_regex.action).cluster = "r";
  routes.insert(routes.begin(), {by_header, by_regex});
  auto with_rc = std::make_shared<xds_config::XdsConfig>(*config);
  with_rc->route_config = rc;
  with_rc->virtual_host = &rc->virtual_hosts[0];
  dp_->Update(with_rc);
  struct Case {
    std::vector<MetadataEntry> metadata;
    std::string path, want;
  } cases[] = {
      {{{"x-user", "alice"}, {"x-user", "bob"}}, "/s/M", "x:1"},
      {{{"x-user", "alice"}}, "/s/M", "y:1"},
      {{}, "/re42/M", "r:1"},
      {{}, "/reX/M", "y:1"},
  };
  for (const auto& c : cases) {
    bool queued = false;
    PickResult r = dp_->TryPick({c.path, c.metadata}, &queued);
    ASSERT_TRUE(r.status.ok()) << r.status;
    EXPECT_EQ(r.endpoint->address(), c.want) << c.path;
  }
}

TEST_F(DataPlaneTest, FailuresNameTheirReason) {
  Start(C::kReady);
  struct Case {
    std::shared_ptr<const xds_config::XdsConfig> config;
    std::string path;
    std::string want;
  };
  auto bad = std::make_shared<xds_config::XdsConfig>();
  bad->status = absl::UnavailableError("Listener l does not exist");
  std::vector<Case> cases = {
      {Config({{"/a", "x"}},
              {Cluster("x", {EdsLeaf("x", {{{"z", 1, {"x:1"}}}})})}),
       "/b/M", "no matching route for /b/M"},
      {Config({{"/", "x"}},
              {Cluster("x", {},
                       absl::UnavailableError("CDS resource \"x\" "
                                              "does not exist"))}),
       "/b/M", "cluster x: CDS resource \"x\" does not exist"},
      {bad, "/b/M", "Listener l does not exist"},
      {Config({{"/", "x"}}, {Cluster("x", {EdsLeaf("x", {{{"z", 1, {}}}})})}),
       "/b/M", "no endpoints"},
  };
  for (const auto& c : cases) {
    dp_->Update(c.config);
    std::string r = PickOnce(c.path);
    EXPECT_NE(r.find("UNAVAILABLE"), std::string::npos) << r;
    EXPECT_NE(r.find(c.want), std::string::npos) << r;
  }
}

// Issue 24 / A29: security settings are part of an endpoint's identity. A
// plaintext and a TLS cluster naming the same address get two endpoints
// (the TLS one made by CreateTls, never plaintext); a CDS update that
// changes the TLS settings makes a new endpoint; an update that keeps them
// keeps it. A failing TLS endpoint's reason ends the failing pick's status.
TEST_F(DataPlaneTest, TlsSettingsArePartOfTheEndpointIdentity) {
  Start(C::kReady);
  auto tls_leaf = [](const std::string& san) {
    cluster::ResolvedMechanism m = EdsLeaf("t", {{{"z", 1, {"a:1"}}}});
    resources::UpstreamTlsContext tls;
    tls.root.instance_name = "ca";
    resources::StringMatch match;
    match.value = san;
    tls.match_subject_alt_names.push_back(match);
    m.mechanism.upstream_tls = tls;
    return m;
  };
  auto config = [&](const std::string& san) {
    return Config({{"/plain/", "p"}, {"/tls/", "t"}},
                  {Cluster("p", {EdsLeaf("p", {{{"z", 1, {"a:1"}}}})}),
                   Cluster("t", {tls_leaf(san)})});
  };
  dp_->Update(config("s1"));
  EXPECT_EQ(factory_->created(), 2);
  ASSERT_EQ(factory_->tls_keys().size(), 1u);
  EXPECT_EQ(PickOnce("/plain/M"), "a:1");
  EXPECT_EQ(PickOnce("/tls/M"), "a:1");
  EXPECT_TRUE(factory_->Alive("a:1"));
  EXPECT_TRUE(factory_->Alive("a:1#tls"));
  dp_->Update(config("s1"));  // same settings: same endpoints
  EXPECT_EQ(factory_->created(), 2);
  dp_->Update(config("s2"));  // SAN matchers changed: a new connection
  EXPECT_EQ(factory_->created(), 3);
  EXPECT_EQ(factory_->tls_keys().size(), 2u);
  EXPECT_NE(factory_->tls_keys()[0], factory_->tls_keys()[1]);
  EXPECT_TRUE(factory_->Alive("a:1"));  // the plaintext one untouched

  factory_->Get("a:1#tls")->set_failure_reason("SAN check failed: x");
  factory_->Set("a:1#tls", C::kTransientFailure);
  const std::string r = PickOnce("/tls/M");
  EXPECT_NE(r.find("connections to all endpoints failing; a:1: SAN check "
                   "failed: x"),
            std::string::npos)
      << r;
}

// A37 §xds_cluster_impl: drop_overloads per category.
TEST_F(DataPlaneTest, DropsByCategory) {
  Start(C::kReady);
  dp_->Update(Config(
      {{"/", "c"}},
      {Cluster("c", {EdsLeaf("c", {{{"z", 1, {"a:1"}}}},
                             {{"lb", 500000}, {"throttle", 1000000}})})}));
  auto counts = Count(4000);
  EXPECT_EQ(counts.count("a:1"), 0u);
  int lb = counts["UNAVAILABLE: EDS-configured drop: lb"];
  int throttle = counts["UNAVAILABLE: EDS-configured drop: throttle"];
  EXPECT_EQ(lb + throttle, 4000);
  EXPECT_NEAR(lb / 4000.0, 0.5, 0.05);
}

// gRFC A31 (xDS timeouts) as C-core's XdsConfigSelector applies it: the
// route's max_stream_duration (grpc_timeout_header_max already preferred by
// the parser), else the HttpConnectionManager's; 0 means no limit, and a
// route's 0 is not overridden by the HttpConnectionManager's value.
TEST_F(DataPlaneTest, MaxStreamDurationFromRouteElseListener) {
  using D = std::optional<resources::ProtoDuration>;
  struct Case {
    const char* name;
    D route, hcm;
    absl::Duration want;
  };
  const Case cases[] = {
      {"neither", std::nullopt, std::nullopt, absl::InfiniteDuration()},
      {"route", resources::ProtoDuration{1, 500000000}, std::nullopt,
       absl::Milliseconds(1500)},
      {"listener default", std::nullopt, resources::ProtoDuration{3, 0},
       absl::Seconds(3)},
      {"route over listener", resources::ProtoDuration{1, 0},
       resources::ProtoDuration{3, 0}, absl::Seconds(1)},
      {"route 0 = no limit", resources::ProtoDuration{0, 0},
       resources::ProtoDuration{3, 0}, absl::InfiniteDuration()},
      {"listener 0 = no limit", std::nullopt, resources::ProtoDuration{0, 0},
       absl::InfiniteDuration()},
  };
  Start(C::kReady);
  for (const Case& c : cases) {
    SCOPED_TRACE(c.name);
    auto config = std::make_shared<xds_config::XdsConfig>(
        *Config({{"/", "c", {}, c.route}},
                {Cluster("c", {EdsLeaf("c", {{{"z", 1, {"a:1"}}}})})}));
    auto listener = std::make_shared<resources::Listener>();
    resources::ApiListener api;
    api.http_connection_manager.http_max_stream_duration = c.hcm;
    listener->listener = api;
    config->listener = listener;
    dp_->Update(config);
    bool queued = false;
    PickResult r = dp_->TryPick({"/s/M", {}}, &queued);
    ASSERT_TRUE(r.status.ok()) << r.status;
    EXPECT_EQ(r.max_stream_duration, c.want);
  }
}

// A37 §Use Global Circuit Breaking Atomic: max_concurrent_requests counted
// from pick to Finish (or tracker destruction).
TEST_F(DataPlaneTest, CircuitBreaker) {
  Start(C::kReady);
  dp_->Update(Config({{"/", "c"}},
                     {Cluster("c", {EdsLeaf("c", {{{"z", 1, {"a:1"}}}}, {},
                                            /*max_requests=*/2)})}));
  bool queued = false;
  PickResult p1 = dp_->TryPick({"/s/M", {}}, &queued);
  PickResult p2 = dp_->TryPick({"/s/M", {}}, &queued);
  ASSERT_TRUE(p1.status.ok());
  ASSERT_TRUE(p2.status.ok());
  EXPECT_EQ(counters_.GetOrCreate("c", "")->Load(), 2u);
  PickResult p3 = dp_->TryPick({"/s/M", {}}, &queued);
  EXPECT_EQ(p3.status.code(), absl::StatusCode::kUnavailable);
  EXPECT_NE(p3.status.message().find("circuit breaker"), std::string::npos);
  p1.tracker.Finish(true);
  p1.tracker.Finish(true);  // once only
  EXPECT_EQ(counters_.GetOrCreate("c", "")->Load(), 1u);
  {
    PickResult p4 = dp_->TryPick({"/s/M", {}}, &queued);
  }  // dropped unfinished
  EXPECT_EQ(counters_.GetOrCreate("c", "")->Load(), 1u);
}

// LOGICAL_DNS: pick_first over the resolved addresses; a failed connection
// asks for re-resolution of that leaf.
TEST_F(DataPlaneTest, LogicalDnsPickFirstAndReresolution) {
  Start();
  dp_->Update(
      Config({{"/", "d"}},
             {Cluster("d", {DnsLeaf("d", {"127.0.0.1:1", "127.0.0.1:2"})})}));
  factory_->Set("127.0.0.1:2", C::kReady);
  EXPECT_EQ(PickOnce(), "127.0.0.1:2");
  factory_->Set("127.0.0.1:1", C::kReady);
  auto counts = Count(10);
  EXPECT_EQ(counts["127.0.0.1:1"], 10);
  factory_->Set("127.0.0.1:1", C::kTransientFailure);
  factory_->Set("127.0.0.1:2", C::kTransientFailure);
  MutexLock lock(&mu_);
  EXPECT_EQ(reresolutions_, std::vector<std::string>{"d/d"});
}

// A pick waits for a connecting priority, up to its deadline; the async form
// completes when the priority is READY.
// Batched endpoint changes (XdsChannel's setting) wait for the timer thread,
// except while a pick waits for a connecting priority: the READY that
// releases it is applied at once, on the notifying thread.
TEST_F(DataPlaneTest, ChangeAppliedAtOnceWhileAPickWaits) {
  Start(C::kConnecting, /*batch=*/true);
  dp_->Update(
      Config({{"/", "c"}},
             {Cluster("c", {EdsLeaf("c", {{{"z", 1, {"a:1", "b:1"}}}})})}));
  std::string async_result;
  dp_->PickAsync({"/s/M", {}}, absl::InfiniteFuture(), [&](PickResult r) {
    async_result = r.status.ok() ? r.endpoint->address() : r.status.ToString();
    if (r.status.ok()) r.tracker.Finish(true);
  });
  EXPECT_EQ(async_result, "");
  factory_->Set("a:1", C::kReady);  // no timer run
  EXPECT_EQ(async_result, "a:1");
  // Nobody waits now: the next change is batched again.
  factory_->Set("b:1", C::kReady);
  EXPECT_EQ(Count(10)["a:1"], 10);
  timers_->Advance(absl::ZeroDuration());
  EXPECT_EQ(Count(10)["b:1"], 5);
  // A synchronous Pick() waiting in another thread counts too.
  dp_->Update(Config({{"/", "c"}},
                     {Cluster("c", {EdsLeaf("c", {{{"z", 1, {"d:1"}}}})})}));
  std::atomic<bool> picked{false};
  std::thread t([&] {
    // Until the pick returns: a change made before it waits is batched
    // (and the fake timers never run the batch).
    while (!picked.load()) {
      factory_->Set("d:1", C::kReady);
      absl::SleepFor(absl::Milliseconds(5));
    }
  });
  PickResult r = dp_->Pick({"/s/M", {}}, absl::Now() + absl::Seconds(5));
  picked.store(true);
  t.join();
  ASSERT_TRUE(r.status.ok()) << r.status;
  EXPECT_EQ(r.endpoint->address(), "d:1");
  r.tracker.Finish(true);
}

TEST_F(DataPlaneTest, WaitingPicks) {
  Start();
  dp_->Update(TwoPriorities());
  PickResult timed_out =
      dp_->Pick({"/s/M", {}}, absl::Now() + absl::Milliseconds(20));
  EXPECT_EQ(timed_out.status.code(), absl::StatusCode::kDeadlineExceeded);
  std::string async_result;
  dp_->PickAsync({"/s/M", {}}, absl::InfiniteFuture(), [&](PickResult r) {
    async_result = r.status.ok() ? r.endpoint->address() : r.status.ToString();
  });
  EXPECT_EQ(async_result, "");
  std::thread t([&] {
    absl::SleepFor(absl::Milliseconds(20));
    factory_->Set("a:1", C::kReady);
  });
  PickResult r = dp_->Pick({"/s/M", {}}, absl::Now() + absl::Seconds(10));
  t.join();
  ASSERT_TRUE(r.status.ok()) << r.status;
  EXPECT_EQ(r.endpoint->address(), "a:1");
  EXPECT_EQ(async_result, "a:1");
}

// Re-queue of a pick whose endpoint is no longer connected (C-core
// client_channel: "subchannel returned by LB picker has no connected
// subchannel; queueing pick", before the call tracker starts): the
// endpoint's connection went (the transport says so, Recheck) but the change
// has not been notified yet. The pick must not go to it, must not count it,
// and the change is applied at once: the other READY endpoints take the
// pick, else the pick waits (the priority is connecting), else the next
// priority. Each case runs through TryPick, Pick and PickAsync.
TEST_F(DataPlaneTest, RequeuesPickOfEndpointNoLongerConnected) {
  enum class Via { kTryPick, kPick, kPickAsync };
  struct Case {
    const char* name;
    std::vector<std::vector<std::string>> priorities;  // one locality each
    std::vector<std::pair<std::string, C>> lost;       // unnotified
    std::string want;           // the endpoint picked, or "QUEUED"
    std::string want_recorded;  // lost[0]'s state() after the pick
    int want_current;           // the cluster's priority after the pick
  };
  const std::vector<Case> cases = {
      {"another READY endpoint takes the pick (round_robin)",
       {{"a:1", "b:1"}},
       {{"a:1", C::kIdle}},
       "b:1",
       "IDLE",
       0},
      {"the only endpoint reconnecting: the pick waits",
       {{"a:1"}},
       {{"a:1", C::kConnecting}},
       "QUEUED",
       "CONNECTING",
       0},
      {"the only endpoint refused: next priority (A37 failover)",
       {{"a:1"}, {"b:1"}},
       {{"a:1", C::kTransientFailure}},
       "b:1",
       "TRANSIENT_FAILURE",
       1},
      {"still READY: picked",
       {{"a:1"}, {"b:1"}},
       {{"a:1", C::kReady}},
       "a:1",
       "READY",
       0},
      {"eight endpoints lost at once: one sweep, then p1",
       {{"e:0", "e:1", "e:2", "e:3", "e:4", "e:5", "e:6", "e:7"}, {"b:1"}},
       {{"e:0", C::kTransientFailure},
        {"e:1", C::kTransientFailure},
        {"e:2", C::kTransientFailure},
        {"e:3", C::kTransientFailure},
        {"e:4", C::kTransientFailure},
        {"e:5", C::kTransientFailure},
        {"e:6", C::kTransientFailure},
        {"e:7", C::kTransientFailure}},
       "b:1",
       "TRANSIENT_FAILURE",
       1},
  };
  for (const Case& c : cases) {
    for (Via via : {Via::kTryPick, Via::kPick, Via::kPickAsync}) {
      SCOPED_TRACE(absl::StrCat(c.name, " via ", static_cast<int>(via)));
      Start(C::kReady);
      std::vector<std::vector<testing::TestLocality>> priorities;
      for (const auto& addresses : c.priorities) {
        priorities.push_back({{"z", 1, addresses}});
      }
      dp_->Update(
          Config({{"/", "c"}}, {Cluster("c", {EdsLeaf("c", priorities)})}));
      for (const auto& [address, state] : c.lost) {
        factory_->SetUnnotified(address, state);
      }
      // Twice: round robin starts at a random endpoint, so two picks reach
      // the lost one whichever it is.
      std::vector<std::string> got;
      for (int i = 0; i < 2; ++i) {
        switch (via) {
          case Via::kTryPick:
            got.push_back(PickOnce());
            break;
          case Via::kPick: {
            PickResult r =
                dp_->Pick({"/s/M", {}}, absl::Now() + absl::Milliseconds(20));
            if (r.status.code() == absl::StatusCode::kDeadlineExceeded) {
              got.push_back("QUEUED");
            } else if (r.status.ok()) {
              got.push_back(r.endpoint->address());
              EXPECT_EQ(counters_.GetOrCreate("c", "")->Load(), 1u);
              r.tracker.Finish(true);
            } else {
              got.push_back(r.status.ToString());
            }
            break;
          }
          case Via::kPickAsync: {
            auto result = std::make_shared<std::string>("QUEUED");
            dp_->PickAsync({"/s/M", {}}, absl::InfiniteFuture(),
                           [result](PickResult r) {
                             *result = r.status.ok() ? r.endpoint->address()
                                                     : r.status.ToString();
                           });
            got.push_back(*result);
            break;
          }
        }
      }
      EXPECT_EQ(absl::StrJoin(got, ","), absl::StrCat(c.want, ",", c.want));
      EXPECT_EQ(ConnectivityName(factory_->Get(c.lost[0].first)->state()),
                c.want_recorded);
      EXPECT_EQ(dp_->DebugState()["c"].substr(0, 9),
                absl::StrCat("current=", c.want_current));
      // Nothing counted for a re-queued pick (the circuit breaker's
      // in-flight count is back to 0 once the picks are finished).
      EXPECT_EQ(counters_.GetOrCreate("c", "")->Load(), 0u);
      dp_->Shutdown();
    }
  }
}

// A lost endpoint is asked once per pick that chooses it; once the change
// is applied, picks no longer choose it (no recheck of it at all).
TEST_F(DataPlaneTest, RecheckOncePerPickOfTheEndpoint) {
  Start(C::kReady);
  dp_->Update(
      Config({{"/", "c"}},
             {Cluster("c", {EdsLeaf("c", {{{"z", 1, {"a:1", "b:1"}}}})})}));
  auto counts = Count(10);
  EXPECT_EQ(counts["a:1"], 5);
  EXPECT_EQ(factory_->Get("a:1")->rechecks(), 5);
  factory_->SetUnnotified("a:1", C::kTransientFailure);
  counts = Count(10);
  EXPECT_EQ(counts["b:1"], 10);
  EXPECT_LE(factory_->Get("a:1")->rechecks(), 6);
  // The notification arriving later changes nothing.
  factory_->Set("a:1", C::kTransientFailure);
  EXPECT_EQ(Count(10)["b:1"], 10);
  // Reconnected: back in the rotation.
  factory_->Set("a:1", C::kReady);
  EXPECT_EQ(Count(10)["a:1"], 5);
}

// The re-queue under concurrency (TSan): 8 threads pick (TryPick, Pick with
// a short deadline, PickAsync) while connections drop unnotified and come
// back notified, with batched changes on a clock another thread advances.
// Every pick ends (OK, queued, deadline or failed), every async pick
// completes, and nothing stays counted.
TEST_F(DataPlaneTest, RequeueFromEightThreadsWhileConnectionsDrop) {
  Start(C::kReady, /*batch=*/true);
  dp_->Update(Config(
      {{"/", "c"}},
      {Cluster("c", {EdsLeaf("c", {{{"z", 1, {"e:0", "e:1", "e:2", "e:3"}}},
                                   {{"z2", 1, {"f:1"}}}})})}));
  std::atomic<bool> stop{false};
  std::atomic<int> ok{0}, async_started{0}, async_done{0};
  std::vector<std::thread> threads;
  for (int t = 0; t < 8; ++t) {
    threads.emplace_back([&, t] {
      while (!stop.load()) {
        if (t % 3 == 0) {
          bool queued = false;
          PickResult r = dp_->TryPick({"/s/M", {}}, &queued);
          if (!queued && r.status.ok()) ++ok;
        } else if (t % 3 == 1) {
          PickResult r =
              dp_->Pick({"/s/M", {}}, absl::Now() + absl::Milliseconds(2));
          if (r.status.ok()) ++ok;
        } else {
          ++async_started;
          dp_->PickAsync({"/s/M", {}}, absl::InfiniteFuture(),
                         [&](PickResult r) {
                           if (r.status.ok()) ++ok;
                           ++async_done;
                         });
          absl::SleepFor(absl::Microseconds(200));
        }
      }
    });
  }
  std::thread clock([&] {
    while (!stop.load()) {
      timers_->Advance(absl::ZeroDuration());
      absl::SleepFor(absl::Microseconds(100));
    }
  });
  // Each endpoint in turn: its connection drops (unnotified) for a while
  // picks run into it, then it is back (notified).
  for (int i = 0; i < 400; ++i) {
    const std::string e = absl::StrCat("e:", i % 4);
    factory_->SetUnnotified(e, i % 2 == 0 ? C::kIdle : C::kTransientFailure);
    absl::SleepFor(absl::Microseconds(200));
    factory_->Set(e, C::kReady);
    absl::SleepFor(absl::Microseconds(50));
  }
  for (int i = 0; i < 4; ++i) factory_->Set(absl::StrCat("e:", i), C::kReady);
  stop = true;
  for (auto& t : threads) t.join();
  clock.join();
  // Waiting async picks complete once the endpoints are READY again.
  for (int i = 0; i < 1000 && async_done.load() < async_started.load(); ++i) {
    timers_->Advance(absl::ZeroDuration());
    absl::SleepFor(absl::Milliseconds(1));
  }
  EXPECT_EQ(async_done.load(), async_started.load());
  EXPECT_GT(ok.load(), 0);
  EXPECT_EQ(counters_.GetOrCreate("c", "")->Load(), 0u);
  // Any async pick still waiting completes now, while its captures live.
  dp_->Shutdown();
}

// Issue 13 "Done when": picks from 8 threads while updates (endpoint lists,
// connectivity) arrive; every pick ends OK or queued, never stalls, and the
// counters return to zero.
TEST_F(DataPlaneTest, PicksFromEightThreadsDuringUpdates) {
  Start(C::kReady);
  auto config = [](int n) {
    std::vector<std::string> addresses;
    for (int i = 0; i < n; ++i) addresses.push_back(absl::StrCat("e:", i));
    return Config({{"/", "c"}},
                  {Cluster("c", {EdsLeaf("c", {{{"z", 1, addresses}},
                                               {{"z2", 1, {"f:1"}}}})})});
  };
  dp_->Update(config(4));
  std::atomic<bool> stop{false};
  std::atomic<int> ok{0};
  std::vector<std::thread> threads;
  for (int t = 0; t < 8; ++t) {
    threads.emplace_back([&] {
      while (!stop.load()) {
        bool queued = false;
        PickResult r = dp_->TryPick({"/s/M", {}}, &queued);
        if (r.status.ok() && !queued) {
          ++ok;
          r.tracker.Finish(true);
        }
      }
    });
  }
  // At least 300 updates, and until the pickers got through 1,000 picks.
  for (int i = 0; i < 300 || (ok.load() < 1000 && i < 10000000); ++i) {
    dp_->Update(config(1 + i % 7));
    factory_->Set("e:0", i % 3 == 0 ? C::kTransientFailure : C::kReady);
  }
  stop = true;
  for (auto& t : threads) t.join();
  EXPECT_GT(ok.load(), 0);
  EXPECT_EQ(counters_.GetOrCreate("c", "")->Load(), 0u);
}

// Batched endpoint changes (XdsChannel's setting): changes seen before the
// batch runs on the timer thread are applied together, once.
TEST_F(DataPlaneTest, BatchedEndpointChanges) {
  Start(C::kConnecting, /*batch=*/true);
  dp_->Update(
      Config({{"/", "c"}},
             {Cluster("c", {EdsLeaf("c", {{{"z", 1, {"a:1", "b:1"}}}})})}));
  factory_->Set("a:1", C::kReady);
  factory_->Set("b:1", C::kReady);
  EXPECT_EQ(PickOnce(), "QUEUED");  // not applied yet
  timers_->Advance(absl::ZeroDuration());
  int batches = 0;
  for (absl::Duration d : timers_->delays()) {
    if (d == absl::ZeroDuration()) ++batches;
  }
  EXPECT_EQ(batches, 1);  // one batch for both changes
  auto counts = Count(10);
  EXPECT_EQ(counts["a:1"], 5);
  EXPECT_EQ(counts["b:1"], 5);
}

// Issue 13 "Bad input": an endpoint list of 100,000 entries, then an EDS
// update every millisecond; picks on other threads keep going (they never
// take the update lock) and the endpoint set follows the last update.
TEST_F(DataPlaneTest, HugeEndpointListAndUpdateStorm) {
  Start(C::kReady);
  auto config = [](int n, int offset) {
    std::vector<std::string> addresses;
    addresses.reserve(n);
    for (int i = 0; i < n; ++i) {
      addresses.push_back(absl::StrCat("10.", (offset + i) / 65536, ".",
                                       (offset + i) / 256 % 256, ".",
                                       (offset + i) % 256, ":80"));
    }
    return Config({{"/", "c"}},
                  {Cluster("c", {EdsLeaf("c", {{{"z", 1, addresses}}})})});
  };
  dp_->Update(config(100000, 0));
  EXPECT_EQ(dp_->endpoint_count(), 100000u);
  std::atomic<bool> stop{false};
  std::atomic<int> picks_during_storm[2] = {0, 0};
  std::vector<std::thread> threads;
  for (int t = 0; t < 2; ++t) {
    threads.emplace_back([&, t] {
      while (!stop.load()) {
        bool queued = false;
        PickResult r = dp_->TryPick({"/s/M", {}}, &queued);
        if (r.status.ok()) ++picks_during_storm[t];
      }
    });
  }
  for (int i = 0; i < 200; ++i) {
    dp_->Update(config(100, i));
    absl::SleepFor(absl::Milliseconds(1));
  }
  stop = true;
  for (auto& t : threads) t.join();
  EXPECT_GT(picks_during_storm[0].load(), 0);
  EXPECT_GT(picks_during_storm[1].load(), 0);
  EXPECT_EQ(dp_->endpoint_count(), 100u);
  EXPECT_EQ(PickOnce().substr(0, 3), "10.");
}

// Stand-ins for generated stubs: constructible from the endpoint's channel.
struct StubA {
  explicit StubA(const std::shared_ptr<grpc::Channel>&) { ++made; }
  static inline int made = 0;
};
struct StubB {
  explicit StubB(const std::shared_ptr<grpc::Channel>&) { ++made; }
  static inline int made = 0;
};

// Endpoint::Stub<T> (issue 13: stubs cached per endpoint, so a generated
// stub registers its methods once): one stub per type per endpoint, handed
// back as the type it was made as.
TEST(EndpointStubTest, OneStubPerTypeKeptWithTheEndpoint) {
  // The counters are static: zero them so the test holds under
  // --gtest_repeat too.
  StubA::made = 0;
  StubB::made = 0;
  testing::FakeEndpoint a("127.0.0.1:1", Connectivity::kReady);
  testing::FakeEndpoint b("127.0.0.1:2", Connectivity::kReady);
  StubA& first = a.Stub<StubA>();
  EXPECT_EQ(&first, &a.Stub<StubA>());
  EXPECT_EQ(StubA::made, 1);
  a.Stub<StubB>();
  EXPECT_EQ(StubB::made, 1);
  EXPECT_EQ(&first, &a.Stub<StubA>());
  EXPECT_NE(&first, &b.Stub<StubA>());
  EXPECT_EQ(StubA::made, 2);
}

}  // namespace
}  // namespace channel
}  // namespace xdsfed
