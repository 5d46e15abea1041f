// Follows the chain of resources a gRPC channel (or an xDS-enabled server)
// would, on top of an XdsClient: Listener -> RouteConfiguration -> Clusters
// (through aggregate children) -> ClusterLoadAssignments. Each watcher event
// goes to a sink; when a resource changes, the watches below it are moved to
// what it now names. Used by `xdsfed watch` and `xdsfed demo`.
//
//   ChainWatch chain(client, [](const ChainWatch::Event& e) { Print(e); });
//   chain.FollowListener(listener_name, ChainWatch::Mode::kClient, "svc");
//   ...
//   chain.Stop();
#ifndef XDSFED_TOOLS_XDSFED_CHAIN_WATCH_H_
#define XDSFED_TOOLS_XDSFED_CHAIN_WATCH_H_

#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <utility>

#include "absl/base/thread_annotations.h"
#include "absl/status/status.h"
#include "absl/synchronization/mutex.h"
#include "lib/client/xds_client.h"
#include "lib/resources/resource_type.h"

namespace xdsfed::cli {

class ChainWatch {
 public:
  enum class Mode {
    kClient,  // Listener with api_listener; clusters and endpoints follow
    kServer,  // Listener with address; its RouteConfigurations follow
    kNone,    // just the resource itself
  };
  struct Event {
    enum class Kind { kChanged, kError, kDoesNotExist };
    const resources::ResourceType* type = nullptr;
    std::string name;
    Kind kind = Kind::kChanged;
    std::shared_ptr<const void> value;  // kChanged
    absl::Status error;                 // kError
  };
  using Sink = std::function<void(const Event&)>;
  // The root clusters of the chain (those a route names, or a Cluster
  // watched directly in kClient mode): the trees a channel would resolve.
  // Called with the whole set whenever it changes, one call at a time.
  using RootsSink = std::function<void(const std::set<std::string>& roots)>;

  // The sink runs on the client's callback thread, one event at a time.
  ChainWatch(std::shared_ptr<client::XdsClient> client, Sink sink,
             RootsSink roots_sink = nullptr);
  ~ChainWatch();  // Stop()
  ChainWatch(const ChainWatch&) = delete;
  ChainWatch& operator=(const ChainWatch&) = delete;

  // data_plane_authority picks the virtual host (client mode).
  void FollowListener(const std::string& name, Mode mode,
                      std::string data_plane_authority);
  // One resource of any type; in kClient mode a Cluster is followed down to
  // its endpoints.
  void Watch(const resources::ResourceType& type, const std::string& name,
             Mode mode);
  // Cancels every watch; no event starts after it returns.
  void Stop();

 private:
  class NodeWatcher;
  using Key = std::pair<const resources::ResourceType*, std::string>;
  struct Node {
    client::WatchId id = 0;
    int refs = 0;
    std::set<Key> children;
  };

  void OnEvent(const Key& key, Event event);
  // What a resource's value points at, in the mode of this chain.
  std::set<Key> ChildrenOf(const Key& key, const void* value) const
      ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  // Adds a reference to key (watching it if new); returns whether a watch
  // must start (outside the lock).
  bool RefLocked(const Key& key) ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  // Drops a reference; collects the watches to cancel (recursively).
  void UnrefLocked(const Key& key, std::set<client::WatchId>* cancel)
      ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  void StartWatch(const Key& key);
  // The union of roots_of_ and direct_roots_ if it differs from what
  // roots_sink_ saw last (then remembered as seen), else nullopt.
  std::optional<std::set<std::string>> RootsChangedLocked()
      ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);

  const std::shared_ptr<client::XdsClient> client_;
  const Sink sink_;
  absl::Mutex mu_;
  bool stopped_ ABSL_GUARDED_BY(mu_) = false;
  int running_events_ ABSL_GUARDED_BY(mu_) = 0;
  Mode mode_ ABSL_GUARDED_BY(mu_) = Mode::kNone;
  std::string data_plane_authority_ ABSL_GUARDED_BY(mu_);
  std::map<Key, Node> nodes_ ABSL_GUARDED_BY(mu_);
  const RootsSink roots_sink_;
  // Root clusters named by each Listener / RouteConfiguration (kClient).
  std::map<Key, std::set<std::string>> roots_of_ ABSL_GUARDED_BY(mu_);
  std::set<std::string> direct_roots_ ABSL_GUARDED_BY(mu_);
  std::set<std::string> roots_seen_ ABSL_GUARDED_BY(mu_);
};

}  // namespace xdsfed::cli

#endif  // XDSFED_TOOLS_XDSFED_CHAIN_WATCH_H_
