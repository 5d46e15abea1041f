// The narrow interface through which the cluster driver watches CDS and EDS
// resources. lib/client implements it on the XdsClient
// (client::XdsClientClusterDataSource); tests implement it with a fake.
// It exists because `cluster` sits left of `client` in the module order: the
// driver's logic needs watches, not the ADS machinery.
#ifndef XDSFED_LIB_CLUSTER_CLUSTER_DATA_SOURCE_H_
#define XDSFED_LIB_CLUSTER_CLUSTER_DATA_SOURCE_H_

#include <cstdint>
#include <memory>
#include <string>

#include "absl/status/status.h"
#include "lib/resources/cluster.h"
#include "lib/resources/endpoint.h"
#include "lib/resources/resource_type.h"

namespace xdsfed {
namespace cluster {

// The watchers are the XdsClient's own (resources::ResourceWatcher), so the
// client's implementation passes them through unchanged.
class ClusterDataSource {
 public:
  using WatchHandle = uint64_t;

  virtual ~ClusterDataSource() = default;
  virtual WatchHandle WatchCluster(
      const std::string& name,
      std::shared_ptr<resources::ResourceWatcher<resources::ClusterResource>>
          watcher) = 0;
  virtual WatchHandle WatchEndpoints(
      const std::string& name,
      std::shared_ptr<resources::ResourceWatcher<resources::EndpointResource>>
          watcher) = 0;
  // Safe from inside a watcher callback. Events already under way may still
  // arrive after it returns; callers match them against their own state.
  virtual void CancelWatch(WatchHandle handle) = 0;
};

}  // namespace cluster
}  // namespace xdsfed

#endif  // XDSFED_LIB_CLUSTER_CLUSTER_DATA_SOURCE_H_
