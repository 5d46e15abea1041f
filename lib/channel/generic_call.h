// A unary RPC of any method through an XdsChannel with serialized bytes
// (grpc::GenericStub, cached per endpoint), reporting where the pick went:
// what `xdsfed call` prints per RPC.
//
// clang-format off
//   GenericCallResult r = GenericUnary(*ch, "/grpc.health.v1.Health/Check",
//                                      "", absl::Now() + absl::Seconds(1));
//   // r.status, r.endpoint, r.cluster, r.header("x-backend-id")
// clang-format on
#ifndef XDSFED_LIB_CHANNEL_GENERIC_CALL_H_
#define XDSFED_LIB_CHANNEL_GENERIC_CALL_H_

#include <map>
#include <optional>
#include <string>

#include "absl/strings/string_view.h"
#include "absl/time/time.h"
#include "absl/types/span.h"
#include "grpcpp/grpcpp.h"
#include "lib/channel/xds_channel.h"

namespace xdsfed {
namespace channel {

struct GenericCallResult {
  grpc::Status status;
  bool picked = false;       // false: the pick failed (status is the pick's)
  std::string cluster;       // the route's cluster
  std::string leaf_cluster;  // the A37 leaf the endpoint came from
  size_t priority = 0;
  resources::EndpointResource::Locality locality;
  std::string endpoint;  // "ip:port"
  std::string response;  // serialized response message
  std::multimap<std::string, std::string> initial_metadata;  // server's

  // The first value of a server initial-metadata header.
  std::optional<std::string> header(absl::string_view name) const;
};

GenericCallResult GenericUnary(XdsChannel& channel, absl::string_view method,
                               const std::string& request, absl::Time deadline,
                               absl::Span<const MetadataEntry> metadata = {});

}  // namespace channel
}  // namespace xdsfed

#endif  // XDSFED_LIB_CHANNEL_GENERIC_CALL_H_
