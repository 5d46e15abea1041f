// Fuzzes lib/cluster/cluster_tree.h with random cluster graphs. The bytes
// decode to up to 64 clusters c0..c63 (root c0), each pending, does-not-exist,
// EDS, LOGICAL_DNS or an aggregate of up to 8 children (possibly itself,
// repeated, or names never defined). The result is checked against a direct
// transcription of the C-core 1.51 cds.cc rules (stop at the first error)
// and against invariants: terminates, each cluster looked up once, no
// duplicate leaves, every leaf a received non-aggregate cluster of the watch
// set, leaves in first-visit order, depth rule, watch set = clusters visited.
#include <cstddef>
#include <cstdint>
#include <map>
#include <set>
#include <string>
#include <utility>
#include <variant>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/status/statusor.h"
#include "absl/strings/str_cat.h"
#include "lib/base/check.h"
#include "lib/cluster/cluster_tree.h"

namespace {

using xdsfed::cluster::ClusterLookupResult;
using xdsfed::cluster::ClusterTreeResult;
using xdsfed::cluster::DiscoveryMechanism;
using xdsfed::cluster::kMaxAggregateClusterDepth;
using xdsfed::resources::ClusterResource;

class Reader {
 public:
  Reader(const uint8_t* data, size_t size) : data_(data), size_(size) {}
  // `fallback` once the input is used up.
  uint8_t Next(uint8_t fallback) {
    return pos_ < size_ ? data_[pos_++] : fallback;
  }

 private:
  const uint8_t* data_;
  size_t size_;
  size_t pos_ = 0;
};

struct Graph {
  std::map<std::string, ClusterResource> received;
  std::set<std::string> does_not_exist;

  ClusterLookupResult Lookup(absl::string_view name) const {
    auto it = received.find(std::string(name));
    if (it != received.end()) return ClusterLookupResult::Received(it->second);
    if (does_not_exist.count(std::string(name)) != 0) {
      return ClusterLookupResult::DoesNotExist();
    }
    return ClusterLookupResult::Pending();
  }
};

Graph Decode(const uint8_t* data, size_t size) {
  Reader in(data, size);
  Graph graph;
  const int n = 1 + in.Next(0) % 64;
  for (int i = 0; i < n; ++i) {
    std::string name = absl::StrCat("c", i);
    const uint8_t kind = in.Next(2) % 8;
    if (kind == 0) continue;  // pending
    if (kind == 1) {
      graph.does_not_exist.insert(name);
      continue;
    }
    ClusterResource& c = graph.received[name];
    c.name = name;
    if (kind == 2) {
      const uint8_t service = in.Next(0);
      c.kind = ClusterResource::Eds{
          service % 2 == 0 ? "" : absl::StrCat("svc", service)};
    } else if (kind == 3) {
      c.kind = ClusterResource::LogicalDns{absl::StrCat("h", i), in.Next(0)};
    } else {
      ClusterResource::Aggregate aggregate;
      const int children = in.Next(1) % 9;  // 0 is not valid CDS: tolerated
      for (int j = 0; j < children; ++j) {
        // n and n + 1 name clusters never defined (pending).
        aggregate.prioritized_cluster_names.push_back(
            absl::StrCat("c", in.Next(0) % (n + 2)));
      }
      c.kind = std::move(aggregate);
    }
    const uint8_t extras = in.Next(0);
    c.max_concurrent_requests = extras & 0x80 ? extras : 1024;
    c.lrs_load_reporting_server_is_self = extras & 1;
  }
  return graph;
}

// The C-core 1.51 recursion, written out plainly: depth checked first, then
// the already-added set, then the cluster's state; the first error ends it.
struct Reference {
  const Graph& graph;
  std::vector<std::string> added;  // in insertion order
  std::set<std::string> added_set;
  std::map<std::string, int> depth_of;
  std::vector<std::string> leaves;

  absl::StatusOr<bool> Visit(const std::string& name, int depth) {
    if (depth == kMaxAggregateClusterDepth) {
      return absl::FailedPreconditionError(
          "aggregate cluster graph exceeds max depth of 16");
    }
    if (!added_set.insert(name).second) return true;
    added.push_back(name);
    depth_of[name] = depth;
    ClusterLookupResult found = graph.Lookup(name);
    if (found.state == ClusterLookupResult::State::kDoesNotExist) {
      return absl::UnavailableError(
          absl::StrCat("CDS resource \"", name, "\" does not exist"));
    }
    if (found.state == ClusterLookupResult::State::kPending) return false;
    const auto* aggregate =
        std::get_if<ClusterResource::Aggregate>(&found.resource->kind);
    if (aggregate == nullptr) {
      leaves.push_back(name);
      return true;
    }
    bool complete = true;
    for (const std::string& child : aggregate->prioritized_cluster_names) {
      absl::StatusOr<bool> r = Visit(child, depth + 1);
      if (!r.ok()) return r;
      if (!*r) complete = false;
    }
    return complete;
  }
};

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const Graph graph = Decode(data, size);
  std::map<std::string, int> lookups;
  const ClusterTreeResult result =
      xdsfed::cluster::ResolveClusterTree("c0", [&](absl::string_view name) {
        ++lookups[std::string(name)];
        return graph.Lookup(name);
      });

  // Watch set: root first, no duplicates, exactly the clusters looked up,
  // each looked up once; pending_clusters = the pending ones among them.
  XDSFED_CHECK(!result.clusters.empty() && result.clusters[0] == "c0");
  XDSFED_CHECK(lookups.size() == result.clusters.size());
  absl::flat_hash_map<std::string, size_t> position;
  std::vector<std::string> want_pending;
  for (size_t i = 0; i < result.clusters.size(); ++i) {
    const std::string& name = result.clusters[i];
    XDSFED_CHECK(position.emplace(name, i).second);
    XDSFED_CHECK(lookups.count(name) == 1 && lookups[name] == 1);
    if (graph.Lookup(name).state == ClusterLookupResult::State::kPending) {
      want_pending.push_back(name);
    }
  }
  XDSFED_CHECK(result.pending_clusters == want_pending);

  Reference reference{graph, {}, {}, {}, {}};
  absl::StatusOr<bool> want = reference.Visit("c0", 0);
  // Ours goes on after an error; up to it, both walks are the same.
  XDSFED_CHECK(reference.added.size() <= result.clusters.size());
  for (size_t i = 0; i < reference.added.size(); ++i) {
    XDSFED_CHECK(reference.added[i] == result.clusters[i]);
  }
  if (!want.ok()) {
    XDSFED_CHECK(result.state == ClusterTreeResult::State::kError);
    XDSFED_CHECK(result.error == want.status());
    XDSFED_CHECK(result.mechanisms.empty());
    return 0;
  }
  XDSFED_CHECK(reference.added == result.clusters);
  if (!*want) {
    XDSFED_CHECK(result.state == ClusterTreeResult::State::kPending);
    XDSFED_CHECK(!result.pending_clusters.empty());
    XDSFED_CHECK(result.error.ok() && result.mechanisms.empty());
    return 0;
  }
  XDSFED_CHECK(result.pending_clusters.empty());
  if (reference.leaves.empty()) {
    XDSFED_CHECK(result.state == ClusterTreeResult::State::kError);
    XDSFED_CHECK(result.error ==
                 absl::FailedPreconditionError(
                     "aggregate cluster graph for \"c0\" has no leaf "
                     "clusters"));
    return 0;
  }
  XDSFED_CHECK(result.state == ClusterTreeResult::State::kOk);
  XDSFED_CHECK(result.error.ok());
  XDSFED_CHECK(result.mechanisms.size() == reference.leaves.size());
  size_t last_position = 0;
  for (size_t i = 0; i < result.mechanisms.size(); ++i) {
    const DiscoveryMechanism& m = result.mechanisms[i];
    XDSFED_CHECK(m.cluster == reference.leaves[i]);
    // A received non-aggregate cluster of the watch set, in first-visit
    // order (so no duplicates either).
    auto pos = position.find(m.cluster);
    XDSFED_CHECK(pos != position.end());
    XDSFED_CHECK(i == 0 || pos->second > last_position);
    last_position = pos->second;
    const ClusterResource& c = graph.received.at(m.cluster);
    XDSFED_CHECK(m.max_concurrent_requests == c.max_concurrent_requests);
    XDSFED_CHECK(m.lrs_load_reporting_server_is_self ==
                 c.lrs_load_reporting_server_is_self);
    if (const auto* eds = std::get_if<ClusterResource::Eds>(&c.kind)) {
      XDSFED_CHECK(m.type == DiscoveryMechanism::Type::kEds);
      XDSFED_CHECK(m.eds_service_name == eds->eds_service_name);
    } else {
      const auto& dns = std::get<ClusterResource::LogicalDns>(c.kind);
      XDSFED_CHECK(m.type == DiscoveryMechanism::Type::kLogicalDns);
      XDSFED_CHECK(m.dns_hostname == dns.HostPort());
    }
  }
  // Depth rule: an ok tree never reached a cluster at depth 16, and no
  // aggregate with children sits at depth 15.
  for (const auto& [name, depth] : reference.depth_of) {
    XDSFED_CHECK(depth < kMaxAggregateClusterDepth);
    auto it = graph.received.find(name);
    if (depth == kMaxAggregateClusterDepth - 1 && it != graph.received.end()) {
      const auto* aggregate =
          std::get_if<ClusterResource::Aggregate>(&it->second.kind);
      XDSFED_CHECK(aggregate == nullptr ||
                   aggregate->prioritized_cluster_names.empty());
    }
  }
  return 0;
}
