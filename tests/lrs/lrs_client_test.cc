// LrsClient over a fake transport and a fake clock: the A47 LRS-server rule
// (§XdsClient Load Reporting APIs), and the LRS stream as gRPC C-core 1.51
// runs it (xds_client.cc LrsCallState: first request, response handling,
// report timer, zero-report skipping, restart with backoff, stop when no
// stats remain), plus sharing the ADS channel of the XdsClient.
#include "lib/lrs/lrs_client.h"

#include <atomic>
#include <iterator>
#include <memory>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include "absl/time/time.h"
#include "gtest/gtest.h"
#include "tests/client/client_test_util.h"
#include "tests/lrs/lrs_test_util.h"

namespace xdsfed {
namespace lrs {
namespace {

using client::kAdsMethod;
using client::kLrsMethod;
using envoy::service::load_stats::v3::LoadStatsRequest;
using testing::FakeLrsFactory;
using testing::FakeStream;
using testing::LrsResponseMessage;

constexpr char kBootstrap[] = R"({
  "xds_servers":[{"server_uri":"top:1","channel_creds":[{"type":"insecure"}],
                  "server_features":["xds_v3"]},
                 {"server_uri":"fallback:1",
                  "channel_creds":[{"type":"insecure"}]}],
  "node":{"id":"lrs-node"},
  "authorities":{"a.com":{"xds_servers":[
      {"server_uri":"auth:1","channel_creds":[{"type":"insecure"}]}]}}})";

const Locality kL1{"r1", "z1", ""};

XdsServerConfig Server(const std::string& uri,
                       const std::string& creds = "insecure",
                       std::set<std::string> features = {}) {
  return XdsServerConfig(uri, creds, Json::Value(Json::objectValue),
                         std::move(features));
}

std::shared_ptr<const Bootstrap> MakeBootstrap(bool federation = true) {
  auto bootstrap = Bootstrap::Parse(kBootstrap, federation);
  EXPECT_TRUE(bootstrap.ok()) << bootstrap.status();
  return *bootstrap;
}

class NoopWatcher : public client::AnyWatcher {
 public:
  void OnChanged(std::shared_ptr<const resources::ResourceData>) override {}
  void OnError(absl::Status) override {}
  void OnDoesNotExist() override {}
};

class LrsClientTest : public ::testing::Test {
 protected:
  LrsClient::Options MakeOptions() {
    LrsClient::Options options;
    options.timers = timers_;
    options.jitter_seed = 1;
    return options;
  }
  std::shared_ptr<LrsClient> MakeClient(bool federation = true) {
    auto client =
        LrsClient::Create(MakeBootstrap(federation), factory_, MakeOptions());
    EXPECT_TRUE(client.ok()) << client.status();
    return *client;
  }
  FakeStream* Lrs(const std::string& uri = "top:1") {
    return factory_->LatestStream(uri, kLrsMethod);
  }
  // The reports sent on `stream` (every request after the first).
  static std::vector<LoadStatsRequest> Reports(FakeStream* stream) {
    std::vector<LoadStatsRequest> all = stream->Requests<LoadStatsRequest>();
    if (!all.empty()) all.erase(all.begin());
    return all;
  }

  std::shared_ptr<FakeLrsFactory> factory_ = std::make_shared<FakeLrsFactory>();
  std::shared_ptr<client::testing::FakeTimers> timers_ =
      std::make_shared<client::testing::FakeTimers>();
};

// A47 §XdsClient Load Reporting APIs: only a server equal to one of the
// bootstrap's (uri, channel creds, server features) is accepted; nothing is
// opened for any other.
TEST_F(LrsClientTest, AcceptsOnlyBootstrapServers) {
  struct Case {
    const char* name;
    XdsServerConfig server;
    bool federation;
    bool ok;
  };
  const Case kCases[] = {
      {"top-level server", Server("top:1"), true, true},
      {"second top-level server", Server("fallback:1"), true, true},
      {"an authority's server", Server("auth:1"), true, true},
      {"authority server with federation off (authorities ignored)",
       Server("auth:1"), false, false},
      {"same uri, other channel creds", Server("top:1", "google_default"), true,
       false},
      {"same uri, another server feature",
       Server("top:1", "insecure", {"ignore_resource_deletion"}), true, false},
      {"unknown server", Server("evil.example.com:443"), true, false},
  };
  for (const Case& c : kCases) {
    SCOPED_TRACE(c.name);
    factory_ = std::make_shared<FakeLrsFactory>();
    std::shared_ptr<LrsClient> client = MakeClient(c.federation);
    auto drops = client->AddClusterDropStats(c.server, "c1", "e1");
    auto locality = client->AddClusterLocalityStats(c.server, "c1", "e1", kL1);
    EXPECT_EQ(drops.ok(), c.ok);
    EXPECT_EQ(locality.ok(), c.ok);
    if (c.ok) {
      EXPECT_EQ(client->active_stream_count(), 1u);
      EXPECT_EQ(factory_->transport_count(), 1u);
      continue;
    }
    const absl::Status want = absl::InvalidArgumentError(
        "lrs server " + c.server.server_uri() +
        " is not one of the bootstrap's xds servers (must equal one in "
        "server_uri, channel_creds and server_features)");
    EXPECT_EQ(drops.status(), want);
    EXPECT_EQ(locality.status(), want);
    EXPECT_EQ(client->active_stream_count(), 0u);
    EXPECT_EQ(factory_->transport_count(), 0u);  // no channel, nothing sent
  }
}

TEST_F(LrsClientTest, ChannelErrorIsReturned) {
  factory_->set_fail_uri("top:1");
  std::shared_ptr<LrsClient> client = MakeClient();
  auto drops = client->AddClusterDropStats(Server("top:1"), "c1", "");
  EXPECT_EQ(drops.status(), absl::UnavailableError("fake transport refused"));
  EXPECT_EQ(client->active_stream_count(), 0u);
}

// C-core: the stream starts with the first stats object; its first message
// is the node with "envoy.lrs.supports_send_all_clusters".
TEST_F(LrsClientTest, StreamStartsLazilyWithNode) {
  std::shared_ptr<LrsClient> client = MakeClient();
  EXPECT_EQ(factory_->transport_count(), 0u);
  auto drops = client->AddClusterDropStats(Server("top:1"), "c1", "e1");
  ASSERT_TRUE(drops.ok());
  auto locality =
      client->AddClusterLocalityStats(Server("top:1"), "c2", "", kL1);
  ASSERT_TRUE(locality.ok());
  EXPECT_EQ(factory_->Streams(kLrsMethod).size(), 1u);  // one per server
  ASSERT_NE(Lrs(), nullptr);
  std::vector<LoadStatsRequest> requests = Lrs()->Requests<LoadStatsRequest>();
  ASSERT_EQ(requests.size(), 1u);
  EXPECT_EQ(requests[0].node().id(), "lrs-node");
  EXPECT_EQ(requests[0].node().user_agent_name(), "xdsfed");
  EXPECT_EQ(requests[0].node().client_features(2),
            "envoy.lrs.supports_send_all_clusters");
  EXPECT_EQ(requests[0].cluster_stats_size(), 0);
}

// Reports follow the server's interval; each carries the counts since the
// previous one and the interval it covers.
TEST_F(LrsClientTest, ReportsAtServerInterval) {
  std::shared_ptr<LrsClient> client = MakeClient();
  auto stats =
      *client->AddClusterLocalityStats(Server("top:1"), "c1", "e1", kL1);
  auto drops = *client->AddClusterDropStats(Server("top:1"), "c1", "e1");
  for (int i = 0; i < 4; ++i) stats->AddCallStarted();
  stats->AddCallFinished(false, {{"cpu", 0.5}});
  stats->AddCallFinished(true);
  drops->AddCallDropped("lb");
  drops->AddUncategorizedDrops();
  Lrs()->Respond(LrsResponseMessage(true, {}, 2));
  timers_->Advance(absl::Milliseconds(1999));
  EXPECT_EQ(Reports(Lrs()).size(), 0u);
  timers_->Advance(absl::Milliseconds(1));
  std::vector<LoadStatsRequest> reports = Reports(Lrs());
  ASSERT_EQ(reports.size(), 1u);
  ASSERT_EQ(reports[0].cluster_stats_size(), 1);
  const auto& cs = reports[0].cluster_stats(0);
  EXPECT_EQ(cs.cluster_name(), "c1");
  EXPECT_EQ(cs.cluster_service_name(), "e1");
  EXPECT_EQ(cs.total_dropped_requests(), 2u);
  EXPECT_EQ(cs.load_report_interval().seconds(), 2);
  EXPECT_EQ(cs.load_report_interval().nanos(), 0);
  ASSERT_EQ(cs.upstream_locality_stats_size(), 1);
  const auto& loc = cs.upstream_locality_stats(0);
  EXPECT_EQ(loc.locality().region(), "r1");
  EXPECT_EQ(loc.total_issued_requests(), 4u);
  EXPECT_EQ(loc.total_successful_requests(), 1u);
  EXPECT_EQ(loc.total_error_requests(), 1u);
  EXPECT_EQ(loc.total_requests_in_progress(), 2u);
  ASSERT_EQ(loc.load_metric_stats_size(), 1);
  EXPECT_EQ(loc.load_metric_stats(0).total_metric_value(), 0.5);
  // The next report: only what happened since.
  stats->AddCallFinished(false);
  timers_->Advance(absl::Seconds(2));
  reports = Reports(Lrs());
  ASSERT_EQ(reports.size(), 2u);
  const auto& next = reports[1].cluster_stats(0);
  EXPECT_EQ(next.total_dropped_requests(), 0u);
  EXPECT_EQ(next.upstream_locality_stats(0).total_issued_requests(), 0u);
  EXPECT_EQ(next.upstream_locality_stats(0).total_successful_requests(), 1u);
  EXPECT_EQ(next.upstream_locality_stats(0).total_requests_in_progress(), 1u);
  EXPECT_EQ(next.load_report_interval().seconds(), 2);
}

// load_reporting_interval: at least 1 s (C-core), at most a day (ours).
TEST_F(LrsClientTest, IntervalClamped) {
  struct Case {
    int64_t seconds;
    int32_t nanos;
    absl::Duration first_report;
  };
  const Case kCases[] = {
      {0, 0, absl::Seconds(1)},         {0, 100000000, absl::Seconds(1)},
      {-3, 0, absl::Seconds(1)},        {3, 0, absl::Seconds(3)},
      {1000000000, 0, absl::Hours(24)},
  };
  for (const Case& c : kCases) {
    SCOPED_TRACE(::testing::Message() << c.seconds << "s " << c.nanos << "ns");
    factory_ = std::make_shared<FakeLrsFactory>();
    std::shared_ptr<LrsClient> client = MakeClient();
    auto stats =
        *client->AddClusterLocalityStats(Server("top:1"), "c1", "", kL1);
    stats->AddCallStarted();
    Lrs()->Respond(LrsResponseMessage(true, {}, c.seconds, c.nanos));
    timers_->Advance(c.first_report - absl::Milliseconds(1));
    EXPECT_EQ(Reports(Lrs()).size(), 0u);
    timers_->Advance(absl::Milliseconds(1));
    EXPECT_EQ(Reports(Lrs()).size(), 1u);
  }
}

// send_all_clusters false: only the listed clusters are reported.
TEST_F(LrsClientTest, ListedClustersOnly) {
  std::shared_ptr<LrsClient> client = MakeClient();
  auto c1 = *client->AddClusterDropStats(Server("top:1"), "c1", "");
  auto c2 = *client->AddClusterDropStats(Server("top:1"), "c2", "e2");
  c1->AddUncategorizedDrops();
  c2->AddUncategorizedDrops();
  Lrs()->Respond(LrsResponseMessage(false, {"c2", "c9"}, 1));
  timers_->Advance(absl::Seconds(1));
  std::vector<LoadStatsRequest> reports = Reports(Lrs());
  ASSERT_EQ(reports.size(), 1u);
  ASSERT_EQ(reports[0].cluster_stats_size(), 1);
  EXPECT_EQ(reports[0].cluster_stats(0).cluster_name(), "c2");
  EXPECT_EQ(reports[0].cluster_stats(0).total_dropped_requests(), 1u);
}

// C-core: a report is skipped when it and the previous one are all zero.
TEST_F(LrsClientTest, ConsecutiveZeroReportsSkipped) {
  std::shared_ptr<LrsClient> client = MakeClient();
  auto stats = *client->AddClusterLocalityStats(Server("top:1"), "c1", "", kL1);
  Lrs()->Respond(LrsResponseMessage(true, {}, 1));
  // Ticks: 1 zero (sent), 2 zero (skipped), 3 zero (skipped).
  timers_->Advance(absl::Seconds(3));
  EXPECT_EQ(Reports(Lrs()).size(), 1u);
  stats->AddCallStarted();
  stats->AddCallFinished(false);
  timers_->Advance(absl::Seconds(1));  // 4: counts (sent)
  EXPECT_EQ(Reports(Lrs()).size(), 2u);
  timers_->Advance(absl::Seconds(1));  // 5: zero after non-zero (sent)
  EXPECT_EQ(Reports(Lrs()).size(), 3u);
  timers_->Advance(absl::Seconds(1));  // 6: zero again (skipped)
  EXPECT_EQ(Reports(Lrs()).size(), 3u);
  // The skipped tick still took its snapshot: the next interval is 1 s.
  stats->AddCallStarted();
  timers_->Advance(absl::Seconds(1));
  std::vector<LoadStatsRequest> reports = Reports(Lrs());
  ASSERT_EQ(reports.size(), 4u);
  EXPECT_EQ(reports[3].cluster_stats(0).load_report_interval().seconds(), 1);
}

// Issue 29 B(b): calls that start in interval 1 and are still running keep
// the locality in every later report (total_requests_in_progress, nothing
// else), and those reports are never skipped as zero: C-core's
// LoadReportCountersAreZero asks XdsClusterLocalityStats::Snapshot::IsZero,
// which counts total_requests_in_progress (xds_client_stats.h), and its
// in-progress counter is not reset by a snapshot.
TEST_F(LrsClientTest, InFlightCallsAloneAreReported) {
  std::shared_ptr<LrsClient> client = MakeClient();
  auto stats = *client->AddClusterLocalityStats(Server("top:1"), "c1", "", kL1);
  stats->AddCallStarted();
  stats->AddCallStarted();
  Lrs()->Respond(LrsResponseMessage(true, {}, 1));
  struct Interval {
    uint64_t issued, in_progress;
  };
  const Interval kIntervals[] = {
      {2, 2},  // 1: the calls started
      {0, 2},  // 2: only in flight (a zero report if they did not count)
      {0, 2},  // 3: again (skipped as a second zero report in a row if not)
  };
  for (size_t i = 0; i < std::size(kIntervals); ++i) {
    SCOPED_TRACE(::testing::Message() << "interval " << i + 1);
    timers_->Advance(absl::Seconds(1));
    std::vector<LoadStatsRequest> reports = Reports(Lrs());
    ASSERT_EQ(reports.size(), i + 1);
    ASSERT_EQ(reports[i].cluster_stats_size(), 1);
    const auto& cs = reports[i].cluster_stats(0);
    ASSERT_EQ(cs.upstream_locality_stats_size(), 1);
    const auto& loc = cs.upstream_locality_stats(0);
    EXPECT_EQ(loc.locality().region(), "r1");
    EXPECT_EQ(loc.total_issued_requests(), kIntervals[i].issued);
    EXPECT_EQ(loc.total_requests_in_progress(), kIntervals[i].in_progress);
    EXPECT_EQ(loc.total_successful_requests(), 0u);
  }
}

// A changed response restarts the reporting with the new config; an
// identical one is ignored (C-core).
TEST_F(LrsClientTest, NewResponseReplacesConfig) {
  std::shared_ptr<LrsClient> client = MakeClient();
  auto stats = *client->AddClusterLocalityStats(Server("top:1"), "c1", "", kL1);
  stats->AddCallStarted();  // keeps every report non-zero
  Lrs()->Respond(LrsResponseMessage(true, {}, 1));
  timers_->Advance(absl::Milliseconds(500));
  Lrs()->Respond(LrsResponseMessage(true, {}, 3));
  timers_->Advance(absl::Milliseconds(2999));
  EXPECT_EQ(Reports(Lrs()).size(), 0u);
  timers_->Advance(absl::Milliseconds(1));  // t = 3.5 s
  EXPECT_EQ(Reports(Lrs()).size(), 1u);
  timers_->Advance(absl::Seconds(1));
  Lrs()->Respond(LrsResponseMessage(true, {}, 3));  // identical: ignored
  timers_->Advance(absl::Seconds(2));               // t = 6.5 s
  EXPECT_EQ(Reports(Lrs()).size(), 2u);
}

// C-core RetryableCall: a failed stream restarts with backoff (1 s, then
// 1.6x +- 20%); a stream that got a response resets the backoff.
TEST_F(LrsClientTest, RestartsWithBackoff) {
  std::shared_ptr<LrsClient> client = MakeClient();
  auto stats = *client->AddClusterDropStats(Server("top:1"), "c1", "");
  Lrs()->Fail(absl::UnavailableError("down"));
  EXPECT_EQ(client->active_stream_count(), 1u);  // backing off
  timers_->Advance(absl::Milliseconds(999));
  EXPECT_EQ(factory_->Streams(kLrsMethod).size(), 1u);
  timers_->Advance(absl::Milliseconds(1));
  ASSERT_EQ(factory_->Streams(kLrsMethod).size(), 2u);
  EXPECT_TRUE(Lrs()->Requests<LoadStatsRequest>()[0].has_node());
  Lrs()->Fail(absl::UnavailableError("down"));
  timers_->Advance(absl::Milliseconds(1270));  // < 1.6 s - 20%
  EXPECT_EQ(factory_->Streams(kLrsMethod).size(), 2u);
  timers_->Advance(absl::Milliseconds(660));  // > 1.6 s + 20%
  ASSERT_EQ(factory_->Streams(kLrsMethod).size(), 3u);
  Lrs()->Respond(LrsResponseMessage(true, {}, 1));
  Lrs()->Fail(absl::UnavailableError("down"));
  timers_->Advance(absl::Seconds(1));  // reset: 1 s again
  EXPECT_EQ(factory_->Streams(kLrsMethod).size(), 4u);
  EXPECT_EQ(factory_->transport_count(), 1u);  // same channel throughout
}

// Issue 16 item 3: with no seed in the options, each LrsClient draws its
// own jitter (client::RandomJitterSeed()); a fixed seed repeats.
TEST_F(LrsClientTest, JitterSeedIsRandomUnlessGiven) {
  // The restart delays of a fresh client whose stream fails five times.
  auto delays = [](std::optional<uint64_t> seed) {
    auto factory = std::make_shared<FakeLrsFactory>();
    auto timers = std::make_shared<client::testing::FakeTimers>();
    LrsClient::Options options;
    options.timers = timers;
    options.jitter_seed = seed;
    auto client = LrsClient::Create(MakeBootstrap(true), factory, options);
    EXPECT_TRUE(client.ok()) << client.status();
    auto stats = *(*client)->AddClusterDropStats(Server("top:1"), "c1", "");
    std::vector<absl::Duration> out;
    for (int i = 0; i < 5; ++i) {
      factory->LatestStream("top:1", kLrsMethod)
          ->Fail(absl::UnavailableError("down"));
      out.push_back(timers->delays().back());
      timers->Advance(out.back());
    }
    return out;
  };
  const std::vector<absl::Duration> a = delays(std::nullopt);
  const std::vector<absl::Duration> b = delays(std::nullopt);
  ASSERT_EQ(a.size(), 5u);
  EXPECT_EQ(a[0], absl::Seconds(1));
  EXPECT_NE(a, b);
  EXPECT_EQ(delays(3), delays(3));
}

// No stats object left while reporting: the next report carries the last
// counts, then the stream stops and the channel goes.
TEST_F(LrsClientTest, StopsAfterLastReportWhenNoStatsRemain) {
  std::shared_ptr<LrsClient> client = MakeClient();
  auto stats = *client->AddClusterLocalityStats(Server("top:1"), "c1", "", kL1);
  Lrs()->Respond(LrsResponseMessage(true, {}, 1));
  stats->AddCallStarted();
  stats->AddCallFinished(true);
  stats.reset();
  FakeStream* stream = Lrs();
  EXPECT_FALSE(stream->orphaned());
  timers_->Advance(absl::Seconds(1));
  std::vector<LoadStatsRequest> reports = Reports(stream);
  ASSERT_EQ(reports.size(), 1u);
  EXPECT_EQ(reports[0]
                .cluster_stats(0)
                .upstream_locality_stats(0)
                .total_error_requests(),
            1u);
  EXPECT_TRUE(stream->orphaned());
  EXPECT_EQ(client->active_stream_count(), 0u);
  EXPECT_EQ(factory_->live_transport_count(), 0u);
  // A new stats object starts a new stream on a new channel.
  auto again = client->AddClusterDropStats(Server("top:1"), "c1", "");
  ASSERT_TRUE(again.ok());
  EXPECT_EQ(factory_->Streams(kLrsMethod).size(), 2u);
  EXPECT_EQ(factory_->live_transport_count(), 1u);
}

// Not reporting yet (no response): the stream stops at once; the counts
// wait in the store and go with the next stream's first report.
TEST_F(LrsClientTest, StopsAtOnceWhenNotReporting) {
  std::shared_ptr<LrsClient> client = MakeClient();
  auto drops = *client->AddClusterDropStats(Server("top:1"), "c1", "");
  drops->AddCallDropped("lb");
  FakeStream* first = Lrs();
  drops.reset();
  EXPECT_TRUE(first->orphaned());
  EXPECT_EQ(client->active_stream_count(), 0u);
  EXPECT_EQ(factory_->live_transport_count(), 0u);
  auto again = *client->AddClusterDropStats(Server("top:1"), "c2", "");
  Lrs()->Respond(LrsResponseMessage(true, {}, 1));
  timers_->Advance(absl::Seconds(1));
  std::vector<LoadStatsRequest> reports = Reports(Lrs());
  ASSERT_EQ(reports.size(), 1u);
  ASSERT_EQ(reports[0].cluster_stats_size(), 2);
  EXPECT_EQ(reports[0].cluster_stats(0).cluster_name(), "c1");
  EXPECT_EQ(reports[0].cluster_stats(0).total_dropped_requests(), 1u);
}

// Released during backoff: no restart.
TEST_F(LrsClientTest, NoRestartWithoutStats) {
  std::shared_ptr<LrsClient> client = MakeClient();
  auto drops = *client->AddClusterDropStats(Server("top:1"), "c1", "");
  Lrs()->Fail(absl::UnavailableError("down"));
  drops.reset();
  EXPECT_EQ(client->active_stream_count(), 0u);
  timers_->Advance(absl::Seconds(10));
  EXPECT_EQ(factory_->Streams(kLrsMethod).size(), 1u);
}

// C-core ignores a response it cannot parse; the stream goes on.
TEST_F(LrsClientTest, UnparseableResponseIgnored) {
  std::shared_ptr<LrsClient> client = MakeClient();
  auto drops = *client->AddClusterDropStats(Server("top:1"), "c1", "");
  Lrs()->RespondBytes(
      "\x0a\x05"
      "ab");
  timers_->Advance(absl::Seconds(5));
  EXPECT_FALSE(Lrs()->ended());
  EXPECT_EQ(Reports(Lrs()).size(), 0u);
  Lrs()->Respond(LrsResponseMessage(true, {}, 1));
  timers_->Advance(absl::Seconds(1));
  EXPECT_EQ(Reports(Lrs()).size(), 1u);
}

// A47: data is kept per LRS server; each server has its own stream.
TEST_F(LrsClientTest, PerServerStores) {
  std::shared_ptr<LrsClient> client = MakeClient();
  auto top = *client->AddClusterDropStats(Server("top:1"), "c1", "");
  auto auth = *client->AddClusterDropStats(Server("auth:1"), "c1", "");
  EXPECT_NE(top, auth);
  top->AddUncategorizedDrops();
  auth->AddCallDropped("x");
  auth->AddCallDropped("x");
  Lrs("top:1")->Respond(LrsResponseMessage(true, {}, 1));
  Lrs("auth:1")->Respond(LrsResponseMessage(true, {}, 1));
  timers_->Advance(absl::Seconds(1));
  EXPECT_EQ(Reports(Lrs("top:1"))[0].cluster_stats(0).total_dropped_requests(),
            1u);
  EXPECT_EQ(Reports(Lrs("auth:1"))[0].cluster_stats(0).total_dropped_requests(),
            2u);
  EXPECT_EQ(client->active_stream_count(), 2u);
}

// Stats objects may outlive the client: recording still works, the stream
// stopped with the client.
TEST_F(LrsClientTest, StatsOutliveClient) {
  std::shared_ptr<ClusterLocalityStats> stats;
  {
    std::shared_ptr<LrsClient> client = MakeClient();
    stats = *client->AddClusterLocalityStats(Server("top:1"), "c1", "", kL1);
  }
  EXPECT_TRUE(Lrs()->orphaned());
  stats->AddCallStarted();
  stats->AddCallFinished(false);
  stats.reset();
  EXPECT_EQ(factory_->live_transport_count(), 0u);
}

// Stats taken and released on several threads while the stream reports,
// stops and restarts (run under TSan in CI): nothing is counted twice.
TEST_F(LrsClientTest, ConcurrentHandlesAndReports) {
  std::shared_ptr<LrsClient> client = MakeClient();
  std::atomic<bool> stop{false};
  std::atomic<uint64_t> recorded{0};
  std::vector<std::thread> threads;
  for (int t = 0; t < 3; ++t) {
    threads.emplace_back([&] {
      while (!stop.load()) {
        auto stats =
            client->AddClusterLocalityStats(Server("top:1"), "c1", "", kL1);
        ASSERT_TRUE(stats.ok());
        (*stats)->AddCallStarted();
        (*stats)->AddCallFinished(false);
        recorded.fetch_add(1);
      }
    });
  }
  // Until the workers have done plenty (threads start slowly under ASan).
  for (int i = 0; i < 300 || recorded.load() < 3000; ++i) {
    if (FakeStream* stream = Lrs()) {
      stream->Respond(LrsResponseMessage(true, {}, 1));
    }
    timers_->Advance(absl::Milliseconds(500));
  }
  stop = true;
  for (auto& thread : threads) thread.join();
  uint64_t reported = 0;
  for (const auto& stream : factory_->Streams(kLrsMethod)) {
    for (const auto& report : Reports(stream.get())) {
      for (const auto& cs : report.cluster_stats()) {
        for (const auto& loc : cs.upstream_locality_stats()) {
          reported += loc.total_issued_requests();
        }
      }
    }
  }
  EXPECT_LE(reported, recorded.load());
  EXPECT_GT(factory_->Streams(kLrsMethod).size(), 0u);
}

// --- sharing the XdsClient's channel ---

class SharedChannelTest : public LrsClientTest {
 protected:
  std::shared_ptr<client::XdsClient> MakeXdsClient() {
    client::XdsClient::Options options;
    options.timers = timers_;
    options.user_agent_name = "ua-test";
    options.user_agent_version = "7";
    auto xds = client::XdsClient::Create(MakeBootstrap(), factory_, options);
    EXPECT_TRUE(xds.ok()) << xds.status();
    return *xds;
  }
  std::shared_ptr<LrsClient> MakeSharedClient(
      std::shared_ptr<client::XdsClient> xds) {
    auto client = LrsClient::Create(std::move(xds), MakeOptions());
    EXPECT_TRUE(client.ok()) << client.status();
    return *client;
  }
  std::vector<std::string> Methods(size_t transport) {
    std::vector<std::string> methods;
    for (const auto& s : factory_->transport(transport)->streams) {
      methods.push_back(s->method());
    }
    return methods;
  }
};

// gRPC runs the LRS call on the ADS channel of the server.
TEST_F(SharedChannelTest, LrsJoinsAdsChannel) {
  auto xds = MakeXdsClient();
  client::WatchId id = xds->Watch(client::testing::FakeListenerType(), "l1",
                                  std::make_shared<NoopWatcher>());
  ASSERT_EQ(factory_->transport_count(), 1u);
  std::shared_ptr<LrsClient> client = MakeSharedClient(xds);
  auto stats = *client->AddClusterDropStats(Server("top:1"), "c1", "");
  EXPECT_EQ(factory_->transport_count(), 1u);
  EXPECT_EQ(Methods(0), (std::vector<std::string>{std::string(kAdsMethod),
                                                  std::string(kLrsMethod)}));
  // Same node as ADS (the XdsClient's user agent).
  auto first = Lrs()->Requests<LoadStatsRequest>()[0];
  EXPECT_EQ(first.node().user_agent_name(), "ua-test");
  EXPECT_EQ(first.node().user_agent_version(), "7");
  // ADS lets go of the channel: LRS keeps it.
  xds->CancelWatch(id);
  EXPECT_EQ(xds->channel_count(), 0u);
  EXPECT_EQ(factory_->live_transport_count(), 1u);
  EXPECT_FALSE(Lrs()->ended());
  // LRS lets go too: the channel goes.
  stats.reset();
  EXPECT_EQ(factory_->live_transport_count(), 0u);
}

// The other order: an ADS channel opened after the LRS stream adopts its
// transport.
TEST_F(SharedChannelTest, AdsJoinsLrsChannel) {
  auto xds = MakeXdsClient();
  std::shared_ptr<LrsClient> client = MakeSharedClient(xds);
  auto stats = *client->AddClusterDropStats(Server("top:1"), "c1", "");
  ASSERT_EQ(factory_->transport_count(), 1u);
  client::WatchId id = xds->Watch(client::testing::FakeListenerType(), "l1",
                                  std::make_shared<NoopWatcher>());
  EXPECT_EQ(factory_->transport_count(), 1u);
  EXPECT_EQ(Methods(0), (std::vector<std::string>{std::string(kLrsMethod),
                                                  std::string(kAdsMethod)}));
  EXPECT_EQ(xds->ChannelServerUris(), std::vector<std::string>{"top:1"});
  stats.reset();  // not reporting yet: LRS stops, ADS keeps the channel
  EXPECT_EQ(factory_->live_transport_count(), 1u);
  xds->CancelWatch(id);
  EXPECT_EQ(factory_->live_transport_count(), 0u);
}

// A fallback server (never used by ADS) gets a channel of its own.
TEST_F(SharedChannelTest, ServerWithoutAdsChannel) {
  auto xds = MakeXdsClient();
  std::shared_ptr<LrsClient> client = MakeSharedClient(xds);
  auto stats = client->AddClusterDropStats(Server("fallback:1"), "c1", "");
  ASSERT_TRUE(stats.ok()) << stats.status();
  EXPECT_NE(Lrs("fallback:1"), nullptr);
}

// A47: the XdsClient hands out no channel to a server outside the bootstrap.
TEST_F(SharedChannelTest, SharedTransportRefusesUnknownServer) {
  auto xds = MakeXdsClient();
  EXPECT_EQ(xds->SharedTransport(Server("evil:1")).status(),
            absl::InvalidArgumentError(
                "xDS server evil:1 is not a server of the bootstrap"));
  EXPECT_EQ(factory_->transport_count(), 0u);
}

}  // namespace
}  // namespace lrs
}  // namespace xdsfed
