// `xdsfed demo`: the main job, end to end on loopback. Two embedded control
// planes serve two authorities of the gRFC A47 "Multiple Authorities"
// bootstrap (server URIs pointed at them, insecure creds); lib/xds_config's
// dependency manager, on an XdsClient, follows the chain a channel for
// xds:///server.example.com would: the
// Listener and RouteConfiguration come from xds.authority.com, the Clusters
// and ClusterLoadAssignment from xds.other.com. The route's cluster is an A37
// aggregate: an EDS cluster first, a LOGICAL_DNS cluster (localhost, an
// old-style name on the top-level server) as fallback; the demo resolves the
// tree as a channel's cds policy would and prints the generated LB configs.
// Then real RPCs (grpc.health.v1.Health/Check) go through an XdsChannel
// (lib/channel) on the same XdsClient to health backends the demo runs on
// loopback: by locality weight and round robin, through the EDS cluster's
// circuit breaker (max_requests 4), with the load report checked at the
// cluster's LRS server (`self`: xds.other.com); then the demo empties the
// EDS cluster and the same RPC loop continues on the LOGICAL_DNS fallback,
// and back (demo_traffic.h).
// Prints JSON lines: the setup, every watcher event, every cluster tree
// update, the data-plane steps, then a summary.
#include <memory>
#include <set>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/substitute.h"
#include "absl/synchronization/mutex.h"
#include "absl/time/time.h"
#include "lib/bootstrap/bootstrap.h"
#include "lib/bootstrap/target_resolver.h"
#include "lib/channel/xds_channel.h"
#include "lib/client/xds_client.h"
#include "lib/transport/grpc_transport.h"
#include "lib/xds_config/xds_dependency_manager.h"
#include "tools/control_plane/control_plane.h"
#include "tools/health_backend/health_backend.h"
#include "tools/xdsfed/cli.h"
#include "tools/xdsfed/cluster_tree_output.h"
#include "tools/xdsfed/demo_traffic.h"
#include "tools/xdsfed/watch_output.h"

namespace xdsfed::cli {
namespace {

constexpr char kTarget[] = "xds:///server.example.com";
constexpr char kListener[] =
    "xdstp://xds.authority.com/envoy.config.listener.v3.Listener/grpc/client/"
    "server.example.com?project_id=1234";
constexpr char kRoute[] =
    "xdstp://xds.authority.com/envoy.config.route.v3.RouteConfiguration/"
    "grpc/client/server.example.com?project_id=1234";
constexpr char kAggregate[] =
    "xdstp://xds.other.com/envoy.config.cluster.v3.Cluster/backend-with-"
    "fallback?project_id=1234";
constexpr char kCluster[] =
    "xdstp://xds.other.com/envoy.config.cluster.v3.Cluster/backend?"
    "project_id=1234";
constexpr char kDnsCluster[] = "dns-fallback";
constexpr char kEndpoints[] =
    "xdstp://xds.other.com/envoy.config.endpoint.v3.ClusterLoadAssignment/"
    "backend?project_id=1234";

// xds.authority.com (also the top-level server): the Listener (RDS over
// ADS), its RouteConfiguration, and the old-style LOGICAL_DNS cluster
// (localhost:<the fallback backend's port>).
std::string AuthoritySnapshot(int dns_port) {
  return absl::Substitute(R"json({"version":"demo-1","resources":{
 "envoy.config.listener.v3.Listener":{"$0":{"api_listener":{"api_listener":{
  "@type":"type.googleapis.com/envoy.extensions.filters.network.http_connection_manager.v3.HttpConnectionManager",
  "rds":{"config_source":{"ads":{}},"route_config_name":"$1"},
  "http_filters":[{"name":"router","typed_config":{
   "@type":"type.googleapis.com/envoy.extensions.filters.http.router.v3.Router"}}]}}}},
 "envoy.config.route.v3.RouteConfiguration":{"$1":{"virtual_hosts":[
  {"name":"server","domains":["server.example.com"],
   "routes":[{"match":{"prefix":""},"route":{"cluster":"$2"}}]}]}},
 "envoy.config.cluster.v3.Cluster":{"$3":{"type":"LOGICAL_DNS",
  "load_assignment":{"endpoints":[{"lb_endpoints":[{"endpoint":{"address":{
   "socket_address":{"address":"localhost","port_value":$4}}}}]}]}}}}})json",
                          kListener, kRoute, kAggregate, kDnsCluster, dns_port);
}

// xds.other.com: the aggregate cluster, the EDS cluster (service name set
// as A47 requires for xdstp:// clusters; load reports to this server; a
// circuit breaker of 4 concurrent requests) and its endpoints in two
// localities: the demo's loopback backends east-1, east-2 (weight 3) and
// west-1 (weight 1); none when `empty` (the failover step).
std::string OtherSnapshot(const std::vector<int>& ports, bool empty,
                          int version) {
  auto ep = [](int port) {
    return absl::Substitute(
        R"({"endpoint":{"address":{"socket_address":{"address":"127.0.0.1","port_value":$0}}}})",
        port);
  };
  const std::string endpoints =
      empty ? ""
            : absl::Substitute(
                  R"json(
  {"locality":{"region":"us-east1","zone":"us-east1-b"},"load_balancing_weight":3,
   "lb_endpoints":[$0,$1]},
  {"locality":{"region":"us-west1","zone":"us-west1-a"},"load_balancing_weight":1,
   "lb_endpoints":[$2]})json",
                  ep(ports[0]), ep(ports[1]), ep(ports[2]));
  return absl::Substitute(R"json({"version":"demo-$5","resources":{
 "envoy.config.cluster.v3.Cluster":{
  "$2":{"cluster_type":{"name":"envoy.clusters.aggregate","typed_config":{
   "@type":"type.googleapis.com/envoy.extensions.clusters.aggregate.v3.ClusterConfig",
   "clusters":["$0","$3"]}}},
  "$0":{"type":"EDS","lrs_server":{"self":{}},
   "circuit_breakers":{"thresholds":[{"max_requests":4}]},
   "eds_cluster_config":{"eds_config":{"ads":{}},"service_name":"$1"}}},
 "envoy.config.endpoint.v3.ClusterLoadAssignment":{"$1":{"endpoints":[$4]}}}})json",
                          kCluster, kEndpoints, kAggregate, kDnsCluster,
                          endpoints, version);
}

std::string ServerJson(int port) {
  return absl::StrCat(R"({"server_uri":"127.0.0.1:)", port,
                      R"(","channel_creds":[{"type":"insecure"}]})");
}

// The A47 "Multiple Authorities" example with local servers.
std::string BootstrapJson(int authority_port, int other_port) {
  return absl::Substitute(R"json({
 "xds_servers":[$0],
 "node":{"id":"xdsfed-demo"},
 "client_default_listener_resource_name_template":
  "xdstp://xds.authority.com/envoy.config.listener.v3.Listener/grpc/client/%s?project_id=1234",
 "server_listener_resource_name_template":
  "xdstp://xds.authority.com/envoy.config.listener.v3.Listener/grpc/server/%s?project_id=1234",
 "authorities":{
  "xds.authority.com":{"client_listener_resource_name_template":
   "xdstp://xds.authority.com/envoy.config.listener.v3.Listener/grpc/client/%s?project_id=1234"},
  "xds.other.com":{"xds_servers":[$1]}}})json",
                          ServerJson(authority_port), ServerJson(other_port));
}

struct RunningControlPlane {
  std::unique_ptr<control_plane::ControlPlane> server;
  int port = 0;
};

absl::StatusOr<RunningControlPlane> StartControlPlane(
    absl::string_view snapshot_json) {
  auto snapshot = control_plane::ParseSnapshot(snapshot_json);
  if (!snapshot.ok()) return snapshot.status();
  RunningControlPlane cp;
  cp.server = std::make_unique<control_plane::ControlPlane>(
      control_plane::ControlPlane::Options());
  cp.server->SetSnapshot(*std::move(snapshot));
  absl::StatusOr<int> port = cp.server->Start();
  if (!port.ok()) return port.status();
  cp.port = *port;
  return cp;
}

int RunDemo(Context& context) {
  if (!context.args.empty()) return UsageError("usage: xdsfed demo");
  // The data plane's backends, on loopback: three behind the EDS cluster,
  // one behind the LOGICAL_DNS fallback.
  const std::vector<std::string> ids = {"east-1", "east-2", "west-1",
                                        "dns-fallback"};
  std::vector<std::unique_ptr<health_backend::HealthBackend>> backends;
  std::vector<int> ports;
  Json::Value backends_line(Json::objectValue);
  backends_line["valid"] = true;
  backends_line["step"] = "backends";
  for (const std::string& id : ids) {
    backends.push_back(std::make_unique<health_backend::HealthBackend>(id));
    absl::StatusOr<int> port = backends.back()->Start("127.0.0.1:0");
    if (!port.ok()) {
      PrintJson(InvalidResult(port.status().message()));
      return kExitInvalid;
    }
    ports.push_back(*port);
    backends_line["backends"][id] = absl::StrCat("127.0.0.1:", *port);
  }
  // The demo is about federation: it turns the gate on for itself.
  auto authority_cp = StartControlPlane(AuthoritySnapshot(ports[3]));
  auto other_cp = StartControlPlane(OtherSnapshot(ports, false, 1));
  if (!authority_cp.ok() || !other_cp.ok()) {
    PrintJson(InvalidResult(!authority_cp.ok() ? authority_cp.status().message()
                                               : other_cp.status().message()));
    return kExitInvalid;
  }
  for (const auto& [authority, port] :
       {std::pair<const char*, int>{"xds.authority.com", authority_cp->port},
        {"xds.other.com", other_cp->port}}) {
    Json::Value line(Json::objectValue);
    line["valid"] = true;
    line["step"] = "control_plane";
    line["authority"] = authority;
    line["listening"] = absl::StrCat("127.0.0.1:", port);
    PrintJson(line);
  }
  PrintJson(backends_line);

  auto bootstrap = Bootstrap::Parse(
      BootstrapJson(authority_cp->port, other_cp->port), /*federation=*/true);
  if (!bootstrap.ok()) {
    PrintJson(InvalidResult(bootstrap.status().message()));
    return kExitInvalid;
  }
  auto resolved = ResolveXdsTarget(**bootstrap, kTarget);
  if (!resolved.ok()) {
    PrintJson(InvalidResult(resolved.status().message()));
    return kExitInvalid;
  }
  {
    Json::Value line(Json::objectValue);
    line["valid"] = true;
    line["step"] = "resolve";
    line["target"] = kTarget;
    line["listener_resource_name"] = resolved->listener_resource_name;
    line["data_plane_authority"] = resolved->data_plane_authority;
    PrintJson(line);
  }

  auto client = client::XdsClient::Create(
      *bootstrap, std::make_shared<transport::GrpcXdsTransportFactory>(),
      client::XdsClient::Options());
  if (!client.ok()) {
    PrintJson(InvalidResult(client.status().message()));
    return kExitInvalid;
  }
  // Done when the chain's four types have values and the cluster tree has
  // resolved both mechanisms to endpoints.
  struct Progress {
    std::set<std::string> types;  // type URLs that delivered a value
    bool tree_ok = false;
    bool failed = false;
    cluster::ResolvedMechanism eds;  // the tree's EDS mechanism, once ok
  };
  absl::Mutex mu;
  Progress progress;
  Json::Value summary(Json::objectValue);
  {
    ClusterTreePrinter tree_printer;
    // Every watcher event underneath the snapshots.
    xds_config::ResourceObserver observer =
        [&](const xds_config::ResourceEvent& event) {
          Json::Value line = WatchEventToJson(event, /*quiet=*/false);
          line["step"] = "event";
          PrintJson(line);
          absl::MutexLock lock(&mu);
          if (event.kind == xds_config::ResourceEvent::Kind::kChanged) {
            progress.types.insert(std::string(event.type_url));
          } else {
            progress.failed = true;
          }
        };
    // The snapshots a channel for the target gets (lib/xds_config), with
    // the A37 tree of the route's cluster whenever it changes.
    auto manager = xds_config::XdsDependencyManager::StartForTarget(
        *client, kTarget,
        [&](std::shared_ptr<const xds_config::XdsConfig> config) {
          Json::Value line =
              XdsConfigToJson(*config, resolved->listener_resource_name);
          line["step"] = "xds_config";
          PrintJson(line);
          for (Json::Value& tree : tree_printer.ChangedTrees(*config)) {
            tree["step"] = "cluster_tree";
            PrintJson(tree);
          }
          const xds_config::ClusterConfig* root =
              config->clusters.Find(kAggregate);
          bool all_resolved = config->status.ok() && root != nullptr &&
                              root->status.ok() && root->leaves.size() == 2;
          if (all_resolved) {
            for (const auto& leaf : root->leaves) {
              if (leaf.endpoints == nullptr) all_resolved = false;
            }
          }
          absl::MutexLock lock(&mu);
          progress.tree_ok = all_resolved;
          if (all_resolved) progress.eds = root->leaves[0];
        },
        observer);
    if (!manager.ok()) {
      PrintJson(InvalidResult(manager.status().message()));
      return kExitInvalid;
    }
    {
      absl::MutexLock lock(&mu);
      mu.AwaitWithTimeout(
          absl::Condition(
              +[](Progress* p) { return p->types.size() >= 4 && p->tree_ok; },
              &progress),
          absl::Seconds(20));
    }
    absl::Status load_report =
        absl::UnavailableError("the tree did not resolve");
    cluster::ResolvedMechanism eds;
    {
      absl::MutexLock lock(&mu);
      if (progress.tree_ok) eds = progress.eds;
    }
    if (eds.endpoints != nullptr) {
      // The data plane: an XdsChannel for the same target on the same
      // XdsClient, sending real RPCs.
      auto channel = channel::XdsChannel::Create(*client, kTarget, {});
      if (!channel.ok()) {
        load_report = channel.status();
      } else {
        int version = 2;
        DemoTraffic demo;
        demo.channel = channel->get();
        demo.eds = eds;
        demo.lrs_server = other_cp->server.get();
        demo.fallback_backend = ids[3];
        auto push = [&](bool empty) {
          auto snapshot = control_plane::ParseSnapshot(
              OtherSnapshot(ports, empty, version++));
          if (snapshot.ok())
            other_cp->server->SetSnapshot(*std::move(snapshot));
        };
        demo.empty_eds = [&] { push(true); };
        demo.restore_eds = [&] { push(false); };
        load_report = RunDemoTraffic(demo);
      }
      if (!load_report.ok()) PrintJson(InvalidResult(load_report.message()));
    }
    // Taken before Stop(): the last cancelled watch releases the channels.
    Json::Value channels(Json::arrayValue);
    for (const std::string& uri : (*client)->ChannelServerUris()) {
      channels.append(uri);
    }
    Json::Value resources = (*client)->DumpConfig();
    (*manager)->Stop();

    absl::MutexLock lock(&mu);
    const bool chain_complete =
        progress.types.size() >= 4 && progress.tree_ok && !progress.failed;
    summary["valid"] = chain_complete && load_report.ok();
    if (!chain_complete) {
      summary["error"] =
          "the chain Listener -> RouteConfiguration -> Cluster tree -> "
          "ClusterLoadAssignment + DNS did not complete within 20 s";
    } else if (!load_report.ok()) {
      summary["error"] = absl::StrCat("data plane: ", load_report.message());
    }
    summary["step"] = "summary";
    summary["channels"] = std::move(channels);
    summary["resources"] = std::move(resources);
  }
  PrintJson(summary);
  return summary["valid"].asBool() ? kExitValid : kExitInvalid;
}

XDSFED_REGISTER_COMMAND("demo", RunDemo,
                        "demo                          the federated chain "
                        "across two embedded control planes");

}  // namespace
}  // namespace xdsfed::cli
