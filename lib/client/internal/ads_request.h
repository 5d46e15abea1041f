// Builds the DiscoveryRequest messages of the ADS stream (state of the
// world), as gRPC C-core 1.51 fills them (xds_api.cc CreateAdsRequest,
// PopulateNode): the node only on a stream's first request, version_info and
// response_nonce only when non-empty, error_detail INVALID_ARGUMENT on a NACK.
//
// Private to lib/client (the node comes from lib/client/node.h).
//
//   envoy::config::core::v3::Node node = BuildNode(*bootstrap, "xdsfed", "1");
//   std::string bytes = BuildAdsRequest(
//       "type.googleapis.com/envoy.config.listener.v3.Listener", "v1", "n1",
//       names, absl::OkStatus(), first ? &node : nullptr);
#ifndef XDSFED_LIB_CLIENT_INTERNAL_ADS_REQUEST_H_
#define XDSFED_LIB_CLIENT_INTERNAL_ADS_REQUEST_H_

#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/string_view.h"
#include "envoy/config/core/v3/base.pb.h"

namespace xdsfed {
namespace client {

// Serialized DiscoveryRequest. error: non-OK makes it a NACK carrying
// error.message(). node: set on the first request of a stream only.
std::string BuildAdsRequest(
    absl::string_view type_url, absl::string_view version,
    absl::string_view nonce,
    const std::vector<absl::string_view>& resource_names,
    const absl::Status& error, const envoy::config::core::v3::Node* node);

}  // namespace client
}  // namespace xdsfed

#endif  // XDSFED_LIB_CLIENT_INTERNAL_ADS_REQUEST_H_
