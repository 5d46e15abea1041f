// The narrow interface through which lib/xds_config watches resources: the
// four xDS types, with the XdsClient's watcher contract (events of one watch
// one at a time and in order, never under the source's locks). Production
// uses XdsClientWatchSource (xds_client_watch_source.h); unit tests and
// benches drive a fake so that every event comes in a chosen order.
#ifndef XDSFED_LIB_XDS_CONFIG_WATCH_SOURCE_H_
#define XDSFED_LIB_XDS_CONFIG_WATCH_SOURCE_H_

#include <memory>
#include <string>

#include "lib/cluster/cluster_data_source.h"
#include "lib/resources/listener.h"
#include "lib/resources/resource_type.h"
#include "lib/resources/route_config.h"

namespace xdsfed {
namespace xds_config {

// The XdsClient's own watcher type (XdsClient::Watch<T>).
template <typename T>
using ResourceWatcher = resources::ResourceWatcher<T>;

// CDS and EDS as the cluster driver (lib/cluster) watches them, plus LDS and
// RDS.
class WatchSource : public cluster::ClusterDataSource {
 public:
  virtual WatchHandle WatchListener(
      const std::string& name,
      std::shared_ptr<ResourceWatcher<resources::Listener>> watcher) = 0;
  virtual WatchHandle WatchRouteConfig(
      const std::string& name,
      std::shared_ptr<ResourceWatcher<resources::RouteConfig>> watcher) = 0;
};

}  // namespace xds_config
}  // namespace xdsfed

#endif  // XDSFED_LIB_XDS_CONFIG_WATCH_SOURCE_H_
