// Interop with a real gRPC stack: Debian's gRPC C++ 1.51 runs its OWN xDS
// client (an `xds:` channel, bootstrap pointing at `xdsfed control-plane`)
// and completes an RPC to a loopback backend through the Listener ->
// RouteConfiguration -> Cluster -> ClusterLoadAssignment our control plane
// serves. This proves our protos and our ADS server speak real xDS.
//
// gRPC reads its bootstrap once per process and keeps one XdsClient, so each
// TEST runs in its own process (gtest_discover_tests gives every TEST its own
// ctest entry) and sets the environment before creating its channel.
#include <cstdlib>
#include <memory>
#include <set>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/substitute.h"
#include "grpcpp/grpcpp.h"
#include "gtest/gtest.h"
#include "lib/bootstrap/bootstrap.h"
#include "lib/bootstrap/target_resolver.h"
#include "tools/control_plane/control_plane.h"
#include "tools/control_plane/echo_backend.h"

namespace xdsfed {
namespace {

struct Backend {
  control_plane::EchoBackend server;
  int port = 0;

  void Start() {
    absl::StatusOr<int> p = server.Start();
    ASSERT_TRUE(p.ok()) << p.status();
    port = *p;
  }
};

struct RunningControlPlane {
  std::unique_ptr<control_plane::ControlPlane> server;
  int port = 0;
};

RunningControlPlane StartControlPlane(absl::string_view snapshot_json) {
  control_plane::ControlPlane::Options options;
  options.listen = "127.0.0.1:0";
  auto cp = std::make_unique<control_plane::ControlPlane>(options);
  absl::StatusOr<control_plane::Snapshot> snapshot =
      control_plane::ParseSnapshot(snapshot_json);
  EXPECT_TRUE(snapshot.ok()) << snapshot.status();
  if (!snapshot.ok()) return {};
  cp->SetSnapshot(*std::move(snapshot));
  absl::StatusOr<int> port = cp->Start();
  EXPECT_TRUE(port.ok()) << port.status();
  if (!port.ok()) return {};
  return {std::move(cp), *port};
}

// The four resources of one chain. Names are given whole, so the same text
// serves old-style and xdstp:// names.
std::string ListenerJson(absl::string_view name, absl::string_view route) {
  return absl::Substitute(
      R"("$0":{"api_listener":{"api_listener":{
  "@type":"type.googleapis.com/envoy.extensions.filters.network.http_connection_manager.v3.HttpConnectionManager",
  "rds":{"config_source":{"ads":{}},"route_config_name":"$1"},
  "http_filters":[{"name":"router","typed_config":{
    "@type":"type.googleapis.com/envoy.extensions.filters.http.router.v3.Router"}}]}}})",
      name, route);
}
std::string RouteJson(absl::string_view name, absl::string_view cluster) {
  return absl::Substitute(
      R"("$0":{"virtual_hosts":[{"name":"vh","domains":["*"],
  "routes":[{"match":{"prefix":""},"route":{"cluster":"$1"}}]}]})",
      name, cluster);
}
std::string ClusterJson(absl::string_view name, absl::string_view eds_name) {
  return absl::Substitute(
      R"("$0":{"type":"EDS","eds_cluster_config":{"eds_config":{"ads":{}},
  "service_name":"$1"}})",
      name, eds_name);
}
std::string EndpointJson(absl::string_view name, int port) {
  return absl::Substitute(
      R"("$0":{"endpoints":[{"locality":{"region":"r1","zone":"z1"},
  "load_balancing_weight":1,"lb_endpoints":[{"endpoint":{"address":{
  "socket_address":{"address":"127.0.0.1","port_value":$1}}}}]}]})",
      name, port);
}

std::string SnapshotJson(absl::string_view listeners, absl::string_view routes,
                         absl::string_view clusters,
                         absl::string_view endpoints) {
  return absl::StrCat(R"({"version":"1","resources":{)",
                      R"("envoy.config.listener.v3.Listener":{)", listeners,
                      "},", R"("envoy.config.route.v3.RouteConfiguration":{)",
                      routes, "},", R"("envoy.config.cluster.v3.Cluster":{)",
                      clusters, "},",
                      R"("envoy.config.endpoint.v3.ClusterLoadAssignment":{)",
                      endpoints, "}}}");
}

std::string ServerJson(int port) {
  return absl::StrCat(R"({"server_uri":"127.0.0.1:)", port,
                      R"(","channel_creds":[{"type":"insecure"}],)",
                      R"("server_features":["xds_v3"]})");
}

// One unary echo over `target`, waiting for the xDS config to arrive.
grpc::Status Echo(absl::string_view target, std::string* reply) {
  return control_plane::EchoOnce(
      grpc::CreateChannel(std::string(target),
                          grpc::InsecureChannelCredentials()),
      absl::Seconds(30), reply);
}

// The type URLs gRPC's client asked `cp` for, from its request log; every
// request must come from our bootstrap's node.
std::set<std::string> TypesRequested(const RunningControlPlane& cp) {
  std::set<std::string> types;
  for (const Json::Value& request : cp.server->RequestLog()) {
    EXPECT_EQ(request["node_id"].asString(), "xdsfed-interop");
    types.insert(request["type_url"].asString());
  }
  return types;
}

constexpr char kLds[] = "type.googleapis.com/envoy.config.listener.v3.Listener";
constexpr char kRds[] =
    "type.googleapis.com/envoy.config.route.v3.RouteConfiguration";
constexpr char kCds[] = "type.googleapis.com/envoy.config.cluster.v3.Cluster";
constexpr char kEds[] =
    "type.googleapis.com/envoy.config.endpoint.v3.ClusterLoadAssignment";

// Old-style names, one control plane: the plain xDS path of gRPC 1.51.
TEST(GrpcInteropTest, OldStyleChainThroughOurControlPlane) {
  Backend backend;
  ASSERT_NO_FATAL_FAILURE(backend.Start());
  auto cp = StartControlPlane(SnapshotJson(
      ListenerJson("server.example.com", "route-a"),
      RouteJson("route-a", "cluster-a"), ClusterJson("cluster-a", "eds-a"),
      EndpointJson("eds-a", backend.port)));
  ASSERT_NE(cp.server, nullptr);

  const std::string bootstrap =
      absl::StrCat(R"({"xds_servers":[)", ServerJson(cp.port),
                   R"(],"node":{"id":"xdsfed-interop"}})");
  setenv("GRPC_XDS_BOOTSTRAP_CONFIG", bootstrap.c_str(), 1);

  std::string reply;
  grpc::Status status = Echo("xds:///server.example.com", &reply);
  ASSERT_TRUE(status.ok()) << status.error_message();
  EXPECT_EQ(reply, "ping");
  EXPECT_EQ(TypesRequested(cp),
            (std::set<std::string>{kLds, kRds, kCds, kEds}));
}

// A47 federation in gRPC 1.51 against two of our control planes: authority
// a.example (Listener, RouteConfiguration) on one, b.example (Cluster,
// ClusterLoadAssignment) on the other; every name is xdstp://.
TEST(GrpcInteropTest, FederatedChainAcrossTwoControlPlanes) {
  Backend backend;
  ASSERT_NO_FATAL_FAILURE(backend.Start());
  const std::string listener =
      "xdstp://a.example/envoy.config.listener.v3.Listener/svc";
  const std::string route =
      "xdstp://a.example/envoy.config.route.v3.RouteConfiguration/route-a";
  const std::string cluster =
      "xdstp://b.example/envoy.config.cluster.v3.Cluster/cluster-b";
  const std::string eds =
      "xdstp://b.example/envoy.config.endpoint.v3.ClusterLoadAssignment/"
      "eds-b";
  auto cp_a = StartControlPlane(SnapshotJson(
      ListenerJson(listener, route), RouteJson(route, cluster), "", ""));
  auto cp_b = StartControlPlane(SnapshotJson("", "", ClusterJson(cluster, eds),
                                             EndpointJson(eds, backend.port)));
  ASSERT_NE(cp_a.server, nullptr);
  ASSERT_NE(cp_b.server, nullptr);

  // The top-level server is cp_b on purpose: nothing old-style is asked for,
  // and a.example must use its own server.
  const std::string bootstrap = absl::StrCat(
      R"({"xds_servers":[)", ServerJson(cp_b.port),
      R"(],"node":{"id":"xdsfed-interop"},"authorities":{)",
      R"("a.example":{"xds_servers":[)", ServerJson(cp_a.port), "]},",
      R"("b.example":{"xds_servers":[)", ServerJson(cp_b.port), "]}}}");
  setenv("GRPC_XDS_BOOTSTRAP_CONFIG", bootstrap.c_str(), 1);
  setenv("GRPC_EXPERIMENTAL_XDS_FEDERATION", "true", 1);

  std::string reply;
  grpc::Status status = Echo("xds://a.example/svc", &reply);
  ASSERT_TRUE(status.ok()) << status.error_message();
  EXPECT_EQ(reply, "ping");
  // Each authority's resources were fetched from its own server.
  EXPECT_EQ(TypesRequested(cp_a), (std::set<std::string>{kLds, kRds}));
  EXPECT_EQ(TypesRequested(cp_b), (std::set<std::string>{kCds, kEds}));
}

// Issue 14 §1: for targets gRPC C-core accepts though they are not strict
// RFC 3986, the Listener gRPC 1.51 subscribes to is the one
// ResolveXdsTarget gives, in both template families.
void ExpectCCoreListenerNames(bool xdstp_template) {
  auto cp = StartControlPlane(R"({"version":"1","resources":{}})");
  ASSERT_NE(cp.server, nullptr);
  const std::string bootstrap = absl::StrCat(
      R"({"xds_servers":[)", ServerJson(cp.port),
      R"(],"node":{"id":"xdsfed-interop"})",
      xdstp_template
          ? R"(,"client_default_listener_resource_name_template":)"
            R"("xdstp://a.example/envoy.config.listener.v3.Listener/%s",)"
            R"("authorities":{"a.example":{}})"
          : "",
      "}");
  setenv("GRPC_XDS_BOOTSTRAP_CONFIG", bootstrap.c_str(), 1);
  setenv("GRPC_EXPERIMENTAL_XDS_FEDERATION", "true", 1);
  auto ours = Bootstrap::Parse(bootstrap, /*federation=*/true);
  ASSERT_TRUE(ours.ok()) << ours.status();

  std::set<std::string> want;
  std::vector<std::shared_ptr<grpc::Channel>> channels;
  for (const char* target : {"xds:///[fe80::1]:443", "xds:///svc name",
                             "xds:///50%off", "xds:///[::1]:8080"}) {
    auto resolved = ResolveXdsTarget(**ours, target);
    ASSERT_TRUE(resolved.ok()) << target << ": " << resolved.status();
    want.insert(resolved->listener_resource_name);
    channels.push_back(
        grpc::CreateChannel(target, grpc::InsecureChannelCredentials()));
    channels.back()->GetState(/*try_to_connect=*/true);  // starts resolving
  }
  std::set<std::string> got;
  cp.server->WaitForRequests(
      [&](const std::vector<Json::Value>& log) {
        got.clear();
        for (const Json::Value& request : log) {
          if (request["type_url"].asString() != kLds) continue;
          for (const Json::Value& name : request["resource_names"]) {
            got.insert(name.asString());
          }
        }
        return got.size() >= want.size();
      },
      absl::Seconds(30));
  EXPECT_EQ(got, want);
}

TEST(GrpcInteropTest, TargetsCCoreAcceptsXdstpTemplate) {
  ExpectCCoreListenerNames(/*xdstp_template=*/true);
}

TEST(GrpcInteropTest, TargetsCCoreAcceptsOldStyleTemplate) {
  ExpectCCoreListenerNames(/*xdstp_template=*/false);
}

}  // namespace
}  // namespace xdsfed
