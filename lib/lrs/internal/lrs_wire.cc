#include "lib/lrs/internal/lrs_wire.h"

#include <algorithm>

#include "envoy/config/endpoint/v3/load_report.pb.h"
#include "lib/client/node.h"

namespace xdsfed {
namespace lrs {

namespace {

void SetDuration(absl::Duration d, google::protobuf::Duration* out) {
  d = std::max(d, absl::ZeroDuration());
  const int64_t seconds = absl::IDivDuration(d, absl::Seconds(1), &d);
  out->set_seconds(seconds);
  out->set_nanos(static_cast<int32_t>(absl::ToInt64Nanoseconds(d)));
}

}  // namespace

envoy::config::core::v3::Node BuildLrsNode(
    const Bootstrap& bootstrap, absl::string_view user_agent_name,
    absl::string_view user_agent_version) {
  envoy::config::core::v3::Node node =
      client::BuildNode(bootstrap, user_agent_name, user_agent_version);
  node.add_client_features(std::string(kLrsSendAllClustersFeature));
  return node;
}

std::string BuildInitialLrsRequest(const envoy::config::core::v3::Node& node) {
  envoy::service::load_stats::v3::LoadStatsRequest request;
  *request.mutable_node() = node;
  return request.SerializeAsString();
}

envoy::service::load_stats::v3::LoadStatsRequest BuildLrsReportMessage(
    const std::vector<ClusterLoadReport>& reports) {
  envoy::service::load_stats::v3::LoadStatsRequest request;
  for (const ClusterLoadReport& report : reports) {
    envoy::config::endpoint::v3::ClusterStats* stats =
        request.add_cluster_stats();
    stats->set_cluster_name(report.cluster_name);
    if (!report.eds_service_name.empty()) {
      stats->set_cluster_service_name(report.eds_service_name);
    }
    for (const auto& [locality, counts] : report.localities) {
      envoy::config::endpoint::v3::UpstreamLocalityStats* out =
          stats->add_upstream_locality_stats();
      envoy::config::core::v3::Locality* name = out->mutable_locality();
      name->set_region(locality.region);
      name->set_zone(locality.zone);
      name->set_sub_zone(locality.sub_zone);
      out->set_total_successful_requests(counts.total_successful_requests);
      out->set_total_requests_in_progress(counts.total_requests_in_progress);
      out->set_total_error_requests(counts.total_error_requests);
      out->set_total_issued_requests(counts.total_issued_requests);
      for (const auto& [metric_name, metric] : counts.backend_metrics) {
        envoy::config::endpoint::v3::EndpointLoadMetricStats* m =
            out->add_load_metric_stats();
        m->set_metric_name(metric_name);
        m->set_num_requests_finished_with_metric(
            metric.num_requests_finished_with_metric);
        m->set_total_metric_value(metric.total_metric_value);
      }
    }
    for (const auto& [category, count] : report.drops.categorized_drops) {
      envoy::config::endpoint::v3::ClusterStats::DroppedRequests* dropped =
          stats->add_dropped_requests();
      dropped->set_category(category);
      dropped->set_dropped_count(count);
    }
    stats->set_total_dropped_requests(report.drops.Total());
    SetDuration(report.load_report_interval,
                stats->mutable_load_report_interval());
  }
  return request;
}

std::string BuildLrsReport(const std::vector<ClusterLoadReport>& reports) {
  return BuildLrsReportMessage(reports).SerializeAsString();
}

absl::Duration ClampLoadReportingInterval(int64_t seconds, int32_t nanos) {
  // absl's arithmetic saturates (to +-infinity) rather than overflowing.
  const absl::Duration interval =
      absl::Seconds(seconds) + absl::Nanoseconds(nanos);
  return std::clamp(interval, kMinLoadReportingInterval,
                    kMaxLoadReportingInterval);
}

absl::StatusOr<LrsResponse> ParseLrsResponse(absl::string_view bytes) {
  envoy::service::load_stats::v3::LoadStatsResponse response;
  if (!response.ParseFromArray(bytes.data(), static_cast<int>(bytes.size()))) {
    return absl::InvalidArgumentError("cannot parse LoadStatsResponse");
  }
  LrsResponse out;
  out.send_all_clusters = response.send_all_clusters();
  // C-core keeps the list only when send_all_clusters is false.
  if (!out.send_all_clusters) {
    out.clusters.insert(response.clusters().begin(), response.clusters().end());
  }
  out.load_reporting_interval =
      ClampLoadReportingInterval(response.load_reporting_interval().seconds(),
                                 response.load_reporting_interval().nanos());
  return out;
}

}  // namespace lrs
}  // namespace xdsfed
