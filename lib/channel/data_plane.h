// The load-balancing tree of one XdsChannel, acting on XdsConfig snapshots
// (lib/xds_config) as gRPC's xDS policies do, minus the service-config
// plumbing: per routed cluster one priority_experimental policy over the
// A37 priority children (lib/cluster's PriorityConfigBuilder names them),
// each child an xds_cluster_impl (drops, circuit breaker, load recording)
// over weighted_target localities of round_robin endpoints, or pick_first
// for LOGICAL_DNS.
//
// clang-format off
//   GrpcEndpointFactory::Options endpoint_options;
//   endpoint_options.authority = "svc.example.com";
//   DataPlane::Options options;
//   options.endpoints = std::make_shared<GrpcEndpointFactory>(endpoint_options);
//   std::shared_ptr<DataPlane> dp = DataPlane::Create(std::move(options));
//   dp->Update(snapshot);  // an XdsConfig from XdsDependencyManager
//   PickResult r = dp->Pick({"/helloworld.Greeter/SayHello", {}},
//                           absl::Now() + absl::Seconds(1));
//   if (r.status.ok()) {
//     grpc::ClientContext ctx;
//     helloworld::HelloReply reply;
//     grpc::Status s = Greeter::NewStub(r.endpoint->channel())
//                          ->SayHello(&ctx, request, &reply);
//     r.tracker.Finish(s.ok());
//   }
// clang-format on
//
// Priority (C-core 1.51 priority.cc): children are created only when the
// choice reaches them; a new child has `failover_timeout` (10 s) to become
// READY before the next priority is tried; TRANSIENT_FAILURE moves on at
// once; a READY / IDLE higher priority is chosen again at once and the
// lower ones are deactivated, kept `retention` (15 min) so a quick failback
// does not reconnect from scratch. A child that was READY and goes
// CONNECTING gets a new failover timer.
//
// Picks never take the update lock: each state change publishes an
// immutable picker; a pick reads it, and on the success path allocates
// nothing. A pick whose priority is still connecting waits (Pick) for the
// next picker, up to its deadline.
#ifndef XDSFED_LIB_CHANNEL_DATA_PLANE_H_
#define XDSFED_LIB_CHANNEL_DATA_PLANE_H_

#include <atomic>
#include <condition_variable>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "absl/base/thread_annotations.h"
#include "absl/container/flat_hash_map.h"
#include "absl/status/status.h"
#include "absl/strings/string_view.h"
#include "absl/time/time.h"
#include "absl/types/span.h"
#include "lib/base/mutex.h"
#include "lib/channel/call_tracker.h"
#include "lib/channel/endpoint.h"
#include "lib/client/timer.h"
#include "lib/lrs/call_counter.h"
#include "lib/lrs/lrs_client.h"
#include "lib/xds_config/xds_config.h"

namespace xdsfed {

namespace routing {
class RouteTable;
}  // namespace routing

namespace channel {

// One request header (lower-case name) an RPC carries, for header matchers.
using MetadataEntry = std::pair<absl::string_view, absl::string_view>;

struct PickArgs {
  absl::string_view path;  // "/package.Service/Method"
  absl::Span<const MetadataEntry> metadata;
};

struct PickResult {
  // OK: `endpoint` is set. UNAVAILABLE with the reason (no route, cluster
  // error, all priorities failing, circuit breaker, drop category), or
  // DEADLINE_EXCEEDED when a pick waited until its deadline, saying for
  // what: "deadline exceeded while waiting for the xDS configuration: no
  // Listener \"x\" yet from xDS server 127.0.0.1:5000", or "... while
  // waiting for cluster c: priority 0 (...) is CONNECTING".
  absl::Status status;
  std::shared_ptr<Endpoint> endpoint;
  CallTracker tracker;
  // Where the pick went; valid while `picker` is held (this result).
  absl::string_view cluster;  // the route's cluster
  // The A37 leaf (EDS / LOGICAL_DNS cluster) the endpoint came from: the
  // route's cluster itself unless that is an aggregate.
  absl::string_view leaf_cluster;
  size_t priority = 0;  // index in the route cluster's priority list
  const resources::EndpointResource::Locality* locality = nullptr;
  std::shared_ptr<const void> picker;
  // gRFC A31: the matched route's max_stream_duration (its
  // grpc_timeout_header_max first), else the HttpConnectionManager's
  // common_http_protocol_options.max_stream_duration. The call's deadline
  // is capped at the call's start plus this (unary.h CapDeadline).
  // InfiniteDuration: no cap (absent, or 0 as A31 reads it).
  absl::Duration max_stream_duration = absl::InfiniteDuration();
};

class DataPlane : public std::enable_shared_from_this<DataPlane> {
 public:
  struct Options {
    std::shared_ptr<EndpointFactory> endpoints;
    std::shared_ptr<client::Timers> timers;  // null: client::DefaultTimers()
    // Null: no load reporting.
    std::shared_ptr<lrs::LrsClient> lrs;
    // Null: lrs::CallCounterRegistry::Global().
    lrs::CallCounterRegistry* call_counters = nullptr;
    // Endpoint state changes are applied on the timer thread, many at once,
    // instead of on the notifying thread one by one: each application is
    // O(endpoints), so 100,000 endpoints connecting one by one would be
    // quadratic. Off: applied at once (unit tests drive changes one by one).
    // Either way a change is applied at once while a pick waits for a
    // connecting priority: the first READY endpoint releases it without the
    // timer thread's hop (0.05-0.8 ms measured); once no pick waits, the
    // changes that follow are batched again.
    bool batch_endpoint_changes = false;
    absl::Duration failover_timeout = absl::Seconds(10);
    absl::Duration retention = absl::Minutes(15);
    // A LOGICAL_DNS child's connections failed: re-resolve `leaf` in the
    // tree of `root` (XdsDependencyManager::RequestReresolution). Called
    // with no lock held.
    std::function<void(const std::string& root, const std::string& leaf)>
        request_reresolution;
    // What a pick waits for while no configuration has been published,
    // for the DEADLINE_EXCEEDED of a pick that waited for it until its
    // deadline (XdsChannel: which resource has not arrived, from which
    // server). Called with no lock held; null: "the xDS configuration".
    std::function<std::string()> describe_missing_config;
  };

  static std::shared_ptr<DataPlane> Create(Options options);
  ~DataPlane();
  DataPlane(const DataPlane&) = delete;
  DataPlane& operator=(const DataPlane&) = delete;

  // A new snapshot (clusters whose ClusterConfig pointer is unchanged keep
  // their state untouched).
  void Update(std::shared_ptr<const xds_config::XdsConfig> config);

  // One attempt: a result, or `*queued` = true when the pick must wait
  // (no config yet, or the chosen priority is connecting).
  //
  // Re-queue (C-core's client channel queues a pick whose subchannel is no
  // longer connected): the chosen endpoint is asked for its state right
  // before the result is made (Endpoint::Recheck); if it is no longer
  // READY, nothing is counted for it (circuit breaker, load report), the
  // change is applied at once (a new picker without it) and the pick is
  // made again. No call has been started at that point, so nothing is ever
  // re-sent. A failure after the call started is the call's.
  PickResult TryPick(const PickArgs& args, bool* queued);
  // Waits while queued, until `deadline`.
  PickResult Pick(const PickArgs& args, absl::Time deadline);
  // Completes `done` once the pick is no longer queued (maybe inline), or
  // with DEADLINE_EXCEEDED at `deadline`. The args are copied.
  void PickAsync(const PickArgs& args, absl::Time deadline,
                 std::function<void(PickResult)> done);

  // Releases every endpoint, cancels timers, fails waiting picks. Idempotent.
  void Shutdown();

  // For tests and the CLI: per cluster, the priority chosen (-1: none) and
  // each existing child's state, e.g.
  // {"c": "current=1 {cluster=c, child_number=0}:TRANSIENT_FAILURE ..."}.
  std::map<std::string, std::string> DebugState() const;
  // Endpoints held now (children kept for retention included).
  size_t endpoint_count() const;

  struct PrivateTag {};
  DataPlane(PrivateTag, Options options);

 private:
  struct Child;
  struct ClusterLb;
  struct Picker;
  struct Waiter;

  enum class PickOutcome {
    kDone,
    kQueued,
    // The endpoint chosen was no longer READY (Recheck): pick again on a
    // picker that knows it.
    kStale,
  };
  // Re-publications one pick (or one publication's waiters) may cause
  // through stale endpoints before it waits for the next picker instead: a
  // pick goes to a new endpoint each time, but each re-publication is
  // O(endpoints), and a mass disconnect must not make picks quadratic.
  static constexpr int kMaxRepublish = 4;

  PickResult TryPickOnce(const PickArgs& args, PickOutcome* outcome) const;
  // The DEADLINE_EXCEEDED of a pick that waited until its deadline, saying
  // what it waited for (no configuration yet, and what is missing; or its
  // cluster's priority, connecting). No lock held.
  absl::Status WaitTimedOut(const PickArgs& args) const;
  // After a stale pick, under mu_: every endpoint of the current children
  // rechecked and a new picker at once (RepublishLocked), or the changes
  // applied on the timer thread once the bound is reached
  // (ScheduleApplyLocked).
  void RepublishLocked() ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  void ScheduleApplyLocked() ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  static Connectivity ComputeState(const Child& child);
  void UpdateClusterLocked(ClusterLb& lb,
                           std::shared_ptr<const xds_config::ClusterConfig> c)
      ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  void ChoosePriorityLocked(ClusterLb& lb) ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  Child* CreateChildLocked(ClusterLb& lb, size_t priority)
      ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  void SetChildEndpointsLocked(ClusterLb& lb, Child& child)
      ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  void OnChildStateLocked(ClusterLb& lb, Child& child, Connectivity state)
      ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  bool RefreshStatesLocked() ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  void SetCurrentPriorityLocked(ClusterLb& lb, size_t p, bool deactivate_lower)
      ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  void DeactivateLocked(ClusterLb& lb, Child& child)
      ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  void ReactivateLocked(Child& child) ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  // The endpoint for `address` secured by `tls` (null: plaintext): the
  // security settings are part of its identity, so a cluster whose TLS
  // differs never shares another's connection.
  std::shared_ptr<Endpoint> GetEndpointLocked(
      const std::string& address,
      const std::shared_ptr<const resources::UpstreamTlsContext>& tls)
      ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  void PublishLocked() ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  // Unlocks, then runs what the locked section queued (re-resolution
  // requests, async picks).
  void FinishUpdate() ABSL_UNLOCK_FUNCTION(mu_);
  void OnEndpointChange();
  void ApplyEndpointChanges();
  void OnFailoverTimer(const std::string& cluster, uint64_t token);
  void OnRetentionTimer(const std::string& cluster, uint64_t token);
  void OnWaiterDeadline(uint64_t id);

  const Options options_;
  lrs::CallCounterRegistry* const call_counters_;

  mutable Mutex mu_;
  mutable std::condition_variable_any picker_changed_;
  bool shutdown_ ABSL_GUARDED_BY(mu_) = false;
  std::shared_ptr<const xds_config::XdsConfig> config_ ABSL_GUARDED_BY(mu_);
  // The current virtual host's compiled routes, and what they came from.
  std::shared_ptr<const routing::RouteTable> routes_ ABSL_GUARDED_BY(mu_);
  std::shared_ptr<const routing::RouteTable> compiled_routes_
      ABSL_GUARDED_BY(mu_);
  std::shared_ptr<const resources::RouteConfig> routes_source_
      ABSL_GUARDED_BY(mu_);
  const resources::VirtualHost* routes_vhost_ ABSL_GUARDED_BY(mu_) = nullptr;
  std::map<std::string, std::unique_ptr<ClusterLb>> clusters_
      ABSL_GUARDED_BY(mu_);
  // By address, plus the UpstreamTlsContext's Key() for TLS endpoints.
  absl::flat_hash_map<std::string, std::weak_ptr<Endpoint>> endpoints_
      ABSL_GUARDED_BY(mu_);
  // Endpoints made under mu_, started by FinishUpdate once it is released.
  std::vector<std::shared_ptr<Endpoint>> to_start_ ABSL_GUARDED_BY(mu_);
  uint64_t next_token_ ABSL_GUARDED_BY(mu_) = 1;
  std::vector<std::pair<std::string, std::string>> reresolve_
      ABSL_GUARDED_BY(mu_);
  std::map<uint64_t, std::unique_ptr<Waiter>> waiters_ ABSL_GUARDED_BY(mu_);
  std::vector<std::pair<std::function<void(PickResult)>, PickResult>>
      ready_picks_ ABSL_GUARDED_BY(mu_);
  // Released by Shutdown (the last endpoint may be let go on the factory's
  // own thread, which must not destroy the factory).
  std::shared_ptr<EndpointFactory> factory_ ABSL_GUARDED_BY(mu_);
  uint64_t picker_version_ ABSL_GUARDED_BY(mu_) = 0;
  // PublishLocked's nesting through stale waiters (kMaxRepublish).
  int republish_depth_ ABSL_GUARDED_BY(mu_) = 0;
  // Picks waiting for a picker: Pick() callers in their wait, and waiters_
  // (mirrored here so OnEndpointChange reads it without mu_).
  std::atomic<int> waiting_picks_{0};
  std::atomic<size_t> async_waiting_{0};
  // A batch of endpoint changes is scheduled (batch_endpoint_changes).
  std::atomic<bool> changes_pending_{false};
  // Read by picks without mu_ (std::atomic_load / atomic_store).
  std::shared_ptr<const Picker> picker_;
};

}  // namespace channel
}  // namespace xdsfed

#endif  // XDSFED_LIB_CHANNEL_DATA_PLANE_H_
