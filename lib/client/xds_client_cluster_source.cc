#include "lib/client/xds_client_cluster_source.h"

#include <utility>

#include "lib/resources/cluster.h"
#include "lib/resources/endpoint.h"

namespace xdsfed {
namespace client {

cluster::ClusterDataSource::WatchHandle XdsClientClusterSource::WatchCluster(
    const std::string& name,
    std::shared_ptr<resources::ResourceWatcher<resources::ClusterResource>>
        watcher) {
  return client_->Watch<resources::ClusterResource>(name, std::move(watcher));
}

cluster::ClusterDataSource::WatchHandle XdsClientClusterSource::WatchEndpoints(
    const std::string& name,
    std::shared_ptr<resources::ResourceWatcher<resources::EndpointResource>>
        watcher) {
  return client_->Watch<resources::EndpointResource>(name, std::move(watcher));
}

void XdsClientClusterSource::CancelWatch(WatchHandle handle) {
  client_->CancelWatch(handle);
}

}  // namespace client
}  // namespace xdsfed
