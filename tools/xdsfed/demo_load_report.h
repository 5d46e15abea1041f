// The load-reporting step of `xdsfed demo`: what an xds_cluster_impl picker
// does for one resolved EDS mechanism, with simulated calls instead of RPCs.
// Calls are admitted through the process-global circuit-breaker counter of
// {cluster, EDS service name} at the cluster's max_concurrent_requests, the
// ones over the limit recorded as drops; the counts go to the mechanism's
// LRS server (`self`: the server the Cluster came from, A47) over the
// XdsClient's channel, and the step waits until that control plane has
// logged a report carrying them.
#ifndef XDSFED_TOOLS_XDSFED_DEMO_LOAD_REPORT_H_
#define XDSFED_TOOLS_XDSFED_DEMO_LOAD_REPORT_H_

#include <memory>

#include "absl/status/status.h"
#include "absl/time/time.h"
#include "lib/client/xds_client.h"
#include "lib/cluster/lb_config.h"
#include "tools/control_plane/control_plane.h"

namespace xdsfed::cli {

// Prints a "calls" line, then a "load_report" line with the cluster_stats
// the control plane received. Error if the mechanism has no LRS server or
// endpoints, the LRS server is refused, or no report arrives in `timeout`.
absl::Status RunDemoLoadReport(std::shared_ptr<client::XdsClient> client,
                               const cluster::ResolvedMechanism& mechanism,
                               const control_plane::ControlPlane& lrs_server,
                               absl::Duration timeout);

}  // namespace xdsfed::cli

#endif  // XDSFED_TOOLS_XDSFED_DEMO_LOAD_REPORT_H_
