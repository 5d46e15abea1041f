// The pure half of receiving an ADS response: the DiscoveryResponse is
// parsed, and each of its resources unwrapped (envoy Resource wrapper),
// type-checked and decoded + validated, with no client state and no lock.
// What the resources mean for the client (cache, watchers, ACK / NACK) is
// XdsClient's apply step, under its lock. Private to lib/client.
//
//   google::protobuf::Arena arena;
//   DiscoveryResponse* response = ParseDiscoveryResponse(payload, &arena);
//   if (response == nullptr) return;  // C-core ignores it
//   ... find the ResourceType of response->type_url() ...
//   std::vector<DecodedResource> decoded =
//       DecodeResources(response, type, context, &arena);
//
// Errors are C-core 1.51's texts ("resource index 2: name: ..."), one per
// DecodedResource at most; the apply step may add one more after it (name
// and duplicate checks), so the NACK lists them in resource order.
#ifndef XDSFED_LIB_CLIENT_INTERNAL_ADS_RESPONSE_H_
#define XDSFED_LIB_CLIENT_INTERNAL_ADS_RESPONSE_H_

#include <memory>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "envoy/service/discovery/v3/discovery.pb.h"
#include "google/protobuf/arena.h"
#include "lib/resources/resource_type.h"

namespace xdsfed {
namespace client {

// One resource of a response, as far as it decoded.
struct DecodedResource {
  int index = 0;
  // The error this resource adds to the NACK, if any ("" if none).
  std::string error;
  // False: it did not get as far as a name (bad wrapper, wrong type, no
  // name): only `error` counts.
  bool named = false;
  // The wrapper's name, else the one the resource decoded with.
  std::string name;
  // The resource's bytes (into the response or its arena).
  absl::string_view serialized;
  // The string `serialized` views (an Any's value in the response or a
  // wrapper on the arena): the apply step moves it into the cache instead
  // of copying it (a 10,000-host RouteConfiguration is 0.6 MB: ~140 fresh
  // page faults before the ACK, bench/RESULTS.md). Then `serialized` views
  // the cache's bytes; nothing reads it after that.
  std::string* bytes = nullptr;
  // The validated value, or its errors (then `error` says so too).
  absl::StatusOr<std::shared_ptr<const resources::ResourceData>> value;
};

// "resource index i: name: " (no name: "resource index i: "): the start of
// each error of a response.
std::string ResourceErrorPrefix(int index, absl::string_view name);

// The response on `arena`, or null if payload is not a DiscoveryResponse.
envoy::service::discovery::v3::DiscoveryResponse* ParseDiscoveryResponse(
    absl::string_view payload, google::protobuf::Arena* arena);

// Every resource of `response` decoded as `type`, in order. Wrappers are
// parsed on `arena` (the views point into it). With `previous` (the values
// the client holds), through the type's DecodeUpdate: an unchanged value may
// come back as the held pointer. Mutable: each DecodedResource::bytes points
// into it.
std::vector<DecodedResource> DecodeResources(
    envoy::service::discovery::v3::DiscoveryResponse* response,
    const resources::ResourceType& type,
    const resources::DecodeContext& context, google::protobuf::Arena* arena,
    const resources::PreviousLookup* previous = nullptr);

}  // namespace client
}  // namespace xdsfed

#endif  // XDSFED_LIB_CLIENT_INTERNAL_ADS_RESPONSE_H_
