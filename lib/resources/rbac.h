// The RBAC HTTP filter's config (gRFC A41) as a validated value: the
// filter's `envoy.extensions.filters.http.rbac.v3.RBAC` in a server
// HttpConnectionManager, and `RBACPerRoute` in typed_per_filter_config. The
// value is what lib/authz compiles into its engine.
//
//   ValidationErrors errors;
//   RbacConfig config = ParseRbacFilterConfig(any.value(), &errors);
//   if (!errors.ok()) ...;  // NACK, every problem with its field path
//   if (!config.rules.has_value()) ...;  // no enforcement: every RPC passes
//
// Fails closed: a field gRPC does not support (Policy.condition, a
// Permission or Principal kind gRPC does not read, the filter's `matcher`,
// a header matcher's string_match or treat_missing_header_as_empty) and any
// field unknown to our protos are errors with their path, never skipped.
// Accepted but without effect, as in gRPC C-core 1.51
// (src/core/ext/xds/xds_http_rbac_filter.cc): shadow_rules,
// shadow_matcher, shadow_rules_stat_prefix, track_per_rule_stats,
// audit_condition, audit_log, a MetadataMatcher's filter / path / value.
// Action LOG is "as if RBAC were not configured" (A41 §Proposal).
#ifndef XDSFED_LIB_RESOURCES_RBAC_H_
#define XDSFED_LIB_RESOURCES_RBAC_H_

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "absl/strings/string_view.h"
#include "json/json.h"
#include "lib/resources/route_config.h"

namespace xdsfed {

class ValidationErrors;

namespace resources {

inline constexpr absl::string_view kRbacFilterType =
    "envoy.extensions.filters.http.rbac.v3.RBAC";
inline constexpr absl::string_view kRbacPerRouteType =
    "envoy.extensions.filters.http.rbac.v3.RBACPerRoute";

// An address block: `address` is the 4 or 16 bytes of the address_prefix
// with the bits past prefix_len cleared; prefix_len is at most 32 / 128
// (gRPC treats a longer one as the full length).
struct RbacCidr {
  std::string address;  // 4 bytes (IPv4) or 16 bytes (IPv6)
  uint32_t prefix_len = 0;
  bool operator==(const RbacCidr& o) const {
    return address == o.address && prefix_len == o.prefix_len;
  }
  std::string ToString() const;  // "127.0.0.0/8"
};

// One node of a Permission or Principal tree (the two share node kinds;
// which kinds may appear where is checked when parsing).
struct RbacMatcher {
  enum class Kind {
    kAnd,                  // and_rules / and_ids: every child
    kOr,                   // or_rules / or_ids: some child
    kNot,                  // not_rule / not_id: children[0] does not match
    kAny,                  // any: true
    kHeader,               // header
    kUrlPath,              // url_path.path against :path
    kDestinationIp,        // local address in cidr
    kDestinationPort,      // local port == port
    kRequestedServerName,  // string_match against "" (A41 table)
    kMetadata,             // never matches; matches iff invert (A41 table)
    kAuthenticated,        // TLS, and principal_name (if set) matches a SAN
    kSourceIp,             // source_ip, direct_remote_ip, remote_ip: the
    kDirectRemoteIp,       // peer address in cidr (A41: the three are the
    kRemoteIp,             // same without proxy protocol / xff)
  };
  Kind kind = Kind::kAny;
  std::vector<RbacMatcher> children;  // kAnd, kOr (>= 0), kNot (1)
  HeaderMatch header;                 // kHeader
  StringMatch string_match;  // kUrlPath, kRequestedServerName, kAuthenticated
  bool has_principal_name = false;  // kAuthenticated: string_match is set
  RbacCidr cidr;                    // the three *Ip kinds and kDestinationIp
  uint32_t port = 0;                // kDestinationPort
  bool invert = false;              // kMetadata

  bool operator==(const RbacMatcher& o) const;
  Json::Value ToJson() const;
};

struct RbacPolicy {
  std::string name;
  std::vector<RbacMatcher> permissions;  // matches if one matches (OR)
  std::vector<RbacMatcher> principals;   // matches if one matches (OR)
  bool operator==(const RbacPolicy& o) const {
    return name == o.name && permissions == o.permissions &&
           principals == o.principals;
  }
  Json::Value ToJson() const;
};

struct RbacRules {
  enum class Action { kAllow, kDeny };
  Action action = Action::kAllow;
  // Sorted by name, unique: the order Envoy and gRPC evaluate them in.
  std::vector<RbacPolicy> policies;
  bool operator==(const RbacRules& o) const {
    return action == o.action && policies == o.policies;
  }
  Json::Value ToJson() const;
};

// A filter config or a per-route override. No rules: no enforcement
// (`rules` absent, action LOG, or an RBACPerRoute without `rbac`). Rules
// with no policies: ALLOW denies everything, DENY allows everything.
struct RbacConfig {
  std::optional<RbacRules> rules;
  bool operator==(const RbacConfig& o) const { return rules == o.rules; }
  bool operator!=(const RbacConfig& o) const { return !(*this == o); }
  Json::Value ToJson() const;
};

// Decode + validate a serialized envoy.extensions.filters.http.rbac.v3.RBAC
// (an HTTP filter's typed_config value). Errors go under the current path.
RbacConfig ParseRbacFilterConfig(absl::string_view serialized,
                                 ValidationErrors* errors);

// The same for a serialized RBACPerRoute; its `rbac` errors go under
// ".rbac".
RbacConfig ParseRbacPerRoute(absl::string_view serialized,
                             ValidationErrors* errors);

}  // namespace resources
}  // namespace xdsfed

#endif  // XDSFED_LIB_RESOURCES_RBAC_H_
