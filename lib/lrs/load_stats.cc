#include "lib/lrs/load_stats.h"

#include <utility>

#include "lib/lrs/internal/load_report_store.h"

namespace xdsfed {
namespace lrs {

uint64_t DropSnapshot::Total() const {
  uint64_t total = uncategorized_drops;
  for (const auto& category : categorized_drops) total += category.second;
  return total;
}

bool DropSnapshot::IsZero() const {
  if (uncategorized_drops != 0) return false;
  for (const auto& category : categorized_drops) {
    if (category.second != 0) return false;
  }
  return true;
}

DropSnapshot& DropSnapshot::operator+=(const DropSnapshot& other) {
  uncategorized_drops += other.uncategorized_drops;
  for (const auto& category : other.categorized_drops) {
    categorized_drops[category.first] += category.second;
  }
  return *this;
}

bool LocalitySnapshot::IsZero() const {
  if (total_successful_requests != 0 || total_requests_in_progress != 0 ||
      total_error_requests != 0 || total_issued_requests != 0) {
    return false;
  }
  for (const auto& metric : backend_metrics) {
    if (!metric.second.IsZero()) return false;
  }
  return true;
}

LocalitySnapshot& LocalitySnapshot::operator+=(const LocalitySnapshot& other) {
  total_successful_requests += other.total_successful_requests;
  total_requests_in_progress += other.total_requests_in_progress;
  total_error_requests += other.total_error_requests;
  total_issued_requests += other.total_issued_requests;
  for (const auto& metric : other.backend_metrics) {
    backend_metrics[metric.first] += metric.second;
  }
  return *this;
}

// --- ClusterDropStats ---

ClusterDropStats::ClusterDropStats(std::shared_ptr<LoadReportStore> store,
                                   std::string cluster,
                                   std::string eds_service_name)
    : store_(std::move(store)),
      cluster_(std::move(cluster)),
      eds_service_name_(std::move(eds_service_name)) {}

ClusterDropStats::~ClusterDropStats() {
  store_->ReleaseDropStats(this, GetSnapshotAndReset());
}

void ClusterDropStats::AddUncategorizedDrops() {
  uncategorized_drops_.fetch_add(1, std::memory_order_relaxed);
}

void ClusterDropStats::AddCallDropped(absl::string_view category) {
  MutexLock lock(&mu_);
  auto it = categorized_drops_.find(category);  // no copy once seen
  if (it == categorized_drops_.end()) {
    categorized_drops_.emplace(std::string(category), 1);
  } else {
    ++it->second;
  }
}

DropSnapshot ClusterDropStats::GetSnapshotAndReset() {
  DropSnapshot snapshot;
  snapshot.uncategorized_drops =
      uncategorized_drops_.exchange(0, std::memory_order_relaxed);
  absl::flat_hash_map<std::string, uint64_t> categorized;
  {
    MutexLock lock(&mu_);
    categorized.swap(categorized_drops_);
  }
  for (auto& category : categorized) {
    snapshot.categorized_drops.emplace(category.first, category.second);
  }
  return snapshot;
}

// --- ClusterLocalityStats ---

ClusterLocalityStats::ClusterLocalityStats(
    std::shared_ptr<LoadReportStore> store, std::string cluster,
    std::string eds_service_name, Locality locality)
    : store_(std::move(store)),
      cluster_(std::move(cluster)),
      eds_service_name_(std::move(eds_service_name)),
      locality_(std::move(locality)) {}

ClusterLocalityStats::~ClusterLocalityStats() {
  store_->ReleaseLocalityStats(this, GetSnapshotAndReset());
}

void ClusterLocalityStats::AddCallStarted() {
  issued_.fetch_add(1, std::memory_order_relaxed);
  in_progress_.fetch_add(1, std::memory_order_relaxed);
}

void ClusterLocalityStats::AddCallFinished(
    bool fail, absl::Span<const NamedMetric> metrics) {
  (fail ? errors_ : successful_).fetch_add(1, std::memory_order_relaxed);
  in_progress_.fetch_sub(1, std::memory_order_relaxed);
  if (metrics.empty()) return;
  MutexLock lock(&mu_);
  for (const NamedMetric& metric : metrics) {
    auto it = backend_metrics_.find(metric.name);
    if (it == backend_metrics_.end()) {
      it = backend_metrics_.emplace(std::string(metric.name), BackendMetric())
               .first;
    }
    it->second += BackendMetric{1, metric.value};
  }
}

LocalitySnapshot ClusterLocalityStats::GetSnapshotAndReset() {
  LocalitySnapshot snapshot;
  snapshot.total_successful_requests =
      successful_.exchange(0, std::memory_order_relaxed);
  snapshot.total_error_requests =
      errors_.exchange(0, std::memory_order_relaxed);
  snapshot.total_issued_requests =
      issued_.exchange(0, std::memory_order_relaxed);
  const int64_t in_progress = in_progress_.load(std::memory_order_relaxed);
  snapshot.total_requests_in_progress =
      in_progress > 0 ? static_cast<uint64_t>(in_progress) : 0;
  absl::flat_hash_map<std::string, BackendMetric> metrics;
  {
    MutexLock lock(&mu_);
    metrics.swap(backend_metrics_);
  }
  for (auto& metric : metrics) {
    snapshot.backend_metrics.emplace(metric.first, metric.second);
  }
  return snapshot;
}

}  // namespace lrs
}  // namespace xdsfed
