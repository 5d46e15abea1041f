// Stable names for the children of the priority_experimental policy that
// one discovery mechanism contributes (gRFC A37 §xds_cluster_resolver_
// experimental LB Policy: "Each discovery instance will also separately
// track the priority names it generates and the corresponding localities, to
// preserve them across updates"). A priority keeps its child -- and so its
// connections -- when its localities move between priorities or priorities
// are added or removed. The rule is gRPC C-core 1.51's
// (xds_cluster_resolver.cc, OnEndpointChanged):
//
//   * each new priority, highest first, takes the number of the old priority
//     holding the first of its localities (in locality order) that is still
//     claimable; once a number is taken, no other old locality of it can
//     lead a later priority to it;
//   * otherwise it gets a fresh number: the mechanism's next free number,
//     which then moves past it. (C-core also skips numbers the old update
//     used, but every number handed out is below the next free one, so that
//     skip never happens.)
//
//   PriorityChildNamer namer;  // one per mechanism, kept across updates
//   namer.Update(eds_update);  // priorities [{a,b}, {c}]  -> numbers 0, 1
//   namer.Update(next);        // priorities [{c}, {a}]    -> numbers 1, 0
//   PriorityChildName("B", namer.numbers()[0]);
//       // "{cluster=B, child_number=1}"
#ifndef XDSFED_LIB_CLUSTER_PRIORITY_CHILD_NAMES_H_
#define XDSFED_LIB_CLUSTER_PRIORITY_CHILD_NAMES_H_

#include <cstddef>
#include <memory>
#include <string>
#include <vector>

#include "absl/strings/string_view.h"
#include "lib/resources/endpoint.h"

namespace xdsfed {
namespace cluster {

// "{cluster=<cluster>, child_number=<n>}", C-core 1.51's child name. The
// cluster name keeps the children of different mechanisms apart.
std::string PriorityChildName(absl::string_view cluster, size_t child_number);

// The naming state of one discovery mechanism. A value: copy it to fork the
// state. Not thread-safe; the caller serializes updates.
class PriorityChildNamer {
 public:
  // Assigns a child number to each priority of `endpoints`, reusing the
  // numbers of the previous update. A null resource or one without
  // priorities counts as one priority with no localities (A37: a mechanism
  // that failed before any result, or whose resource does not exist).
  // Returns numbers(). The resource is kept (shared) until the next update.
  const std::vector<size_t>& Update(
      std::shared_ptr<const resources::EndpointResource> endpoints);

  // One per priority of the last update (at least one after any update).
  const std::vector<size_t>& numbers() const { return numbers_; }
  size_t next_available_child_number() const { return next_available_; }

  // Forgets everything, as a new xds_cluster_resolver policy would start.
  void Reset() { *this = PriorityChildNamer(); }

 private:
  std::shared_ptr<const resources::EndpointResource> previous_;
  std::vector<size_t> numbers_;
  size_t next_available_ = 0;
};

}  // namespace cluster
}  // namespace xdsfed

#endif  // XDSFED_LIB_CLUSTER_PRIORITY_CHILD_NAMES_H_
