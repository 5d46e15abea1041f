// The XdsClient's view of one xDS resource type: how to decode and validate
// the serialized resource a DiscoveryResponse carries, and how to show the
// result. The client holds decoded values type-erased (shared_ptr<const void>
// in the cache), so everything type-specific goes through this interface.
//
//   const resources::ResourceType& lds = resources::ListenerResourceType();
//   resources::DecodeResult r = lds.Decode(context, any.value());
//   if (r.value.ok()) cache.SetAcked(entry, *r.value, ...);
//   else nack_errors.push_back(r.name + ": " + r.value.status().message());
//
// Each concrete type lives in its own file (listener.h, route_config.h,
// cluster.h, endpoint.h) with its immutable value struct; registry.cc maps
// type URLs and CLI short names to them.
#ifndef XDSFED_LIB_RESOURCES_RESOURCE_TYPE_H_
#define XDSFED_LIB_RESOURCES_RESOURCE_TYPE_H_

#include <memory>
#include <string>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "json/json.h"

namespace xdsfed {
namespace resources {

inline constexpr absl::string_view kTypeUrlPrefix = "type.googleapis.com/";

// The type URLs of the four types, for code that builds or matches
// DiscoveryRequests and responses without a ResourceType at hand.
inline constexpr absl::string_view kListenerTypeUrl =
    "type.googleapis.com/envoy.config.listener.v3.Listener";
inline constexpr absl::string_view kRouteConfigTypeUrl =
    "type.googleapis.com/envoy.config.route.v3.RouteConfiguration";
inline constexpr absl::string_view kClusterTypeUrl =
    "type.googleapis.com/envoy.config.cluster.v3.Cluster";
inline constexpr absl::string_view kEndpointTypeUrl =
    "type.googleapis.com/envoy.config.endpoint.v3.ClusterLoadAssignment";

// What validation may depend on besides the bytes.
struct DecodeContext {
  // The A47 gate: with it on, names inside resources (RDS route config names,
  // EDS service names) may be xdstp:// and the xdstp-specific rules apply.
  bool federation = false;
};

struct DecodeResult {
  // The resource's own name, set whenever the bytes decoded far enough to
  // read it (so a NACK can name the resource and the cache can mark it
  // NACKed). Empty when the bytes did not decode at all.
  std::string name;
  // The validated, immutable value (the concrete type of this ResourceType),
  // or every problem found, with field paths, in one kInvalidArgument.
  absl::StatusOr<std::shared_ptr<const void>> value;
};

class ResourceType {
 public:
  virtual ~ResourceType() = default;

  // "type.googleapis.com/envoy.config.listener.v3.Listener".
  virtual absl::string_view type_url() const = 0;
  // The type URL without kTypeUrlPrefix: the xdstp:// type segment and the
  // cache's type name, e.g. "envoy.config.listener.v3.Listener".
  absl::string_view type_name() const {
    return type_url().substr(kTypeUrlPrefix.size());
  }
  // "Listener", "RouteConfiguration", "Cluster", "ClusterLoadAssignment".
  virtual absl::string_view short_name() const = 0;
  // True for LDS and CDS: in state of the world, a subscribed resource
  // missing from a response has been deleted.
  virtual bool all_resources_required_in_sotw() const = 0;

  // Decodes and validates one serialized resource (the Any's value bytes,
  // already unwrapped from any envoy.service.discovery.v3.Resource wrapper).
  // Never crashes on any input.
  virtual DecodeResult Decode(const DecodeContext& context,
                              absl::string_view serialized) const = 0;

  // The validated value as JSON (what `xdsfed validate` and `xdsfed watch`
  // print under "resource"). `value` must come from this type's Decode.
  virtual Json::Value ToJson(const void* value) const = 0;
  // Value equality, so an update that changes nothing notifies no watcher.
  virtual bool Equal(const void* a, const void* b) const = 0;
};

// The four types the client knows (each defined next to its value struct).
const ResourceType& ListenerResourceType();
const ResourceType& RouteConfigResourceType();
const ResourceType& ClusterResourceType();
const ResourceType& EndpointResourceType();

// By full type URL, bare type name, short name ("Listener"), or CLI alias
// ("lds", "rds", "cds", "eds"); null if none matches. (registry.cc)
const ResourceType* FindResourceType(absl::string_view name);

}  // namespace resources
}  // namespace xdsfed

#endif  // XDSFED_LIB_RESOURCES_RESOURCE_TYPE_H_
