// The Node the client sends on its xDS streams (the ADS stream's first
// request, LRS's first request with one more client feature, and CSDS's
// ClientConfig), as gRPC C-core 1.51 fills it (xds_api.cc PopulateNode).
//
//   envoy::config::core::v3::Node node =
//       client::BuildNode(*bootstrap, "xdsfed", "0.1");
#ifndef XDSFED_LIB_CLIENT_NODE_H_
#define XDSFED_LIB_CLIENT_NODE_H_

#include "absl/strings/string_view.h"
#include "envoy/config/core/v3/base.pb.h"
#include "lib/bootstrap/bootstrap.h"

namespace xdsfed {
namespace client {

// The bootstrap node (id, cluster, locality, metadata) plus user agent and
// the client features "envoy.lb.does_not_support_overprovisioning" and
// "xds.config.resource-in-sotw".
envoy::config::core::v3::Node BuildNode(const Bootstrap& bootstrap,
                                        absl::string_view user_agent_name,
                                        absl::string_view user_agent_version);

}  // namespace client
}  // namespace xdsfed

#endif  // XDSFED_LIB_CLIENT_NODE_H_
