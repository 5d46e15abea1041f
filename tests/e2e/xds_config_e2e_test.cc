// lib/xds_config over REAL gRPC (issue 11 item 6): the dependency manager
// and the server-config manager on an XdsClient (lib/transport) against two
// embedded control planes on loopback, one per authority of an A47
// "Multiple Authorities" bootstrap. Waits are for events, never fixed.
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/substitute.h"
#include "absl/synchronization/mutex.h"
#include "absl/time/time.h"
#include "gtest/gtest.h"
#include "lib/bootstrap/bootstrap.h"
#include "lib/client/xds_client.h"
#include "lib/transport/grpc_transport.h"
#include "lib/xds_config/server_config_manager.h"
#include "lib/xds_config/xds_dependency_manager.h"
#include "tools/control_plane/control_plane.h"

namespace xdsfed {
namespace {

using xds_config::ServerConfig;
using xds_config::XdsConfig;

constexpr absl::Duration kWait = absl::Seconds(10);
constexpr char kHcmType[] =
    "type.googleapis.com/envoy.extensions.filters.network."
    "http_connection_manager.v3.HttpConnectionManager";
constexpr char kRouterType[] =
    "type.googleapis.com/envoy.extensions.filters.http.router.v3.Router";

std::string Hcm(absl::string_view rds) {
  return absl::Substitute(
      R"({"@type":"$0","rds":{"config_source":{"ads":{}},"route_config_name":"$1"},
  "http_filters":[{"name":"router","typed_config":{"@type":"$2"}}]})",
      kHcmType, rds, kRouterType);
}
std::string ClientListener(absl::string_view name, absl::string_view rds) {
  return absl::Substitute(R"("$0":{"api_listener":{"api_listener":$1}})", name,
                          Hcm(rds));
}
std::string ServerListener(absl::string_view name, absl::string_view address,
                           int port, absl::string_view rds1,
                           absl::string_view rds2) {
  return absl::Substitute(
      R"("$0":{"address":{"socket_address":{"address":"$1","port_value":$2}},
  "filter_chains":[{"filters":[{"name":"hcm","typed_config":$3}]}],
  "default_filter_chain":{"filters":[{"name":"hcm","typed_config":$4}]}})",
      name, address, port, Hcm(rds1), Hcm(rds2));
}
std::string Route(absl::string_view name, absl::string_view cluster) {
  return absl::Substitute(
      R"("$0":{"virtual_hosts":[{"name":"vh","domains":["*"],
  "routes":[{"match":{"prefix":""},"route":{"cluster":"$1"}}]}]})",
      name, cluster);
}
std::string ServerRoute(absl::string_view name) {
  return absl::Substitute(
      R"("$0":{"virtual_hosts":[{"name":"vh","domains":["*"],
  "routes":[{"match":{"prefix":""},"non_forwarding_action":{}}]}]})",
      name);
}
std::string Eds(absl::string_view name, absl::string_view service) {
  return absl::Substitute(
      R"("$0":{"type":"EDS","eds_cluster_config":{"eds_config":{"ads":{}},
  "service_name":"$1"}})",
      name, service);
}
std::string Cla(absl::string_view name, int port) {
  return absl::Substitute(R"("$0":{"endpoints":[{
  "locality":{"region":"r1","zone":"z1"},"load_balancing_weight":1,
  "lb_endpoints":[{"endpoint":{"address":{"socket_address":{
  "address":"127.0.0.1","port_value":$1}}}}]}]})",
                          name, port);
}

control_plane::Snapshot MakeSnapshot(
    const std::string& version, const std::vector<std::string>& listeners,
    const std::vector<std::string>& routes,
    const std::vector<std::string>& clusters,
    const std::vector<std::string>& endpoints) {
  const std::string text = absl::StrCat(
      R"({"version":")", version, R"(","resources":{)",
      R"("envoy.config.listener.v3.Listener":{)", absl::StrJoin(listeners, ","),
      R"(},"envoy.config.route.v3.RouteConfiguration":{)",
      absl::StrJoin(routes, ","), R"(},"envoy.config.cluster.v3.Cluster":{)",
      absl::StrJoin(clusters, ","),
      R"(},"envoy.config.endpoint.v3.ClusterLoadAssignment":{)",
      absl::StrJoin(endpoints, ","), "}}}");
  absl::StatusOr<control_plane::Snapshot> snapshot =
      control_plane::ParseSnapshot(text);
  EXPECT_TRUE(snapshot.ok()) << snapshot.status() << "\n" << text;
  return snapshot.ok() ? *std::move(snapshot) : control_plane::Snapshot{};
}

// Keeps every published snapshot; the test waits for one that matches.
template <typename Config>
class Snapshots {
 public:
  std::function<void(std::shared_ptr<const Config>)> Callback() {
    return [this](std::shared_ptr<const Config> config) {
      absl::MutexLock lock(&mu_);
      all_.push_back(std::move(config));
    };
  }
  std::shared_ptr<const Config> WaitFor(
      const std::function<bool(const Config&)>& match) {
    absl::MutexLock lock(&mu_);
    auto found = [&] {
      mu_.AssertHeld();
      for (const auto& c : all_) {
        if (match(*c)) return true;
      }
      return false;
    };
    mu_.AwaitWithTimeout(absl::Condition(&found), kWait);
    for (const auto& c : all_) {
      if (match(*c)) return c;
    }
    return nullptr;
  }
  size_t count() {
    absl::MutexLock lock(&mu_);
    return all_.size();
  }

 private:
  absl::Mutex mu_;
  std::vector<std::shared_ptr<const Config>> all_ ABSL_GUARDED_BY(mu_);
};

// The first endpoint of the first leaf of `cluster`, or "".
std::string FirstEndpoint(const XdsConfig& config, absl::string_view cluster) {
  const xds_config::ClusterConfig* c = config.clusters.Find(cluster);
  if (c == nullptr || !c->status.ok() || c->leaves.empty() ||
      c->leaves[0].endpoints == nullptr ||
      c->leaves[0].endpoints->priorities.empty()) {
    return "";
  }
  const auto& localities = c->leaves[0].endpoints->priorities[0].localities;
  if (localities.empty() || localities.begin()->second.endpoints.empty()) {
    return "";
  }
  return localities.begin()->second.endpoints[0].address;
}

constexpr char kListener[] =
    "xdstp://xds.authority.com/envoy.config.listener.v3.Listener/grpc/client/"
    "server.example.com";
constexpr char kRoute[] =
    "xdstp://xds.authority.com/envoy.config.route.v3.RouteConfiguration/r1";
constexpr char kCluster[] =
    "xdstp://xds.other.com/envoy.config.cluster.v3.Cluster/backend";
constexpr char kEndpoints[] =
    "xdstp://xds.other.com/envoy.config.endpoint.v3.ClusterLoadAssignment/"
    "backend";

class XdsConfigE2eTest : public ::testing::Test {
 protected:
  void SetUp() override {
    for (auto* cp : {&authority_, &other_}) {
      *cp = std::make_unique<control_plane::ControlPlane>(
          control_plane::ControlPlane::Options());
    }
    absl::StatusOr<int> a = authority_->Start();
    absl::StatusOr<int> o = other_->Start();
    ASSERT_TRUE(a.ok() && o.ok());
    auto server = [](int port) {
      return absl::Substitute(
          R"({"server_uri":"127.0.0.1:$0","channel_creds":[{"type":"insecure"}]})",
          port);
    };
    absl::StatusOr<std::shared_ptr<const Bootstrap>> bootstrap =
        Bootstrap::Parse(
            absl::Substitute(
                R"({"xds_servers":[$0],"node":{"id":"xds-config-e2e"},
  "client_default_listener_resource_name_template":
   "xdstp://xds.authority.com/envoy.config.listener.v3.Listener/grpc/client/%s",
  "server_listener_resource_name_template":
   "xdstp://xds.other.com/envoy.config.listener.v3.Listener/grpc/server/%s",
  "authorities":{"xds.authority.com":{},
                 "xds.other.com":{"xds_servers":[$1]}}})",
                server(*a), server(*o)),
            /*federation=*/true);
    ASSERT_TRUE(bootstrap.ok()) << bootstrap.status();
    client::XdsClient::Options options;
    options.does_not_exist_timeout = absl::Milliseconds(500);
    auto client = client::XdsClient::Create(
        *bootstrap, std::make_shared<transport::GrpcXdsTransportFactory>(),
        options);
    ASSERT_TRUE(client.ok()) << client.status();
    client_ = *client;
  }
  void TearDown() override {
    if (manager_ != nullptr) manager_->Stop();
    if (server_ != nullptr) server_->Stop();
  }
  void StartTarget(const std::string& target) {
    auto manager = xds_config::XdsDependencyManager::StartForTarget(
        client_, target, configs_.Callback());
    ASSERT_TRUE(manager.ok()) << manager.status();
    manager_ = *manager;
  }

  std::unique_ptr<control_plane::ControlPlane> authority_;
  std::unique_ptr<control_plane::ControlPlane> other_;
  std::shared_ptr<client::XdsClient> client_;
  std::shared_ptr<xds_config::XdsDependencyManager> manager_;
  std::shared_ptr<xds_config::ServerConfigManager> server_;
  Snapshots<XdsConfig> configs_;
};

// A47 + A37 over two authorities: the Listener and RouteConfiguration from
// xds.authority.com's server, the Cluster and its endpoints from
// xds.other.com's; then an EDS update on the other server republishes.
TEST_F(XdsConfigE2eTest, FederatedChainAcrossTwoAuthorities) {
  authority_->SetSnapshot(MakeSnapshot("1", {ClientListener(kListener, kRoute)},
                                       {Route(kRoute, kCluster)}, {}, {}));
  other_->SetSnapshot(MakeSnapshot("1", {}, {}, {Eds(kCluster, kEndpoints)},
                                   {Cla(kEndpoints, 1001)}));
  StartTarget("xds:///server.example.com");
  auto first = configs_.WaitFor([](const XdsConfig& c) {
    return FirstEndpoint(c, kCluster) == "127.0.0.1:1001";
  });
  ASSERT_NE(first, nullptr);
  EXPECT_TRUE(first->status.ok()) << first->status;
  EXPECT_EQ(first->route_config_name, kRoute);
  ASSERT_NE(first->virtual_host, nullptr);
  EXPECT_EQ(first->virtual_host->name, "vh");
  other_->SetSnapshot(MakeSnapshot("2", {}, {}, {Eds(kCluster, kEndpoints)},
                                   {Cla(kEndpoints, 1002)}));
  auto second = configs_.WaitFor([](const XdsConfig& c) {
    return FirstEndpoint(c, kCluster) == "127.0.0.1:1002";
  });
  ASSERT_NE(second, nullptr);
  EXPECT_EQ(second->listener, first->listener);  // only the cluster changed
  EXPECT_EQ(second->route_config, first->route_config);
}

// "Done when": a Listener naming a RouteConfiguration that never arrives
// gives a snapshot with that error after the does-not-exist timer.
TEST_F(XdsConfigE2eTest, MissingRouteConfigurationIsAnErrorNotAHang) {
  authority_->SetSnapshot(
      MakeSnapshot("1", {ClientListener(kListener, kRoute)}, {}, {}, {}));
  StartTarget("xds:///server.example.com");
  auto config = configs_.WaitFor([](const XdsConfig& c) {
    return c.status.code() == absl::StatusCode::kNotFound;
  });
  ASSERT_NE(config, nullptr);
  EXPECT_EQ(config->status.message(),
            absl::StrCat("RouteConfiguration \"", kRoute, "\" does not exist"));
}

// A target on the other authority (xds://xds.other.com/backend, A47's
// default template for an authority without one).
TEST_F(XdsConfigE2eTest, TargetWithAuthority) {
  const std::string listener =
      "xdstp://xds.other.com/envoy.config.listener.v3.Listener/backend";
  other_->SetSnapshot(MakeSnapshot("1", {ClientListener(listener, kRoute)}, {},
                                   {Eds(kCluster, kEndpoints)},
                                   {Cla(kEndpoints, 1003)}));
  authority_->SetSnapshot(
      MakeSnapshot("1", {}, {Route(kRoute, kCluster)}, {}, {}));
  StartTarget("xds://xds.other.com/backend");
  auto config = configs_.WaitFor([](const XdsConfig& c) {
    return FirstEndpoint(c, kCluster) == "127.0.0.1:1003";
  });
  ASSERT_NE(config, nullptr);
}

// A36 server mode: the Listener from the server template (on
// xds.other.com), its two RDS names (one per chain, one default) from
// xds.authority.com; published once both answered.
TEST_F(XdsConfigE2eTest, ServerModeWaitsForEveryRds) {
  const std::string listener =
      "xdstp://xds.other.com/envoy.config.listener.v3.Listener/grpc/server/"
      "127.0.0.1:8080";
  const std::string r1 =
      "xdstp://xds.authority.com/envoy.config.route.v3.RouteConfiguration/s1";
  const std::string r2 =
      "xdstp://xds.authority.com/envoy.config.route.v3.RouteConfiguration/s2";
  other_->SetSnapshot(MakeSnapshot(
      "1", {ServerListener(listener, "127.0.0.1", 8080, r1, r2)}, {}, {}, {}));
  authority_->SetSnapshot(
      MakeSnapshot("1", {}, {ServerRoute(r1), ServerRoute(r2)}, {}, {}));
  Snapshots<ServerConfig> configs;
  auto server = xds_config::ServerConfigManager::StartForAddress(
      client_, "127.0.0.1:8080", configs.Callback());
  ASSERT_TRUE(server.ok()) << server.status();
  server_ = *server;
  auto config = configs.WaitFor([](const ServerConfig& c) {
    return c.status.ok() && c.route_configs.size() == 2;
  });
  ASSERT_NE(config, nullptr);
  for (const auto& [name, rds] : config->route_configs) {
    EXPECT_NE(rds.route_config, nullptr) << name << ": " << rds.status;
  }
  EXPECT_EQ(configs.count(), 1u);  // nothing before both RDS answered
}

}  // namespace
}  // namespace xdsfed
