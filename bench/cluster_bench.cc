// The A37 cluster tree and LB config generation at scale:
//   BM_TreeRecompute/N  ResolveClusterTree over an N-cluster aggregate graph
//                       (root -> mid-level aggregates -> EDS leaves, with
//                       leaves shared between mids and aggregate diamonds),
//                       as the driver does after every CDS notification.
//   BM_PriorityConfig/N priority_experimental config for N localities over 4
//                       priorities (one EDS mechanism with drops and LRS,
//                       plus a LOGICAL_DNS one): BuildPriorityConfig with a
//                       warm namer (steady-state update) and ToJson().
//   BM_PriorityConfigNoJson/N  the same without ToJson().
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/strings/str_cat.h"
#include "benchmark/benchmark.h"
#include "lib/base/check.h"
#include "lib/cluster/cluster_tree.h"
#include "lib/cluster/lb_config.h"
#include "lib/json/json_reader.h"

namespace xdsfed {
namespace cluster {
namespace {

using resources::ClusterResource;
using resources::EndpointResource;

// N clusters: root "agg" -> `mids` aggregates "mid-i" -> EDS leaves
// "leaf-j". Mid i points to a window of leaves that overlaps the next mid's
// window by 4 (shared leaves), and every fourth mid also points to the next
// mid (an aggregate diamond).
absl::flat_hash_map<std::string, ClusterResource> MakeGraph(int n) {
  const int mids = 31;
  const int leaves = n - 1 - mids;
  XDSFED_CHECK(leaves > mids);
  absl::flat_hash_map<std::string, ClusterResource> graph;
  ClusterResource& root = graph["agg"];
  root.name = "agg";
  std::vector<std::string> mid_names;
  for (int i = 0; i < mids; ++i) mid_names.push_back(absl::StrCat("mid-", i));
  root.kind = ClusterResource::Aggregate{mid_names};
  const int per_mid = leaves / mids;
  for (int i = 0; i < mids; ++i) {
    std::vector<std::string> children;
    const int first = i * per_mid;
    const int last = i == mids - 1 ? leaves : first + per_mid + 4;
    for (int j = first; j < last; ++j) {
      children.push_back(absl::StrCat("leaf-", j % leaves));
    }
    if (i % 4 == 0 && i + 1 < mids) children.push_back(mid_names[i + 1]);
    ClusterResource& mid = graph[mid_names[i]];
    mid.name = mid_names[i];
    mid.kind = ClusterResource::Aggregate{std::move(children)};
  }
  for (int j = 0; j < leaves; ++j) {
    std::string name = absl::StrCat("leaf-", j);
    ClusterResource& leaf = graph[name];
    leaf.name = name;
    leaf.kind = ClusterResource::Eds{absl::StrCat("svc-", j)};
  }
  return graph;
}

void BM_TreeRecompute(benchmark::State& state) {
  const auto graph = MakeGraph(static_cast<int>(state.range(0)));
  auto lookup = [&graph](absl::string_view name) {
    auto it = graph.find(name);
    if (it == graph.end()) return ClusterLookupResult::Pending();
    return ClusterLookupResult::Received(it->second);
  };
  const ClusterTreeResult check = ResolveClusterTree("agg", lookup);
  XDSFED_CHECK(check.ok() && check.clusters.size() == graph.size());
  for (auto _ : state) {
    benchmark::DoNotOptimize(ResolveClusterTree("agg", lookup));
  }
  state.SetItemsProcessed(state.iterations() * check.clusters.size());
  state.counters["clusters"] = check.clusters.size();
  state.counters["mechanisms"] = check.mechanisms.size();
}
BENCHMARK(BM_TreeRecompute)->Arg(1000)->Unit(benchmark::kMicrosecond);

// One EDS mechanism with n localities over 4 priorities (2 endpoints each,
// drops, LRS) and one LOGICAL_DNS mechanism with 2 addresses.
std::vector<ResolvedMechanism> MakeMechanisms(int n) {
  auto eds = std::make_shared<EndpointResource>();
  eds->cluster_name = "svc";
  eds->priorities.resize(4);
  for (int i = 0; i < n; ++i) {
    EndpointResource::LocalityEndpoints group;
    group.weight = 1 + i % 7;
    group.endpoints.push_back(
        {absl::StrCat("10.", i / 250, ".", i % 250, ".1:443")});
    group.endpoints.push_back(
        {absl::StrCat("10.", i / 250, ".", i % 250, ".2:443")});
    eds->priorities[i % 4].localities.emplace(
        EndpointResource::Locality{"us-east1", absl::StrCat("us-east1-", i % 3),
                                   absl::StrCat("rack-", i)},
        std::move(group));
  }
  eds->drop_categories = {{"lb", 1000}, {"throttle", 50}};
  std::vector<ResolvedMechanism> ms(2);
  ms[0].mechanism.cluster = "eds-cluster";
  ms[0].mechanism.eds_service_name = "svc";
  ms[0].lrs_server = XdsServerConfig("xds.example.com:443", "google_default",
                                     Json::Value(Json::objectValue), {});
  ms[0].endpoints = eds;
  ms[1].mechanism.cluster = "dns-cluster";
  ms[1].mechanism.type = DiscoveryMechanism::Type::kLogicalDns;
  ms[1].mechanism.dns_hostname = "dns.example.com:443";
  ms[1].endpoints = EndpointsFromDnsAddresses("dns-cluster",
                                              {"10.9.0.1:443", "10.9.0.2:443"});
  return ms;
}

void PriorityConfigBench(benchmark::State& state, bool to_json) {
  const int n = static_cast<int>(state.range(0));
  const std::vector<ResolvedMechanism> ms = MakeMechanisms(n);
  PriorityConfigBuilder builder;
  // Warm the namer: later builds are steady-state updates (names reused).
  absl::StatusOr<PriorityConfig> check = builder.Build(ms);
  XDSFED_CHECK(check.ok() && check->config.priorities.size() == 5);
  XDSFED_CHECK(ParsePriorityConfig(check->ToJson()).ok());
  for (auto _ : state) {
    absl::StatusOr<PriorityConfig> config = builder.Build(ms);
    if (to_json) benchmark::DoNotOptimize(config->ToJson());
    benchmark::DoNotOptimize(config);
  }
  state.SetItemsProcessed(state.iterations() * n);
  state.counters["localities"] = n;
  state.counters["json_bytes"] = JsonToString(check->ToJson()).size();
}

void BM_PriorityConfig(benchmark::State& state) {
  PriorityConfigBench(state, true);
}
void BM_PriorityConfigNoJson(benchmark::State& state) {
  PriorityConfigBench(state, false);
}
BENCHMARK(BM_PriorityConfig)->Arg(1000)->Unit(benchmark::kMicrosecond);
BENCHMARK(BM_PriorityConfigNoJson)->Arg(1000)->Unit(benchmark::kMicrosecond);

}  // namespace
}  // namespace cluster
}  // namespace xdsfed

BENCHMARK_MAIN();
