// The HttpConnectionManager network filter, as a client Listener's
// api_listener and as each filter chain of a server Listener carry it,
// validated as gRPC C-core 1.51 does (A39 HTTP filters, A47 ConfigSource).
//
//   ValidationErrors errors;
//   HttpConnectionManager hcm =
//       ParseHttpConnectionManager(proto, /*is_client=*/true, &errors);
//   if (const auto* rds = std::get_if<HttpConnectionManager::Rds>(
//           &hcm.route_config)) Watch(rds->route_config_name);
//
// The HTTP filters we implement: the router (terminal, last) and, on
// servers, RBAC (A41; before the router). Other filter types, and RBAC on a
// client, are errors unless the filter is marked is_optional (then
// skipped), as in gRPC.
#ifndef XDSFED_LIB_RESOURCES_HTTP_CONNECTION_MANAGER_H_
#define XDSFED_LIB_RESOURCES_HTTP_CONNECTION_MANAGER_H_

#include <memory>
#include <optional>
#include <string>
#include <variant>
#include <vector>

#include "json/json.h"
#include "lib/resources/rbac.h"
#include "lib/resources/route_config.h"

namespace envoy {
namespace extensions {
namespace filters {
namespace network {
namespace http_connection_manager {
namespace v3 {
class HttpConnectionManager;
}  // namespace v3
}  // namespace http_connection_manager
}  // namespace network
}  // namespace filters
}  // namespace extensions
}  // namespace envoy

namespace xdsfed {
namespace resources {

struct HttpConnectionManager {
  // rds: the RouteConfiguration to fetch over ADS (`ads` or `self`).
  struct Rds {
    std::string route_config_name;  // verbatim; may be an xdstp:// name
    bool operator==(const Rds& o) const {
      return route_config_name == o.route_config_name;
    }
  };
  struct HttpFilter {
    std::string name;
    // The config message type, e.g.
    // "envoy.extensions.filters.http.router.v3.Router".
    std::string config_type;
    // The RBAC filter's config (config_type kRbacFilterType, servers
    // only); null for the router.
    std::shared_ptr<const RbacConfig> rbac;
    bool operator==(const HttpFilter& o) const;  // compares *rbac
  };

  std::variant<Rds, RouteConfig> route_config;
  // The supported filters in order; the last is the terminal router.
  std::vector<HttpFilter> http_filters;
  // common_http_protocol_options.max_stream_duration.
  std::optional<ProtoDuration> http_max_stream_duration;

  bool operator==(const HttpConnectionManager& o) const {
    return route_config == o.route_config && http_filters == o.http_filters &&
           http_max_stream_duration == o.http_max_stream_duration;
  }
  Json::Value ToJson() const;
};

// Validates `proto`, adding errors under the current field path. The result
// is meaningful only if no error was added.
HttpConnectionManager ParseHttpConnectionManager(
    const envoy::extensions::filters::network::http_connection_manager::v3::
        HttpConnectionManager& proto,
    bool is_client, ValidationErrors* errors);

}  // namespace resources
}  // namespace xdsfed

#endif  // XDSFED_LIB_RESOURCES_HTTP_CONNECTION_MANAGER_H_
