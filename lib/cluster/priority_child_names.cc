#include "lib/cluster/priority_child_names.h"

#include <map>
#include <optional>
#include <utility>

#include "absl/container/flat_hash_map.h"
#include "absl/hash/hash.h"
#include "absl/strings/str_cat.h"

namespace xdsfed {
namespace cluster {
namespace {

using Locality = resources::EndpointResource::Locality;
using Priority = resources::EndpointResource::Priority;

// Hash and compare the localities, not the pointers: old and new localities
// live in different resources. Hashing beats an ordered map here: localities
// often share long region/zone prefixes, which makes ordered compares slow.
struct LocalityPtrHash {
  size_t operator()(const Locality* l) const {
    return absl::HashOf(l->region, l->zone, l->sub_zone);
  }
};
struct LocalityPtrEq {
  bool operator()(const Locality* a, const Locality* b) const {
    return *a == *b;
  }
};

}  // namespace

std::string PriorityChildName(absl::string_view cluster, size_t child_number) {
  return absl::StrCat("{cluster=", cluster, ", child_number=", child_number,
                      "}");
}

const std::vector<size_t>& PriorityChildNamer::Update(
    std::shared_ptr<const resources::EndpointResource> endpoints) {
  // Old locality -> old child number, for the localities that may still
  // lead a new priority to their old number.
  absl::flat_hash_map<const Locality*, size_t, LocalityPtrHash, LocalityPtrEq>
      claimable;
  // Old child number -> the old priority that had it (numbers are unique
  // within an update).
  std::map<size_t, const Priority*> old_priority_of;
  if (previous_ != nullptr) {
    const auto& old = previous_->priorities;
    size_t total = 0;
    for (const Priority& priority : old) total += priority.localities.size();
    claimable.reserve(total);
    for (size_t p = 0; p < old.size() && p < numbers_.size(); ++p) {
      old_priority_of.emplace(numbers_[p], &old[p]);
      for (const auto& entry : old[p].localities) {
        claimable.emplace(&entry.first, numbers_[p]);
      }
    }
  }
  // A37: a mechanism without a result still gets one priority, with no
  // localities, so that its xds_cluster_impl child exists. Having no
  // localities, it always gets a fresh number (as in C-core).
  const bool has_priorities =
      endpoints != nullptr && !endpoints->priorities.empty();
  const size_t count = has_priorities ? endpoints->priorities.size() : 1;
  std::vector<size_t> numbers;
  numbers.reserve(count);
  for (size_t p = 0; p < count; ++p) {
    std::optional<size_t> number;
    if (!has_priorities) {
      numbers.push_back(next_available_++);
      continue;
    }
    for (const auto& entry : endpoints->priorities[p].localities) {
      auto it = claimable.find(&entry.first);
      if (it == claimable.end()) continue;
      if (number.has_value()) {
        // This locality now belongs to `number`: it must not pull a later
        // priority to its old child.
        claimable.erase(it);
        continue;
      }
      number = it->second;
      // The number is taken: none of its old localities may claim it again.
      auto old = old_priority_of.find(*number);
      if (old == old_priority_of.end()) continue;  // unreachable
      for (const auto& old_entry : old->second->localities) {
        claimable.erase(&old_entry.first);
      }
    }
    if (!number.has_value()) number = next_available_++;
    numbers.push_back(*number);
  }
  previous_ = has_priorities ? std::move(endpoints) : nullptr;
  numbers_ = std::move(numbers);
  return numbers_;
}

}  // namespace cluster
}  // namespace xdsfed
