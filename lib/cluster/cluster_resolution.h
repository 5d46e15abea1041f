// The A37 cluster driver for one root cluster: what gRPC's cds and
// xds_cluster_resolver_experimental policies do between them, without the
// load balancing. It keeps the CDS watches the tree needs (ResolveClusterTree
// after every event, watches for unreachable clusters cancelled), runs one
// discovery mechanism per leaf (an EDS watch, or DNS for LOGICAL_DNS), and
// reports either TRANSIENT_FAILURE or the mechanisms with their endpoints.
//
//   auto resolution = ClusterResolution::Start(
//       source, "A", {.bootstrap = bootstrap},
//       [](const ClusterResolution::Update& update) {
//         if (!update.status.ok()) { /* TRANSIENT_FAILURE */ return; }
//         for (const auto& m : update.mechanisms) { /* m.endpoints */ }
//       });
//   ...
//   resolution->Stop();  // no callback runs after this returns
//
// Rules (A37 §CDS LB Policy Support, §Discovery Mechanisms):
// - depth over 16 or a does-not-exist CDS watcher: TRANSIENT_FAILURE naming
//   the limit / the missing cluster; the last config is dropped.
// - a transient CDS error: TRANSIENT_FAILURE only while no config has been
//   reported; after that the last config stays.
// - an update is reported once every mechanism has reported; a mechanism
//   that fails before its first result, and an EDS does-not-exist, count as
//   one priority with no endpoints (`endpoints` == nullptr).
#ifndef XDSFED_LIB_CLUSTER_CLUSTER_RESOLUTION_H_
#define XDSFED_LIB_CLUSTER_CLUSTER_RESOLUTION_H_

#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/container/flat_hash_set.h"
#include "absl/status/status.h"
#include "lib/base/stoppable_serializer.h"
#include "lib/bootstrap/bootstrap.h"
#include "lib/cluster/cluster_data_source.h"
#include "lib/cluster/cluster_tree.h"
#include "lib/cluster/dns_resolver.h"
#include "lib/cluster/lb_config.h"
#include "lib/resources/endpoint.h"

namespace xdsfed {
namespace cluster {

class ClusterResolution
    : public std::enable_shared_from_this<ClusterResolution> {
 public:
  struct Options {
    // Resolves LOGICAL_DNS clusters; SystemDnsResolver() when null.
    std::shared_ptr<DnsResolver> dns_resolver;
    // Expands `lrs_server: self` to the server each cluster came from
    // (A47 §LRS Server Representation); without it no LRS server is set.
    std::shared_ptr<const Bootstrap> bootstrap;
    // Runs the retry after a failed DNS resolution (backoff below); null:
    // a failed name is resolved again only on RequestReresolution().
    std::shared_ptr<RetryTimer> retry_timer;
    DnsBackoffOptions dns_backoff;
    uint64_t dns_jitter_seed = 0;
  };

  struct Update {
    // Not OK: the channel is in TRANSIENT_FAILURE with this status.
    absl::Status status;
    // Status OK only, in priority order. `endpoints` == nullptr: the
    // mechanism failed before its first result, or the EDS resource does
    // not exist — one priority with no endpoints (A37). LOGICAL_DNS results
    // come as EndpointsFromDnsAddresses() makes them.
    std::vector<ResolvedMechanism> mechanisms;
    // Per mechanism, its last error (kept for display), or OK.
    std::vector<absl::Status> mechanism_errors;
    // Every cluster of the tree (the CDS watches kept), root first, and
    // the resource of each (null while pending or if it does not exist).
    std::vector<std::string> clusters;
    std::vector<std::shared_ptr<const resources::ClusterResource>>
        cluster_resources;
  };
  using Callback = std::function<void(const Update& update)>;

  // `callback` runs one update at a time on whichever thread delivered the
  // event (a source callback or a DNS thread), never under this object's
  // lock.
  static std::shared_ptr<ClusterResolution> Start(
      std::shared_ptr<ClusterDataSource> source, std::string root,
      Options options, Callback callback);

  ~ClusterResolution();
  ClusterResolution(const ClusterResolution&) = delete;
  ClusterResolution& operator=(const ClusterResolution&) = delete;

  // Resolves every LOGICAL_DNS mechanism again (the priority policy asks
  // for this when a DNS child's connections fail; A37 §Priority Policy
  // Reresolution Handling keeps EDS children from asking). A mechanism with
  // a query in flight keeps it; one waiting for its retry timer after a
  // failure waits for it (as gRPC's resolver: the backoff sets the earliest
  // next query).
  void RequestReresolution();
  // The same for the mechanism of one cluster of the tree (the priority
  // child that asked): ignored for an EDS cluster, whose priority children
  // have ignore_reresolution_requests set (A37), and for unknown names.
  void RequestReresolution(std::string cluster);

  // Cancels every watch. No callback starts after it returns, and a
  // callback running on another thread has finished. May be called from
  // inside the callback.
  void Stop();

  // Public for make_shared; use Start().
  struct PrivateTag {};
  ClusterResolution(PrivateTag, std::shared_ptr<ClusterDataSource> source,
                    std::string root, Options options, Callback callback);

 private:
  // Watchers that post their events to Post (resources::PostingWatcher).
  std::shared_ptr<resources::ResourceWatcher<resources::ClusterResource>>
  NewCdsWatcher(std::string name, uint64_t token);
  std::shared_ptr<resources::ResourceWatcher<resources::EndpointResource>>
  NewEdsWatcher(uint64_t token);

  struct ClusterState {
    uint64_t token = 0;  // matches events to this watch
    ClusterDataSource::WatchHandle handle = 0;
    ClusterLookupResult::State state = ClusterLookupResult::State::kPending;
    std::shared_ptr<const resources::ClusterResource> value;
  };
  struct MechanismState {
    ResolvedMechanism current;
    absl::Status last_error;
    uint64_t token = 0;  // matches the EDS watch's / DNS queries' events
    ClusterDataSource::WatchHandle eds_handle = 0;
    bool reported = false;
    // LOGICAL_DNS: the query in flight, the retry timer after a failure.
    DnsResolver::Handle dns_query = 0;
    RetryTimer::Handle dns_retry = 0;
    std::optional<DnsBackoff> dns_backoff;
  };

  // Runs `fn` in order with every other event, if not stopped.
  void Post(std::function<void()> fn);

  // All below run inside serializer_ only (CancelAll: its on_stop).
  void CancelAll();
  void OnClusterChanged(const std::string& name, uint64_t token,
                        std::shared_ptr<const resources::ClusterResource> v);
  void OnClusterError(const std::string& name, uint64_t token,
                      absl::Status status);
  void OnClusterDoesNotExist(const std::string& name, uint64_t token);
  void OnEndpointsChanged(uint64_t token,
                          std::shared_ptr<const resources::EndpointResource> v);
  void OnEndpointsError(uint64_t token, absl::Status status);
  void OnEndpointsDoesNotExist(uint64_t token);
  void OnDnsResult(uint64_t token,
                   absl::StatusOr<std::vector<std::string>> addresses);
  void OnDnsRetryTimer(uint64_t token);
  void ReresolveDns(MechanismState* state);
  void Recompute();
  void SetMechanisms(const std::vector<DiscoveryMechanism>& mechanisms);
  void StartMechanism(MechanismState* state);
  void StopMechanism(MechanismState* state);
  void StartDns(MechanismState* state);
  MechanismState* FindMechanism(uint64_t token);
  void MarkReported(MechanismState* state);
  void MaybeReportConfig();
  void ReportError(absl::Status status);
  std::vector<std::shared_ptr<const resources::ClusterResource>> TreeResources()
      const;
  void Report(Update update);
  std::optional<XdsServerConfig> LrsServerFor(
      const DiscoveryMechanism& mechanism) const;

  const std::shared_ptr<ClusterDataSource> source_;
  const std::string root_;
  const Options options_;
  const Callback callback_;

  StoppableSerializer serializer_{[this] { CancelAll(); }};
  // Serializer state.
  uint64_t next_token_ = 1;
  absl::flat_hash_map<std::string, ClusterState> clusters_;
  std::vector<std::string> tree_clusters_;
  // When the last tree was kPending: its pending clusters. A pending leaf
  // arriving while others are still pending cannot change the result, so
  // no walk is needed (a 10,000-wide aggregate is then linear, not
  // quadratic).
  bool tree_pending_ = false;
  absl::flat_hash_set<std::string> pending_clusters_;
  std::vector<std::unique_ptr<MechanismState>> mechanisms_;
  absl::flat_hash_map<uint64_t, MechanismState*> by_token_;
  size_t unreported_ = 0;         // mechanisms_ that have not reported yet
  bool has_mechanisms_ = false;   // the tree resolved (kOk) last time
  bool dirty_ = false;            // mechanisms changed since the last report
  bool reported_config_ = false;  // a config went out since the last error
  std::string last_error_reported_;
};

}  // namespace cluster
}  // namespace xdsfed

#endif  // XDSFED_LIB_CLUSTER_CLUSTER_RESOLUTION_H_
