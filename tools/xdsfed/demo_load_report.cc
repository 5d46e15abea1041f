#include "tools/xdsfed/demo_load_report.h"

#include <algorithm>
#include <cstdint>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "lib/lrs/call_counter.h"
#include "lib/lrs/load_stats.h"
#include "lib/lrs/lrs_client.h"
#include "tools/xdsfed/cli.h"

namespace xdsfed::cli {
namespace {

// Two calls more than the limit lets in, so the demo shows both sides of
// the circuit breaker; capped so a large threshold stays a short demo.
constexpr uint32_t kMaxSimulatedCalls = 64;

// The cluster_stats entry for `cluster` in one logged LRS request, or null.
const Json::Value* FindClusterStats(const Json::Value& entry,
                                    const std::string& cluster) {
  const Json::Value& stats = entry["request"]["cluster_stats"];
  if (!stats.isArray()) return nullptr;
  for (const Json::Value& s : stats) {
    if (s["cluster_name"].asString() == cluster) return &s;
  }
  return nullptr;
}

}  // namespace

absl::Status RunDemoLoadReport(std::shared_ptr<client::XdsClient> client,
                               const cluster::ResolvedMechanism& resolved,
                               const control_plane::ControlPlane& lrs_server,
                               absl::Duration timeout) {
  const cluster::DiscoveryMechanism& m = resolved.mechanism;
  if (!resolved.lrs_server.has_value()) {
    return absl::FailedPreconditionError(
        absl::StrCat("cluster ", m.cluster, " has no LRS server"));
  }
  if (resolved.endpoints == nullptr || resolved.endpoints->priorities.empty()) {
    return absl::FailedPreconditionError(
        absl::StrCat("cluster ", m.cluster, " has no endpoints"));
  }
  auto lrs = lrs::LrsClient::Create(client, lrs::LrsClient::Options());
  if (!lrs.ok()) return lrs.status();
  auto drops = (*lrs)->AddClusterDropStats(*resolved.lrs_server, m.cluster,
                                           m.eds_service_name);
  if (!drops.ok()) return drops.status();
  std::vector<std::shared_ptr<lrs::ClusterLocalityStats>> localities;
  for (const auto& [locality, group] :
       resolved.endpoints->priorities[0].localities) {
    auto stats = (*lrs)->AddClusterLocalityStats(
        *resolved.lrs_server, m.cluster, m.eds_service_name, locality);
    if (!stats.ok()) return stats.status();
    localities.push_back(*std::move(stats));
  }

  // All calls start before any finishes: the ones past the threshold are
  // circuit-breaker drops, as xds_cluster_impl's picker records them.
  std::shared_ptr<lrs::CallCounter> counter =
      lrs::CallCounterRegistry::Global().GetOrCreate(m.cluster,
                                                     m.eds_service_name);
  const uint32_t attempts =
      std::min(m.max_concurrent_requests + 2, kMaxSimulatedCalls);
  std::vector<size_t> started;  // locality index of each admitted call
  uint32_t dropped = 0;
  for (uint32_t i = 0; i < attempts; ++i) {
    if (counter->TryStartCall(m.max_concurrent_requests)) {
      size_t locality = i % localities.size();
      localities[locality]->AddCallStarted();
      started.push_back(locality);
    } else {
      (*drops)->AddUncategorizedDrops();
      ++dropped;
    }
  }
  // The last admitted call fails, the others succeed.
  for (size_t i = 0; i < started.size(); ++i) {
    localities[started[i]]->AddCallFinished(/*fail=*/i + 1 == started.size());
    counter->FinishCall();
  }
  {
    Json::Value line(Json::objectValue);
    line["valid"] = true;
    line["step"] = "calls";
    line["cluster"] = m.cluster;
    line["eds_service_name"] = m.eds_service_name;
    line["max_concurrent_requests"] = m.max_concurrent_requests;
    line["attempted"] = attempts;
    line["started"] = Json::UInt64(started.size());
    line["dropped_by_circuit_breaker"] = dropped;
    line["failed"] = started.empty() ? 0 : 1;
    line["lrs_server"] = resolved.lrs_server->server_uri();
    PrintJson(line);
  }

  // The first request of an LRS stream carries only the node; wait for a
  // report with this cluster's counts (one interval, 1 s by default).
  Json::Value report;
  bool received = lrs_server.WaitForLoadReports(
      [&](const std::vector<Json::Value>& log) {
        for (const Json::Value& entry : log) {
          if (const Json::Value* s = FindClusterStats(entry, m.cluster)) {
            report = *s;
            return true;
          }
        }
        return false;
      },
      timeout);
  if (!received) {
    return absl::DeadlineExceededError(
        absl::StrCat("no load report for ", m.cluster, " reached ",
                     resolved.lrs_server->server_uri(), " within ",
                     absl::FormatDuration(timeout)));
  }
  Json::Value line(Json::objectValue);
  line["valid"] = true;
  line["step"] = "load_report";
  line["lrs_server"] = resolved.lrs_server->server_uri();
  line["cluster_stats"] = std::move(report);
  PrintJson(line);
  return absl::OkStatus();
}

}  // namespace xdsfed::cli
