#include "lib/xds_config/static_cluster_tree.h"

#include <map>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "lib/cluster/cluster_tree.h"
#include "lib/name/resource_name.h"
#include "lib/resources/cluster.h"

namespace xdsfed {
namespace xds_config {
namespace {

std::string Canonical(const std::string& name, bool federation) {
  absl::StatusOr<std::string> normalized =
      NormalizeResourceName(name, federation);
  return normalized.ok() ? *normalized : name;
}

}  // namespace

std::vector<cluster::ResolvedMechanism> WithoutEndpoints(
    const std::vector<cluster::DiscoveryMechanism>& mechanisms,
    const Bootstrap* bootstrap) {
  std::vector<cluster::ResolvedMechanism> out;
  for (const cluster::DiscoveryMechanism& m : mechanisms) {
    cluster::ResolvedMechanism& resolved = out.emplace_back();
    resolved.mechanism = m;
    if (m.lrs_load_reporting_server_is_self && bootstrap != nullptr) {
      if (auto server = bootstrap->ServerForResourceName(m.cluster)) {
        resolved.lrs_server = *server;
      }
    }
  }
  return out;
}

StaticClusterTree ResolveStaticClusterTree(
    const std::vector<std::pair<std::string, std::string>>& clusters,
    absl::string_view root, bool federation, const Bootstrap* bootstrap) {
  std::map<std::string, resources::ClusterResource> received;
  std::map<std::string, std::string> invalid;
  const resources::DecodeContext context{federation};
  for (const auto& [key, bytes] : clusters) {
    std::string own_name;
    absl::StatusOr<resources::ClusterResource> decoded =
        resources::DecodeCluster(context, bytes, &own_name);
    std::string name = Canonical(own_name.empty() ? key : own_name, federation);
    if (decoded.ok()) {
      received.insert_or_assign(std::move(name), *std::move(decoded));
    } else {
      invalid[std::move(name)] = std::string(decoded.status().message());
    }
  }
  auto lookup = [&](absl::string_view name) {
    auto it = received.find(Canonical(std::string(name), federation));
    if (it == received.end()) {
      return cluster::ClusterLookupResult::DoesNotExist();
    }
    return cluster::ClusterLookupResult::Received(it->second);
  };
  cluster::ClusterTreeResult tree = cluster::ResolveClusterTree(root, lookup);

  StaticClusterTree out;
  out.clusters = std::move(tree.clusters);
  if (!tree.ok()) {
    std::string error(tree.error.message());
    for (const auto& [name, why] : invalid) {
      if (absl::StrContains(error, absl::StrCat("\"", name, "\""))) {
        absl::StrAppend(&error, " (the snapshot's Cluster \"", name,
                        "\" is invalid: ", why, ")");
      }
    }
    out.status = absl::Status(tree.error.code(), error);
    return out;
  }
  out.mechanisms = WithoutEndpoints(tree.mechanisms, bootstrap);
  return out;
}

}  // namespace xds_config
}  // namespace xdsfed
