// The immutable snapshots lib/xds_config publishes (issue 11, in the spirit
// of gRPC's XdsDependencyManager): everything a channel needs to route RPCs
// for one `xds:` target (XdsConfig), or an xDS-enabled server for one
// listening address (ServerConfig). Shared as std::shared_ptr<const ...>:
// a snapshot never changes, a change is a new snapshot.
//
//   void OnConfig(std::shared_ptr<const XdsConfig> config) {
//     if (!config->status.ok()) { /* listener/route/vhost failed */ }
//     const ClusterConfig* c = config->clusters.Find("backend");
//     if (c != nullptr && c->status.ok()) {
//       for (const auto& leaf : c->leaves) { /* leaf.endpoints */ }
//     }
//   }
#ifndef XDSFED_LIB_XDS_CONFIG_XDS_CONFIG_H_
#define XDSFED_LIB_XDS_CONFIG_XDS_CONFIG_H_

#include <map>
#include <memory>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "lib/cluster/lb_config.h"
#include "lib/resources/cluster.h"
#include "lib/resources/listener.h"
#include "lib/resources/route_config.h"
#include "lib/xds_config/cluster_map.h"

namespace xdsfed {
namespace xds_config {

// One cluster a route names (a root of an A37 tree), as the channel's cds
// policy would see it.
struct ClusterConfig {
  std::string name;
  // Not OK: this cluster is in TRANSIENT_FAILURE (missing cluster in the
  // tree, depth over 16, no leaf, CDS error before any config). Other
  // clusters are unaffected.
  absl::Status status;
  // Every cluster of the tree, root first, and their resources (null for a
  // cluster that does not exist).
  std::vector<std::string> tree;
  std::vector<std::shared_ptr<const resources::ClusterResource>> resources;
  // Status OK only: the EDS / LOGICAL_DNS leaves in priority order, each with
  // its endpoints (DNS addresses as one priority, one empty locality) or
  // null (failed before any result, or EDS does not exist: one priority
  // with no endpoints, A37), and its last error (OK if none).
  std::vector<cluster::ResolvedMechanism> leaves;
  std::vector<absl::Status> leaf_errors;
};

struct XdsConfig {
  // OK when the Listener, its route configuration and the virtual host for
  // the data-plane authority are all there; otherwise why not (the
  // Listener / RouteConfiguration does not exist or failed before any
  // value, or no virtual host matches). Clusters are then empty.
  absl::Status status;
  std::shared_ptr<const resources::Listener> listener;
  // From RDS, or the Listener's inline route_config (then sharing the
  // Listener's ownership).
  std::shared_ptr<const resources::RouteConfig> route_config;
  std::string route_config_name;  // the RDS name; "" when inline
  // Into *route_config; null when status is not OK.
  const resources::VirtualHost* virtual_host = nullptr;
  // Every cluster the virtual host's routes name (route `cluster` and
  // `weighted_clusters`), each with its own status.
  ClusterMap clusters;
};

struct ServerConfig {
  // Not OK: the server is not serving, and why (the Listener does not
  // exist, failed before any value, is not a server Listener, or its
  // address is not the listening address, A36).
  absl::Status status;
  std::shared_ptr<const resources::Listener> listener;
  // Every RDS name of the Listener's filter chains (and default chain):
  // the RouteConfiguration, or the error / does-not-exist it got (then
  // `route_config` is null; RPCs on such a chain fail with UNAVAILABLE,
  // A36).
  struct Rds {
    std::shared_ptr<const resources::RouteConfig> route_config;
    absl::Status status;
    bool operator==(const Rds& o) const {
      return route_config == o.route_config && status == o.status;
    }
  };
  std::map<std::string, Rds> route_configs;
};

}  // namespace xds_config
}  // namespace xdsfed

#endif  // XDSFED_LIB_XDS_CONFIG_XDS_CONFIG_H_
