// The LRS stream's messages (envoy.service.load_stats.v3), built and read as
// gRPC C-core 1.51 does (xds_api.cc CreateLrsInitialRequest,
// CreateLrsRequest, ParseLrsResponse):
//   - the first LoadStatsRequest carries only the node: the ADS node plus the
//     client feature "envoy.lrs.supports_send_all_clusters";
//   - each report carries one ClusterStats per cluster, no node;
//   - the server's LoadStatsResponse says which clusters to report and how
//     often; the interval is clamped to [1 s, 1 day].
//
//   std::string first = lrs::BuildInitialLrsRequest(
//       lrs::BuildLrsNode(*bootstrap, "xdsfed", "0.1"));
//   absl::StatusOr<lrs::LrsResponse> config = lrs::ParseLrsResponse(bytes);
//   std::string report = lrs::BuildLrsReport(store->TakeReports(
//       config->send_all_clusters, config->clusters));
#ifndef XDSFED_LIB_LRS_INTERNAL_LRS_WIRE_H_
#define XDSFED_LIB_LRS_INTERNAL_LRS_WIRE_H_

#include <cstdint>
#include <set>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "absl/time/time.h"
#include "envoy/config/core/v3/base.pb.h"
#include "envoy/service/load_stats/v3/lrs.pb.h"
#include "lib/bootstrap/bootstrap.h"
#include "lib/lrs/internal/load_report_store.h"

namespace xdsfed {
namespace lrs {

inline constexpr absl::string_view kLrsSendAllClustersFeature =
    "envoy.lrs.supports_send_all_clusters";
// C-core's GRPC_XDS_MIN_CLIENT_LOAD_REPORTING_INTERVAL_MS.
inline constexpr absl::Duration kMinLoadReportingInterval = absl::Seconds(1);
// Ours (C-core has none): keeps every timer deadline finite. A server asking
// for more gets a report a day.
inline constexpr absl::Duration kMaxLoadReportingInterval = absl::Hours(24);

// What the server asked for in its last LoadStatsResponse.
struct LrsResponse {
  bool send_all_clusters = false;
  std::set<std::string> clusters;  // used when !send_all_clusters
  absl::Duration load_reporting_interval = kMinLoadReportingInterval;

  bool operator==(const LrsResponse& other) const {
    return send_all_clusters == other.send_all_clusters &&
           clusters == other.clusters &&
           load_reporting_interval == other.load_reporting_interval;
  }
  bool operator!=(const LrsResponse& other) const { return !(*this == other); }
};

// The ADS node (client::BuildNode) plus kLrsSendAllClustersFeature.
envoy::config::core::v3::Node BuildLrsNode(
    const Bootstrap& bootstrap, absl::string_view user_agent_name,
    absl::string_view user_agent_version);

// Serialized LoadStatsRequest with only the node.
std::string BuildInitialLrsRequest(const envoy::config::core::v3::Node& node);

// The LoadStatsRequest of one report.
envoy::service::load_stats::v3::LoadStatsRequest BuildLrsReportMessage(
    const std::vector<ClusterLoadReport>& reports);
std::string BuildLrsReport(const std::vector<ClusterLoadReport>& reports);

// google.protobuf.Duration fields -> the interval to use, clamped to
// [kMinLoadReportingInterval, kMaxLoadReportingInterval]. Any values,
// including negative or out-of-range nanos, give a value in that range.
absl::Duration ClampLoadReportingInterval(int64_t seconds, int32_t nanos);

// Errors (kInvalidArgument): bytes that are not a LoadStatsResponse. C-core
// ignores such a response (the stream goes on).
absl::StatusOr<LrsResponse> ParseLrsResponse(absl::string_view bytes);

}  // namespace lrs
}  // namespace xdsfed

#endif  // XDSFED_LIB_LRS_INTERNAL_LRS_WIRE_H_
