// The pure core of the A37 cluster tree: from a root CDS cluster, follow
// aggregate clusters recursively to the ordered list of discovery mechanisms
// (one per EDS or LOGICAL_DNS leaf). No XdsClient, no locks, no I/O: the
// caller says what it knows about each cluster through a lookup, and the
// result says what to do next (wait, fail, or configure), plus which
// clusters must stay watched. The driver that owns the CDS watches (later in
// issue 5) calls this after every watcher notification.
//
//   absl::flat_hash_map<std::string, resources::ClusterResource> received;
//   auto lookup = [&](absl::string_view name) {
//     auto it = received.find(name);
//     if (it == received.end()) return ClusterLookupResult::Pending();
//     return ClusterLookupResult::Received(it->second);
//   };
//   ClusterTreeResult tree = ResolveClusterTree("A", lookup);
//   // A37 §CDS LB Policy Support example: A -> [B, C], C -> [D, E]
//   // tree.state == kOk, tree.mechanisms: EDS B, EDS D, LOGICAL_DNS E
//   // tree.clusters (keep these watched): A, B, C, D, E
#ifndef XDSFED_LIB_CLUSTER_CLUSTER_TREE_H_
#define XDSFED_LIB_CLUSTER_CLUSTER_TREE_H_

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "absl/functional/function_ref.h"
#include "absl/status/status.h"
#include "absl/strings/string_view.h"
#include "lib/resources/cluster.h"

namespace xdsfed {
namespace cluster {

// A37 §CDS LB Policy Support: "The tree of aggregate clusters has a depth
// limit of 16". As in C-core 1.51 cds.cc (kMaxAggregateClusterRecursionDepth)
// the root has depth 0 and reaching any cluster at depth 16 is an error, so a
// path from the root may hold at most 16 clusters (15 aggregate hops).
inline constexpr int kMaxAggregateClusterDepth = 16;

// What the caller knows about one cluster.
struct ClusterLookupResult {
  enum class State {
    kPending,       // watched, nothing received yet
    kDoesNotExist,  // the watcher reported does-not-exist
    kReceived,      // a validated Cluster is at hand
  };
  State state = State::kPending;
  // kReceived only; must stay valid for the ResolveClusterTree call.
  const resources::ClusterResource* resource = nullptr;

  static ClusterLookupResult Pending() { return {State::kPending, nullptr}; }
  static ClusterLookupResult DoesNotExist() {
    return {State::kDoesNotExist, nullptr};
  }
  static ClusterLookupResult Received(
      const resources::ClusterResource& resource) {
    return {State::kReceived, &resource};
  }
};

// Called once per distinct cluster reached, with the root first.
using ClusterLookup =
    absl::FunctionRef<ClusterLookupResult(absl::string_view cluster_name)>;

// One leaf cluster of the tree: an entry of the
// xds_cluster_resolver_experimental config's discovery_mechanisms (A37
// §xds_cluster_resolver_experimental LB Policy). The fields are copied from
// the leaf's own Cluster, LRS included (as C-core 1.51 does).
struct DiscoveryMechanism {
  enum class Type { kEds, kLogicalDns };

  std::string cluster;
  Type type = Type::kEds;
  std::string eds_service_name;  // kEds; empty = use the cluster name
  std::string dns_hostname;      // kLogicalDns: "host:port"
  uint32_t max_concurrent_requests = 1024;
  bool lrs_load_reporting_server_is_self = false;
  // The leaf Cluster's UpstreamTlsContext (A29): its endpoints are reached
  // over TLS with these settings; none: plaintext. (Each leaf's own, as
  // grpc-go and grpc-java do; C-core 1.51 applied the root cluster's.)
  std::optional<resources::UpstreamTlsContext> upstream_tls;

  // The EDS resource to watch (kEds).
  const std::string& EdsResourceName() const {
    return eds_service_name.empty() ? cluster : eds_service_name;
  }
  bool operator==(const DiscoveryMechanism& other) const;
  bool operator!=(const DiscoveryMechanism& other) const {
    return !(*this == other);
  }
  // "EDS B", "EDS B eds_service_name=svc", "LOGICAL_DNS E dns_hostname=h:443";
  // then " max_concurrent_requests=N" when not 1024, " lrs=self" when set
  // and " tls=<root instance>" with TLS.
  std::string ToString() const;
};

struct ClusterTreeResult {
  enum class State {
    // Some reachable cluster has not been received yet: keep waiting (do not
    // touch the child policy).
    kPending,
    // TRANSIENT_FAILURE (A37): the graph is deeper than
    // kMaxAggregateClusterDepth, a reachable cluster does not exist, or the
    // graph has no leaf cluster. `error` says which.
    kError,
    // `mechanisms` is the complete, non-empty list.
    kOk,
  };
  State state = State::kPending;

  // kError only. Errors found by the traversal (depth, does-not-exist) win
  // over pending clusters; the first one in depth-first order is reported:
  //   kFailedPrecondition "aggregate cluster graph exceeds max depth of 16"
  //   kUnavailable        "CDS resource \"D\" does not exist"
  //   kFailedPrecondition "aggregate cluster graph for \"A\" has no leaf
  //                        clusters"  (only loops of aggregates)
  absl::Status error;

  // kOk only: the leaves in depth-first order, each cluster once, at its
  // earliest position (A37).
  std::vector<DiscoveryMechanism> mechanisms;

  // Every state: each cluster reached (root first, depth-first first-visit
  // order, each once). These are the CDS watches to keep; any other watch
  // can be cancelled. Children of an aggregate at the depth limit are not
  // reached.
  std::vector<std::string> clusters;
  // The clusters of `clusters` whose lookup said kPending.
  std::vector<std::string> pending_clusters;

  bool ok() const { return state == State::kOk; }
};

// Walks the graph depth-first from `root`, calling `lookup` once for each
// distinct cluster reached. A cluster already reached (on the current path
// or on an earlier branch) is skipped, so loops terminate and each cluster
// is expanded once: work is linear in clusters plus aggregate edges, even on
// diamond-shaped graphs.
ClusterTreeResult ResolveClusterTree(absl::string_view root,
                                     ClusterLookup lookup);

}  // namespace cluster
}  // namespace xdsfed

#endif  // XDSFED_LIB_CLUSTER_CLUSTER_TREE_H_
