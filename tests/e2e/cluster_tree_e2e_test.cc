// The A37 cluster driver over REAL gRPC: ClusterResolution on an XdsClient
// (lib/transport) against an embedded control plane on loopback, with the
// system DNS resolver for LOGICAL_DNS clusters. Each TEST names the A37 rule
// it checks. Waits are for events, never for a fixed time.
#include <algorithm>
#include <functional>
#include <memory>
#include <set>
#include <string>
#include <vector>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/substitute.h"
#include "absl/synchronization/mutex.h"
#include "absl/time/time.h"
#include "gtest/gtest.h"
#include "lib/bootstrap/bootstrap.h"
#include "lib/client/xds_client.h"
#include "lib/client/xds_client_cluster_source.h"
#include "lib/cluster/cluster_resolution.h"
#include "lib/cluster/lb_config.h"
#include "lib/transport/grpc_transport.h"
#include "tools/control_plane/control_plane.h"

namespace xdsfed {
namespace {

using cluster::ClusterResolution;

constexpr absl::Duration kWait = absl::Seconds(10);

// Snapshot entries, proto3 JSON.
std::string Eds(absl::string_view name, bool lrs_self = false) {
  return absl::Substitute(
      R"("$0":{"type":"EDS",$1"eds_cluster_config":{"eds_config":{"ads":{}}}})",
      name, lrs_self ? R"("lrs_server":{"self":{}},)" : "");
}
std::string Dns(absl::string_view name, absl::string_view host, int port) {
  return absl::Substitute(R"("$0":{"type":"LOGICAL_DNS","load_assignment":{
  "endpoints":[{"lb_endpoints":[{"endpoint":{"address":{"socket_address":{
  "address":"$1","port_value":$2}}}}]}]}})",
                          name, host, port);
}
std::string Aggregate(absl::string_view name,
                      const std::vector<std::string>& children) {
  return absl::Substitute(R"("$0":{"cluster_type":{
  "name":"envoy.clusters.aggregate","typed_config":{
  "@type":"type.googleapis.com/envoy.extensions.clusters.aggregate.v3.ClusterConfig",
  "clusters":["$1"]}}})",
                          name, absl::StrJoin(children, "\",\""));
}
std::string Cla(absl::string_view name, int port) {
  return absl::Substitute(R"("$0":{"endpoints":[{
  "locality":{"region":"r1","zone":"z1"},"load_balancing_weight":1,
  "lb_endpoints":[{"endpoint":{"address":{"socket_address":{
  "address":"127.0.0.1","port_value":$1}}}}]}]})",
                          name, port);
}

control_plane::Snapshot MakeSnapshot(
    const std::string& version, const std::vector<std::string>& clusters,
    const std::vector<std::string>& endpoints) {
  const std::string text = absl::StrCat(
      R"({"version":")", version, R"(","resources":{)",
      R"("envoy.config.cluster.v3.Cluster":{)", absl::StrJoin(clusters, ","),
      R"(},"envoy.config.endpoint.v3.ClusterLoadAssignment":{)",
      absl::StrJoin(endpoints, ","), "}}}");
  absl::StatusOr<control_plane::Snapshot> snapshot =
      control_plane::ParseSnapshot(text);
  EXPECT_TRUE(snapshot.ok()) << snapshot.status() << "\n" << text;
  return snapshot.ok() ? *std::move(snapshot) : control_plane::Snapshot{};
}

// Renders an update as "EDS B(127.0.0.1:1) | LOGICAL_DNS E(...)" or
// "error: ...", keeping every update for the test to wait on.
class Updates {
 public:
  ClusterResolution::Callback Callback() {
    return [this](const ClusterResolution::Update& update) {
      std::string text;
      if (!update.status.ok()) {
        text = absl::StrCat("error: ", update.status.message());
      } else {
        std::vector<std::string> parts;
        for (const auto& m : update.mechanisms) {
          std::vector<std::string> addresses;
          if (m.endpoints != nullptr) {
            for (const auto& priority : m.endpoints->priorities) {
              for (const auto& [locality, entry] : priority.localities) {
                for (const auto& e : entry.endpoints) {
                  addresses.push_back(e.address);
                }
              }
            }
          }
          parts.push_back(absl::StrCat(
              m.mechanism.type == cluster::DiscoveryMechanism::Type::kEds
                  ? "EDS "
                  : "LOGICAL_DNS ",
              m.mechanism.cluster, "(",
              m.endpoints == nullptr ? "none" : absl::StrJoin(addresses, " "),
              ")"));
        }
        text = absl::StrJoin(parts, " | ");
      }
      absl::MutexLock lock(&mu_);
      all_.push_back(text);
      last_ = update;
    };
  }
  // Waits until some update satisfies `match`; returns it as text.
  std::string WaitFor(const std::function<bool(const std::string&)>& match) {
    absl::MutexLock lock(&mu_);
    auto found = [&] {
      mu_.AssertHeld();  // Await runs the condition under mu_
      for (const std::string& u : all_) {
        if (match(u)) return true;
      }
      return false;
    };
    mu_.AwaitWithTimeout(absl::Condition(&found), kWait);
    for (const std::string& u : all_) {
      if (match(u)) return u;
    }
    return absl::StrCat("(none of: ", absl::StrJoin(all_, " / "), ")");
  }
  ClusterResolution::Update last() {
    absl::MutexLock lock(&mu_);
    return last_;
  }

 private:
  absl::Mutex mu_;
  std::vector<std::string> all_ ABSL_GUARDED_BY(mu_);
  ClusterResolution::Update last_ ABSL_GUARDED_BY(mu_);
};

class ClusterTreeE2eTest : public ::testing::Test {
 protected:
  void SetUp() override {
    control_plane::ControlPlane::Options options;
    cp_ = std::make_unique<control_plane::ControlPlane>(options);
    absl::StatusOr<int> port = cp_->Start();
    ASSERT_TRUE(port.ok()) << port.status();
    absl::StatusOr<std::shared_ptr<const Bootstrap>> bootstrap =
        Bootstrap::Parse(
            absl::Substitute(R"({"xds_servers":[{"server_uri":"127.0.0.1:$0",
                "channel_creds":[{"type":"insecure"}]}],"node":{"id":"e2e"}})",
                             *port),
            /*federation=*/true);
    ASSERT_TRUE(bootstrap.ok()) << bootstrap.status();
    bootstrap_ = *bootstrap;
    client::XdsClient::Options client_options;
    client_options.does_not_exist_timeout = absl::Milliseconds(500);
    absl::StatusOr<std::shared_ptr<client::XdsClient>> client =
        client::XdsClient::Create(
            bootstrap_, std::make_shared<transport::GrpcXdsTransportFactory>(),
            client_options);
    ASSERT_TRUE(client.ok()) << client.status();
    client_ = *client;
    source_ = std::make_shared<client::XdsClientClusterSource>(client_);
  }
  void TearDown() override {
    for (const auto& r : resolutions_) r->Stop();
  }
  // The updates of a new resolution of `root`; they outlive it.
  Updates& Start(const std::string& root) {
    Updates& updates = *updates_.emplace_back(std::make_unique<Updates>());
    resolutions_.push_back(ClusterResolution::Start(
        source_, root, {cluster::SystemDnsResolver(), bootstrap_},
        updates.Callback()));
    return updates;
  }

  std::unique_ptr<control_plane::ControlPlane> cp_;
  std::shared_ptr<const Bootstrap> bootstrap_;
  std::shared_ptr<client::XdsClient> client_;
  std::shared_ptr<cluster::ClusterDataSource> source_;
  std::vector<std::unique_ptr<Updates>> updates_;
  std::vector<std::shared_ptr<ClusterResolution>> resolutions_;
};

// A37 §CDS LB Policy Support, the worked example over ADS: A -> [B, C],
// C -> [D, E] gives [EDS B, EDS D, LOGICAL_DNS E]; E resolves by real DNS.
// B is also a root of its own: two watchers, one subscription (A37).
TEST_F(ClusterTreeE2eTest, A37ExampleOverAdsWithRealDns) {
  cp_->SetSnapshot(MakeSnapshot(
      "1",
      {Aggregate("A", {"B", "C"}), Eds("B", /*lrs_self=*/true),
       Aggregate("C", {"D", "E"}), Eds("D"), Dns("E", "localhost", 8080)},
      {Cla("B", 1001), Cla("D", 1002)}));
  Updates& a = Start("A");
  Updates& b = Start("B");
  std::string got = a.WaitFor([](const std::string& u) {
    return absl::StartsWith(u,
                            "EDS B(127.0.0.1:1001) | EDS D(127.0.0.1:1002) "
                            "| LOGICAL_DNS E(");
  });
  EXPECT_TRUE(absl::StrContains(got, "127.0.0.1:8080") ||
              absl::StrContains(got, "[::1]:8080"))
      << got;
  EXPECT_EQ(b.WaitFor([](const std::string& u) {
    return u == "EDS B(127.0.0.1:1001)";
  }),
            "EDS B(127.0.0.1:1001)");
  // A47 §LRS Server Representation: `self` = the server B came from.
  ClusterResolution::Update last = a.last();
  ASSERT_EQ(last.mechanisms.size(), 3u);
  ASSERT_TRUE(last.mechanisms[0].lrs_server.has_value());
  EXPECT_EQ(last.mechanisms[0].lrs_server->server_uri(),
            bootstrap_->servers()[0]->server_uri());
  // One subscription per cluster on the stream, whoever watches it.
  std::vector<std::string> last_cds_names;
  for (const Json::Value& request : cp_->RequestLog()) {
    if (request["type_url"].asString() !=
        "type.googleapis.com/envoy.config.cluster.v3.Cluster") {
      continue;
    }
    last_cds_names.clear();
    for (const Json::Value& name : request["resource_names"]) {
      last_cds_names.push_back(name.asString());
    }
  }
  std::sort(last_cds_names.begin(), last_cds_names.end());
  EXPECT_EQ(absl::StrJoin(last_cds_names, ","), "A,B,C,D,E");
}

// A37: a watcher reporting does-not-exist is TRANSIENT_FAILURE naming the
// missing cluster; the tree recovers when it comes back.
TEST_F(ClusterTreeE2eTest, DeletedChildIsTransientFailure) {
  cp_->SetSnapshot(
      MakeSnapshot("1", {Aggregate("A", {"B", "C"}), Eds("B"), Eds("C")},
                   {Cla("B", 1001), Cla("C", 1002)}));
  Updates& a = Start("A");
  a.WaitFor([](const std::string& u) {
    return u == "EDS B(127.0.0.1:1001) | EDS C(127.0.0.1:1002)";
  });
  cp_->SetSnapshot(MakeSnapshot("2", {Aggregate("A", {"B", "C"}), Eds("B")},
                                {Cla("B", 1001), Cla("C", 1002)}));
  EXPECT_EQ(a.WaitFor([](const std::string& u) {
    return absl::StartsWith(u, "error:");
  }),
            "error: CDS resource \"C\" does not exist");
}

// A37 §Discovery Mechanisms: the EDS cluster's ClusterLoadAssignment never
// arrives (does-not-exist after the timer): one priority with no endpoints,
// and the LOGICAL_DNS fallback (localhost) carries the tree.
TEST_F(ClusterTreeE2eTest, EdsMissingFallsBackToLocalhostDns) {
  cp_->SetSnapshot(
      MakeSnapshot("1",
                   {Aggregate("A", {"primary", "fallback"}), Eds("primary"),
                    Dns("fallback", "localhost", 9090)},
                   {}));
  Updates& a = Start("A");
  std::string got = a.WaitFor([](const std::string& u) {
    return absl::StartsWith(u, "EDS primary(none) | LOGICAL_DNS fallback(") &&
           !absl::EndsWith(u, "fallback(none)");
  });
  EXPECT_TRUE(absl::StrContains(got, ":9090")) << got;
}

// A37: depth 17 is TRANSIENT_FAILURE naming the limit; a self-referencing
// aggregate terminates.
TEST_F(ClusterTreeE2eTest, DepthAndLoops) {
  std::vector<std::string> clusters;
  for (int i = 0; i < 17; ++i) {
    clusters.push_back(
        Aggregate(absl::StrCat("c", i), {absl::StrCat("c", i + 1)}));
  }
  clusters.push_back(Eds("c17"));
  clusters.push_back(Aggregate("self", {"self"}));
  cp_->SetSnapshot(MakeSnapshot("1", clusters, {Cla("c17", 1)}));
  Updates& deep = Start("c0");
  Updates& loop = Start("self");
  EXPECT_TRUE(absl::StrContains(deep.WaitFor([](const std::string& u) {
    return absl::StartsWith(u, "error:");
  }),
                                "exceeds max depth of 16"));
  EXPECT_TRUE(absl::StrContains(loop.WaitFor([](const std::string& u) {
    return absl::StartsWith(u, "error:");
  }),
                                "no leaf clusters"));
}

}  // namespace
}  // namespace xdsfed
