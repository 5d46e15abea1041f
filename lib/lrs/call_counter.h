// Circuit breaking (gRFC A37 §Use Global Circuit Breaking Atomic): one
// in-flight call counter per {cluster, EDS service name}, shared by every
// cluster tree and every channel of the process, so a cluster reached both
// directly and through an aggregate cluster has ONE max_concurrent_requests
// budget (C-core: xds_cluster_impl's global call counter map).
//
//   std::shared_ptr<lrs::CallCounter> counter =
//       lrs::CallCounterRegistry::Global().GetOrCreate("c1", "eds1");
//   // per call (lock-free):
//   if (!counter->TryStartCall(cluster.max_concurrent_requests)) {
//     drop_stats->AddUncategorizedDrops();  // C-core: a circuit-breaker drop
//     return Unavailable("circuit breaker drop");
//   }
//   ...
//   counter->FinishCall();
//
// Handles are shared_ptrs: every holder of the same key gets the same
// counter, and the registry forgets the key when the last handle goes (a
// later GetOrCreate starts again from 0).
#ifndef XDSFED_LIB_LRS_CALL_COUNTER_H_
#define XDSFED_LIB_LRS_CALL_COUNTER_H_

#include <atomic>
#include <cstdint>
#include <memory>
#include <string>

#include "absl/strings/string_view.h"

namespace xdsfed {
namespace lrs {

class ClusterDropStats;

// The cluster's circuit-breaking threshold when the Cluster has none
// (resources::ClusterResource::max_concurrent_requests defaults to it).
inline constexpr uint32_t kDefaultMaxConcurrentRequests = 1024;

class CallCounter {
 public:
  ~CallCounter();
  CallCounter(const CallCounter&) = delete;
  CallCounter& operator=(const CallCounter&) = delete;

  const std::string& cluster() const { return cluster_; }
  const std::string& eds_service_name() const { return eds_service_name_; }

  // Calls in flight now.
  uint32_t Load() const { return in_flight_.load(std::memory_order_relaxed); }
  // Unconditional start / finish (C-core's Increment / Decrement).
  void StartCall() { in_flight_.fetch_add(1, std::memory_order_relaxed); }
  void FinishCall() { in_flight_.fetch_sub(1, std::memory_order_relaxed); }
  // Starts a call unless `max_concurrent_requests` are already in flight.
  // C-core loads then increments, so racing pickers may overshoot the
  // threshold; the compare-and-swap here never does. Lock-free.
  bool TryStartCall(uint32_t max_concurrent_requests);

 private:
  friend class CallCounterRegistry;
  struct Map;
  CallCounter(std::shared_ptr<Map> map, std::string cluster,
              std::string eds_service_name);

  const std::shared_ptr<Map> map_;  // to leave it on destruction
  const std::string cluster_;
  const std::string eds_service_name_;
  std::atomic<uint32_t> in_flight_{0};
};

// The map {cluster, EDS service name} -> live counter. Global() is the one
// the library uses; tests may make their own. Thread-safe; a mutex is taken
// only to look up or release a key, never on the call path.
class CallCounterRegistry {
 public:
  CallCounterRegistry();
  ~CallCounterRegistry();
  CallCounterRegistry(const CallCounterRegistry&) = delete;
  CallCounterRegistry& operator=(const CallCounterRegistry&) = delete;

  // The process-wide registry (never destroyed).
  static CallCounterRegistry& Global();

  // The live counter of the key, or a new one at 0. eds_service_name is ""
  // for clusters without one (LOGICAL_DNS, or EDS named after the cluster).
  std::shared_ptr<CallCounter> GetOrCreate(absl::string_view cluster,
                                           absl::string_view eds_service_name);
  // Keys in the map (for tests): a key leaves when its last handle goes.
  size_t size() const;

 private:
  const std::shared_ptr<CallCounter::Map> map_;
};

// The C-core picker's admission step: starts a call on `counter`, or, at the
// threshold, records an uncategorized drop in `drop_stats` (may be null: no
// load reporting) and returns false.
bool StartCallOrRecordDrop(CallCounter& counter,
                           uint32_t max_concurrent_requests,
                           ClusterDropStats* drop_stats);

}  // namespace lrs
}  // namespace xdsfed

#endif  // XDSFED_LIB_LRS_CALL_COUNTER_H_
