// Which route of a virtual host an RPC takes, and which cluster of that
// route. The seam to the shared routing engine (lib/routing, A28 rules):
// until it lands on main this is a minimal local matcher -- path prefix /
// exact (case_sensitive), header matchers without safe_regex, runtime
// fraction -- and a weighted_clusters pick.
#ifndef XDSFED_LIB_CHANNEL_ROUTE_SELECT_H_
#define XDSFED_LIB_CHANNEL_ROUTE_SELECT_H_

#include <cstdint>
#include <utility>

#include "absl/strings/string_view.h"
#include "absl/types/span.h"
#include "lib/resources/route_config.h"

namespace xdsfed {
namespace channel {

using MetadataEntry = std::pair<absl::string_view, absl::string_view>;

// The first route of `vhost` matching the RPC, or null. `random` is a
// uniform 64-bit value (runtime_fraction).
const resources::Route* SelectRoute(const resources::VirtualHost& vhost,
                                    absl::string_view path,
                                    absl::Span<const MetadataEntry> metadata,
                                    uint64_t random);

// The cluster of a route action: `cluster`, or one of weighted_clusters by
// weight (`random` uniform 64-bit).
absl::string_view SelectCluster(const resources::RouteAction& action,
                                uint64_t random);

}  // namespace channel
}  // namespace xdsfed

#endif  // XDSFED_LIB_CHANNEL_ROUTE_SELECT_H_
