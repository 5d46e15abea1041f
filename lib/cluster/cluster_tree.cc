#include "lib/cluster/cluster_tree.h"

#include <utility>
#include <variant>

#include "absl/container/flat_hash_set.h"
#include "absl/strings/str_cat.h"

namespace xdsfed {
namespace cluster {
namespace {

using resources::ClusterResource;

DiscoveryMechanism MakeMechanism(absl::string_view name,
                                 const ClusterResource& resource) {
  DiscoveryMechanism mechanism;
  mechanism.cluster = std::string(name);
  if (const auto* dns =
          std::get_if<ClusterResource::LogicalDns>(&resource.kind)) {
    mechanism.type = DiscoveryMechanism::Type::kLogicalDns;
    mechanism.dns_hostname = dns->HostPort();
  } else if (const auto* eds =
                 std::get_if<ClusterResource::Eds>(&resource.kind)) {
    mechanism.type = DiscoveryMechanism::Type::kEds;
    mechanism.eds_service_name = eds->eds_service_name;
  }
  mechanism.max_concurrent_requests = resource.max_concurrent_requests;
  mechanism.lrs_load_reporting_server_is_self =
      resource.lrs_load_reporting_server_is_self;
  mechanism.upstream_tls = resource.upstream_tls;
  return mechanism;
}

// One depth-first walk. Unlike C-core, which stops at the first error, the
// walk goes on after an error so that `clusters` names every cluster still
// reachable (the driver must keep watching them to see the graph heal); the
// first error in depth-first order is the one reported, which is the one
// C-core would report.
class Walker {
 public:
  Walker(ClusterLookup lookup, ClusterTreeResult* result)
      : lookup_(lookup), result_(result) {}

  // Recursion depth is bounded by kMaxAggregateClusterDepth + 1 frames:
  // children of a cluster at the limit are never expanded.
  void Visit(absl::string_view name, int depth) {
    // C-core checks the depth before the already-seen test, so an edge from
    // a cluster at depth 15 fails even when it points back into the graph.
    if (depth >= kMaxAggregateClusterDepth) {
      SetError(absl::FailedPreconditionError(
          absl::StrCat("aggregate cluster graph exceeds max depth of ",
                       kMaxAggregateClusterDepth)));
      return;
    }
    // Names borrow from the root argument and from the looked-up resources,
    // which the caller keeps alive for the whole call.
    if (!seen_.insert(name).second) return;
    result_->clusters.emplace_back(name);
    const ClusterLookupResult found = lookup_(name);
    if (found.state == ClusterLookupResult::State::kDoesNotExist) {
      SetError(absl::UnavailableError(
          absl::StrCat("CDS resource \"", name, "\" does not exist")));
      return;
    }
    if (found.state != ClusterLookupResult::State::kReceived ||
        found.resource == nullptr) {
      result_->pending_clusters.emplace_back(name);
      return;
    }
    const ClusterResource& resource = *found.resource;
    if (const auto* aggregate =
            std::get_if<ClusterResource::Aggregate>(&resource.kind)) {
      for (const std::string& child : aggregate->prioritized_cluster_names) {
        Visit(child, depth + 1);
      }
      return;
    }
    // After an error the mechanisms are dropped anyway.
    if (!has_error_)
      result_->mechanisms.push_back(MakeMechanism(name, resource));
  }

  bool has_error() const { return has_error_; }

 private:
  void SetError(absl::Status status) {
    if (has_error_) return;
    has_error_ = true;
    result_->error = std::move(status);
  }

  ClusterLookup lookup_;
  ClusterTreeResult* result_;
  absl::flat_hash_set<absl::string_view> seen_;
  bool has_error_ = false;
};

}  // namespace

bool DiscoveryMechanism::operator==(const DiscoveryMechanism& other) const {
  return cluster == other.cluster && type == other.type &&
         eds_service_name == other.eds_service_name &&
         dns_hostname == other.dns_hostname &&
         max_concurrent_requests == other.max_concurrent_requests &&
         lrs_load_reporting_server_is_self ==
             other.lrs_load_reporting_server_is_self &&
         upstream_tls == other.upstream_tls;
}

std::string DiscoveryMechanism::ToString() const {
  std::string out;
  if (type == Type::kEds) {
    absl::StrAppend(&out, "EDS ", cluster);
    if (!eds_service_name.empty()) {
      absl::StrAppend(&out, " eds_service_name=", eds_service_name);
    }
  } else {
    absl::StrAppend(&out, "LOGICAL_DNS ", cluster,
                    " dns_hostname=", dns_hostname);
  }
  if (max_concurrent_requests != 1024) {
    absl::StrAppend(&out, " max_concurrent_requests=", max_concurrent_requests);
  }
  if (lrs_load_reporting_server_is_self) absl::StrAppend(&out, " lrs=self");
  if (upstream_tls.has_value()) {
    absl::StrAppend(&out, " tls=", upstream_tls->root.instance_name);
  }
  return out;
}

ClusterTreeResult ResolveClusterTree(absl::string_view root,
                                     ClusterLookup lookup) {
  ClusterTreeResult result;
  Walker walker(lookup, &result);
  walker.Visit(root, /*depth=*/0);
  if (walker.has_error()) {
    result.state = ClusterTreeResult::State::kError;
    result.mechanisms.clear();
  } else if (!result.pending_clusters.empty()) {
    result.state = ClusterTreeResult::State::kPending;
    result.mechanisms.clear();
  } else if (result.mechanisms.empty()) {
    // Only possible when every path ends in a loop of aggregates, e.g.
    // A -> [B], B -> [A] (aggregate lists are never empty after validation).
    // C-core 1.51: "aggregate cluster graph has no leaf clusters".
    result.state = ClusterTreeResult::State::kError;
    result.error = absl::FailedPreconditionError(absl::StrCat(
        "aggregate cluster graph for \"", root, "\" has no leaf clusters"));
  } else {
    result.state = ClusterTreeResult::State::kOk;
  }
  return result;
}

}  // namespace cluster
}  // namespace xdsfed
