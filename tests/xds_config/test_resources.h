// Resource values for lib/xds_config tests and benches, built directly (the
// decoders have their own tests).
#ifndef XDSFED_TESTS_XDS_CONFIG_TEST_RESOURCES_H_
#define XDSFED_TESTS_XDS_CONFIG_TEST_RESOURCES_H_

#include <memory>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"
#include "lib/resources/cluster.h"
#include "lib/resources/endpoint.h"
#include "lib/resources/listener.h"
#include "lib/resources/route_config.h"
#include "lib/xds_config/xds_config.h"

namespace xdsfed {
namespace xds_config {
namespace testing {

using resources::ClusterResource;
using resources::EndpointResource;

inline resources::HttpConnectionManager RdsHcm(const std::string& rds) {
  resources::HttpConnectionManager hcm;
  hcm.route_config = resources::HttpConnectionManager::Rds{rds};
  return hcm;
}

inline std::shared_ptr<const resources::Listener> ClientListener(
    const std::string& name, const std::string& rds) {
  auto l = std::make_shared<resources::Listener>();
  l->name = name;
  l->listener = resources::ApiListener{RdsHcm(rds)};
  return l;
}

inline std::shared_ptr<const resources::Listener> InlineListener(
    const std::string& name, resources::RouteConfig route) {
  auto l = std::make_shared<resources::Listener>();
  l->name = name;
  resources::HttpConnectionManager hcm;
  hcm.route_config = std::move(route);
  l->listener = resources::ApiListener{std::move(hcm)};
  return l;
}

// One virtual host for `domains` whose routes go to `clusters` ("a,b"), the
// last route splitting between `weighted` ("c,d") if given.
inline resources::RouteConfig Routes(const std::string& name,
                                     const std::string& domains,
                                     const std::string& clusters,
                                     const std::string& weighted = "") {
  resources::VirtualHost vh;
  vh.name = absl::StrCat("vh-", domains);
  for (absl::string_view d : absl::StrSplit(domains, ',')) {
    vh.domains.emplace_back(d);
  }
  for (absl::string_view c : absl::StrSplit(clusters, ',', absl::SkipEmpty())) {
    resources::Route route;
    resources::RouteAction action;
    action.cluster = std::string(c);
    route.action = action;
    vh.routes.push_back(route);
  }
  if (!weighted.empty()) {
    resources::Route route;
    resources::RouteAction action;
    for (absl::string_view c : absl::StrSplit(weighted, ',')) {
      action.weighted_clusters.push_back({std::string(c), 1});
    }
    route.action = action;
    vh.routes.push_back(route);
  }
  resources::RouteConfig rc;
  rc.name = name;
  rc.virtual_hosts.push_back(std::move(vh));
  return rc;
}

inline std::shared_ptr<const ClusterResource> Eds(const std::string& name) {
  auto c = std::make_shared<ClusterResource>();
  c->name = name;
  c->kind = ClusterResource::Eds{""};
  return c;
}
inline std::shared_ptr<const ClusterResource> Dns(const std::string& name,
                                                  const std::string& host,
                                                  uint32_t port) {
  auto c = std::make_shared<ClusterResource>();
  c->name = name;
  c->kind = ClusterResource::LogicalDns{host, port};
  return c;
}
inline std::shared_ptr<const ClusterResource> Aggregate(
    const std::string& name, const std::string& children) {
  auto c = std::make_shared<ClusterResource>();
  c->name = name;
  c->kind = ClusterResource::Aggregate{absl::StrSplit(children, ',')};
  return c;
}

// `localities` x `per_locality` endpoints 10.x.y.z:80.
inline std::shared_ptr<const EndpointResource> Endpoints(
    const std::string& name, int localities = 1, int per_locality = 1,
    int salt = 0) {
  auto value = std::make_shared<EndpointResource>();
  value->cluster_name = name;
  auto& priority = value->priorities.emplace_back();
  for (int l = 0; l < localities; ++l) {
    EndpointResource::Locality locality{"r", absl::StrCat("z", l), ""};
    auto& entry = priority.localities[locality];
    entry.weight = 1;
    for (int e = 0; e < per_locality; ++e) {
      entry.endpoints.push_back(
          {absl::StrCat("10.", salt % 256, ".", l, ".", e + 1, ":80")});
    }
  }
  return value;
}

// A server Listener on `address`; each chain uses the RDS name given
// ("" = an inline route config); `default_rds` for the default chain
// (none if "-").
inline std::shared_ptr<const resources::Listener> ServerListener(
    const std::string& name, const std::string& address,
    const std::vector<std::string>& chains, const std::string& default_rds) {
  auto l = std::make_shared<resources::Listener>();
  l->name = name;
  resources::ServerListener server;
  server.address = address;
  auto chain = [](const std::string& rds) {
    resources::FilterChainData data;
    if (rds.empty()) {
      data.http_connection_manager.route_config = resources::RouteConfig{};
    } else {
      data.http_connection_manager = RdsHcm(rds);
    }
    return data;
  };
  for (const std::string& rds : chains)
    server.filter_chains.push_back(
        std::make_shared<const resources::FilterChainData>(chain(rds)));
  if (default_rds != "-") server.default_filter_chain = chain(default_rds);
  l->listener = std::move(server);
  return l;
}

// "error: <status>", or per cluster in name order
// "A: EDS A(10.0.0.1:80) | LOGICAL_DNS d(none)" / "B: error: <message>",
// joined by "; ".
inline std::string Describe(const XdsConfig& config) {
  if (!config.status.ok()) return "error: " + config.status.ToString();
  std::vector<std::string> parts;
  config.clusters.ForEach([&](const ClusterConfig& c) {
    if (!c.status.ok()) {
      parts.push_back(absl::StrCat(c.name, ": error: ", c.status.message()));
      return;
    }
    std::vector<std::string> leaves;
    for (const auto& leaf : c.leaves) {
      std::vector<std::string> addresses;
      if (leaf.endpoints != nullptr) {
        for (const auto& p : leaf.endpoints->priorities) {
          for (const auto& [loc, entry] : p.localities) {
            for (const auto& e : entry.endpoints)
              addresses.push_back(e.address);
          }
        }
      }
      leaves.push_back(absl::StrCat(
          leaf.mechanism.type == cluster::DiscoveryMechanism::Type::kEds
              ? "EDS "
              : "LOGICAL_DNS ",
          leaf.mechanism.cluster, "(",
          leaf.endpoints == nullptr ? "none" : absl::StrJoin(addresses, " "),
          ")"));
    }
    parts.push_back(absl::StrCat(c.name, ": ", absl::StrJoin(leaves, " | ")));
  });
  return absl::StrJoin(parts, "; ");
}

}  // namespace testing
}  // namespace xds_config
}  // namespace xdsfed

#endif  // XDSFED_TESTS_XDS_CONFIG_TEST_RESOURCES_H_
