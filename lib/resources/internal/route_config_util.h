// Internal helpers shared by the Listener, HttpConnectionManager and
// RouteConfiguration validators (not part of the public API):
//
//   ValidationErrors errors;
//   std::optional<ProtoDuration> d = internal::ParseDuration(proto, &errors);
//   std::optional<std::string> type =
//       internal::ExtensionTypeName(any, &errors);  // TypedStruct unwrapped
#ifndef XDSFED_LIB_RESOURCES_INTERNAL_ROUTE_CONFIG_UTIL_H_
#define XDSFED_LIB_RESOURCES_INTERNAL_ROUTE_CONFIG_UTIL_H_

#include <optional>
#include <string>

#include "absl/strings/string_view.h"
#include "google/protobuf/any.pb.h"
#include "google/protobuf/duration.pb.h"
#include "google/protobuf/map.h"
#include "lib/base/validation_errors.h"
#include "lib/resources/route_config.h"

namespace envoy {
namespace config::route::v3 {
class HeaderMatcher;
}  // namespace config::route::v3
namespace type {
namespace matcher {
namespace v3 {
class StringMatcher;
}  // namespace v3
}  // namespace matcher
}  // namespace type
}  // namespace envoy

namespace xdsfed {
namespace resources {
namespace internal {

inline constexpr absl::string_view kRouterFilterType =
    "envoy.extensions.filters.http.router.v3.Router";
inline constexpr absl::string_view kHttpConnectionManagerType =
    "envoy.extensions.filters.network.http_connection_manager.v3."
    "HttpConnectionManager";

// Checks the proto's range (as gRPC's ParseDuration does); errors go under
// ".seconds" / ".nanos".
ProtoDuration ParseDuration(const google::protobuf::Duration& proto,
                            ValidationErrors* errors);

// The message type an extension's Any holds: the part of type_url after its
// last '/', looking through udpa.type.v1.TypedStruct and
// xds.type.v3.TypedStruct wrappers. Errors go under ".type_url" (or
// ".value[<wrapper>]..."); nullopt on error.
std::optional<std::string> ExtensionTypeName(const google::protobuf::Any& any,
                                             ValidationErrors* errors);

// The StringMatcher validator of route_config.cc (RE2 compiled, errors
// under ".safe_regex.regex"), shared with the RBAC validator.
StringMatch ParseStringMatcherProto(
    const envoy::type::matcher::v3::StringMatcher& proto,
    ValidationErrors* errors);

// The HeaderMatcher validator of route_config.cc (every specifier,
// string_match included; RE2 compiled), shared with the RBAC validator.
HeaderMatch ParseHeaderMatcherProto(
    const envoy::config::route::v3::HeaderMatcher& proto,
    ValidationErrors* errors);

// Validates a typed_per_filter_config map as gRPC does for the filters we
// support: the router accepts no override; an RBACPerRoute (A41) is
// validated (rbac.h) and, if `rbac` is not null, kept there by filter name;
// any other type must be marked optional or fails.
void ValidateTypedPerFilterConfig(
    const google::protobuf::Map<std::string, google::protobuf::Any>& map,
    ValidationErrors* errors, RbacOverrides* rbac = nullptr);

}  // namespace internal
}  // namespace resources
}  // namespace xdsfed

#endif  // XDSFED_LIB_RESOURCES_INTERNAL_ROUTE_CONFIG_UTIL_H_
