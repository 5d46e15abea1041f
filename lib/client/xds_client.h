// XdsClient: the xDS client of gRFC A47 §XdsClient Changes. Callers watch
// resources by (type, name); the client keeps one ADS stream per xDS server
// (authorities naming the same server share it), caches every watched
// resource in a three-level cache (lib/cache), ACKs / NACKs responses and
// tells watchers about changes, errors and deletions.
//
// clang-format off
//   class MyWatcher : public resources::ResourceWatcher<resources::Listener> {
//    public:
//     void OnChanged(std::shared_ptr<const resources::Listener> l) override {}
//     void OnError(absl::Status status) override {}
//     void OnDoesNotExist() override {}
//   };
//   auto client = client::XdsClient::Create(
//       bootstrap, std::make_shared<transport::GrpcXdsTransportFactory>(), {});
//   if (!client.ok()) return client.status();
//   client::WatchId id = (*client)->Watch<resources::Listener>(
//       "xdstp://a.com/envoy.config.listener.v3.Listener/svc",
//       std::make_shared<MyWatcher>());
//   // ... later (also from inside a callback):
//   (*client)->CancelWatch(id);
// clang-format on
//
// Callbacks: never under the client's lock; all callbacks of one client run
// one at a time (one serializing queue), so one watcher is never called
// concurrently and sees its events in order. They run on the thread whose
// action caused them (the caller of Watch / CancelWatch, a transport thread,
// the timer thread) after it released the lock, or on whichever thread is
// already running callbacks. In particular Watch() itself may deliver the
// watcher's first callback (cached state, or the error for an invalid name)
// before it returns, exactly as C-core's WorkSerializer runs work inline when
// idle; when Watch() is called from inside a callback, the new callbacks run
// after that callback returns.
//
// Cancelling: CancelWatch() (also from inside any callback, including the
// watcher's own) guarantees that no callback for that watch starts after it
// returns. A callback that another thread had already started may still be
// running (and finish) after CancelWatch returns on this thread.
//
// Fallback (gRFC A71; Options::fallback, on unless
// GRPC_EXPERIMENTAL_XDS_FALLBACK=false): each authority uses its
// xds_servers (or the top-level list) in order, a server listed twice once.
// When the authority's current server has a connectivity failure (A57:
// TRANSIENT_FAILURE, or a stream closed before its first response) while
// one of its watched resources is not cached (no value and not known not
// to exist), the next server is connected and subscribed to everything the
// authority watches; a new watch of a resource not cached while the current
// server is failing does the same at once. Watchers hear the failure only
// from the last server that could be tried. Higher-priority servers keep
// their streams (and subscriptions); the first resource of the authority
// one of them sends switches the authority back to it and releases the
// lower ones. Fallback is per authority, within this client.
//
// Scope (A71 §Change global XdsClient ... to per-target instances): gRPC
// keys its XdsClients by data-plane target so that one target's fallback
// never moves another target, whose resources are cached, onto fallback
// data. xdsfed has no global client; whoever creates an XdsClient chooses
// its scope. XdsChannel::Create(bootstrap, target) creates one per channel
// (a finer scope than gRPC's: two channels to one target do not share a
// cache, at the cost of twice the xDS traffic); XdsChannel::Create(client,
// target) lets callers share one client, which keeps A71's guarantee only
// among channels of one target. XdsServerBuilder creates one client per
// server, reported in CSDS with client_scope "#server"
// (admin::kServerClientScope); `xdsfed watch` reports its target, or
// "#server" with --server-listen.
//
// Threading: every public method is thread-safe. The transport factory must
// not call on_connectivity_failure synchronously from Create().
#ifndef XDSFED_LIB_CLIENT_XDS_CLIENT_H_
#define XDSFED_LIB_CLIENT_XDS_CLIENT_H_

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/string_view.h"
#include "absl/time/time.h"
#include "json/json.h"
#include "lib/base/fallback_gate.h"
#include "lib/bootstrap/bootstrap.h"
#include "lib/client/backoff.h"
#include "lib/client/config_dump.h"
#include "lib/client/timer.h"
#include "lib/client/xds_transport.h"
#include "lib/metrics/recorder.h"
#include "lib/resources/resource_type.h"

namespace xdsfed {
namespace client {

using WatchId = uint64_t;

// The watcher of a watch on a type known only at run time
// (Watch(type, name, watcher)): values come as the type's ResourceData,
// which type.ToJson() prints and XdsResourceType<T>::Cast() opens.
using AnyWatcher = resources::ResourceWatcher<resources::ResourceData>;

namespace internal {

// Runs a typed watcher behind the client's type-erased watch.
template <typename T>
class TypedWatcherAdapter final : public AnyWatcher {
 public:
  explicit TypedWatcherAdapter(
      std::shared_ptr<resources::ResourceWatcher<T>> target)
      : target_(std::move(target)) {}
  void OnChanged(
      std::shared_ptr<const resources::ResourceData> value) override {
    std::shared_ptr<const T> typed =
        resources::XdsResourceType<T>::Cast(std::move(value));
    if (typed == nullptr) {
      // Only when another ResourceType was registered first for T's type
      // URL (the client keeps one type per URL): say so rather than cast.
      target_->OnError(absl::InternalError(
          absl::StrCat("the client decodes ",
                       resources::XdsResourceType<T>::Get().type_url(),
                       " with another value type than this watch's")));
      return;
    }
    target_->OnChanged(std::move(typed));
  }
  void OnError(absl::Status status) override {
    target_->OnError(std::move(status));
  }
  void OnDoesNotExist() override { target_->OnDoesNotExist(); }

 private:
  const std::shared_ptr<resources::ResourceWatcher<T>> target_;
};

}  // namespace internal

class XdsClient {
 public:
  struct Options {
    // A47 / C-core: a subscribed resource not received this long after the
    // request naming it was sent is reported as not existing. A57 §Handling
    // Resources That Do Not Exist: "sent" is the send's completion, which
    // on a wait-for-ready stream (lib/transport) comes only once the stream
    // is on a connected transport, so an unreachable server never makes a
    // resource not exist (tests: A57FailureModesTable, e2e
    // UnreachableServerNeverMakesResourcesNotExist). The timer runs again
    // on each new stream, for resources not cached.
    absl::Duration does_not_exist_timeout = absl::Seconds(15);
    // ADS stream reconnect backoff (C-core 1.51 values by default).
    BackoffOptions backoff;
    // Seeds the backoff jitter. Unset (the default): a random seed
    // (RandomJitterSeed()), so that clients that lose the same server retry
    // at different times; options() then shows the seed used. Tests set a
    // fixed one.
    std::optional<uint64_t> jitter_seed;
    // Clock and timers; null: DefaultTimers().
    std::shared_ptr<Timers> timers;
    // A71 fallback: every server of an authority's xds_servers (or the
    // top-level list) in order, else only the first. Default: the
    // GRPC_EXPERIMENTAL_XDS_FALLBACK gate (lib/base/fallback_gate.h, on
    // unless "false").
    bool fallback = FallbackEnabledFromEnv();
    // Node.user_agent_name / user_agent_version of the first request.
    std::string user_agent_name = "xdsfed";
    std::string user_agent_version = "0.1";
    // gRFC A78 instruments (xds_client_metrics.h); null: not recorded. Must
    // outlive the client. metrics_target is their grpc.target label: the
    // channel's target, or "#server" (metrics::kServerTarget) for servers.
    metrics::MetricsRecorder* metrics = nullptr;
    std::string metrics_target;
  };

  // bootstrap->federation() is the A47 gate for names. Errors: none today
  // (kept StatusOr for validation of future options).
  static absl::StatusOr<std::shared_ptr<XdsClient>> Create(
      std::shared_ptr<const Bootstrap> bootstrap,
      std::shared_ptr<XdsTransportFactory> transport_factory, Options options);

  ~XdsClient();
  XdsClient(const XdsClient&) = delete;
  XdsClient& operator=(const XdsClient&) = delete;

  // Starts a watch. `type` must outlive the client (the first ResourceType
  // passed for a type URL is the one used for it); `watcher` must not be null
  // (a null one is ignored). The name is normalized
  // under the federation gate with the type's expected segment; an
  // unparseable name or an authority not in the bootstrap gives this watcher
  // (only) one OnError and subscribes to nothing; the id must still be
  // cancelled (or is dropped with the client).
  WatchId Watch(const resources::ResourceType& type, absl::string_view name,
                std::shared_ptr<AnyWatcher> watcher);
  // The same for the client's type for T (XdsResourceType<T>::Get()): the
  // watcher gets std::shared_ptr<const T>, e.g.
  //   client->Watch<resources::Listener>(name, listener_watcher);
  template <typename T>
  WatchId Watch(absl::string_view name,
                std::shared_ptr<resources::ResourceWatcher<T>> watcher) {
    std::shared_ptr<AnyWatcher> adapter;
    if (watcher != nullptr) {
      adapter = std::make_shared<internal::TypedWatcherAdapter<T>>(
          std::move(watcher));
    }
    return Watch(resources::XdsResourceType<T>::Get(), name,
                 std::move(adapter));
  }
  // Stops a watch; unknown or already-cancelled ids are ignored. The last
  // watch of a resource unsubscribes it; the last resource of a server
  // releases its channel.
  void CancelWatch(WatchId id);

  // CSDS-like dump of every cached resource: a JSON array of
  // {authority (null for old-style names), type (type URL), name,
  // client_status, version, update_time, error?, resource?}.
  Json::Value DumpConfig() const;
  // The same, typed and without values: what CSDS reports (lib/admin).
  std::vector<ResourceStatus> ResourceStatuses() const;

  // For tests: the server URI of every open channel, sorted.
  std::vector<std::string> ChannelServerUris() const;
  size_t channel_count() const { return ChannelServerUris().size(); }

  // For the load-reporting client (lib/lrs): a reference to the channel of
  // `server`, so that its LRS stream runs on the same channel as its ADS
  // stream, as in gRPC. While either holds it, both use this one transport
  // (an ADS channel opened later adopts it). Errors: kInvalidArgument for a
  // server that is not one of the bootstrap's (A47 §XdsClient Load Reporting
  // APIs), kFailedPrecondition after shutdown, the factory's error.
  absl::StatusOr<std::shared_ptr<XdsTransport>> SharedTransport(
      const XdsServerConfig& server);
  // What the client was created with (lib/lrs sends the same node).
  const std::shared_ptr<const Bootstrap>& bootstrap() const;
  const Options& options() const;

  class Impl;

 private:
  explicit XdsClient(std::shared_ptr<Impl> impl);
  // Shared with transport and timer callbacks, which hold it weakly and may
  // briefly outlive the XdsClient; ~XdsClient shuts it down.
  std::shared_ptr<Impl> impl_;
};

}  // namespace client
}  // namespace xdsfed

#endif  // XDSFED_LIB_CLIENT_XDS_CLIENT_H_
