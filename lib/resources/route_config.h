// RouteConfiguration (RDS) resources: decoding and validation into an
// immutable value, following gRPC C-core 1.51's client rules (A28 routing,
// A36 additions), restricted to the fields our protos carry.
//
//   const auto& rds = resources::RouteConfigResourceType();
//   resources::DecodeResult r = rds.Decode({}, bytes);
//   if (!r.value.ok()) return r.value.status();
//   std::shared_ptr<const resources::RouteConfig> config = rds.Cast(*r.value);
//   for (const auto& vhost : config->virtual_hosts) ...
//
// Like gRPC, a route whose match can never succeed (bad path, query
// parameters) or whose action names no cluster we support (cluster_header,
// cluster_specifier_plugin) is dropped, not NACKed. Routes whose action is
// not `route` are kept with NonForwardingAction / UnsupportedAction: a client
// fails RPCs that match them, a server (A36) serves only non_forwarding ones,
// so one value works for both and no decode-time context is needed.
#ifndef XDSFED_LIB_RESOURCES_ROUTE_CONFIG_H_
#define XDSFED_LIB_RESOURCES_ROUTE_CONFIG_H_

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <variant>
#include <vector>

#include "absl/container/inlined_vector.h"
#include "absl/strings/string_view.h"
#include "json/json.h"
#include "lib/resources/resource_type.h"

namespace envoy {
namespace config {
namespace route {
namespace v3 {
class RouteConfiguration;
}  // namespace v3
}  // namespace route
}  // namespace config
}  // namespace envoy

namespace re2 {
class RE2;
}  // namespace re2

namespace xdsfed {

class ValidationErrors;

namespace resources {

// A google.protobuf.Duration that passed validation: seconds in
// [0, 315576000000], nanos in [0, 999999999]. Kept exact (no unit
// conversion) so equality means "same proto value".
struct ProtoDuration {
  int64_t seconds = 0;
  int32_t nanos = 0;
  bool operator==(const ProtoDuration& o) const {
    return seconds == o.seconds && nanos == o.nanos;
  }
  bool operator!=(const ProtoDuration& o) const { return !(*this == o); }
  Json::Value ToJson() const;  // "1.500s" as in the proto3 JSON mapping
};

// A string matcher (header string_match, path matchers).
struct StringMatch {
  enum class Type { kExact, kPrefix, kSuffix, kContains, kSafeRegex };
  Type type = Type::kExact;
  std::string value;  // for kSafeRegex, the RE2 pattern
  bool case_sensitive = true;
  // kSafeRegex: `value` compiled by CompileSafeRegex (safe_regex.h) with
  // case_sensitive. The validators set it and NACK a pattern RE2 rejects;
  // a hand-built value may leave it null (lib/routing then compiles it).
  // Not part of ==: it is a function of value and case_sensitive.
  std::shared_ptr<const re2::RE2> regex;
  bool operator==(const StringMatch& o) const {
    return type == o.type && value == o.value &&
           case_sensitive == o.case_sensitive;
  }
  Json::Value ToJson() const;
};

// The StringMatcher oneof's field name of `type` ("exact", "prefix", ...),
// as ToJson and error messages spell it.
const char* StringMatchTypeName(StringMatch::Type type);

struct HeaderMatch {
  enum class Type { kString, kRange, kPresent };
  std::string name;
  Type type = Type::kString;
  StringMatch string_match;  // kString
  int64_t range_start = 0;   // kRange: [start, end)
  int64_t range_end = 0;
  bool present_match = false;  // kPresent
  bool invert_match = false;
  bool operator==(const HeaderMatch& o) const {
    return name == o.name && type == o.type && string_match == o.string_match &&
           range_start == o.range_start && range_end == o.range_end &&
           present_match == o.present_match && invert_match == o.invert_match;
  }
  Json::Value ToJson() const;
};

struct RbacConfig;  // lib/resources/rbac.h

// The RBAC filter overrides (A41 RBACPerRoute) of one virtual host or
// route's typed_per_filter_config, by HTTP filter name (sorted, unique).
// Other filters' entries are validated, not kept.
struct RbacOverrides {
  std::vector<std::pair<std::string, std::shared_ptr<const RbacConfig>>>
      by_filter;
  bool empty() const { return by_filter.empty(); }
  // The override for filter `name`, or nullptr.
  const RbacConfig* Find(absl::string_view name) const;
  bool operator==(const RbacOverrides& o) const;  // compares the configs
  Json::Value ToJson() const;
};

struct RouteMatch {
  // prefix -> kPrefix, path -> kExact, safe_regex -> kSafeRegex; the
  // route's case_sensitive (default true) is in path.case_sensitive.
  StringMatch path;
  std::vector<HeaderMatch> headers;
  // runtime_fraction.default_value normalized to a denominator of 1,000,000.
  std::optional<uint32_t> fraction_per_million;
  bool operator==(const RouteMatch& o) const {
    return path == o.path && headers == o.headers &&
           fraction_per_million == o.fraction_per_million;
  }
  Json::Value ToJson() const;
};

struct RetryPolicy {
  // The supported gRPC status names found in retry_on, in input order.
  std::vector<std::string> retry_on;
  uint32_t num_retries = 1;
  ProtoDuration base_interval{0, 25000000};  // 25ms
  ProtoDuration max_interval{0, 250000000};  // 250ms; 10x base if unset
  bool operator==(const RetryPolicy& o) const {
    return retry_on == o.retry_on && num_retries == o.num_retries &&
           base_interval == o.base_interval && max_interval == o.max_interval;
  }
  Json::Value ToJson() const;
};

struct ClusterWeight {
  std::string name;  // verbatim; may be an xdstp:// name
  uint32_t weight = 0;
  bool operator==(const ClusterWeight& o) const {
    return name == o.name && weight == o.weight;
  }
};

struct RouteAction {
  // Exactly one of the two is non-empty.
  std::string cluster;                           // verbatim; may be xdstp://
  std::vector<ClusterWeight> weighted_clusters;  // zero weights dropped
  // grpc_timeout_header_max if set, else max_stream_duration.
  std::optional<ProtoDuration> max_stream_duration;
  // The route's own, else the virtual host's.
  std::optional<RetryPolicy> retry_policy;
  bool operator==(const RouteAction& o) const {
    return cluster == o.cluster && weighted_clusters == o.weighted_clusters &&
           max_stream_duration == o.max_stream_duration &&
           retry_policy == o.retry_policy;
  }
  Json::Value ToJson() const;
};

// A36: the only action an xDS-enabled server serves.
struct NonForwardingAction {
  bool operator==(const NonForwardingAction&) const { return true; }
};

// redirect, direct_response, filter_action or no action: kept so that RPCs
// matching the route fail instead of falling through to a later route.
struct UnsupportedAction {
  std::string kind;  // the oneof field name, "" if none was set
  bool operator==(const UnsupportedAction& o) const { return kind == o.kind; }
};

struct Route {
  std::string name;
  RouteMatch match;
  std::variant<RouteAction, NonForwardingAction, UnsupportedAction> action;
  RbacOverrides rbac_overrides;
  bool operator==(const Route& o) const {
    return name == o.name && match == o.match && action == o.action &&
           rbac_overrides == o.rbac_overrides;
  }
  Json::Value ToJson() const;
};

struct VirtualHost {
  std::string name;
  // domains: non-empty; each "*", "*suffix", "prefix*" or has no '*'.
  // routes: non-empty after dropping ignored routes. Both inline for the
  // usual one of each: two heap blocks fewer per host (bench/RESULTS.md).
  absl::InlinedVector<std::string, 1> domains;
  absl::InlinedVector<Route, 1> routes;
  RbacOverrides rbac_overrides;

  bool operator==(const VirtualHost& o) const {
    return name == o.name && domains == o.domains && routes == o.routes &&
           rbac_overrides == o.rbac_overrides;
  }
  Json::Value ToJson() const;
};

struct RouteConfig {
  std::string name;
  std::vector<VirtualHost> virtual_hosts;
  bool operator==(const RouteConfig& o) const {
    return name == o.name && virtual_hosts == o.virtual_hosts;
  }
  bool operator!=(const RouteConfig& o) const { return !(*this == o); }
  Json::Value ToJson() const;
};

// Validates `proto` into a RouteConfig, adding every problem to `errors`
// under the current field path (used for RDS resources and for an
// HttpConnectionManager's inline route_config). The result is meaningful
// only if no error was added.
RouteConfig ParseRouteConfig(
    const envoy::config::route::v3::RouteConfiguration& proto,
    ValidationErrors* errors);

// The client's resource type for RouteConfig (the same object as
// XdsResourceType<RouteConfig>::Get()).
template <>
const XdsResourceType<RouteConfig>& XdsResourceType<RouteConfig>::Get();
const XdsResourceType<RouteConfig>& RouteConfigResourceType();

}  // namespace resources
}  // namespace xdsfed

#endif  // XDSFED_LIB_RESOURCES_ROUTE_CONFIG_H_
