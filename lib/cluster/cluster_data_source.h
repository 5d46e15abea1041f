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

namespace xdsfed {
namespace cluster {

// The XdsClient's watcher contract: never called under the source's locks;
// events of one watch arrive one at a time, in order.
template <typename T>
class DataWatcher {
 public:
  virtual ~DataWatcher() = default;
  virtual void OnChanged(std::shared_ptr<const T> value) = 0;
  // Transient (stream / connectivity) error; the last value, if any, stays.
  virtual void OnError(absl::Status status) = 0;
  virtual void OnDoesNotExist() = 0;
};

class ClusterDataSource {
 public:
  using WatchHandle = uint64_t;

  virtual ~ClusterDataSource() = default;
  virtual WatchHandle WatchCluster(
      const std::string& name,
      std::shared_ptr<DataWatcher<resources::ClusterResource>> watcher) = 0;
  virtual WatchHandle WatchEndpoints(
      const std::string& name,
      std::shared_ptr<DataWatcher<resources::EndpointResource>> watcher) = 0;
  // Safe from inside a watcher callback. Events already under way may still
  // arrive after it returns; callers match them against their own state.
  virtual void CancelWatch(WatchHandle handle) = 0;
};

}  // namespace cluster
}  // namespace xdsfed

#endif  // XDSFED_LIB_CLUSTER_CLUSTER_DATA_SOURCE_H_
