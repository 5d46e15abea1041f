// XdsClient: watches, the server channel map and the ADS state machine.
//
// Locking: one mutex (Impl::mu_) guards the cache, the watches and every
// channel / stream state. Nothing that can call back into the client runs
// under it: transport calls (creating a stream, sending, destroying a stream or
// a transport) are collected in a Deferred's StreamWork and run after the lock
// is released, and watcher notifications go through the WorkSerializer,
// drained last.
//
// Streams: each channel's ADS stream is a RetryingStream (call, backoff,
// generations, stream end; shared with lib/lrs); this file adds the ADS
// protocol on top.
//
// Stream ordering: at most one request per stream is in flight (as in C-core);
// a request wanted meanwhile is remembered per type and built when the send
// completes, so requests leave in order although they are sent unlocked.
#include "lib/client/xds_client.h"

#include <algorithm>
#include <set>
#include <utility>

#include "absl/base/thread_annotations.h"
#include "absl/container/flat_hash_map.h"
#include "absl/container/flat_hash_set.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/strip.h"
#include "envoy/service/discovery/v3/discovery.pb.h"
#include "google/protobuf/arena.h"
#include "lib/base/mutex.h"
#include "lib/base/work_serializer.h"
#include "lib/cache/resource_cache.h"
#include "lib/client/config_dump.h"
#include "lib/client/internal/ads_request.h"
#include "lib/client/internal/ads_response.h"
#include "lib/client/node.h"
#include "lib/client/retrying_stream.h"
#include "lib/client/xds_client_metrics.h"
#include "lib/name/resource_name.h"

namespace xdsfed {
namespace client {

namespace {

using cache::AuthorityId;
using cache::Entry;
using cache::ServerId;
using cache::TypeId;

// The authority as it appears in canonical xdstp names (the cache's key):
// bootstrap keys are decoded text, names percent-encode some bytes.
std::string CanonicalAuthority(const std::string& authority) {
  ResourceName name;
  name.old_style = false;
  name.authority = authority;
  name.type = "t";
  const std::string full = name.ToString();  // "xdstp://<auth>/t/"
  absl::string_view rest = absl::StripPrefix(full, "xdstp://");
  return std::string(rest.substr(0, rest.find('/')));
}

// A resource's bytes for the cache: the response's own string, moved (its
// buffer was touched by the parse; a copy of a 0.6 MB RouteConfiguration
// touched ~140 fresh pages before the ACK). `r` is not read after this.
std::string TakeBytes(DecodedResource* r) {
  if (r->bytes == nullptr) return std::string(r->serialized);
  return std::move(*r->bytes);
}

}  // namespace

class XdsClient::Impl final : public std::enable_shared_from_this<Impl>,
                              public RetryingStreamOwner {
 public:
  Impl(std::shared_ptr<const Bootstrap> bootstrap,
       std::shared_ptr<XdsTransportFactory> transport_factory, Options options);

  WatchId Watch(const resources::ResourceType& type, absl::string_view name,
                std::shared_ptr<AnyWatcher> watcher);
  void CancelWatch(WatchId id);
  Json::Value DumpConfig() const;
  std::vector<ResourceStatus> ResourceStatuses() const;
  std::vector<std::string> ChannelServerUris() const;
  absl::StatusOr<std::shared_ptr<XdsTransport>> SharedTransport(
      const XdsServerConfig& server);
  const std::shared_ptr<const Bootstrap>& bootstrap() const {
    return bootstrap_;
  }
  const Options& options() const { return options_; }
  void Shutdown();

  // Stream and timer events (RetryingStreamOwner; the key is the ServerId);
  // (server, generation) identify the channel or stream they belong to, so
  // late events of a replaced one are dropped.
  void OnCallCreated(uint64_t server, uint64_t call_gen,
                     StreamingCallPtr call) override ABSL_LOCKS_EXCLUDED(mu_);
  void OnRequestSent(uint64_t server, uint64_t call_gen, bool ok) override
      ABSL_LOCKS_EXCLUDED(mu_);
  void OnRecvMessage(uint64_t server, uint64_t call_gen,
                     absl::string_view payload) override
      ABSL_LOCKS_EXCLUDED(mu_);
  void OnStatusReceived(uint64_t server, uint64_t call_gen,
                        absl::Status status) override ABSL_LOCKS_EXCLUDED(mu_);
  void OnRetryTimer(uint64_t server, uint64_t token) override
      ABSL_LOCKS_EXCLUDED(mu_);
  void OnConnectivityFailure(ServerId server, uint64_t channel_gen,
                             absl::Status status);

 private:
  // Work to do after releasing mu_, in this order: the transport's (create
  // streams, send, destroy streams, destroy transports), run notifications.
  struct Deferred {
    StreamWork stream;
    // A watcher's destructor may call back into the client.
    std::vector<std::shared_ptr<AnyWatcher>> dead_watchers;
  };

  // Per stream, per subscribed resource: the does-not-exist timer state of
  // C-core's ResourceTimer.
  struct ResourceTimer {
    bool sent = false;  // named in a request built on this stream
    bool seen = false;  // received (or timed out) on this stream
    Timers::Handle timer = Timers::kInvalidHandle;
    uint64_t token = 0;
  };

  struct TypeState {
    std::string nonce;
    absl::Status error;  // pending NACK
  };

  // The ADS protocol state of one call (RetryingStream's CallState).
  struct AdsCall {
    bool sent_initial = false;
    bool send_in_flight = false;
    TypeId in_flight_type = 0;
    std::set<TypeId> buffered;
    absl::flat_hash_map<TypeId, TypeState> types;
    absl::flat_hash_map<const Entry*, ResourceTimer> resources;
    // The resources of the request in flight that had neither been seen nor
    // had a timer when it was built: only they may need a timer once it is
    // sent (a 10,000-cluster ACK then walks none).
    std::vector<const Entry*> awaiting_timer;
  };

  struct Channel {
    explicit Channel(RetryingStreamOptions stream_options)
        : stream(std::move(stream_options)) {}
    ServerId id = 0;
    uint64_t generation = 0;
    std::shared_ptr<const XdsServerConfig> server;
    std::shared_ptr<XdsTransport> transport;
    // Identifies the transport's connectivity callbacks: the channel's own
    // generation, or that of a transport lib/lrs created first.
    uint64_t transport_generation = 0;
    // Last accepted version per type, kept across streams.
    absl::flat_hash_map<TypeId, std::string> versions;
    // The ADS stream; its call() is null while backing off.
    RetryingStream<AdsCall> stream;
    absl::Status status;  // the last channel error, until a response
  };

  // A71: one authority's servers, in bootstrap order (a server listed twice
  // is kept once, at its first place). servers[0, in_use) have a channel
  // that carries the authority's subscriptions; the last of them is the
  // current one, whose data the authority uses. in_use grows on fallback and
  // shrinks when a higher-priority server sends one of its resources.
  struct AuthorityServers {
    std::vector<ServerId> servers;
    size_t in_use = 1;
    size_t entries = 0;  // its subscribed resources
    ServerId current() const { return servers[in_use - 1]; }
    // The rank of `server` among the servers in use, or -1.
    int Rank(ServerId server) const {
      for (size_t i = 0; i < in_use; ++i) {
        if (servers[i] == server) return static_cast<int>(i);
      }
      return -1;
    }
  };

  struct WatchState {
    std::shared_ptr<AnyWatcher> watcher;
    Entry* entry = nullptr;  // null: the watch failed at start
  };

  // A transport shared with lib/lrs (SharedTransport), held weakly: it
  // lives while the ADS channel or an LRS stream holds it.
  struct SharedTransportSlot {
    std::weak_ptr<XdsTransport> transport;
    uint64_t generation = 0;  // of its connectivity callback
  };

  void RunDeferred(Deferred* d) ABSL_LOCKS_EXCLUDED(mu_);

  // Entries of `type` of every authority that has `server` in use (the
  // names its ADS requests carry), and of those whose current server it is.
  template <typename Fn>
  void ForEachOfChannelLocked(ServerId server, TypeId type, Fn&& fn)
      ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_) {
    for (AuthorityId a = 0; a < authority_servers_.size(); ++a) {
      const AuthorityServers& as = authority_servers_[a];
      if (as.entries > 0 && as.Rank(server) >= 0) cache_.ForEachOf(a, type, fn);
    }
  }
  template <typename Fn>
  void ForEachOfCurrentLocked(ServerId server, TypeId type, Fn&& fn)
      ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_) {
    for (AuthorityId a = 0; a < authority_servers_.size(); ++a) {
      const AuthorityServers& as = authority_servers_[a];
      if (as.entries > 0 && as.current() == server) {
        cache_.ForEachOf(a, type, fn);
      }
    }
  }
  bool ChannelUsedLocked(ServerId server) const
      ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  // Opens (if needed) the channel of `server` and subscribes there to what
  // the authorities using it watch: a new stream subscribes to everything,
  // a running one gets the request of `type` again.
  Channel* SubscribeOnLocked(ServerId server, TypeId type, Deferred* d)
      ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  // A71 §Change XdsClient to support fallback within each xDS authority:
  // the authority's current server failed; if it watches a resource that is
  // not cached, the next servers are put in use (subscribed to all it
  // watches) until one has no error yet. Returns whether it fell back.
  bool MaybeFallbackLocked(AuthorityId authority, Deferred* d)
      ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  bool HasUncachedLocked(AuthorityId authority) const
      ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  // Channels no authority uses any more are released.
  void ReleaseUnusedLocked(const std::vector<ServerId>& servers, Deferred* d)
      ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);

  TypeId RegisterTypeLocked(const resources::ResourceType& type)
      ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  Channel* FindChannelLocked(ServerId server)
      ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  AdsCall* FindCallLocked(ServerId server, uint64_t call_gen, Channel** channel)
      ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  Channel* GetOrCreateChannelLocked(ServerId server)
      ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  void ReleaseChannelLocked(Channel* channel, Deferred* d)
      ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  void StartCallLocked(Channel* channel, Deferred* d)
      ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  void SendLocked(Channel* channel, TypeId type, Deferred* d)
      ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  // The apply step of a response (OnRecvMessage parsed and decoded it):
  // cache, watchers, the ACK or NACK.
  void ApplyResponseLocked(
      Channel* channel, AdsCall* call, TypeId tid,
      const envoy::service::discovery::v3::DiscoveryResponse& response,
      std::vector<DecodedResource>* decoded,
      std::vector<std::shared_ptr<const resources::ResourceData>>*
          dropped_values,
      Deferred* d) ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  void MaybeStartTimerLocked(Channel* channel, AdsCall* call,
                             const Entry* entry, ResourceTimer* timer)
      ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  void OnResourceTimer(ServerId server, uint64_t call_gen, const Entry* entry,
                       uint64_t token) ABSL_LOCKS_EXCLUDED(mu_);
  void CancelTimersLocked(AdsCall* call) ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  void UnsubscribeLocked(Entry* entry, Deferred* d)
      ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  // Records a channel error and (d non-null) handles it: each authority
  // whose current server this is falls back if it can (A71), else every
  // watcher of its resources hears the error (A57).
  void SetChannelStatusLocked(Channel* channel, const absl::Status& status,
                              Deferred* d) ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  absl::Status WithNodeId(const absl::Status& status) const;

  // Notifications (scheduled under mu_, run by the serializer).
  void NotifyChangedLocked(const Entry& entry)
      ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  void NotifyErrorLocked(const Entry& entry, const absl::Status& status)
      ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  void NotifyDoesNotExistLocked(const Entry& entry)
      ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  void ScheduleLocked(WatchId id, std::shared_ptr<AnyWatcher> watcher,
                      std::function<void(AnyWatcher&)> fn)
      ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  bool WatchActive(WatchId id) ABSL_LOCKS_EXCLUDED(mu_);

  const std::shared_ptr<const Bootstrap> bootstrap_;
  // Its certificate_providers' names (resources::DecodeContext).
  std::set<std::string, std::less<>> certificate_provider_instances_;
  const std::shared_ptr<XdsTransportFactory> transport_factory_;
  const Options options_;
  const std::shared_ptr<Timers> timers_;
  const envoy::config::core::v3::Node node_;
  // Distinct servers of the bootstrap (the channel map's keys, de-duplicated
  // by XdsServerConfig ==), indexed by ServerId.
  std::vector<std::shared_ptr<const XdsServerConfig>> servers_;
  WorkSerializer serializer_;

  mutable Mutex mu_;
  bool shutting_down_ ABSL_GUARDED_BY(mu_) = false;
  cache::ResourceCache cache_ ABSL_GUARDED_BY(mu_);
  // By TypeId; the types watched so far, and by type URL.
  std::vector<const resources::ResourceType*> types_ ABSL_GUARDED_BY(mu_);
  absl::flat_hash_map<std::string, TypeId> types_by_url_ ABSL_GUARDED_BY(mu_);
  absl::flat_hash_map<ServerId, std::unique_ptr<Channel>> channels_
      ABSL_GUARDED_BY(mu_);
  // By AuthorityId (the cache's, old-style names' included).
  std::vector<AuthorityServers> authority_servers_ ABSL_GUARDED_BY(mu_);
  absl::flat_hash_map<WatchId, WatchState> watches_ ABSL_GUARDED_BY(mu_);
  absl::flat_hash_map<XdsServerConfig, SharedTransportSlot> shared_transports_
      ABSL_GUARDED_BY(mu_);
  WatchId next_watch_id_ ABSL_GUARDED_BY(mu_) = 1;
  uint64_t next_generation_ ABSL_GUARDED_BY(mu_) = 1;
  uint64_t next_token_ ABSL_GUARDED_BY(mu_) = 1;
  internal::XdsClientMetrics metrics_ ABSL_GUARDED_BY(mu_);
};

XdsClient::Impl::Impl(std::shared_ptr<const Bootstrap> bootstrap,
                      std::shared_ptr<XdsTransportFactory> transport_factory,
                      Options options)
    : bootstrap_(std::move(bootstrap)),
      transport_factory_(std::move(transport_factory)),
      options_([&options] {
        if (!options.jitter_seed.has_value()) {
          options.jitter_seed = RandomJitterSeed();
        }
        return std::move(options);
      }()),
      timers_(options_.timers != nullptr ? options_.timers : DefaultTimers()),
      node_(BuildNode(*bootstrap_, options_.user_agent_name,
                      options_.user_agent_version)),
      cache_(bootstrap_->federation()),
      metrics_(options_.metrics, options_.metrics_target) {
  for (const auto& provider : bootstrap_->certificate_providers()) {
    certificate_provider_instances_.insert(provider.first);
  }
  MutexLock lock(&mu_);
  auto server_id = [this](const std::shared_ptr<const XdsServerConfig>& s) {
    for (ServerId i = 0; i < servers_.size(); ++i) {
      if (*servers_[i] == *s) return i;
    }
    servers_.push_back(s);
    return static_cast<ServerId>(servers_.size() - 1);
  };
  // A47 §Resource Cache: old-style names use the top-level servers; each
  // authority its own, or the top-level list. A71: all of them in order
  // when fallback is on, else the first only. The cache keeps the primary.
  auto server_list = [&](const Bootstrap::ServerList& list) {
    AuthorityServers as;
    for (const auto& s : list) {
      const ServerId id = server_id(s);
      if (std::find(as.servers.begin(), as.servers.end(), id) ==
          as.servers.end()) {
        as.servers.push_back(id);
      }
      if (!options_.fallback) break;
    }
    return as;
  };
  // By AuthorityId; filled locally (the lambdas above are not analysed as
  // holding mu_), then moved in.
  std::vector<AuthorityServers> lists;
  auto add = [&lists](AuthorityId id, AuthorityServers as) {
    if (lists.size() <= id) lists.resize(id + 1);
    lists[id] = std::move(as);
  };
  AuthorityServers top = server_list(bootstrap_->servers());
  cache_.SetOldStyleServer(top.servers[0]);
  add(cache::kOldStyleAuthority, std::move(top));
  if (bootstrap_->federation()) {
    for (const auto& a : bootstrap_->authorities()) {
      AuthorityServers as = server_list(a.second.xds_servers);
      const AuthorityId id =
          cache_.AddAuthority(CanonicalAuthority(a.first), as.servers[0]);
      add(id, std::move(as));
    }
  }
  authority_servers_ = std::move(lists);
}

WatchId XdsClient::Impl::Watch(const resources::ResourceType& type,
                               absl::string_view name,
                               std::shared_ptr<AnyWatcher> watcher) {
  Deferred d;
  WatchId id;
  {
    MutexLock lock(&mu_);
    id = next_watch_id_++;
    if (shutting_down_ || watcher == nullptr) return id;
    const TypeId tid = RegisterTypeLocked(type);
    absl::StatusOr<cache::ResourceCache::InsertResult> ins =
        cache_.Insert(tid, name);
    if (!ins.ok()) {
      // A47 §Watcher Changes: this watcher only; nothing is subscribed.
      watches_[id] = WatchState{watcher, nullptr};
      const absl::Status status = ins.status();
      ScheduleLocked(id, std::move(watcher),
                     [status](AnyWatcher& w) { w.OnError(status); });
    } else {
      Entry* entry = ins->entry;
      cache_.AddWatcher(entry, id);
      watches_[id] = WatchState{watcher, entry};
      AuthorityServers& as = authority_servers_[entry->authority()];
      if (ins->inserted) {
        ++as.entries;
        // Every server in use subscribes: a higher-priority one must be
        // able to switch the authority back (A71).
        for (size_t i = 0; i < as.in_use; ++i) {
          SubscribeOnLocked(as.servers[i], tid, &d);
        }
        // A71: a resource not cached while the current server is failing
        // is a reason to fall back now (not at its next failure).
        Channel* current = FindChannelLocked(as.current());
        if (current != nullptr && !current->status.ok()) {
          MaybeFallbackLocked(entry->authority(), &d);
        }
      } else {
        // C-core: a new watcher gets the cached state at once.
        if (entry->value() != nullptr) {
          std::shared_ptr<const resources::ResourceData> value = entry->value();
          ScheduleLocked(id, watcher,
                         [value](AnyWatcher& w) { w.OnChanged(value); });
        } else if (entry->state() == cache::State::kDoesNotExist) {
          ScheduleLocked(id, watcher,
                         [](AnyWatcher& w) { w.OnDoesNotExist(); });
        } else if (entry->state() == cache::State::kNacked) {
          const absl::Status status = WithNodeId(absl::UnavailableError(
              absl::StrCat("invalid resource: ", entry->error().ToString())));
          ScheduleLocked(id, watcher,
                         [status](AnyWatcher& w) { w.OnError(status); });
        }
      }
      Channel* channel = FindChannelLocked(as.current());
      if (channel != nullptr && !channel->status.ok()) {
        const absl::Status status = channel->status;
        ScheduleLocked(id, std::move(watcher),
                       [status](AnyWatcher& w) { w.OnError(status); });
      }
    }
  }
  RunDeferred(&d);
  return id;
}

void XdsClient::Impl::CancelWatch(WatchId id) {
  Deferred d;
  {
    MutexLock lock(&mu_);
    auto it = watches_.find(id);
    if (it == watches_.end()) return;
    Entry* entry = it->second.entry;
    d.dead_watchers.push_back(std::move(it->second.watcher));
    watches_.erase(it);
    if (entry != nullptr) {
      cache_.RemoveWatcher(entry, id);
      if (entry->watchers().empty()) UnsubscribeLocked(entry, &d);
    }
  }
  RunDeferred(&d);
}

void XdsClient::Impl::UnsubscribeLocked(Entry* entry, Deferred* d) {
  const TypeId type = entry->type();
  AuthorityServers& as = authority_servers_[entry->authority()];
  const std::vector<ServerId> used(as.servers.begin(),
                                   as.servers.begin() + as.in_use);
  for (ServerId server : used) {
    Channel* channel = FindChannelLocked(server);
    AdsCall* call = channel != nullptr ? channel->stream.call() : nullptr;
    if (call == nullptr) continue;
    auto it = call->resources.find(entry);
    if (it != call->resources.end()) {
      if (it->second.timer != Timers::kInvalidHandle) {
        timers_->Cancel(it->second.timer);
      }
      call->resources.erase(it);
    }
  }
  cache_.Erase(entry);
  if (--as.entries == 0) as.in_use = 1;  // next time, the primary first
  ReleaseUnusedLocked(used, d);
  // C-core sends the shorter subscription list at once.
  for (ServerId server : used) {
    if (Channel* channel = FindChannelLocked(server)) {
      SendLocked(channel, type, d);
    }
  }
}

bool XdsClient::Impl::ChannelUsedLocked(ServerId server) const {
  for (const AuthorityServers& as : authority_servers_) {
    if (as.entries > 0 && as.Rank(server) >= 0) return true;
  }
  return false;
}

void XdsClient::Impl::ReleaseUnusedLocked(const std::vector<ServerId>& servers,
                                          Deferred* d) {
  for (ServerId server : servers) {
    if (ChannelUsedLocked(server)) continue;
    if (Channel* channel = FindChannelLocked(server)) {
      ReleaseChannelLocked(channel, d);
    }
  }
}

XdsClient::Impl::Channel* XdsClient::Impl::SubscribeOnLocked(ServerId server,
                                                             TypeId type,
                                                             Deferred* d) {
  Channel* channel = GetOrCreateChannelLocked(server);
  if (channel->transport == nullptr) return channel;
  if (!channel->stream.running()) {
    // Backing off: the next stream subscribes to everything.
    if (!channel->stream.backing_off()) StartCallLocked(channel, d);
  } else {
    SendLocked(channel, type, d);
  }
  return channel;
}

bool XdsClient::Impl::HasUncachedLocked(AuthorityId authority) const {
  // A71: cached = a usable value, or known not to exist.
  bool uncached = false;
  for (TypeId t = 0; t < types_.size() && !uncached; ++t) {
    cache_.ForEachOf(authority, t, [&uncached](const Entry& e) {
      if (e.value() == nullptr && e.state() != cache::State::kDoesNotExist) {
        uncached = true;
      }
    });
  }
  return uncached;
}

bool XdsClient::Impl::MaybeFallbackLocked(AuthorityId authority, Deferred* d) {
  AuthorityServers& as = authority_servers_[authority];
  if (as.entries == 0 || !HasUncachedLocked(authority)) return false;
  // Only the types the authority watches: an empty LDS or CDS request
  // would be a wildcard subscription on a channel other authorities share.
  std::vector<TypeId> watched;
  for (TypeId t = 0; t < types_.size(); ++t) {
    bool any = false;
    cache_.ForEachOf(authority, t, [&any](const Entry&) { any = true; });
    if (any) watched.push_back(t);
  }
  while (as.in_use < as.servers.size()) {
    ++as.in_use;
    Channel* channel = nullptr;
    for (TypeId t : watched) channel = SubscribeOnLocked(as.current(), t, d);
    if (channel != nullptr && channel->status.ok()) return true;
  }
  return false;
}

TypeId XdsClient::Impl::RegisterTypeLocked(
    const resources::ResourceType& type) {
  auto it = types_by_url_.find(type.type_url());
  if (it != types_by_url_.end()) return it->second;
  const TypeId id = cache_.RegisterType(type.type_name());
  if (types_.size() <= id) types_.resize(id + 1, nullptr);
  types_[id] = &type;
  types_by_url_.emplace(std::string(type.type_url()), id);
  return id;
}

XdsClient::Impl::Channel* XdsClient::Impl::FindChannelLocked(ServerId server) {
  auto it = channels_.find(server);
  return it == channels_.end() ? nullptr : it->second.get();
}

XdsClient::Impl::AdsCall* XdsClient::Impl::FindCallLocked(ServerId server,
                                                          uint64_t call_gen,
                                                          Channel** channel) {
  if (shutting_down_) return nullptr;
  Channel* c = FindChannelLocked(server);
  if (c == nullptr || !c->stream.IsCurrent(call_gen)) return nullptr;
  *channel = c;
  return c->stream.call();
}

XdsClient::Impl::Channel* XdsClient::Impl::GetOrCreateChannelLocked(
    ServerId server) {
  std::unique_ptr<Channel>& slot = channels_[server];
  if (slot != nullptr) return slot.get();
  RetryingStreamOptions stream_options;
  stream_options.method = kAdsMethod;
  stream_options.backoff = options_.backoff;
  stream_options.jitter_seed = *options_.jitter_seed + server;
  stream_options.timers = timers_;
  stream_options.owner = weak_from_this();
  stream_options.key = server;
  slot = std::make_unique<Channel>(std::move(stream_options));
  Channel* channel = slot.get();
  channel->id = server;
  channel->generation = next_generation_++;
  channel->server = servers_[server];
  // lib/lrs may hold a transport to this server already: ADS joins it, so
  // both streams run on one channel (as in gRPC).
  SharedTransportSlot& shared_slot = shared_transports_[*channel->server];
  if (std::shared_ptr<XdsTransport> shared = shared_slot.transport.lock()) {
    channel->transport = std::move(shared);
    channel->transport_generation = shared_slot.generation;
    return channel;
  }
  std::weak_ptr<Impl> weak = weak_from_this();
  const uint64_t gen = channel->generation;
  channel->transport_generation = gen;
  absl::StatusOr<std::unique_ptr<XdsTransport>> transport =
      transport_factory_->Create(
          *channel->server, [weak, server, gen](absl::Status status) {
            if (auto impl = weak.lock()) {
              impl->OnConnectivityFailure(server, gen, std::move(status));
            }
          });
  if (transport.ok()) {
    channel->transport = std::move(*transport);
    shared_slot = SharedTransportSlot{channel->transport, gen};
  } else {
    // Only the watch being started uses the channel: it gets the status as
    // the channel's pending error.
    SetChannelStatusLocked(channel, transport.status(), /*d=*/nullptr);
  }
  return channel;
}

void XdsClient::Impl::ReleaseChannelLocked(Channel* channel, Deferred* d) {
  if (AdsCall* call = channel->stream.call()) CancelTimersLocked(call);
  channel->stream.Stop(&d->stream);
  if (channel->transport != nullptr) {
    d->stream.ReleaseTransport(std::move(channel->transport));
  }
  channels_.erase(channel->id);
}

void XdsClient::Impl::StartCallLocked(Channel* channel, Deferred* d) {
  metrics_.StreamCreated(channel->server->server_uri());
  channel->stream.Start(channel->transport, &d->stream);
}

void XdsClient::Impl::OnCallCreated(uint64_t server, uint64_t call_gen,
                                    StreamingCallPtr stream) {
  Deferred d;
  {
    MutexLock lock(&mu_);
    Channel* channel = shutting_down_
                           ? nullptr
                           : FindChannelLocked(static_cast<ServerId>(server));
    if (channel == nullptr) {
      d.stream.Cancel(std::move(stream));  // released since
    } else if (channel->stream.Adopt(call_gen, std::move(stream), &d.stream)) {
      // Subscribe to everything cached for this server (a reconnect
      // re-subscribes with the kept versions): one request per type.
      for (TypeId t = 0; t < types_.size(); ++t) {
        if (types_[t] == nullptr) continue;
        bool any = false;
        ForEachOfChannelLocked(channel->id, t,
                               [&any](const Entry&) { any = true; });
        if (any) SendLocked(channel, t, &d);
      }
    }
  }
  RunDeferred(&d);
}

void XdsClient::Impl::SendLocked(Channel* channel, TypeId type, Deferred* d) {
  AdsCall* call = channel->stream.call();
  if (call == nullptr || !channel->stream.ready()) {
    return;  // the start will send it
  }
  if (call->send_in_flight) {
    call->buffered.insert(type);
    return;
  }
  std::vector<absl::string_view> names;  // into the cache, under mu_
  auto& resources = call->resources;
  call->awaiting_timer.clear();
  ForEachOfChannelLocked(channel->id, type, [&](const Entry& e) {
    names.push_back(e.name());
    ResourceTimer& timer = resources[&e];
    timer.sent = true;
    if (!timer.seen && timer.timer == Timers::kInvalidHandle) {
      call->awaiting_timer.push_back(&e);
    }
  });
  TypeState& state = call->types[type];
  channel->stream.Send(
      BuildAdsRequest(types_[type]->type_url(), channel->versions[type],
                      state.nonce, names, state.error,
                      call->sent_initial ? nullptr : &node_),
      &d->stream);
  call->sent_initial = true;
  state.error = absl::OkStatus();
  call->send_in_flight = true;
  call->in_flight_type = type;
}

void XdsClient::Impl::OnRequestSent(uint64_t server, uint64_t call_gen,
                                    bool ok) {
  Deferred d;
  {
    MutexLock lock(&mu_);
    Channel* channel = nullptr;
    AdsCall* call =
        FindCallLocked(static_cast<ServerId>(server), call_gen, &channel);
    if (call == nullptr) return;
    if (ok) {
      // C-core: the does-not-exist timer starts once the request naming the
      // resource has been sent. Every subscribed resource of the type is
      // named in it; those seen or timed since are skipped by the check.
      for (const Entry* entry : call->awaiting_timer) {
        auto it = call->resources.find(entry);  // gone if unsubscribed since
        if (it == call->resources.end()) continue;
        MaybeStartTimerLocked(channel, call, entry, &it->second);
      }
    }
    call->send_in_flight = false;
    if (ok && !call->buffered.empty()) {
      const TypeId next = *call->buffered.begin();
      call->buffered.erase(call->buffered.begin());
      SendLocked(channel, next, &d);
    }
  }
  RunDeferred(&d);
}

void XdsClient::Impl::MaybeStartTimerLocked(Channel* channel, AdsCall* call,
                                            const Entry* entry,
                                            ResourceTimer* timer) {
  if (timer->seen || !timer->sent || timer->timer != Timers::kInvalidHandle) {
    return;
  }
  // A cached value (a reconnect) needs no timer: the server may not resend
  // what we have.
  if (entry->value() != nullptr) return;
  timer->token = next_token_++;
  std::weak_ptr<Impl> weak = weak_from_this();
  timer->timer = timers_->RunAfter(
      options_.does_not_exist_timeout,
      [weak, server = channel->id, gen = channel->stream.generation(), entry,
       token = timer->token] {
        if (auto impl = weak.lock()) {
          impl->OnResourceTimer(server, gen, entry, token);
        }
      });
}

void XdsClient::Impl::OnResourceTimer(ServerId server, uint64_t call_gen,
                                      const Entry* entry, uint64_t token) {
  {
    MutexLock lock(&mu_);
    Channel* channel = nullptr;
    AdsCall* call = FindCallLocked(server, call_gen, &channel);
    if (call == nullptr) return;
    auto it = call->resources.find(entry);
    // The token proves the entry is still the one the timer was set for.
    if (it == call->resources.end() || it->second.token != token ||
        it->second.timer == Timers::kInvalidHandle) {
      return;
    }
    it->second.timer = Timers::kInvalidHandle;
    it->second.seen = true;
    Entry* e = const_cast<Entry*>(entry);
    cache_.SetDoesNotExist(e, timers_->Now());
    NotifyDoesNotExistLocked(*e);
  }
  serializer_.Drain();
}

void XdsClient::Impl::CancelTimersLocked(AdsCall* call) {
  for (auto& r : call->resources) {
    if (r.second.timer != Timers::kInvalidHandle) {
      timers_->Cancel(r.second.timer);
      r.second.timer = Timers::kInvalidHandle;
    }
  }
}

void XdsClient::Impl::OnStatusReceived(uint64_t server, uint64_t call_gen,
                                       absl::Status status) {
  Deferred d;
  {
    MutexLock lock(&mu_);
    Channel* channel = nullptr;
    AdsCall* call =
        FindCallLocked(static_cast<ServerId>(server), call_gen, &channel);
    if (call == nullptr) return;
    CancelTimersLocked(call);
    const bool seen_response = channel->stream.End(&d.stream);
    channel->stream.ScheduleRetry();
    // C-core 1.51: a stream that ended without any response is reported to
    // every watcher of the channel; after responses it just reconnects.
    if (!seen_response) {
      metrics_.ServerFailed(channel->server->server_uri());
      SetChannelStatusLocked(
          channel,
          absl::UnavailableError(absl::StrCat(
              "xDS call failed with no responses received; status: ",
              status.ToString())),
          &d);
    }
  }
  RunDeferred(&d);
}

void XdsClient::Impl::OnRetryTimer(uint64_t server, uint64_t token) {
  Deferred d;
  {
    MutexLock lock(&mu_);
    if (shutting_down_) return;
    Channel* channel = FindChannelLocked(static_cast<ServerId>(server));
    if (channel == nullptr || !channel->stream.TakeRetry(token)) return;
    StartCallLocked(channel, &d);
  }
  RunDeferred(&d);
}

void XdsClient::Impl::OnConnectivityFailure(ServerId server,
                                            uint64_t channel_gen,
                                            absl::Status status) {
  Deferred d;
  {
    MutexLock lock(&mu_);
    if (shutting_down_) return;
    Channel* channel = FindChannelLocked(server);
    if (channel == nullptr || channel->transport_generation != channel_gen) {
      return;
    }
    metrics_.ServerFailed(channel->server->server_uri());
    SetChannelStatusLocked(channel, status, &d);
  }
  RunDeferred(&d);
}

absl::Status XdsClient::Impl::WithNodeId(const absl::Status& status) const {
  // C-core appends the node id so that users can find it in their logs.
  if (!bootstrap_->node().has_value()) return status;
  return absl::Status(status.code(),
                      absl::StrCat(status.message(),
                                   " (node ID:", bootstrap_->node()->id, ")"));
}

void XdsClient::Impl::SetChannelStatusLocked(Channel* channel,
                                             const absl::Status& status,
                                             Deferred* d) {
  channel->status = WithNodeId(absl::Status(
      status.code(),
      absl::StrCat("xDS channel for server ", channel->server->server_uri(),
                   ": ", status.message())));
  if (d == nullptr) return;
  const ServerId server = channel->id;
  // A71: watchers hear of it only from an authority that cannot fall back
  // (nothing uncached, or no server left that has not failed). An
  // authority that uses this server but is already on a lower one hears
  // nothing. One error per watcher object, however many of its resources
  // use the channel (C-core collects them in a set).
  std::vector<WatchId> ids;
  for (AuthorityId a = 0; a < authority_servers_.size(); ++a) {
    if (authority_servers_[a].entries == 0 ||
        authority_servers_[a].current() != server ||
        MaybeFallbackLocked(a, d)) {
      continue;
    }
    for (TypeId t = 0; t < types_.size(); ++t) {
      cache_.ForEachOf(a, t, [&ids](const Entry& e) {
        ids.insert(ids.end(), e.watchers().begin(), e.watchers().end());
      });
    }
  }
  std::vector<std::pair<WatchId, std::shared_ptr<AnyWatcher>>> targets;
  absl::flat_hash_set<const AnyWatcher*> seen;
  for (WatchId id : ids) {
    auto it = watches_.find(id);
    if (it == watches_.end()) continue;
    if (seen.insert(it->second.watcher.get()).second) {
      targets.emplace_back(id, it->second.watcher);
    }
  }
  const absl::Status error = channel->status;
  for (auto& target : targets) {
    ScheduleLocked(target.first, std::move(target.second),
                   [error](AnyWatcher& w) { w.OnError(error); });
  }
}

void XdsClient::Impl::OnRecvMessage(uint64_t server_key, uint64_t call_gen,
                                    absl::string_view payload) {
  const auto server = static_cast<ServerId>(server_key);
  // Declared before `d`, so destroyed after the ACK is handed to the
  // transport (RunDeferred): freeing the parsed response and the values a
  // response replaces or repeats (a 10,000-virtual-host RouteConfiguration:
  // ~6.5 M instructions, bench/RESULTS.md) is not ACK latency, and it
  // happens outside mu_.
  google::protobuf::Arena arena;
  std::vector<DecodedResource> decoded;
  std::vector<std::shared_ptr<const resources::ResourceData>> dropped_values;
  Deferred d;
  // Parse step (no lock; lib/client/internal/ads_response.h). C-core ignores
  // (neither ACKs nor NACKs) a response it cannot decode and one of a type
  // it does not know.
  envoy::service::discovery::v3::DiscoveryResponse* response =
      ParseDiscoveryResponse(payload, &arena);
  if (response == nullptr) return;
  TypeId tid;
  const resources::ResourceType* type;
  {
    MutexLock lock(&mu_);
    Channel* channel = nullptr;
    if (FindCallLocked(server, call_gen, &channel) == nullptr) return;
    // C-core compares type URLs without their "type.googleapis.com/".
    auto type_it = types_by_url_.find(absl::StrCat(
        resources::kTypeUrlPrefix,
        absl::StripPrefix(response->type_url(), resources::kTypeUrlPrefix)));
    if (type_it == types_by_url_.end()) return;
    tid = type_it->second;
    type = types_[tid];  // outlives the client
  }
  resources::DecodeContext context;
  context.federation = bootstrap_->federation();
  context.certificate_provider_instances = &certificate_provider_instances_;
  // What the cache holds for a name, for a type that decodes only what an
  // update changed (resources::ResourceType::DecodeUpdate; only RDS asks).
  // Shared bytes, as the decode runs without mu_ (copying 0.6 MB here cost
  // an update 138 fresh page faults: a third live buffer of that size).
  const resources::PreviousLookup previous = [this,
                                              tid](absl::string_view name) {
    resources::PreviousResource held;
    MutexLock lock(&mu_);
    const Entry* entry = cache_.Find(tid, name);
    if (entry != nullptr && entry->value() != nullptr) {
      held.value = entry->value();
      held.serialized = entry->shared_serialized();
    }
    return held;
  };
  decoded = DecodeResources(response, *type, context, &arena, &previous);
  // Apply step, under mu_. The events of one call never overlap, so the
  // call is still current unless the channel was released meanwhile.
  {
    MutexLock lock(&mu_);
    Channel* channel = nullptr;
    AdsCall* call = FindCallLocked(server, call_gen, &channel);
    if (call == nullptr) return;
    ApplyResponseLocked(channel, call, tid, *response, &decoded,
                        &dropped_values, &d);
  }
  RunDeferred(&d);
}

void XdsClient::Impl::ApplyResponseLocked(
    Channel* channel, AdsCall* call, TypeId tid,
    const envoy::service::discovery::v3::DiscoveryResponse& response,
    std::vector<DecodedResource>* decoded,
    std::vector<std::shared_ptr<const resources::ResourceData>>* dropped_values,
    Deferred* d) {
  const ServerId server = channel->id;
  const resources::ResourceType& type = *types_[tid];
  channel->stream.MarkResponse();
  metrics_.ResponseReceived(channel->server->server_uri());
  uint64_t valid = 0, invalid = 0;  // A78 resource_updates_*
  channel->status = absl::OkStatus();
  const absl::Time now = timers_->Now();
  const std::string& version = response.version_info();
  std::vector<std::string> errors;
  bool have_valid = false;
  // Duplicates: a subscribed name by its entry, any other by its normalized
  // form (two spellings of one name are both subscribed or neither).
  absl::flat_hash_set<const Entry*> seen_entries;
  absl::flat_hash_set<std::string> seen_names;
  std::vector<ServerId> switched_back;
  for (DecodedResource& r : *decoded) {
    if (!r.error.empty()) errors.push_back(std::move(r.error));
    if (!r.named) continue;
    // The usual name is found without normalizing it (ResourceCache::Find's
    // guessed probe, lib/name/canonical_guess.h: what BM_LookupByName
    // measures); only a name not cached is parsed, for its errors.
    Entry* entry = cache_.Find(tid, r.name);
    if (entry == nullptr) {
      absl::StatusOr<cache::ResourceCache::Key> key = cache_.Parse(tid, r.name);
      if (!key.ok()) {
        errors.push_back(absl::StrCat(ResourceErrorPrefix(r.index, r.name),
                                      "Cannot parse xDS resource name"));
      } else if (!seen_names.insert(std::string(key->name.normalized)).second) {
        errors.push_back(absl::StrCat(ResourceErrorPrefix(r.index, r.name),
                                      "duplicate resource name"));
      }
      continue;  // not subscribed: ignored
    }
    if (!seen_entries.insert(entry).second) {
      errors.push_back(absl::StrCat(ResourceErrorPrefix(r.index, r.name),
                                    "duplicate resource name"));
      continue;
    }
    // Only resources of authorities that use this server count: another
    // server's resource of the same name is not ours to update. A71: a
    // resource from a higher-priority server than the authority's current
    // one switches it back, and the lower servers are released.
    AuthorityServers& as = authority_servers_[entry->authority()];
    const int rank = as.Rank(server);
    if (rank < 0) continue;
    if (static_cast<size_t>(rank) + 1 < as.in_use) {
      const std::vector<ServerId> lower(as.servers.begin() + rank + 1,
                                        as.servers.begin() + as.in_use);
      as.in_use = rank + 1;
      switched_back.insert(switched_back.end(), lower.begin(), lower.end());
    }
    auto timer_it = call->resources.find(entry);
    if (timer_it != call->resources.end()) {
      timer_it->second.seen = true;
      if (timer_it->second.timer != Timers::kInvalidHandle) {
        timers_->Cancel(timer_it->second.timer);
        timer_it->second.timer = Timers::kInvalidHandle;
      }
    }
    entry->set_client_data(entry->client_data() & ~kIgnoredDeletion);
    if (!r.value.ok()) {
      ++invalid;
      NotifyErrorLocked(
          *entry, absl::UnavailableError(absl::StrCat(
                      "invalid resource: ", r.value.status().ToString())));
      cache_.SetNacked(entry, r.value.status(), version, now);
      continue;
    }
    have_valid = true;
    ++valid;
    std::shared_ptr<const resources::ResourceData> value = std::move(*r.value);
    if (entry->value() != nullptr &&
        type.Equal(entry->value().get(), value.get())) {
      // Unchanged: record the version, tell nobody.
      cache_.SetAcked(entry, entry->value(), TakeBytes(&r), version, now);
      dropped_values->push_back(std::move(value));
      continue;
    }
    if (entry->value() != nullptr) dropped_values->push_back(entry->value());
    cache_.SetAcked(entry, std::move(value), TakeBytes(&r), version, now);
    NotifyChangedLocked(*entry);
  }
  metrics_.ResourceUpdates(channel->server->server_uri(), type.type_url(),
                           valid, invalid);
  TypeState& state = call->types[tid];
  state.nonce = response.nonce();
  if (!errors.empty()) {
    state.error = absl::UnavailableError(absl::StrCat(
        "xDS response validation errors: [", absl::StrJoin(errors, "; "), "]"));
  }
  // State of the world (LDS, CDS): a cached resource missing from the
  // response was deleted. Resources without a value are left to the
  // does-not-exist timer (the response may predate their request).
  if (type.all_resources_required_in_sotw()) {
    std::vector<Entry*> deleted;
    ForEachOfCurrentLocked(server, tid, [&](Entry& e) {
      if (seen_entries.contains(&e) || e.value() == nullptr) return;
      deleted.push_back(&e);
    });
    for (Entry* e : deleted) {
      if (channel->server->IgnoreResourceDeletion()) {
        // Kept; C-core logs this once per resource, the config dump
        // shows it.
        e->set_client_data(e->client_data() | kIgnoredDeletion);
        continue;
      }
      cache_.SetDoesNotExist(e, now);
      NotifyDoesNotExistLocked(*e);
    }
  }
  // C-core: the version moves on if anything was valid or nothing failed,
  // so a partly bad response is NACKed with its own version.
  if (have_valid || errors.empty()) channel->versions[tid] = version;
  SendLocked(channel, tid, d);
  // After the ACK is queued: `channel` is never among them (it is in use).
  ReleaseUnusedLocked(switched_back, d);
}

void XdsClient::Impl::ScheduleLocked(WatchId id,
                                     std::shared_ptr<AnyWatcher> watcher,
                                     std::function<void(AnyWatcher&)> fn) {
  serializer_.Schedule(
      [this, id, watcher = std::move(watcher), fn = std::move(fn)] {
        if (WatchActive(id)) fn(*watcher);
      });
}

bool XdsClient::Impl::WatchActive(WatchId id) {
  MutexLock lock(&mu_);
  return !shutting_down_ && watches_.contains(id);
}

void XdsClient::Impl::NotifyChangedLocked(const Entry& entry) {
  std::shared_ptr<const resources::ResourceData> value = entry.value();
  for (cache::WatcherId id : entry.watchers()) {
    auto it = watches_.find(id);
    if (it == watches_.end()) continue;
    ScheduleLocked(id, it->second.watcher,
                   [value](AnyWatcher& w) { w.OnChanged(value); });
  }
}

void XdsClient::Impl::NotifyErrorLocked(const Entry& entry,
                                        const absl::Status& status) {
  const absl::Status error = WithNodeId(status);
  for (cache::WatcherId id : entry.watchers()) {
    auto it = watches_.find(id);
    if (it == watches_.end()) continue;
    ScheduleLocked(id, it->second.watcher,
                   [error](AnyWatcher& w) { w.OnError(error); });
  }
}

void XdsClient::Impl::NotifyDoesNotExistLocked(const Entry& entry) {
  for (cache::WatcherId id : entry.watchers()) {
    auto it = watches_.find(id);
    if (it == watches_.end()) continue;
    ScheduleLocked(id, it->second.watcher,
                   [](AnyWatcher& w) { w.OnDoesNotExist(); });
  }
}

void XdsClient::Impl::RunDeferred(Deferred* d) {
  d->stream.Run();
  serializer_.Drain();
  d->dead_watchers.clear();
}

Json::Value XdsClient::Impl::DumpConfig() const {
  MutexLock lock(&mu_);
  return DumpCache(cache_, types_);
}

std::vector<ResourceStatus> XdsClient::Impl::ResourceStatuses() const {
  MutexLock lock(&mu_);
  return CacheStatus(cache_, types_);
}

std::vector<std::string> XdsClient::Impl::ChannelServerUris() const {
  MutexLock lock(&mu_);
  std::vector<std::string> uris;
  for (const auto& c : channels_)
    uris.push_back(c.second->server->server_uri());
  std::sort(uris.begin(), uris.end());
  return uris;
}

absl::StatusOr<std::shared_ptr<XdsTransport>> XdsClient::Impl::SharedTransport(
    const XdsServerConfig& server) {
  if (!bootstrap_->HasServer(server)) {
    return absl::InvalidArgumentError(
        absl::StrCat("xDS server ", server.server_uri(),
                     " is not a server of the bootstrap"));
  }
  MutexLock lock(&mu_);
  if (shutting_down_) {
    return absl::FailedPreconditionError("xds client is shut down");
  }
  SharedTransportSlot& slot = shared_transports_[server];
  if (std::shared_ptr<XdsTransport> shared = slot.transport.lock()) {
    return shared;
  }
  // A server ADS may use later gets a callback its channel will recognise;
  // others (fallback servers ADS never uses) need none.
  ServerId id = cache::kNoServer;
  for (ServerId i = 0; i < servers_.size(); ++i) {
    if (*servers_[i] == server) id = i;
  }
  const uint64_t gen = next_generation_++;
  std::weak_ptr<Impl> weak = weak_from_this();
  absl::StatusOr<std::unique_ptr<XdsTransport>> transport =
      transport_factory_->Create(server, [weak, id, gen](absl::Status status) {
        if (id == cache::kNoServer) return;
        if (auto impl = weak.lock()) {
          impl->OnConnectivityFailure(id, gen, std::move(status));
        }
      });
  if (!transport.ok()) return transport.status();
  std::shared_ptr<XdsTransport> shared = std::move(*transport);
  slot = SharedTransportSlot{shared, gen};
  return shared;
}

void XdsClient::Impl::Shutdown() {
  Deferred d;
  {
    MutexLock lock(&mu_);
    shutting_down_ = true;
    for (auto& c : channels_) {
      Channel* channel = c.second.get();
      if (AdsCall* call = channel->stream.call()) CancelTimersLocked(call);
      channel->stream.Stop(&d.stream);
      if (channel->transport != nullptr) {
        d.stream.ReleaseTransport(std::move(channel->transport));
      }
    }
    channels_.clear();
    shared_transports_.clear();
    for (auto& w : watches_) {
      d.dead_watchers.push_back(std::move(w.second.watcher));
    }
    watches_.clear();
  }
  RunDeferred(&d);
}

// --- XdsClient ---

absl::StatusOr<std::shared_ptr<XdsClient>> XdsClient::Create(
    std::shared_ptr<const Bootstrap> bootstrap,
    std::shared_ptr<XdsTransportFactory> transport_factory, Options options) {
  if (bootstrap == nullptr || bootstrap->servers().empty()) {
    return absl::InvalidArgumentError("xds client needs a bootstrap");
  }
  if (transport_factory == nullptr) {
    return absl::InvalidArgumentError("xds client needs a transport factory");
  }
  auto impl = std::make_shared<Impl>(
      std::move(bootstrap), std::move(transport_factory), std::move(options));
  return std::shared_ptr<XdsClient>(new XdsClient(std::move(impl)));
}

XdsClient::XdsClient(std::shared_ptr<Impl> impl) : impl_(std::move(impl)) {}

XdsClient::~XdsClient() { impl_->Shutdown(); }

WatchId XdsClient::Watch(const resources::ResourceType& type,
                         absl::string_view name,
                         std::shared_ptr<AnyWatcher> watcher) {
  return impl_->Watch(type, name, std::move(watcher));
}

void XdsClient::CancelWatch(WatchId id) { impl_->CancelWatch(id); }

Json::Value XdsClient::DumpConfig() const { return impl_->DumpConfig(); }

std::vector<ResourceStatus> XdsClient::ResourceStatuses() const {
  return impl_->ResourceStatuses();
}

std::vector<std::string> XdsClient::ChannelServerUris() const {
  return impl_->ChannelServerUris();
}

absl::StatusOr<std::shared_ptr<XdsTransport>> XdsClient::SharedTransport(
    const XdsServerConfig& server) {
  return impl_->SharedTransport(server);
}

const std::shared_ptr<const Bootstrap>& XdsClient::bootstrap() const {
  return impl_->bootstrap();
}

const XdsClient::Options& XdsClient::options() const {
  return impl_->options();
}

}  // namespace client
}  // namespace xdsfed
