// How the XdsClient sees one xDS resource type: how to decode and validate
// the serialized resource a DiscoveryResponse carries, and how to compare and
// show the result. XdsResourceType<T> is the one implementation: it keeps a
// decoded T in a cache::ResourceData holder, so the cache and the client hold
// every type the same way and only XdsResourceType<T> reads a T back out
// (after checking the holder's type).
//
//   const auto& lds = resources::XdsResourceType<resources::Listener>::Get();
//   resources::DecodeResult r = lds.Decode(context, any.value());
//   if (r.value.ok()) {
//     std::shared_ptr<const resources::Listener> listener = lds.Cast(*r.value);
//   } else {
//     nack_errors.push_back(r.name + ": " + r.value.status().message());
//   }
//
// A concrete type (listener.h, route_config.h, cluster.h, endpoint.h) is its
// value struct (with operator== and ToJson()) plus a subclass of
// XdsResourceType<T> that names the type URL and decodes; registry.cc maps
// type URLs and CLI short names to them.
#ifndef XDSFED_LIB_RESOURCES_RESOURCE_TYPE_H_
#define XDSFED_LIB_RESOURCES_RESOURCE_TYPE_H_

#include <functional>
#include <memory>
#include <set>
#include <string>
#include <utility>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "json/json.h"
#include "lib/cache/resource_data.h"

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
  // The bootstrap's certificate_providers instance names: a
  // DownstreamTlsContext naming another instance is invalid (A29 as C-core
  // applies it: "unrecognized certificate provider instance name"), so it is
  // NACKed instead of failing later when a server builds its credentials.
  // Null: not checked (no bootstrap, e.g. `xdsfed validate`).
  const std::set<std::string, std::less<>>* certificate_provider_instances =
      nullptr;
};

// A decoded resource of any type, as the cache and the client hold it.
using ResourceData = cache::ResourceData;

struct DecodeResult {
  // The resource's own name, set whenever the bytes decoded far enough to
  // read it (so a NACK can name the resource and the cache can mark it
  // NACKed). Empty when the bytes did not decode at all.
  std::string name;
  // The validated, immutable value (held for this ResourceType's value type),
  // or every problem found, with field paths, in one kInvalidArgument.
  absl::StatusOr<std::shared_ptr<const ResourceData>> value;
};

// What a client holds for a resource name: the accepted value and the
// serialized bytes it was accepted from (bytes that decode to a value equal
// to it). Both null when it holds none.
struct PreviousResource {
  std::shared_ptr<const ResourceData> value;
  std::shared_ptr<const std::string> serialized;
};
// Called with the name a resource's bytes carry; may take the caller's lock.
using PreviousLookup = std::function<PreviousResource(absl::string_view name)>;

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
  // Decode for a client that holds earlier values: the result is Decode's,
  // except that a value equal to `previous(name).value` may be returned as
  // that same pointer. A type may use the previous bytes to skip decoding
  // what did not change (RouteConfiguration: the virtual hosts whose bytes
  // are the same); this default ignores them.
  virtual DecodeResult DecodeUpdate(const DecodeContext& context,
                                    absl::string_view serialized,
                                    const PreviousLookup& /*previous*/) const {
    return Decode(context, serialized);
  }

  // The validated value as JSON (what `xdsfed validate` and `xdsfed watch`
  // print under "resource"); null JSON for a value of another type.
  virtual Json::Value ToJson(const ResourceData* value) const = 0;
  // Value equality, so an update that changes nothing notifies no watcher;
  // false when either is not a value of this type.
  virtual bool Equal(const ResourceData* a, const ResourceData* b) const = 0;
};

// The events of a watch on resources of type T (the XdsClient's and the
// cluster driver's watcher alike): never called under the caller's locks;
// events of one watch arrive one at a time, in order.
template <typename T>
class ResourceWatcher {
 public:
  virtual ~ResourceWatcher() = default;
  // A new value; not called for an update equal to the last one.
  virtual void OnChanged(std::shared_ptr<const T> value) = 0;
  // A transient problem: invalid name, unknown authority, NACKed update,
  // unreachable server, stream failure. A value delivered before stays valid.
  virtual void OnError(absl::Status status) = 0;
  // The server says the resource does not exist (or did not send it within
  // the does-not-exist timeout).
  virtual void OnDoesNotExist() = 0;
};

// The ResourceType of values of type T: T must be copyable or movable, have
// operator== and `Json::Value ToJson() const`. A subclass names the type URL
// and decodes; this class holds the value, compares and prints it.
template <typename T>
class XdsResourceType : public ResourceType {
 public:
  using Value = T;

  // The client's type for T (declared next to T, defined in its .cc).
  static const XdsResourceType& Get();

  // The T inside `data`, or null if `data` is null or holds another type.
  static const T* Cast(const ResourceData* data) {
    const auto* holder = dynamic_cast<const Holder*>(data);
    return holder == nullptr ? nullptr : &holder->value;
  }
  // The same, sharing ownership with `data`.
  static std::shared_ptr<const T> Cast(
      std::shared_ptr<const ResourceData> data) {
    const T* value = Cast(data.get());
    if (value == nullptr) return nullptr;
    return std::shared_ptr<const T>(std::move(data), value);
  }
  // Holds `value` as the cache and the client do.
  static std::shared_ptr<const ResourceData> Wrap(T value) {
    return std::make_shared<const Holder>(std::move(value));
  }

  DecodeResult Decode(const DecodeContext& context,
                      absl::string_view serialized) const final {
    DecodeResult result;
    absl::StatusOr<T> value = DecodeValue(context, serialized, &result.name);
    if (value.ok()) {
      result.value = Wrap(*std::move(value));
    } else {
      result.value = value.status();
    }
    return result;
  }
  Json::Value ToJson(const ResourceData* value) const final {
    const T* v = Cast(value);
    return v == nullptr ? Json::Value() : v->ToJson();
  }
  bool Equal(const ResourceData* a, const ResourceData* b) const final {
    const T* va = Cast(a);
    const T* vb = Cast(b);
    // The same value (DecodeUpdate's unchanged result) needs no comparing.
    return va != nullptr && vb != nullptr && (va == vb || *va == *vb);
  }

 protected:
  // Decodes and validates; sets *name as soon as the bytes yield it (left
  // empty when they do not decode). Never crashes on any input.
  virtual absl::StatusOr<T> DecodeValue(const DecodeContext& context,
                                        absl::string_view serialized,
                                        std::string* name) const = 0;

 private:
  struct Holder final : ResourceData {
    explicit Holder(T v) : value(std::move(v)) {}
    const T value;
  };
};

// By full type URL, bare type name, short name ("Listener"), or CLI alias
// ("lds", "rds", "cds", "eds"); null if none matches. (registry.cc)
const ResourceType* FindResourceType(absl::string_view name);

}  // namespace resources
}  // namespace xdsfed

#endif  // XDSFED_LIB_RESOURCES_RESOURCE_TYPE_H_
