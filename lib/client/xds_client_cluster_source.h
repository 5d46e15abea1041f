// The cluster driver's data source on a real XdsClient: CDS and EDS watches
// with the typed resources of lib/resources.
//
//   auto source = std::make_shared<client::XdsClientClusterSource>(client);
//   auto resolution = cluster::ClusterResolution::Start(source, "A", ...);
#ifndef XDSFED_LIB_CLIENT_XDS_CLIENT_CLUSTER_SOURCE_H_
#define XDSFED_LIB_CLIENT_XDS_CLIENT_CLUSTER_SOURCE_H_

#include <memory>
#include <string>

#include "lib/client/xds_client.h"
#include "lib/cluster/cluster_data_source.h"

namespace xdsfed {
namespace client {

class XdsClientClusterSource : public cluster::ClusterDataSource {
 public:
  explicit XdsClientClusterSource(std::shared_ptr<XdsClient> client)
      : client_(std::move(client)) {}

  WatchHandle WatchCluster(
      const std::string& name,
      std::shared_ptr<resources::ResourceWatcher<resources::ClusterResource>>
          watcher) override;
  WatchHandle WatchEndpoints(
      const std::string& name,
      std::shared_ptr<resources::ResourceWatcher<resources::EndpointResource>>
          watcher) override;
  void CancelWatch(WatchHandle handle) override;

 private:
  const std::shared_ptr<XdsClient> client_;
};

}  // namespace client
}  // namespace xdsfed

#endif  // XDSFED_LIB_CLIENT_XDS_CLIENT_CLUSTER_SOURCE_H_
