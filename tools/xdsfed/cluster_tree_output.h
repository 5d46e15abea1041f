// JSON for A37 cluster trees, shared by `xdsfed cluster-tree`, `watch` and
// `demo` (../shared/CLI.md conventions: one object per line, "valid").
#ifndef XDSFED_TOOLS_XDSFED_CLUSTER_TREE_OUTPUT_H_
#define XDSFED_TOOLS_XDSFED_CLUSTER_TREE_OUTPUT_H_

#include <map>
#include <string>
#include <vector>

#include "absl/base/thread_annotations.h"
#include "json/json.h"
#include "lib/base/mutex.h"
#include "lib/bootstrap/bootstrap.h"
#include "lib/cluster/cluster_resolution.h"
#include "lib/cluster/lb_config.h"
#include "lib/xds_config/xds_config.h"

namespace xdsfed::cli {

// [{"cluster":"B","type":"EDS","eds_service_name":"svc" (when set),
//   "max_concurrent_requests":1024,"lrs_load_reporting_server":{...}},
//  {"cluster":"E","type":"LOGICAL_DNS","dns_hostname":"h:443",...}]
// ("lrs_load_reporting_server" only when set; "error" when `errors` has a
// non-OK entry for it.)
Json::Value MechanismsToJson(
    const std::vector<cluster::ResolvedMechanism>& mechanisms,
    const std::vector<absl::Status>& errors = {});

// [{"xds_cluster_resolver_experimental":{...}}], or {"error":"..."} if the
// config cannot be built.
Json::Value ResolverConfigJson(
    const std::vector<cluster::ResolvedMechanism>& mechanisms);

// Turns ClusterResolution updates into `"event":"cluster_tree"` lines,
// keeping each root's priority child names across its updates:
//   {"valid":true,"event":"cluster_tree","cluster":"A","clusters":[...],
//    "discovery_mechanisms":[...],"lb_config":[...],
//    "priority_config":[{"priority_experimental":{...}}],
//    "endpoints":[{"child":"{cluster=B, child_number=0}",...}]}
//   {"valid":false,"event":"cluster_tree","cluster":"A","clusters":[...],
//    "error":"CDS resource \"C\" does not exist"}
class ClusterTreePrinter {
 public:
  Json::Value ToJson(const std::string& root,
                     const cluster::ClusterResolution::Update& update);
  // The same for one cluster of an XdsConfig snapshot.
  Json::Value ToJson(const xds_config::ClusterConfig& config);
  // One line per cluster of `config` that changed since the last snapshot
  // passed here (a snapshot shares unchanged ClusterConfigs).
  std::vector<Json::Value> ChangedTrees(const xds_config::XdsConfig& config);

 private:
  Mutex mu_;
  std::map<std::string, cluster::PriorityConfigBuilder> builders_
      ABSL_GUARDED_BY(mu_);
  std::map<std::string, std::shared_ptr<const xds_config::ClusterConfig>>
      printed_ ABSL_GUARDED_BY(mu_);
};

}  // namespace xdsfed::cli

#endif  // XDSFED_TOOLS_XDSFED_CLUSTER_TREE_OUTPUT_H_
