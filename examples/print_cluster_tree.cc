// Prints the A37 cluster tree under a root cluster and the LB policy config a
// gRPC channel would generate for it, from Cluster resources as a control
// plane would send them (here: proto3 JSON, the A37 worked example). No
// server needed.
//
//   A (aggregate) -> [B, C];  C (aggregate) -> [D, E, B]
//   => discovery mechanisms: EDS B, EDS D, LOGICAL_DNS E (B at its first
//      position), and the xds_cluster_resolver_experimental config.
//
//   ./print_cluster_tree [ROOT]      (default: A)
#include <iostream>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "envoy/config/cluster/v3/cluster.pb.h"
#include "google/protobuf/util/json_util.h"
#include "json/json.h"
#include "lib/bootstrap/bootstrap.h"
#include "lib/cluster/cluster_tree.h"
#include "lib/cluster/lb_config.h"
#include "lib/resources/cluster.h"
#include "lib/resources/resource_type.h"

namespace {

namespace res = xdsfed::resources;

// The Clusters, as a control plane would serve them.
const std::map<std::string, std::string> kClusters = {
    {"A", R"({"name":"A","cluster_type":{"name":"envoy.clusters.aggregate",
      "typed_config":{"@type":"type.googleapis.com/envoy.extensions.clusters.aggregate.v3.ClusterConfig",
      "clusters":["B","C"]}}})"},
    {"B", R"({"name":"B","type":"EDS","lrs_server":{"self":{}},
      "eds_cluster_config":{"eds_config":{"ads":{}}}})"},
    {"C", R"({"name":"C","cluster_type":{"name":"envoy.clusters.aggregate",
      "typed_config":{"@type":"type.googleapis.com/envoy.extensions.clusters.aggregate.v3.ClusterConfig",
      "clusters":["D","E","B"]}}})"},
    {"D", R"({"name":"D","type":"EDS","eds_cluster_config":{
      "eds_config":{"ads":{}},"service_name":"svc-d"},
      "circuit_breakers":{"thresholds":[{"max_requests":100}]}})"},
    {"E", R"({"name":"E","type":"LOGICAL_DNS","load_assignment":{"endpoints":[
      {"lb_endpoints":[{"endpoint":{"address":{"socket_address":{
      "address":"localhost","port_value":8080}}}}]}]}})"},
};

// The bootstrap the Clusters came through: `lrs_server: self` means its
// server (A47 §LRS Server Representation).
constexpr char kBootstrap[] = R"({"xds_servers":[{"server_uri":"127.0.0.1:5000",
    "channel_creds":[{"type":"insecure"}]}]})";

}  // namespace

int main(int argc, char** argv) {
  const std::string root = argc > 1 ? argv[1] : "A";

  // Decode and validate each Cluster as the XdsClient does on receipt.
  std::map<std::string, std::shared_ptr<const res::ClusterResource>> received;
  for (const auto& [name, json] : kClusters) {
    envoy::config::cluster::v3::Cluster proto;
    if (!google::protobuf::util::JsonStringToMessage(json, &proto).ok()) {
      std::cerr << "bad JSON for " << name << "\n";
      return 1;
    }
    res::DecodeResult decoded =
        res::ClusterResourceType().Decode({}, proto.SerializeAsString());
    if (!decoded.value.ok()) {
      std::cerr << name << ": " << decoded.value.status() << "\n";
      return 1;
    }
    received[name] = res::ClusterResourceType().Cast(*decoded.value);
  }

  // A37: walk the aggregate clusters down to the leaves. The lookup says
  // what is known of each cluster; here everything is.
  xdsfed::cluster::ClusterTreeResult tree =
      xdsfed::cluster::ResolveClusterTree(root, [&](absl::string_view name) {
        auto it = received.find(std::string(name));
        if (it == received.end()) {
          return xdsfed::cluster::ClusterLookupResult::DoesNotExist();
        }
        return xdsfed::cluster::ClusterLookupResult::Received(*it->second);
      });
  if (!tree.ok()) {
    std::cerr << "the channel would fail: " << tree.error << "\n";
    return 1;
  }

  // Expand `self` to the bootstrap's server, then build the config.
  auto bootstrap = xdsfed::Bootstrap::Parse(kBootstrap, /*federation=*/false);
  if (!bootstrap.ok()) {
    std::cerr << bootstrap.status() << "\n";
    return 1;
  }
  std::vector<xdsfed::cluster::ResolvedMechanism> mechanisms;
  for (const xdsfed::cluster::DiscoveryMechanism& m : tree.mechanisms) {
    xdsfed::cluster::ResolvedMechanism& resolved = mechanisms.emplace_back();
    resolved.mechanism = m;
    if (m.lrs_load_reporting_server_is_self) {
      resolved.lrs_server = *(*bootstrap)->servers().front();
    }
    std::cout << "mechanism: " << m.cluster
              << (m.type == xdsfed::cluster::DiscoveryMechanism::Type::kEds
                      ? " EDS " + m.EdsResourceName()
                      : " LOGICAL_DNS " + m.dns_hostname)
              << "\n";
  }
  auto config = xdsfed::cluster::BuildClusterResolverConfig(mechanisms);
  if (!config.ok()) {
    std::cerr << config.status() << "\n";
    return 1;
  }
  std::cout << "lb_config: "
            << Json::FastWriter().write(xdsfed::cluster::ServiceConfigJson(
                   xdsfed::cluster::WrapPolicy(*std::move(config))));
  return 0;
}
