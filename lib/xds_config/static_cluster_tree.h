// The A37 cluster tree under a root as a channel would resolve it from a
// complete, fixed set of serialized Cluster resources (a control-plane
// snapshot, for `xdsfed cluster-tree`): each resource validated as on
// receipt; a name the set lacks does not exist; a resource that fails
// validation would be NACKed and never arrive, so to the tree it does not
// exist either, and the error says why. Names meet through their canonical
// form, as in the client's cache.
//
//   StaticClusterTree t = ResolveStaticClusterTree(clusters, "A", true,
//                                                   bootstrap.get());
//   if (!t.status.ok()) { /* the channel's TRANSIENT_FAILURE */ }
//   for (const auto& m : t.mechanisms) { /* m.mechanism, m.lrs_server */ }
#ifndef XDSFED_LIB_XDS_CONFIG_STATIC_CLUSTER_TREE_H_
#define XDSFED_LIB_XDS_CONFIG_STATIC_CLUSTER_TREE_H_

#include <string>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/string_view.h"
#include "lib/bootstrap/bootstrap.h"
#include "lib/cluster/lb_config.h"

namespace xdsfed {
namespace xds_config {

struct StaticClusterTree {
  absl::Status status;
  // Every cluster the tree reached, root first.
  std::vector<std::string> clusters;
  // Status OK: the discovery mechanisms in priority order, without
  // endpoints; `lrs_server: self` expanded to the server the Cluster would
  // come from through `bootstrap` (left unset without one).
  std::vector<cluster::ResolvedMechanism> mechanisms;
};

// `clusters`: (snapshot key, serialized Cluster) pairs; the resource's own
// name wins over the key when it decodes far enough to have one.
StaticClusterTree ResolveStaticClusterTree(
    const std::vector<std::pair<std::string, std::string>>& clusters,
    absl::string_view root, bool federation, const Bootstrap* bootstrap);

// The mechanisms of a resolved tree, `lrs_server: self` expanded through
// `bootstrap` (none when null), without endpoints.
std::vector<cluster::ResolvedMechanism> WithoutEndpoints(
    const std::vector<cluster::DiscoveryMechanism>& mechanisms,
    const Bootstrap* bootstrap);

}  // namespace xds_config
}  // namespace xdsfed

#endif  // XDSFED_LIB_XDS_CONFIG_STATIC_CLUSTER_TREE_H_
