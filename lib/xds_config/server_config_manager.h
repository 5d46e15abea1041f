// Server mode of lib/xds_config (issue 11 item 2; A36 §xDS Protocol): for
// a listening address, the server Listener (name from the bootstrap's
// server_listener_resource_name_template, A47) and, for every filter chain
// and the default chain whose HttpConnectionManager uses `rds`, that
// RouteConfiguration. Publishes an immutable ServerConfig:
// - only once every RDS watch has been notified (data, error or
//   does-not-exist): "the server should enter the serving state only after
//   every RDS watcher has received some kind of notification" (A36);
// - a Listener update is held until the RDS watches it adds have answered
//   ("applying updates to a Listener should be delayed until dependent
//   resources have been attempted to be loaded"), which the XdsClient's
//   does-not-exist timer bounds;
// - an update equal to the last published one publishes nothing.
//
//   auto manager = ServerConfigManager::Start(source, listener_name,
//       "0.0.0.0:8080", [](std::shared_ptr<const ServerConfig> c) { ... });
//   manager->Stop();
#ifndef XDSFED_LIB_XDS_CONFIG_SERVER_CONFIG_MANAGER_H_
#define XDSFED_LIB_XDS_CONFIG_SERVER_CONFIG_MANAGER_H_

#include <functional>
#include <map>
#include <memory>
#include <set>
#include <string>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "lib/base/stoppable_serializer.h"
#include "lib/client/xds_client.h"
#include "lib/xds_config/resource_event.h"
#include "lib/xds_config/watch_source.h"
#include "lib/xds_config/xds_config.h"

namespace xdsfed {
namespace xds_config {

class ServerConfigManager
    : public std::enable_shared_from_this<ServerConfigManager> {
 public:
  using Callback = std::function<void(std::shared_ptr<const ServerConfig>)>;

  // `listening_address` ("ip:port", IPv6 bracketed) must equal the
  // Listener's address (A36: else not serving).
  static std::shared_ptr<ServerConfigManager> Start(
      std::shared_ptr<WatchSource> source, std::string listener_name,
      std::string listening_address, Callback callback);
  // The Listener name from the client's bootstrap (ResolveServerListener).
  static absl::StatusOr<std::shared_ptr<ServerConfigManager>> StartForAddress(
      std::shared_ptr<client::XdsClient> client,
      absl::string_view listening_address, Callback callback,
      ResourceObserver observer = nullptr);

  ~ServerConfigManager();
  ServerConfigManager(const ServerConfigManager&) = delete;
  ServerConfigManager& operator=(const ServerConfigManager&) = delete;

  // As XdsDependencyManager::Stop().
  void Stop();

  struct PrivateTag {};
  ServerConfigManager(PrivateTag, std::shared_ptr<WatchSource> source,
                      std::string listener_name, std::string listening_address,
                      Callback callback);

 private:
  // Watchers that post their events to Post (resources::PostingWatcher).
  std::shared_ptr<ResourceWatcher<resources::Listener>> NewListenerWatcher();
  std::shared_ptr<ResourceWatcher<resources::RouteConfig>> NewRouteWatcher(
      std::string name, uint64_t token);
  struct RdsState {
    cluster::ClusterDataSource::WatchHandle handle = 0;
    uint64_t token = 0;
    bool answered = false;
    ServerConfig::Rds value;
  };

  void Post(std::function<void()> fn);
  // Serializer only (CancelAll: its on_stop).
  void CancelAll();
  void OnListener(std::shared_ptr<const resources::Listener> listener);
  void OnListenerError(absl::Status status);
  void OnListenerDoesNotExist();
  void OnRoute(const std::string& name, uint64_t token,
               std::shared_ptr<const resources::RouteConfig> route);
  void OnRouteError(const std::string& name, uint64_t token,
                    absl::Status status);
  void OnRouteDoesNotExist(const std::string& name, uint64_t token);
  RdsState* FindRds(const std::string& name, uint64_t token);
  void WatchRds(const std::set<std::string>& names);
  void ReleaseUnused();
  void MaybeApplyPending();
  void MaybePublish();
  void Publish(std::shared_ptr<const ServerConfig> config);

  const std::shared_ptr<WatchSource> source_;
  const std::string listener_name_;
  const std::string listening_address_;
  const Callback callback_;

  StoppableSerializer serializer_{[this] { CancelAll(); }};
  // Serializer state.
  cluster::ClusterDataSource::WatchHandle listener_watch_ = 0;
  uint64_t next_token_ = 1;
  // The applied Listener (and its RDS names) and the one held until its new
  // RDS watches have answered.
  std::shared_ptr<const resources::Listener> listener_;
  std::set<std::string> listener_rds_;
  std::shared_ptr<const resources::Listener> pending_;
  std::set<std::string> pending_rds_;
  bool answered_ = false;  // the Listener watch said something
  absl::Status status_;
  std::map<std::string, RdsState> rds_;
  std::shared_ptr<const ServerConfig> last_;
};

}  // namespace xds_config
}  // namespace xdsfed

#endif  // XDSFED_LIB_XDS_CONFIG_SERVER_CONFIG_MANAGER_H_
