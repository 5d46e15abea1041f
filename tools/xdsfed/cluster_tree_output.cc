#include "tools/xdsfed/cluster_tree_output.h"

#include <memory>
#include <utility>

namespace xdsfed::cli {

Json::Value MechanismsToJson(
    const std::vector<cluster::ResolvedMechanism>& mechanisms,
    const std::vector<absl::Status>& errors) {
  Json::Value out(Json::arrayValue);
  for (size_t i = 0; i < mechanisms.size(); ++i) {
    const cluster::DiscoveryMechanism& m = mechanisms[i].mechanism;
    Json::Value entry(Json::objectValue);
    entry["cluster"] = m.cluster;
    if (m.type == cluster::DiscoveryMechanism::Type::kEds) {
      entry["type"] = "EDS";
      if (!m.eds_service_name.empty()) {
        entry["eds_service_name"] = m.eds_service_name;
      }
    } else {
      entry["type"] = "LOGICAL_DNS";
      entry["dns_hostname"] = m.dns_hostname;
    }
    entry["max_concurrent_requests"] = m.max_concurrent_requests;
    if (mechanisms[i].lrs_server.has_value()) {
      entry["lrs_load_reporting_server"] = mechanisms[i].lrs_server->ToJson();
    } else if (m.lrs_load_reporting_server_is_self) {
      entry["lrs_load_reporting_server"] = "self";
    }
    if (i < errors.size() && !errors[i].ok()) {
      entry["error"] = std::string(errors[i].message());
    }
    out.append(std::move(entry));
  }
  return out;
}

Json::Value ResolverConfigJson(
    const std::vector<cluster::ResolvedMechanism>& mechanisms) {
  auto config = cluster::BuildClusterResolverConfig(mechanisms);
  if (!config.ok()) {
    Json::Value error(Json::objectValue);
    error["error"] = std::string(config.status().message());
    return error;
  }
  return cluster::ServiceConfigJson(cluster::WrapPolicy(*std::move(config)));
}

Json::Value ClusterTreePrinter::ToJson(
    const xds_config::ClusterConfig& config) {
  cluster::ClusterResolution::Update update;
  update.status = config.status;
  update.mechanisms = config.leaves;
  update.mechanism_errors = config.leaf_errors;
  update.clusters = config.tree;
  return ToJson(config.name, update);
}

std::vector<Json::Value> ClusterTreePrinter::ChangedTrees(
    const xds_config::XdsConfig& config) {
  std::vector<std::shared_ptr<const xds_config::ClusterConfig>> changed;
  {
    MutexLock lock(&mu_);
    std::map<std::string, std::shared_ptr<const xds_config::ClusterConfig>> now;
    for (size_t i = 0; i < config.clusters.size(); ++i) {
      const auto& value = config.clusters.ValueAt(i);
      if (value == nullptr) continue;
      auto it = printed_.find(value->name);
      if (it == printed_.end() || it->second != value) changed.push_back(value);
      now[value->name] = value;
    }
    printed_ = std::move(now);
  }
  std::vector<Json::Value> lines;
  for (const auto& c : changed) lines.push_back(ToJson(*c));
  return lines;
}

Json::Value ClusterTreePrinter::ToJson(
    const std::string& root, const cluster::ClusterResolution::Update& update) {
  Json::Value out(Json::objectValue);
  out["valid"] = update.status.ok();
  if (!update.status.ok()) out["error"] = std::string(update.status.message());
  out["event"] = "cluster_tree";
  out["cluster"] = root;
  Json::Value clusters(Json::arrayValue);
  for (const std::string& name : update.clusters) clusters.append(name);
  out["clusters"] = std::move(clusters);
  if (!update.status.ok()) return out;
  out["discovery_mechanisms"] =
      MechanismsToJson(update.mechanisms, update.mechanism_errors);
  out["lb_config"] = ResolverConfigJson(update.mechanisms);
  absl::StatusOr<cluster::PriorityConfig> priority;
  {
    MutexLock lock(&mu_);
    priority = builders_[root].Build(update.mechanisms);
  }
  if (priority.ok()) {
    out["priority_config"] = priority->ToJson();
    out["endpoints"] = priority->EndpointsToJson();
  } else {
    out["valid"] = false;
    out["error"] = std::string(priority.status().message());
  }
  return out;
}

}  // namespace xdsfed::cli
