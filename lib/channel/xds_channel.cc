#include "lib/channel/xds_channel.h"

#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "lib/base/mutex.h"
#include "lib/bootstrap/target_resolver.h"
#include "lib/lrs/lrs_client.h"
#include "lib/transport/grpc_transport.h"
#include "lib/xds_config/xds_dependency_manager.h"

namespace xdsfed {
namespace channel {
namespace {

// What a channel without a configuration still waits for, from its
// XdsClient's cache: e.g. "no Listener \"x\" yet from xDS server
// 127.0.0.1:5000", or the route and cluster resources requested and not
// received yet. Cold path: only a pick that timed out asks.
std::string DescribeMissingConfig(const client::XdsClient& client,
                                  const ResolvedListener& resolved) {
  std::vector<std::string> servers;
  for (const auto& server : resolved.xds_servers) {
    servers.push_back(server->server_uri());
  }
  std::vector<std::string> missing;
  bool listener_missing = false;
  for (const client::ResourceStatus& r : client.ResourceStatuses()) {
    if (r.state != cache::State::kRequested) continue;
    const size_t dot = r.type_url.rfind('.');
    const absl::string_view type =
        dot == std::string::npos
            ? absl::string_view(r.type_url)
            : absl::string_view(r.type_url).substr(dot + 1);
    if (r.name == resolved.listener_resource_name) listener_missing = true;
    if (missing.size() < 4) {
      missing.push_back(absl::StrCat("no ", type, " \"", r.name, "\" yet"));
    }
  }
  if (listener_missing) {
    return absl::StrCat("no Listener \"", resolved.listener_resource_name,
                        "\" yet from xDS server",
                        servers.size() == 1 ? " " : "s ",
                        absl::StrJoin(servers, ", "));
  }
  return absl::StrJoin(missing, "; ");
}

}  // namespace

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
  endpoint_options.bootstrap = ch->client_->bootstrap();
  ch->factory_ = std::make_shared<GrpcEndpointFactory>(endpoint_options);
  ch->manager_ = std::make_shared<ManagerRef>();
  DataPlane::Options dp;
  dp.endpoints = ch->factory_;
  dp.timers = options.timers;
  dp.lrs = ch->lrs_;
  dp.batch_endpoint_changes = true;
  dp.failover_timeout = options.failover_timeout;
  dp.describe_missing_config =
      [weak = std::weak_ptr<client::XdsClient>(ch->client_),
       resolved = *resolved]() -> std::string {
    auto client = weak.lock();
    return client == nullptr ? "" : DescribeMissingConfig(*client, resolved);
  };
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
