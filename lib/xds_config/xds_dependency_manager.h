// Client mode of lib/xds_config (issue 11 item 2, in the spirit of gRPC's
// XdsDependencyManager): follows an `xds:` target's Listener (A47 name) ->
// RouteConfiguration (RDS or inline) -> the virtual host for the data-plane
// authority -> every cluster its routes name (incl. weighted_clusters) ->
// each cluster's A37 tree (lib/cluster's ClusterResolution) -> EDS and
// LOGICAL_DNS leaves with endpoints, and publishes an immutable XdsConfig
// each time something changed and the config is complete: every watch
// started has answered (data, error or does-not-exist).
//
//   auto manager = XdsDependencyManager::Start(
//       source, listener_name, "svc.example.com", {.bootstrap = bootstrap},
//       [](std::shared_ptr<const XdsConfig> config) { ... });
//   ...
//   manager->RequestReresolution("backend", "dns-fallback");
//   manager->Stop();  // no callback runs after this returns
//
// Rules:
// - A Listener or RouteConfiguration error before any value, or its
//   does-not-exist, is a published config with that status (a missing RDS
//   resource is reported after the XdsClient's does-not-exist timer, not a
//   hang). An error after a value keeps the value (logged by the client).
// - One cluster's failure is in its ClusterConfig; the others go on.
// - Clusters no longer named (and their trees' CDS / EDS watches and DNS
//   queries) are released on the update that drops them; an RDS watch on
//   the Listener update that changes its name.
// - An EDS update republishes with one ClusterConfig replaced (ClusterMap
//   shares the rest), not a rebuilt config.
#ifndef XDSFED_LIB_XDS_CONFIG_XDS_DEPENDENCY_MANAGER_H_
#define XDSFED_LIB_XDS_CONFIG_XDS_DEPENDENCY_MANAGER_H_

#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "lib/base/stoppable_serializer.h"
#include "lib/bootstrap/bootstrap.h"
#include "lib/client/xds_client.h"
#include "lib/cluster/cluster_resolution.h"
#include "lib/cluster/dns_resolver.h"
#include "lib/xds_config/resource_event.h"
#include "lib/xds_config/watch_source.h"
#include "lib/xds_config/xds_config.h"

namespace xdsfed {
namespace xds_config {

class XdsDependencyManager
    : public std::enable_shared_from_this<XdsDependencyManager> {
 public:
  struct Options {
    // Expands `lrs_server: self` (A47); without it no LRS server is set.
    std::shared_ptr<const Bootstrap> bootstrap;
    // LOGICAL_DNS: the resolver (SystemDnsResolver() when null) and the
    // timer of the retry after a failure (none when null; StartForTarget
    // uses the XdsClient's timers).
    std::shared_ptr<cluster::DnsResolver> dns_resolver;
    std::shared_ptr<cluster::RetryTimer> retry_timer;
    cluster::DnsBackoffOptions dns_backoff;
  };
  // One snapshot at a time, on whichever thread delivered the event that
  // completed it, never under this object's lock.
  using Callback = std::function<void(std::shared_ptr<const XdsConfig>)>;

  static std::shared_ptr<XdsDependencyManager> Start(
      std::shared_ptr<WatchSource> source, std::string listener_name,
      std::string data_plane_authority, Options options, Callback callback);
  // The `xds:` target resolved against the client's bootstrap (A47), its
  // resources watched on `client` (events also go to `observer`, if set).
  // Errors: the target's (kInvalidArgument, as ResolveXdsTarget).
  static absl::StatusOr<std::shared_ptr<XdsDependencyManager>> StartForTarget(
      std::shared_ptr<client::XdsClient> client, absl::string_view target,
      Callback callback, ResourceObserver observer = nullptr);

  ~XdsDependencyManager();
  XdsDependencyManager(const XdsDependencyManager&) = delete;
  XdsDependencyManager& operator=(const XdsDependencyManager&) = delete;

  // The data plane asks for DNS re-resolution of `leaf` in the tree of the
  // route's cluster `root` (a priority child's connections failed): ignored
  // for EDS leaves (A37 ignore_reresolution_requests).
  void RequestReresolution(std::string root, std::string leaf);
  // Cancels every watch and DNS query. No callback starts after it returns,
  // and one running on another thread has finished. May be called from
  // inside the callback.
  void Stop();

  struct PrivateTag {};
  XdsDependencyManager(PrivateTag, std::shared_ptr<WatchSource> source,
                       std::string listener_name,
                       std::string data_plane_authority, Options options,
                       Callback callback);

 private:
  // Watchers that post their events to Post (resources::PostingWatcher).
  std::shared_ptr<ResourceWatcher<resources::Listener>> NewListenerWatcher();
  std::shared_ptr<ResourceWatcher<resources::RouteConfig>> NewRouteWatcher(
      uint64_t token);
  struct Root {
    std::shared_ptr<cluster::ClusterResolution> resolution;
    std::shared_ptr<const ClusterConfig> config;  // null until first update
    size_t slot = 0;                              // in clusters_
    uint64_t generation = 0;  // late updates of a replaced resolution
  };

  void Post(std::function<void()> fn);
  // Serializer only (CancelAll: its on_stop).
  void CancelAll();
  void OnListener(std::shared_ptr<const resources::Listener> listener);
  void OnListenerError(absl::Status status);
  void OnListenerDoesNotExist();
  void OnRoute(uint64_t token, std::shared_ptr<const resources::RouteConfig> r);
  void OnRouteError(uint64_t token, absl::Status status);
  void OnRouteDoesNotExist(uint64_t token);
  void OnClusterUpdate(const std::string& root, uint64_t generation,
                       const cluster::ClusterResolution::Update& update);
  void SetRdsName(std::string name);
  void UpdateRoutes();
  void SetRoots(std::vector<std::string> names);
  void MaybePublish();
  void Publish(std::shared_ptr<const XdsConfig> config);

  const std::shared_ptr<WatchSource> source_;
  const std::string listener_name_;
  const std::string authority_;
  const Options options_;
  const Callback callback_;

  StoppableSerializer serializer_{[this] { CancelAll(); }};
  // Serializer state.
  cluster::ClusterDataSource::WatchHandle listener_watch_ = 0;
  bool listener_answered_ = false;
  std::shared_ptr<const resources::Listener> listener_;
  absl::Status listener_status_;
  std::string rds_name_;  // "" = inline (or none)
  cluster::ClusterDataSource::WatchHandle rds_watch_ = 0;
  uint64_t rds_token_ = 0;
  bool route_answered_ = false;
  std::shared_ptr<const resources::RouteConfig> route_;
  absl::Status route_status_;
  const resources::VirtualHost* virtual_host_ = nullptr;
  absl::Status vhost_status_;
  absl::flat_hash_map<std::string, Root> roots_;
  uint64_t next_generation_ = 1;  // tells a root's resolutions apart
  size_t pending_roots_ = 0;      // roots_ without a config yet
  ClusterMap clusters_;
  bool dirty_ = true;
};

}  // namespace xds_config
}  // namespace xdsfed

#endif  // XDSFED_LIB_XDS_CONFIG_XDS_DEPENDENCY_MANAGER_H_
