// Locking: mu_ guards the entries. Stats objects are reached through raw
// pointers: an object's destructor unregisters it under mu_ before its
// memory goes, so every pointer seen under mu_ is valid. No shared_ptr to a
// stats object is ever released under mu_ (that could run its destructor,
// which takes mu_).
#include "lib/lrs/internal/load_report_store.h"

#include <algorithm>

namespace xdsfed {
namespace lrs {

bool ClusterLoadReport::IsZero() const {
  if (!drops.IsZero()) return false;
  for (const auto& locality : localities) {
    if (!locality.second.IsZero()) return false;
  }
  return true;
}

std::shared_ptr<LoadReportStore> LoadReportStore::Create(
    Clock clock, std::function<void()> on_idle) {
  if (clock == nullptr) clock = [] { return absl::Now(); };
  return std::shared_ptr<LoadReportStore>(
      new LoadReportStore(std::move(clock), std::move(on_idle)));
}

LoadReportStore::LoadReportStore(Clock clock, std::function<void()> on_idle)
    : clock_(std::move(clock)), on_idle_(std::move(on_idle)) {}

LoadReportStore::~LoadReportStore() = default;

LoadReportStore::ClusterEntry& LoadReportStore::EntryLocked(
    absl::string_view cluster, absl::string_view eds_service_name) {
  auto inserted = clusters_.try_emplace(
      Key(std::string(cluster), std::string(eds_service_name)));
  // The first report of a cluster covers the time since it was created.
  if (inserted.second) inserted.first->second.last_report = clock_();
  return inserted.first->second;
}

std::shared_ptr<ClusterDropStats> LoadReportStore::GetOrCreateDropStats(
    absl::string_view cluster, absl::string_view eds_service_name) {
  MutexLock lock(&mu_);
  ClusterEntry& entry = EntryLocked(cluster, eds_service_name);
  std::shared_ptr<ClusterDropStats> stats = entry.drop_weak.lock();
  if (stats != nullptr) return stats;
  // Expired: the old object is being destroyed; its final counts will be
  // added to drops_released when its destructor gets the lock.
  stats.reset(new ClusterDropStats(shared_from_this(), std::string(cluster),
                                   std::string(eds_service_name)));
  entry.drop_live = stats.get();
  entry.drop_weak = stats;
  ++entry.drop_objects;
  ++live_objects_;
  return stats;
}

std::shared_ptr<ClusterLocalityStats> LoadReportStore::GetOrCreateLocalityStats(
    absl::string_view cluster, absl::string_view eds_service_name,
    const Locality& locality) {
  MutexLock lock(&mu_);
  LocalityEntry& entry =
      EntryLocked(cluster, eds_service_name).localities[locality];
  std::shared_ptr<ClusterLocalityStats> stats = entry.weak.lock();
  if (stats != nullptr) return stats;
  stats.reset(new ClusterLocalityStats(shared_from_this(), std::string(cluster),
                                       std::string(eds_service_name),
                                       locality));
  entry.live = stats.get();
  entry.weak = stats;
  ++entry.objects;
  ++live_objects_;
  return stats;
}

void LoadReportStore::ReleaseDropStats(ClusterDropStats* stats,
                                       DropSnapshot final_counts) {
  bool idle;
  {
    MutexLock lock(&mu_);
    // Present: the entry is kept while drop_objects > 0.
    ClusterEntry& entry =
        clusters_[Key(stats->cluster(), stats->eds_service_name())];
    entry.drops_released += final_counts;
    if (entry.drop_live == stats) entry.drop_live = nullptr;
    --entry.drop_objects;
    idle = --live_objects_ == 0;
  }
  MaybeRunOnIdle(idle);
}

void LoadReportStore::ReleaseLocalityStats(ClusterLocalityStats* stats,
                                           LocalitySnapshot final_counts) {
  bool idle;
  {
    MutexLock lock(&mu_);
    ClusterEntry& cluster =
        clusters_[Key(stats->cluster(), stats->eds_service_name())];
    LocalityEntry& entry = cluster.localities[stats->locality()];
    entry.released += final_counts;
    if (entry.live == stats) entry.live = nullptr;
    --entry.objects;
    idle = --live_objects_ == 0;
  }
  MaybeRunOnIdle(idle);
}

void LoadReportStore::MaybeRunOnIdle(bool idle) {
  if (idle && on_idle_ != nullptr) on_idle_();
}

std::vector<ClusterLoadReport> LoadReportStore::TakeReports(
    bool send_all_clusters, const std::set<std::string>& clusters) {
  std::vector<ClusterLoadReport> reports;
  MutexLock lock(&mu_);
  const absl::Time now = clock_();
  for (auto it = clusters_.begin(); it != clusters_.end();) {
    ClusterEntry& entry = it->second;
    ClusterLoadReport report;
    report.cluster_name = it->first.first;
    report.eds_service_name = it->first.second;
    report.drops = std::move(entry.drops_released);
    entry.drops_released = DropSnapshot();
    if (entry.drop_live != nullptr) {
      report.drops += entry.drop_live->GetSnapshotAndReset();
    }
    for (auto loc = entry.localities.begin(); loc != entry.localities.end();) {
      LocalityEntry& locality = loc->second;
      LocalitySnapshot& snapshot = report.localities[loc->first];
      snapshot = std::move(locality.released);
      locality.released = LocalitySnapshot();
      if (locality.live != nullptr) {
        snapshot += locality.live->GetSnapshotAndReset();
      }
      loc = locality.objects == 0 ? entry.localities.erase(loc) : ++loc;
    }
    // A wall clock may step back: never a negative interval.
    report.load_report_interval =
        std::max(now - entry.last_report, absl::ZeroDuration());
    entry.last_report = now;
    if (send_all_clusters || clusters.count(report.cluster_name) > 0) {
      reports.push_back(std::move(report));
    }
    const bool forget = entry.drop_objects == 0 && entry.localities.empty();
    it = forget ? clusters_.erase(it) : ++it;
  }
  return reports;
}

bool LoadReportStore::HasLiveStats() const {
  MutexLock lock(&mu_);
  return live_objects_ > 0;
}

bool LoadReportStore::empty() const {
  MutexLock lock(&mu_);
  return clusters_.empty();
}

}  // namespace lrs
}  // namespace xdsfed
