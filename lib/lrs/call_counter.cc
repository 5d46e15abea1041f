#include "lib/lrs/call_counter.h"

#include <utility>

#include "absl/base/thread_annotations.h"
#include "absl/container/flat_hash_map.h"
#include "lib/base/mutex.h"
#include "lib/lrs/load_stats.h"

namespace xdsfed {
namespace lrs {

// Weak entries: the map must not keep a counter alive. An expired entry is
// either being destroyed (its destructor erases it) or already replaced.
struct CallCounter::Map {
  mutable Mutex mu;
  absl::flat_hash_map<std::pair<std::string, std::string>,
                      std::weak_ptr<CallCounter>>
      counters ABSL_GUARDED_BY(mu);
};

CallCounter::CallCounter(std::shared_ptr<Map> map, std::string cluster,
                         std::string eds_service_name)
    : map_(std::move(map)),
      cluster_(std::move(cluster)),
      eds_service_name_(std::move(eds_service_name)) {}

CallCounter::~CallCounter() {
  MutexLock lock(&map_->mu);
  auto it = map_->counters.find(std::make_pair(cluster_, eds_service_name_));
  // Not expired: a GetOrCreate that saw us dying already put a new counter
  // there, which stays.
  if (it != map_->counters.end() && it->second.expired()) {
    map_->counters.erase(it);
  }
}

bool CallCounter::TryStartCall(uint32_t max_concurrent_requests) {
  uint32_t current = in_flight_.load(std::memory_order_relaxed);
  while (current < max_concurrent_requests) {
    if (in_flight_.compare_exchange_weak(current, current + 1,
                                         std::memory_order_relaxed)) {
      return true;
    }
  }
  return false;
}

CallCounterRegistry::CallCounterRegistry()
    : map_(std::make_shared<CallCounter::Map>()) {}

CallCounterRegistry::~CallCounterRegistry() = default;

CallCounterRegistry& CallCounterRegistry::Global() {
  // Leaked on purpose: counters may be released during static destruction.
  static CallCounterRegistry* registry = new CallCounterRegistry();
  return *registry;
}

std::shared_ptr<CallCounter> CallCounterRegistry::GetOrCreate(
    absl::string_view cluster, absl::string_view eds_service_name) {
  MutexLock lock(&map_->mu);
  std::weak_ptr<CallCounter>& slot = map_->counters[std::make_pair(
      std::string(cluster), std::string(eds_service_name))];
  std::shared_ptr<CallCounter> counter = slot.lock();
  if (counter == nullptr) {
    counter.reset(new CallCounter(map_, std::string(cluster),
                                  std::string(eds_service_name)));
    slot = counter;
  }
  // Returned, never released here: releasing the last reference under mu
  // would run ~CallCounter, which takes mu.
  return counter;
}

size_t CallCounterRegistry::size() const {
  MutexLock lock(&map_->mu);
  return map_->counters.size();
}

bool StartCallOrRecordDrop(CallCounter& counter,
                           uint32_t max_concurrent_requests,
                           ClusterDropStats* drop_stats) {
  if (counter.TryStartCall(max_concurrent_requests)) return true;
  if (drop_stats != nullptr) drop_stats->AddUncategorizedDrops();
  return false;
}

}  // namespace lrs
}  // namespace xdsfed
