// LoadReportStore: the load-reporting data of ONE LRS server (gRFC A47
// §XdsClient Load Reporting APIs: "store data on a per-LRS-server basis"),
// keyed by {cluster, EDS service name}, then by locality. It hands out the
// shared stats objects (load_stats.h) and turns their counters into the
// per-cluster reports the LRS stream sends, each with the interval it
// covers. No transport here: LrsClient owns one store per server.
//
//   auto store = lrs::LoadReportStore::Create();
//   auto drops = store->GetOrCreateDropStats("c1", "eds1");
//   auto loc = store->GetOrCreateLocalityStats("c1", "eds1", {"r", "z", ""});
//   loc->AddCallStarted();
//   ...
//   std::vector<lrs::ClusterLoadReport> reports =
//       store->TakeReports(/*send_all_clusters=*/true, {});
//
// As in C-core (XdsClient::BuildLoadReportSnapshotLocked): one stats object
// per key at a time, shared by all callers; a released object's remaining
// counts are kept and go into the next report; the interval of a cluster
// runs from its previous report (or from its first stats object).
#ifndef XDSFED_LIB_LRS_INTERNAL_LOAD_REPORT_STORE_H_
#define XDSFED_LIB_LRS_INTERNAL_LOAD_REPORT_STORE_H_

#include <cstddef>
#include <functional>
#include <map>
#include <memory>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "absl/base/thread_annotations.h"
#include "absl/strings/string_view.h"
#include "absl/time/time.h"
#include "lib/base/mutex.h"
#include "lib/lrs/load_stats.h"

namespace xdsfed {
namespace lrs {

// One ClusterStats of a LoadStatsRequest.
struct ClusterLoadReport {
  std::string cluster_name;
  std::string eds_service_name;  // cluster_service_name; may be ""
  DropSnapshot drops;
  std::map<Locality, LocalitySnapshot> localities;
  // Since this cluster's previous report (or its first stats object).
  absl::Duration load_report_interval;

  // No drop, no call, nothing in progress, no metric (C-core skips a report
  // when this and the previous one were all zero).
  bool IsZero() const;
};

class LoadReportStore : public std::enable_shared_from_this<LoadReportStore> {
 public:
  using Clock = std::function<absl::Time()>;

  // clock: null = absl::Now. on_idle: run each time the last live stats
  // object of the store is released, on the releasing thread, with no lock
  // of the store held (LrsClient then decides whether to stop the stream).
  static std::shared_ptr<LoadReportStore> Create(
      Clock clock = nullptr, std::function<void()> on_idle = nullptr);

  ~LoadReportStore();
  LoadReportStore(const LoadReportStore&) = delete;
  LoadReportStore& operator=(const LoadReportStore&) = delete;

  // The live object of the key, or a new one.
  std::shared_ptr<ClusterDropStats> GetOrCreateDropStats(
      absl::string_view cluster, absl::string_view eds_service_name);
  std::shared_ptr<ClusterLocalityStats> GetOrCreateLocalityStats(
      absl::string_view cluster, absl::string_view eds_service_name,
      const Locality& locality);

  // Takes and resets the counts of every cluster. Only the clusters asked
  // for (all of them, or those named in `clusters`) are returned; the
  // others are reset too and their counts dropped, as C-core does. Keys
  // whose stats objects are all released are forgotten once taken.
  // Ordered by {cluster, EDS service name}.
  std::vector<ClusterLoadReport> TakeReports(
      bool send_all_clusters, const std::set<std::string>& clusters);

  // Some stats object is still held.
  bool HasLiveStats() const;
  // Nothing held and nothing left to report.
  bool empty() const;

 private:
  friend class ClusterDropStats;
  friend class ClusterLocalityStats;
  using Key = std::pair<std::string, std::string>;

  struct LocalityEntry {
    ClusterLocalityStats* live = nullptr;  // the object handed out
    std::weak_ptr<ClusterLocalityStats> weak;
    size_t objects = 0;         // created and not yet destroyed (live or dying)
    LocalitySnapshot released;  // final counts of destroyed objects
  };
  struct ClusterEntry {
    ClusterDropStats* drop_live = nullptr;
    std::weak_ptr<ClusterDropStats> drop_weak;
    size_t drop_objects = 0;
    DropSnapshot drops_released;
    std::map<Locality, LocalityEntry> localities;
    absl::Time last_report;
  };

  LoadReportStore(Clock clock, std::function<void()> on_idle);
  ClusterEntry& EntryLocked(absl::string_view cluster,
                            absl::string_view eds_service_name)
      ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  // Called by the stats destructors with their final counts.
  void ReleaseDropStats(ClusterDropStats* stats, DropSnapshot final_counts);
  void ReleaseLocalityStats(ClusterLocalityStats* stats,
                            LocalitySnapshot final_counts);
  void MaybeRunOnIdle(bool idle);

  const Clock clock_;
  const std::function<void()> on_idle_;
  mutable Mutex mu_;
  std::map<Key, ClusterEntry> clusters_ ABSL_GUARDED_BY(mu_);
  size_t live_objects_ ABSL_GUARDED_BY(mu_) = 0;
};

}  // namespace lrs
}  // namespace xdsfed

#endif  // XDSFED_LIB_LRS_INTERNAL_LOAD_REPORT_STORE_H_
