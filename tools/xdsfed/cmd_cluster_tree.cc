// `xdsfed cluster-tree --resources SNAPSHOT ROOT`: the A37 cluster tree under
// ROOT as a channel would resolve it (lib/xds_config's
// ResolveStaticClusterTree) from the Clusters of a snapshot file
// (../shared/CLI.md): the ordered discovery mechanisms and the
// xds_cluster_resolver_experimental config, or the error the channel would
// report. A snapshot is complete, so a Cluster it lacks does not exist. A
// tree with `lrs_server: self` needs a bootstrap to name that server: without
// one the command prints the mechanisms, says so, and exits 2.
//
//   {"valid":true,"root":"A","clusters":["A","B","C","D","E"],
//    "discovery_mechanisms":[{"cluster":"B","type":"EDS",...},...],
//    "lb_config":[{"xds_cluster_resolver_experimental":{...}}]}
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "lib/xds_config/static_cluster_tree.h"
#include "tools/control_plane/control_plane.h"
#include "tools/xdsfed/bootstrap_source.h"
#include "tools/xdsfed/cli.h"
#include "tools/xdsfed/cluster_tree_output.h"

namespace xdsfed::cli {
namespace {

constexpr absl::string_view kClusterType = "envoy.config.cluster.v3.Cluster";

int RunClusterTree(Context& context) {
  bool missing = false;
  std::optional<std::string> snapshot_file =
      TakeFlag(&context.args, "--resources", &missing);
  if (missing || !snapshot_file.has_value() || context.args.size() != 1) {
    return UsageError("usage: xdsfed cluster-tree --resources SNAPSHOT ROOT");
  }
  const std::string& root = context.args[0];
  const bool federation = context.FederationEnabled();
  absl::StatusOr<std::string> text =
      ReadFile(*snapshot_file, kMaxSnapshotFileBytes);
  if (!text.ok()) return ReportIoError(text.status().message());
  absl::StatusOr<control_plane::Snapshot> snapshot =
      control_plane::ParseSnapshot(*text);
  if (!snapshot.ok()) {
    PrintJson(InvalidResult(snapshot.status().message()));
    return kExitInvalid;
  }

  // The snapshot is complete: lib/xds_config resolves the tree over exactly
  // its Clusters (missing or invalid ones do not exist).
  std::vector<std::pair<std::string, std::string>> serialized;
  auto clusters = snapshot->resources.find(std::string(kClusterType));
  if (clusters != snapshot->resources.end()) {
    for (const auto& [key, resource] : clusters->second) {
      serialized.emplace_back(key, resource.bytes);
    }
  }
  // `lrs_server: self` means the server the Cluster came from; with a
  // bootstrap at hand that is a concrete server, else there is no config.
  std::shared_ptr<const Bootstrap> bootstrap;
  if (auto loaded = LoadBootstrap(context); loaded.ok()) bootstrap = *loaded;
  xds_config::StaticClusterTree tree = xds_config::ResolveStaticClusterTree(
      serialized, root, federation, bootstrap.get());

  Json::Value out(Json::objectValue);
  if (!tree.status.ok()) {
    out = InvalidResult(tree.status.message());
  } else {
    out["valid"] = true;
  }
  out["root"] = root;
  Json::Value watched(Json::arrayValue);
  for (const std::string& name : tree.clusters) watched.append(name);
  out["clusters"] = watched;
  if (tree.status.ok()) {
    const std::vector<cluster::ResolvedMechanism>& mechanisms = tree.mechanisms;
    out["discovery_mechanisms"] = MechanismsToJson(mechanisms);
    // A config without lrsLoadReportingServer turns load reporting off, so
    // a `self` that names no server must not give one (issue 14 §2).
    for (const cluster::ResolvedMechanism& m : mechanisms) {
      if (!m.mechanism.lrs_load_reporting_server_is_self ||
          m.lrs_server.has_value()) {
        continue;
      }
      const std::string error = absl::StrCat(
          "cluster \"", m.mechanism.cluster,
          "\" sets lrs_server: self (report load to the server the Cluster "
          "came from), which only a bootstrap names: ",
          bootstrap == nullptr
              ? "give one (--bootstrap FILE, --bootstrap-json TEXT, "
                "GRPC_XDS_BOOTSTRAP) to generate the LB config"
              : "the bootstrap has no server for that name");
      return ReportIoError(error, std::move(out));
    }
    out["lb_config"] = ResolverConfigJson(mechanisms);
  }
  PrintJson(out);
  return tree.status.ok() ? kExitValid : kExitInvalid;
}

XDSFED_REGISTER_COMMAND("cluster-tree", RunClusterTree,
                        "cluster-tree --resources SNAPSHOT ROOT  the A37 "
                        "cluster tree under ROOT");

}  // namespace
}  // namespace xdsfed::cli
