// lib/xds_config's WatchSource on a real XdsClient, optionally reporting
// every event to an observer before the watcher sees it.
//
//   auto source = std::make_shared<XdsClientWatchSource>(client, observer);
//   auto manager = XdsDependencyManager::Start(source, ...);
#ifndef XDSFED_LIB_XDS_CONFIG_XDS_CLIENT_WATCH_SOURCE_H_
#define XDSFED_LIB_XDS_CONFIG_XDS_CLIENT_WATCH_SOURCE_H_

#include <memory>
#include <string>

#include "lib/client/xds_client.h"
#include "lib/xds_config/resource_event.h"
#include "lib/xds_config/watch_source.h"

namespace xdsfed {
namespace xds_config {

class XdsClientWatchSource : public WatchSource {
 public:
  explicit XdsClientWatchSource(std::shared_ptr<client::XdsClient> client,
                                ResourceObserver observer = nullptr)
      : client_(std::move(client)), observer_(std::move(observer)) {}

  WatchHandle WatchListener(
      const std::string& name,
      std::shared_ptr<ResourceWatcher<resources::Listener>> watcher) override;
  WatchHandle WatchRouteConfig(
      const std::string& name,
      std::shared_ptr<ResourceWatcher<resources::RouteConfig>> watcher)
      override;
  WatchHandle WatchCluster(
      const std::string& name,
      std::shared_ptr<ResourceWatcher<resources::ClusterResource>> watcher)
      override;
  WatchHandle WatchEndpoints(
      const std::string& name,
      std::shared_ptr<ResourceWatcher<resources::EndpointResource>> watcher)
      override;
  void CancelWatch(WatchHandle handle) override;

  const std::shared_ptr<client::XdsClient>& client() const { return client_; }

 private:
  const std::shared_ptr<client::XdsClient> client_;
  const ResourceObserver observer_;
};

}  // namespace xds_config
}  // namespace xdsfed

#endif  // XDSFED_LIB_XDS_CONFIG_XDS_CLIENT_WATCH_SOURCE_H_
