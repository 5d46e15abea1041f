#include "tools/xdsfed/watch_output.h"

namespace xdsfed::cli {

Json::Value WatchEventToJson(const xds_config::ResourceEvent& event,
                             bool quiet) {
  using Kind = xds_config::ResourceEvent::Kind;
  Json::Value out(Json::objectValue);
  out["valid"] = event.kind != Kind::kError;
  switch (event.kind) {
    case Kind::kChanged:
      out["event"] = "changed";
      break;
    case Kind::kError:
      out["event"] = "error";
      out["error"] = std::string(event.error.message());
      break;
    case Kind::kDoesNotExist:
      out["event"] = "does_not_exist";
      break;
  }
  out["type"] = std::string(event.type_url);
  out["name"] = event.name;
  if (event.kind == Kind::kChanged && !quiet) {
    Json::Value resource = event.ValueJson();
    if (!resource.isNull()) out["resource"] = std::move(resource);
  }
  return out;
}

namespace {

void SetStatus(const absl::Status& status, Json::Value* out) {
  (*out)["valid"] = status.ok();
  if (!status.ok()) (*out)["error"] = status.ToString();
}

}  // namespace

Json::Value XdsConfigToJson(const xds_config::XdsConfig& config,
                            const std::string& listener_name) {
  Json::Value out(Json::objectValue);
  SetStatus(config.status, &out);
  out["event"] = "xds_config";
  out["listener"] = listener_name;
  if (!config.route_config_name.empty()) {
    out["route_config"] = config.route_config_name;
  }
  if (config.virtual_host != nullptr) {
    out["virtual_host"] = config.virtual_host->name;
  }
  Json::Value clusters(Json::objectValue);
  config.clusters.ForEach([&](const xds_config::ClusterConfig& c) {
    clusters[c.name] = c.status.ok() ? "ok" : c.status.ToString();
  });
  out["clusters"] = std::move(clusters);
  return out;
}

Json::Value ServerConfigToJson(const xds_config::ServerConfig& config,
                               const std::string& listener_name) {
  Json::Value out(Json::objectValue);
  SetStatus(config.status, &out);
  out["event"] = "server_config";
  out["listener"] = listener_name;
  Json::Value routes(Json::objectValue);
  for (const auto& [name, rds] : config.route_configs) {
    routes[name] = rds.route_config != nullptr ? "ok" : rds.status.ToString();
  }
  out["route_configs"] = std::move(routes);
  return out;
}

}  // namespace xdsfed::cli
