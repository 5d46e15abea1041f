// The LrsClient over REAL gRPC (lib/transport) against the embedded control
// plane's LRS service (tools/control_plane) on loopback: first request,
// reports and their counts, the interval the server asks (clamped to 1 s),
// listed clusters, the A47 LRS-server rule, and the LRS stream sharing the
// ADS connection. Every wait is for an event with a deadline, never a bare
// sleep: "nothing arrives" is checked after a positive control arrived.
#include <unistd.h>

#include <cstdio>
#include <fstream>
#include <memory>
#include <set>
#include <string>
#include <vector>

#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/strip.h"
#include "absl/time/clock.h"
#include "absl/time/time.h"
#include "gtest/gtest.h"
#include "json/json.h"
#include "lib/bootstrap/bootstrap.h"
#include "lib/client/xds_client.h"
#include "lib/lrs/lrs_client.h"
#include "lib/resources/cluster.h"
#include "lib/resources/resource_type.h"
#include "lib/transport/grpc_transport.h"
#include "tools/control_plane/control_plane.h"

namespace xdsfed {
namespace lrs {
namespace {

using control_plane::ControlPlane;

constexpr absl::Duration kWait = absl::Seconds(5);
constexpr char kNodeId[] = "lrs-e2e-node";
const Locality kL1{"r1", "z1", "s1"};

struct Cp {
  std::unique_ptr<ControlPlane> server;
  int port = 0;
};

Cp StartCp(ControlPlane::Options options) {
  Cp cp;
  cp.server = std::make_unique<ControlPlane>(options);
  absl::StatusOr<int> port = cp.server->Start();
  EXPECT_TRUE(port.ok()) << port.status();
  cp.port = port.ok() ? *port : 0;
  return cp;
}

std::shared_ptr<const Bootstrap> MakeBootstrap(int port) {
  auto bootstrap = Bootstrap::Parse(
      absl::StrCat(
          R"({"xds_servers":[{"server_uri":"127.0.0.1:)", port,
          R"(","channel_creds":[{"type":"insecure"}]}],"node":{"id":")",
          kNodeId, R"("}})"),
      /*federation=*/true);
  EXPECT_TRUE(bootstrap.ok()) << bootstrap.status();
  return *bootstrap;
}

XdsServerConfig InsecureServer(int port) {
  return XdsServerConfig(absl::StrCat("127.0.0.1:", port), "insecure",
                         Json::Value(Json::objectValue), {});
}

struct Clients {
  std::shared_ptr<client::XdsClient> xds;
  std::shared_ptr<LrsClient> lrs;
};

Clients MakeClients(int port) {
  Clients c;
  client::XdsClient::Options xds_options;
  xds_options.backoff.initial = absl::Milliseconds(100);
  auto xds = client::XdsClient::Create(
      MakeBootstrap(port),
      std::make_shared<transport::GrpcXdsTransportFactory>(), xds_options);
  EXPECT_TRUE(xds.ok()) << xds.status();
  c.xds = *xds;
  LrsClient::Options options;
  options.backoff.initial = absl::Milliseconds(100);
  auto lrs = LrsClient::Create(c.xds, options);
  EXPECT_TRUE(lrs.ok()) << lrs.status();
  c.lrs = *lrs;
  return c;
}

// proto3 JSON prints uint64 as a string and leaves zeros out.
uint64_t Num(const Json::Value& v) {
  uint64_t n = 0;
  if (v.isString()) return absl::SimpleAtoi(v.asString(), &n) ? n : 0;
  return v.isNull() ? 0 : v.asUInt64();
}

// A JSON Duration ("1.000345s").
absl::Duration Dur(const Json::Value& v) {
  double seconds = 0;
  absl::string_view text = v.isString() ? v.asCString() : "";
  if (!absl::ConsumeSuffix(&text, "s") || !absl::SimpleAtod(text, &seconds)) {
    return absl::ZeroDuration();
  }
  return absl::Seconds(seconds);
}

// Every ClusterStats received for `cluster`, oldest first.
std::vector<Json::Value> ClusterStatsOf(const std::vector<Json::Value>& log,
                                        const std::string& cluster) {
  std::vector<Json::Value> out;
  for (const Json::Value& entry : log) {
    for (const Json::Value& cs : entry["request"]["cluster_stats"]) {
      if (cs["cluster_name"].asString() == cluster) out.push_back(cs);
    }
  }
  return out;
}

bool WaitForClusterReports(const ControlPlane& cp, const std::string& cluster,
                           size_t n, absl::Duration timeout = kWait) {
  return cp.WaitForLoadReports(
      [&](const std::vector<Json::Value>& log) {
        return ClusterStatsOf(log, cluster).size() >= n;
      },
      timeout);
}

// Calls, drops and metrics recorded by the "LB policy" arrive in the
// server's LoadStatsRequests, after a first request carrying the node; the
// control plane logs each request as a JSON line.
TEST(LrsE2eTest, ReportsCallsDropsAndNode) {
  const std::string log_path =
      absl::StrCat(::testing::TempDir(), "/lrs_e2e_log_", getpid(), ".jsonl");
  std::remove(log_path.c_str());
  ControlPlane::Options options;
  options.lrs_interval = absl::Seconds(1);
  options.log_file = log_path;
  Cp cp = StartCp(options);
  Clients c = MakeClients(cp.port);
  auto stats = c.lrs->AddClusterLocalityStats(InsecureServer(cp.port), "c1",
                                              "eds1", kL1);
  auto drops =
      c.lrs->AddClusterDropStats(InsecureServer(cp.port), "c1", "eds1");
  ASSERT_TRUE(stats.ok()) << stats.status();
  ASSERT_TRUE(drops.ok()) << drops.status();
  for (int i = 0; i < 5; ++i) (*stats)->AddCallStarted();
  (*stats)->AddCallFinished(false, {{"cpu", 0.5}});
  (*stats)->AddCallFinished(false, {{"cpu", 0.25}});
  (*stats)->AddCallFinished(false);
  (*stats)->AddCallFinished(true);
  (*drops)->AddCallDropped("lb");
  (*drops)->AddCallDropped("lb");
  (*drops)->AddUncategorizedDrops();
  ASSERT_TRUE(WaitForClusterReports(*cp.server, "c1", 1));

  std::vector<Json::Value> log = cp.server->LoadReports();
  const Json::Value& node = log[0]["request"]["node"];
  EXPECT_EQ(node["id"].asString(), kNodeId);
  EXPECT_EQ(node["user_agent_name"].asString(), "xdsfed");
  std::set<std::string> features;
  for (const Json::Value& f : node["client_features"]) {
    features.insert(f.asString());
  }
  EXPECT_EQ(features.count("envoy.lrs.supports_send_all_clusters"), 1u);
  EXPECT_FALSE(log[0]["request"].isMember("cluster_stats"));

  // Everything was recorded before the first report (which comes a second
  // after the server's response), so it is all in that one.
  const Json::Value cs = ClusterStatsOf(log, "c1")[0];
  EXPECT_EQ(cs["cluster_service_name"].asString(), "eds1");
  EXPECT_EQ(Num(cs["total_dropped_requests"]), 3u);
  ASSERT_EQ(cs["dropped_requests"].size(), 1u);
  EXPECT_EQ(cs["dropped_requests"][0]["category"].asString(), "lb");
  EXPECT_EQ(Num(cs["dropped_requests"][0]["dropped_count"]), 2u);
  EXPECT_GE(Dur(cs["load_report_interval"]), absl::Seconds(1));
  ASSERT_EQ(cs["upstream_locality_stats"].size(), 1u);
  const Json::Value& loc = cs["upstream_locality_stats"][0];
  EXPECT_EQ(loc["locality"]["region"].asString(), "r1");
  EXPECT_EQ(loc["locality"]["zone"].asString(), "z1");
  EXPECT_EQ(loc["locality"]["sub_zone"].asString(), "s1");
  EXPECT_EQ(Num(loc["total_issued_requests"]), 5u);
  EXPECT_EQ(Num(loc["total_successful_requests"]), 3u);
  EXPECT_EQ(Num(loc["total_error_requests"]), 1u);
  EXPECT_EQ(Num(loc["total_requests_in_progress"]), 1u);
  ASSERT_EQ(loc["load_metric_stats"].size(), 1u);
  EXPECT_EQ(loc["load_metric_stats"][0]["metric_name"].asString(), "cpu");
  EXPECT_EQ(
      Num(loc["load_metric_stats"][0]["num_requests_finished_with_metric"]),
      2u);
  EXPECT_EQ(loc["load_metric_stats"][0]["total_metric_value"].asDouble(), 0.75);

  // `xdsfed control-plane --log`: one JSON line per LRS request too.
  std::ifstream file(log_path);
  std::string line;
  size_t lrs_lines = 0;
  bool saw_cluster_stats = false;
  while (std::getline(file, line)) {
    Json::Value json;
    std::string errors;
    std::unique_ptr<Json::CharReader> reader(
        Json::CharReaderBuilder().newCharReader());
    ASSERT_TRUE(
        reader->parse(line.data(), line.data() + line.size(), &json, &errors))
        << line;
    if (json["service"].asString() != "lrs") continue;
    ++lrs_lines;
    if (json["request"].isMember("cluster_stats")) saw_cluster_stats = true;
  }
  EXPECT_GE(lrs_lines, 2u);
  EXPECT_TRUE(saw_cluster_stats);
  std::remove(log_path.c_str());
}

// The server asks for 100 ms; the client reports every second (C-core's
// minimum), and each ClusterStats says how long it covers.
TEST(LrsE2eTest, IntervalClampedToOneSecond) {
  ControlPlane::Options options;
  options.lrs_interval = absl::Milliseconds(100);
  Cp cp = StartCp(options);
  Clients c = MakeClients(cp.port);
  auto stats =
      *c.lrs->AddClusterLocalityStats(InsecureServer(cp.port), "c1", "", kL1);
  stats->AddCallStarted();  // in progress: no report is all zero
  ASSERT_TRUE(WaitForClusterReports(*cp.server, "c1", 2));
  std::vector<Json::Value> reports =
      ClusterStatsOf(cp.server->LoadReports(), "c1");
  EXPECT_GE(Dur(reports[0]["load_report_interval"]), absl::Seconds(1));
  const absl::Duration second = Dur(reports[1]["load_report_interval"]);
  EXPECT_GE(second, absl::Seconds(1));
  EXPECT_LT(second, absl::Seconds(3));
}

// send_all_clusters false: only the clusters the server lists are reported.
TEST(LrsE2eTest, ListedClustersOnly) {
  ControlPlane::Options options;
  options.lrs_send_all_clusters = false;
  options.lrs_clusters = {"c2"};
  Cp cp = StartCp(options);
  Clients c = MakeClients(cp.port);
  auto c1 = *c.lrs->AddClusterDropStats(InsecureServer(cp.port), "c1", "");
  auto c2 = *c.lrs->AddClusterDropStats(InsecureServer(cp.port), "c2", "e2");
  c1->AddUncategorizedDrops();
  c2->AddUncategorizedDrops();
  ASSERT_TRUE(WaitForClusterReports(*cp.server, "c2", 1));
  std::vector<Json::Value> log = cp.server->LoadReports();
  EXPECT_EQ(Num(ClusterStatsOf(log, "c2")[0]["total_dropped_requests"]), 1u);
  EXPECT_TRUE(ClusterStatsOf(log, "c1").empty());
}

// A47 §XdsClient Load Reporting APIs: an LRS server that is not a bootstrap
// server is refused and never contacted, even on a live server.
TEST(LrsE2eTest, RefusesServerNotInBootstrap) {
  Cp bootstrap_cp = StartCp({});
  Cp other_cp = StartCp({});
  Clients c = MakeClients(bootstrap_cp.port);
  const std::string want_prefix = "lrs server 127.0.0.1:";
  struct Case {
    const char* name;
    XdsServerConfig server;
  };
  const Case kCases[] = {
      {"another server", InsecureServer(other_cp.port)},
      {"bootstrap uri, other creds",
       XdsServerConfig(absl::StrCat("127.0.0.1:", bootstrap_cp.port), "tls",
                       Json::Value(Json::objectValue), {})},
      {"bootstrap uri, other features",
       XdsServerConfig(absl::StrCat("127.0.0.1:", bootstrap_cp.port),
                       "insecure", Json::Value(Json::objectValue),
                       {"ignore_resource_deletion"})},
  };
  for (const Case& k : kCases) {
    SCOPED_TRACE(k.name);
    auto drops = c.lrs->AddClusterDropStats(k.server, "c1", "");
    EXPECT_EQ(drops.status().code(), absl::StatusCode::kInvalidArgument);
    EXPECT_TRUE(absl::StartsWith(drops.status().message(), want_prefix))
        << drops.status();
  }
  EXPECT_EQ(c.lrs->active_stream_count(), 0u);
  // A valid server reports within a second or so; by then the refused one
  // would have had its first request.
  auto ok =
      *c.lrs->AddClusterDropStats(InsecureServer(bootstrap_cp.port), "c1", "");
  ok->AddUncategorizedDrops();
  ASSERT_TRUE(WaitForClusterReports(*bootstrap_cp.server, "c1", 1));
  EXPECT_TRUE(other_cp.server->LoadReports().empty());
  EXPECT_TRUE(other_cp.server->RequestLog().empty());
}

// gRPC runs the LRS call on the ADS channel: both streams come from the
// same client connection (same peer address and port).
TEST(LrsE2eTest, SharesTheAdsConnection) {
  Cp cp = StartCp({});
  Clients c = MakeClients(cp.port);
  class Watcher : public client::AnyWatcher {
    void OnChanged(std::shared_ptr<const resources::ResourceData>) override {}
    void OnError(absl::Status) override {}
    void OnDoesNotExist() override {}
  };
  client::WatchId id = c.xds->Watch(resources::ClusterResourceType(), "c1",
                                    std::make_shared<Watcher>());
  ASSERT_TRUE(cp.server->WaitForRequests(
      [](const std::vector<Json::Value>& log) { return !log.empty(); }, kWait));
  auto stats = *c.lrs->AddClusterDropStats(InsecureServer(cp.port), "c1", "");
  ASSERT_TRUE(cp.server->WaitForLoadReports(
      [](const std::vector<Json::Value>& log) { return !log.empty(); }, kWait));
  const std::string ads_peer = cp.server->RequestLog()[0]["peer"].asString();
  EXPECT_FALSE(ads_peer.empty());
  EXPECT_EQ(cp.server->LoadReports()[0]["peer"].asString(), ads_peer);
  c.xds->CancelWatch(id);
}

}  // namespace
}  // namespace lrs
}  // namespace xdsfed
