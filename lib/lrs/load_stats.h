// The per-call load-reporting counters (C-core: XdsClusterDropStats and
// XdsClusterLocalityStats): what an LB picker records for one cluster and
// one locality, and the snapshots the LRS client sends.
//
//   std::shared_ptr<lrs::ClusterLocalityStats> stats = ...;  // LrsClient
//   stats->AddCallStarted();
//   ...
//   stats->AddCallFinished(/*fail=*/false, {{"cpu_utilization", 0.25}});
//   drop_stats->AddCallDropped("throttle");  // an EDS drop_overloads category
//
// Recording is lock-free (relaxed atomics) except for categorized drops and
// named backend metrics, which take a short per-object lock. The counters
// are reset by each report (LoadReportStore::TakeReports); nothing else
// reads them. Objects come from LoadReportStore / LrsClient as shared_ptrs,
// shared by every holder of the same key; when the last holder lets go the
// remaining counts move to the store and are sent with the next report.
#ifndef XDSFED_LIB_LRS_LOAD_STATS_H_
#define XDSFED_LIB_LRS_LOAD_STATS_H_

#include <atomic>
#include <cstdint>
#include <map>
#include <memory>
#include <string>

#include "absl/base/thread_annotations.h"
#include "absl/container/flat_hash_map.h"
#include "absl/strings/string_view.h"
#include "absl/types/span.h"
#include "lib/base/mutex.h"
#include "lib/resources/endpoint.h"

namespace xdsfed {
namespace lrs {

class LoadReportStore;

using Locality = resources::EndpointResource::Locality;

// Drops since the last report (ClusterStats.dropped_requests and
// total_dropped_requests).
struct DropSnapshot {
  // Circuit-breaker drops (C-core reports them without a category).
  uint64_t uncategorized_drops = 0;
  // EDS drop_overloads categories -> count.
  std::map<std::string, uint64_t> categorized_drops;

  // total_dropped_requests: categorized plus uncategorized.
  uint64_t Total() const;
  bool IsZero() const;
  DropSnapshot& operator+=(const DropSnapshot& other);
  bool operator==(const DropSnapshot& other) const {
    return uncategorized_drops == other.uncategorized_drops &&
           categorized_drops == other.categorized_drops;
  }
};

// EndpointLoadMetricStats: calls that finished reporting the metric, and the
// sum of the values they reported.
struct BackendMetric {
  uint64_t num_requests_finished_with_metric = 0;
  double total_metric_value = 0;

  bool IsZero() const {
    return num_requests_finished_with_metric == 0 && total_metric_value == 0;
  }
  BackendMetric& operator+=(const BackendMetric& other) {
    num_requests_finished_with_metric +=
        other.num_requests_finished_with_metric;
    total_metric_value += other.total_metric_value;
    return *this;
  }
  bool operator==(const BackendMetric& other) const {
    return num_requests_finished_with_metric ==
               other.num_requests_finished_with_metric &&
           total_metric_value == other.total_metric_value;
  }
};

// One locality since the last report (UpstreamLocalityStats).
struct LocalitySnapshot {
  uint64_t total_successful_requests = 0;
  // Not reset by a report: the calls still running when it was taken.
  uint64_t total_requests_in_progress = 0;
  uint64_t total_error_requests = 0;
  uint64_t total_issued_requests = 0;
  std::map<std::string, BackendMetric> backend_metrics;

  bool IsZero() const;
  LocalitySnapshot& operator+=(const LocalitySnapshot& other);
  bool operator==(const LocalitySnapshot& other) const {
    return total_successful_requests == other.total_successful_requests &&
           total_requests_in_progress == other.total_requests_in_progress &&
           total_error_requests == other.total_error_requests &&
           total_issued_requests == other.total_issued_requests &&
           backend_metrics == other.backend_metrics;
  }
};

// Drops of one {cluster, EDS service name} for one LRS server.
class ClusterDropStats {
 public:
  ~ClusterDropStats();
  ClusterDropStats(const ClusterDropStats&) = delete;
  ClusterDropStats& operator=(const ClusterDropStats&) = delete;

  const std::string& cluster() const { return cluster_; }
  const std::string& eds_service_name() const { return eds_service_name_; }

  // A circuit-breaker drop (lock-free).
  void AddUncategorizedDrops();
  // A drop by an EDS drop_overloads category (short lock).
  void AddCallDropped(absl::string_view category);

 private:
  friend class LoadReportStore;
  ClusterDropStats(std::shared_ptr<LoadReportStore> store, std::string cluster,
                   std::string eds_service_name);
  DropSnapshot GetSnapshotAndReset();

  const std::shared_ptr<LoadReportStore> store_;
  const std::string cluster_;
  const std::string eds_service_name_;
  std::atomic<uint64_t> uncategorized_drops_{0};
  Mutex mu_;
  absl::flat_hash_map<std::string, uint64_t> categorized_drops_
      ABSL_GUARDED_BY(mu_);
};

// Calls of one locality of one {cluster, EDS service name} for one LRS
// server.
class ClusterLocalityStats {
 public:
  // One named backend metric of a finished call (ORCA named_metrics).
  struct NamedMetric {
    absl::string_view name;
    double value;
  };

  ~ClusterLocalityStats();
  ClusterLocalityStats(const ClusterLocalityStats&) = delete;
  ClusterLocalityStats& operator=(const ClusterLocalityStats&) = delete;

  const std::string& cluster() const { return cluster_; }
  const std::string& eds_service_name() const { return eds_service_name_; }
  const Locality& locality() const { return locality_; }

  // A call was sent to this locality (lock-free).
  void AddCallStarted();
  // That call ended; fail: it did not end OK. Lock-free without metrics; a
  // short lock to add named metrics.
  void AddCallFinished(bool fail, absl::Span<const NamedMetric> metrics = {});

 private:
  friend class LoadReportStore;
  ClusterLocalityStats(std::shared_ptr<LoadReportStore> store,
                       std::string cluster, std::string eds_service_name,
                       Locality locality);
  LocalitySnapshot GetSnapshotAndReset();

  const std::shared_ptr<LoadReportStore> store_;
  const std::string cluster_;
  const std::string eds_service_name_;
  const Locality locality_;
  std::atomic<uint64_t> successful_{0};
  std::atomic<uint64_t> errors_{0};
  std::atomic<uint64_t> issued_{0};
  // Signed: a finish racing ahead of its start's increment must not wrap.
  std::atomic<int64_t> in_progress_{0};
  Mutex mu_;
  absl::flat_hash_map<std::string, BackendMetric> backend_metrics_
      ABSL_GUARDED_BY(mu_);
};

}  // namespace lrs
}  // namespace xdsfed

#endif  // XDSFED_LIB_LRS_LOAD_STATS_H_
