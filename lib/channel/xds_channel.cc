#include "lib/channel/xds_channel.h"

#include <utility>

#include "lib/base/mutex.h"
#include "lib/bootstrap/target_resolver.h"
#include "lib/lrs/lrs_client.h"
#include "lib/transport/grpc_transport.h"
#include "lib/xds_config/xds_dependency_manager.h"

namespace xdsfed {
namespace channel {

// The dependency manager, reachable from the data plane's re-resolution
// requests (which may come from any thread while the channel shuts down).
struct XdsChannel::ManagerRef {
  Mutex mu;
  std::shared_ptr<xds_config::XdsDependencyManager> manager ABSL_GUARDED_BY(mu);
};

absl::StatusOr<std::unique_ptr<XdsChannel>> XdsChannel::Create(
    std::shared_ptr<const Bootstrap> bootstrap, absl::string_view target,
    Options options) {
  // The target is checked before any connection is made.
  absl::StatusOr<ResolvedListener> resolved =
      ResolveXdsTarget(*bootstrap, target);
  if (!resolved.ok()) return resolved.status();
  auto client = client::XdsClient::Create(
      bootstrap, std::make_shared<transport::GrpcXdsTransportFactory>(),
      options.xds_client);
  if (!client.ok()) return client.status();
  return Create(*std::move(client), target, std::move(options));
}

absl::StatusOr<std::unique_ptr<XdsChannel>> XdsChannel::Create(
    std::shared_ptr<client::XdsClient> client, absl::string_view target,
    Options options) {
  absl::StatusOr<ResolvedListener> resolved =
      ResolveXdsTarget(*client->bootstrap(), target);
  if (!resolved.ok()) return resolved.status();
  std::unique_ptr<XdsChannel> ch(new XdsChannel());
  ch->authority_ = resolved->data_plane_authority;
  ch->client_ = std::move(client);
  if (options.load_reporting) {
    auto lrs = lrs::LrsClient::Create(ch->client_, {});
    if (!lrs.ok()) return lrs.status();
    ch->lrs_ = *std::move(lrs);
  }
  GrpcEndpointFactory::Options endpoint_options;
  endpoint_options.authority = ch->authority_;
  endpoint_options.min_reconnect_backoff = options.min_reconnect_backoff;
  endpoint_options.max_reconnect_backoff = options.max_reconnect_backoff;
  ch->factory_ = std::make_shared<GrpcEndpointFactory>(endpoint_options);
  ch->manager_ = std::make_shared<ManagerRef>();
  DataPlane::Options dp;
  dp.endpoints = ch->factory_;
  dp.timers = options.timers;
  dp.lrs = ch->lrs_;
  dp.batch_endpoint_changes = true;
  dp.failover_timeout = options.failover_timeout;
  dp.retention = options.retention;
  dp.request_reresolution = [ref = std::weak_ptr<ManagerRef>(ch->manager_)](
                                const std::string& root,
                                const std::string& leaf) {
    auto r = ref.lock();
    if (r == nullptr) return;
    std::shared_ptr<xds_config::XdsDependencyManager> m;
    {
      MutexLock lock(&r->mu);
      m = r->manager;
    }
    if (m != nullptr) m->RequestReresolution(root, leaf);
  };
  ch->data_plane_ = DataPlane::Create(std::move(dp));
  auto manager = xds_config::XdsDependencyManager::StartForTarget(
      ch->client_, target,
      [weak = std::weak_ptr<DataPlane>(ch->data_plane_)](
          std::shared_ptr<const xds_config::XdsConfig> config) {
        if (auto dp = weak.lock()) dp->Update(std::move(config));
      });
  if (!manager.ok()) return manager.status();
  {
    MutexLock lock(&ch->manager_->mu);
    ch->manager_->manager = *std::move(manager);
  }
  return ch;
}

XdsChannel::~XdsChannel() {
  std::shared_ptr<xds_config::XdsDependencyManager> manager;
  if (manager_ != nullptr) {
    MutexLock lock(&manager_->mu);
    manager = std::move(manager_->manager);
  }
  if (manager != nullptr) manager->Stop();
  if (data_plane_ != nullptr) data_plane_->Shutdown();
  data_plane_.reset();
  factory_.reset();  // waits for the endpoint watches
}

}  // namespace channel
}  // namespace xdsfed
