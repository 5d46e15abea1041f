// The data-plane steps of `xdsfed demo`: real RPCs through an XdsChannel
// (lib/channel) to health backends the demo runs on loopback. Each step
// prints one JSON line ("step": "rpcs", "calls", "load_report",
// "failover", "failback", "rpc_loop") and returns an error when what it
// shows did not happen.
#ifndef XDSFED_TOOLS_XDSFED_DEMO_TRAFFIC_H_
#define XDSFED_TOOLS_XDSFED_DEMO_TRAFFIC_H_

#include <functional>
#include <string>

#include "absl/status/status.h"
#include "absl/time/time.h"
#include "lib/channel/xds_channel.h"
#include "lib/cluster/lb_config.h"
#include "tools/control_plane/control_plane.h"

namespace xdsfed::cli {

struct DemoTraffic {
  channel::XdsChannel* channel;
  // The aggregate's EDS mechanism (circuit breaker, LRS server) and the
  // control plane that is its LRS server (`self`).
  cluster::ResolvedMechanism eds;
  const control_plane::ControlPlane* lrs_server;
  // The x-backend-id of the LOGICAL_DNS fallback's backend.
  std::string fallback_backend;
  // Empty the EDS cluster's endpoints / put them back (a snapshot push).
  std::function<void()> empty_eds;
  std::function<void()> restore_eds;
};

// rpcs -> calls (circuit breaker) -> load_report -> failover -> failback ->
// rpc_loop; stops at the first step that fails.
absl::Status RunDemoTraffic(const DemoTraffic& demo);

}  // namespace xdsfed::cli

#endif  // XDSFED_TOOLS_XDSFED_DEMO_TRAFFIC_H_
