#include "lib/client/xds_client_cluster_source.h"

#include <utility>

#include "lib/resources/cluster.h"
#include "lib/resources/endpoint.h"

namespace xdsfed {
namespace client {
namespace {

// An XdsClient watcher forwarding typed events to a cluster::DataWatcher.
template <typename T>
class Forwarder : public TypedWatcher<T> {
 public:
  explicit Forwarder(std::shared_ptr<cluster::DataWatcher<T>> target)
      : target_(std::move(target)) {}
  void OnChanged(std::shared_ptr<const T> value) override {
    target_->OnChanged(std::move(value));
  }
  void OnError(absl::Status status) override {
    target_->OnError(std::move(status));
  }
  void OnDoesNotExist() override { target_->OnDoesNotExist(); }

 private:
  const std::shared_ptr<cluster::DataWatcher<T>> target_;
};

}  // namespace

cluster::ClusterDataSource::WatchHandle XdsClientClusterSource::WatchCluster(
    const std::string& name,
    std::shared_ptr<cluster::DataWatcher<resources::ClusterResource>> watcher) {
  return client_->Watch(resources::ClusterResourceType(), name,
                        std::make_shared<Forwarder<resources::ClusterResource>>(
                            std::move(watcher)));
}

cluster::ClusterDataSource::WatchHandle XdsClientClusterSource::WatchEndpoints(
    const std::string& name,
    std::shared_ptr<cluster::DataWatcher<resources::EndpointResource>>
        watcher) {
  return client_->Watch(
      resources::EndpointResourceType(), name,
      std::make_shared<Forwarder<resources::EndpointResource>>(
          std::move(watcher)));
}

void XdsClientClusterSource::CancelWatch(WatchHandle handle) {
  client_->CancelWatch(handle);
}

}  // namespace client
}  // namespace xdsfed
