// LrsClient: one LoadReportStore and at most one LRS stream per server.
//
// Locking: mu_ guards the servers and their stream state; a store's own lock
// is taken inside it (mu_ -> store), never the other way: the store calls
// back (on_idle) only after releasing its lock. Transport work (creating a
// stream, sending, destroying streams and transports) is collected in a
// Deferred and done after mu_ is released, as in the XdsClient. No stats
// object is released under mu_ (its destructor may call back).
#include "lib/lrs/lrs_client.h"

#include <deque>
#include <optional>
#include <utility>
#include <vector>

#include "absl/base/thread_annotations.h"
#include "absl/container/flat_hash_map.h"
#include "absl/strings/str_cat.h"
#include "lib/base/mutex.h"
#include "lib/client/stream_event_forwarder.h"
#include "lib/lrs/load_report_store.h"
#include "lib/lrs/lrs_wire.h"

namespace xdsfed {
namespace lrs {

using client::Timers;

class LrsClient::Impl : public std::enable_shared_from_this<Impl> {
 public:
  Impl(std::shared_ptr<const Bootstrap> bootstrap, TransportSource source,
       Options options);

  absl::StatusOr<std::shared_ptr<ClusterDropStats>> AddDropStats(
      const XdsServerConfig& lrs_server, absl::string_view cluster,
      absl::string_view eds_service_name);
  absl::StatusOr<std::shared_ptr<ClusterLocalityStats>> AddLocalityStats(
      const XdsServerConfig& lrs_server, absl::string_view cluster,
      absl::string_view eds_service_name, const Locality& locality);
  size_t ActiveStreamCount() const;
  void Shutdown();

  // Stream, timer and store events; (server, call generation) identify the
  // stream, so late events of a replaced one are dropped.
  void OnRequestSent(size_t server, uint64_t call_gen, bool ok);
  void OnRecvMessage(size_t server, uint64_t call_gen,
                     absl::string_view payload);
  void OnStatusReceived(size_t server, uint64_t call_gen, absl::Status status);

 private:
  struct CallBox {
    client::StreamingCallPtr call;
  };

  // Done after releasing mu_, in this order.
  struct Deferred {
    std::vector<std::function<void()>> starts;
    std::vector<std::pair<std::shared_ptr<CallBox>, std::string>> sends;
    std::vector<std::shared_ptr<CallBox>> dead_calls;
    std::vector<std::shared_ptr<client::XdsTransport>> dead_transports;
  };

  struct Call {
    uint64_t generation = 0;
    std::shared_ptr<CallBox> box = std::make_shared<CallBox>();
    bool ready = false;  // box->call set
    bool seen_response = false;
    // Sends not yet completed, in order; true: a report (false: the first
    // request).
    std::deque<bool> sends;
    // The server's last LoadStatsResponse: reporting once set.
    std::optional<LrsResponse> config;
    Timers::Handle report_timer = Timers::kInvalidHandle;
    uint64_t report_token = 0;
    bool last_report_was_zero = false;
  };

  struct Server {
    Server(const client::BackoffOptions& backoff_options, uint64_t seed)
        : backoff(backoff_options, seed) {}
    size_t index = 0;
    std::shared_ptr<const XdsServerConfig> config;
    std::shared_ptr<LoadReportStore> store;
    // Held while a stream is wanted (running or backing off).
    std::shared_ptr<client::XdsTransport> transport;
    std::unique_ptr<Call> call;  // null: stopped or backing off
    client::Backoff backoff;
    Timers::Handle retry_timer = Timers::kInvalidHandle;
    uint64_t retry_token = 0;
  };

  using Handler = client::StreamEventForwarder<Impl, size_t>;

  // The server's state with a channel, ready for a new stats object.
  absl::StatusOr<Server*> PrepareServerLocked(const XdsServerConfig& config)
      ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  void EnsureStreamLocked(Server* server, Deferred* d)
      ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  void StartCallLocked(Server* server, Deferred* d)
      ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  void CreateCall(size_t server, uint64_t call_gen,
                  std::shared_ptr<client::XdsTransport> transport)
      ABSL_LOCKS_EXCLUDED(mu_);
  Call* FindCallLocked(size_t server, uint64_t call_gen, Server** out)
      ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  void MaybeScheduleReportLocked(Server* server, Call* call)
      ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  void OnReportTimer(size_t server, uint64_t call_gen, uint64_t token)
      ABSL_LOCKS_EXCLUDED(mu_);
  void OnRetryTimer(size_t server, uint64_t token) ABSL_LOCKS_EXCLUDED(mu_);
  void OnIdle(size_t server) ABSL_LOCKS_EXCLUDED(mu_);
  // No stats object held and nothing left to report: the stream can stop.
  static bool DoneLocked(const Server& server) {
    return !server.store->HasLiveStats() && server.store->empty();
  }
  void CancelReportTimerLocked(Call* call) ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  void StopLocked(Server* server, Deferred* d)
      ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  void RunDeferred(Deferred* d) ABSL_LOCKS_EXCLUDED(mu_);

  const std::shared_ptr<const Bootstrap> bootstrap_;
  const TransportSource source_;
  const Options options_;
  const std::shared_ptr<Timers> timers_;
  const envoy::config::core::v3::Node node_;

  mutable Mutex mu_;
  bool shutting_down_ ABSL_GUARDED_BY(mu_) = false;
  // By index (never removed: at most one per bootstrap server).
  std::vector<std::unique_ptr<Server>> servers_ ABSL_GUARDED_BY(mu_);
  absl::flat_hash_map<XdsServerConfig, size_t> server_index_
      ABSL_GUARDED_BY(mu_);
  uint64_t next_generation_ ABSL_GUARDED_BY(mu_) = 1;
  uint64_t next_token_ ABSL_GUARDED_BY(mu_) = 1;
};

LrsClient::Impl::Impl(std::shared_ptr<const Bootstrap> bootstrap,
                      TransportSource source, Options options)
    : bootstrap_(std::move(bootstrap)),
      source_(std::move(source)),
      options_([&options] {
        if (!options.jitter_seed.has_value()) {
          options.jitter_seed = client::RandomJitterSeed();
        }
        return std::move(options);
      }()),
      timers_(options_.timers != nullptr ? options_.timers
                                         : client::DefaultTimers()),
      node_(BuildLrsNode(*bootstrap_, options_.user_agent_name,
                         options_.user_agent_version)) {}

absl::StatusOr<LrsClient::Impl::Server*> LrsClient::Impl::PrepareServerLocked(
    const XdsServerConfig& config) {
  // A47 §XdsClient Load Reporting APIs: never a server the bootstrap does
  // not name (its credentials could leak to it).
  if (!bootstrap_->HasServer(config)) {
    return absl::InvalidArgumentError(absl::StrCat(
        "lrs server ", config.server_uri(),
        " is not one of the bootstrap's xds servers (must equal one in "
        "server_uri, channel_creds and server_features)"));
  }
  if (shutting_down_) {
    return absl::FailedPreconditionError("lrs client is shut down");
  }
  auto it = server_index_.find(config);
  Server* server;
  if (it != server_index_.end()) {
    server = servers_[it->second].get();
  } else {
    const size_t index = servers_.size();
    servers_.push_back(std::make_unique<Server>(options_.backoff,
                                                *options_.jitter_seed + index));
    server = servers_.back().get();
    server->index = index;
    server->config = std::make_shared<const XdsServerConfig>(config);
    std::weak_ptr<Impl> weak = weak_from_this();
    std::shared_ptr<Timers> timers = timers_;
    server->store = LoadReportStore::Create([timers] { return timers->Now(); },
                                            [weak, index] {
                                              if (auto impl = weak.lock())
                                                impl->OnIdle(index);
                                            });
    server_index_.emplace(config, index);
  }
  if (server->transport == nullptr) {
    absl::StatusOr<std::shared_ptr<client::XdsTransport>> transport =
        source_(*server->config);
    if (!transport.ok()) return transport.status();
    if (*transport == nullptr) {
      return absl::InternalError(
          absl::StrCat("no channel to lrs server ", config.server_uri()));
    }
    server->transport = *std::move(transport);
  }
  return server;
}

absl::StatusOr<std::shared_ptr<ClusterDropStats>> LrsClient::Impl::AddDropStats(
    const XdsServerConfig& lrs_server, absl::string_view cluster,
    absl::string_view eds_service_name) {
  Deferred d;
  std::shared_ptr<ClusterDropStats> stats;
  {
    MutexLock lock(&mu_);
    absl::StatusOr<Server*> server = PrepareServerLocked(lrs_server);
    if (!server.ok()) return server.status();
    stats = (*server)->store->GetOrCreateDropStats(cluster, eds_service_name);
    EnsureStreamLocked(*server, &d);
  }
  RunDeferred(&d);
  return stats;
}

absl::StatusOr<std::shared_ptr<ClusterLocalityStats>>
LrsClient::Impl::AddLocalityStats(const XdsServerConfig& lrs_server,
                                  absl::string_view cluster,
                                  absl::string_view eds_service_name,
                                  const Locality& locality) {
  Deferred d;
  std::shared_ptr<ClusterLocalityStats> stats;
  {
    MutexLock lock(&mu_);
    absl::StatusOr<Server*> server = PrepareServerLocked(lrs_server);
    if (!server.ok()) return server.status();
    stats = (*server)->store->GetOrCreateLocalityStats(
        cluster, eds_service_name, locality);
    EnsureStreamLocked(*server, &d);
  }
  RunDeferred(&d);
  return stats;
}

void LrsClient::Impl::EnsureStreamLocked(Server* server, Deferred* d) {
  // Running, or backing off (the retry starts it).
  if (server->call != nullptr ||
      server->retry_timer != Timers::kInvalidHandle) {
    return;
  }
  StartCallLocked(server, d);
}

void LrsClient::Impl::StartCallLocked(Server* server, Deferred* d) {
  auto call = std::make_unique<Call>();
  call->generation = next_generation_++;
  const uint64_t gen = call->generation;
  server->call = std::move(call);
  d->starts.push_back([self = shared_from_this(), index = server->index, gen,
                       transport = server->transport]() mutable {
    self->CreateCall(index, gen, std::move(transport));
  });
}

void LrsClient::Impl::CreateCall(
    size_t server_index, uint64_t call_gen,
    std::shared_ptr<client::XdsTransport> transport) {
  client::StreamingCallPtr stream = transport->CreateStreamingCall(
      client::kLrsMethod,
      std::make_unique<Handler>(weak_from_this(), server_index, call_gen));
  Deferred d;
  {
    MutexLock lock(&mu_);
    Server* server = nullptr;
    Call* call = FindCallLocked(server_index, call_gen, &server);
    if (call == nullptr || call->ready) {
      // Stopped or replaced before it was stored: cancel it.
      auto box = std::make_shared<CallBox>();
      box->call = std::move(stream);
      d.dead_calls.push_back(std::move(box));
    } else {
      call->box->call = std::move(stream);
      call->ready = true;
      call->sends.push_back(false);
      d.sends.emplace_back(call->box, BuildInitialLrsRequest(node_));
    }
  }
  RunDeferred(&d);
  // `transport` outlives the stream destroyed above.
}

LrsClient::Impl::Call* LrsClient::Impl::FindCallLocked(size_t server_index,
                                                       uint64_t call_gen,
                                                       Server** out) {
  if (shutting_down_ || server_index >= servers_.size()) return nullptr;
  Server* server = servers_[server_index].get();
  if (server->call == nullptr || server->call->generation != call_gen) {
    return nullptr;
  }
  *out = server;
  return server->call.get();
}

void LrsClient::Impl::MaybeScheduleReportLocked(Server* server, Call* call) {
  // C-core: reporting waits for a response, and the next report for the
  // previous send to complete. A response can beat CreateCall storing the
  // stream (the handler is live first): reports wait for that too.
  if (!call->ready || !call->config.has_value() || !call->sends.empty() ||
      call->report_timer != Timers::kInvalidHandle) {
    return;
  }
  call->report_token = next_token_++;
  std::weak_ptr<Impl> weak = weak_from_this();
  call->report_timer =
      timers_->RunAfter(call->config->load_reporting_interval,
                        [weak, index = server->index, gen = call->generation,
                         token = call->report_token] {
                          if (auto impl = weak.lock())
                            impl->OnReportTimer(index, gen, token);
                        });
}

void LrsClient::Impl::CancelReportTimerLocked(Call* call) {
  if (call->report_timer != Timers::kInvalidHandle) {
    timers_->Cancel(call->report_timer);
    call->report_timer = Timers::kInvalidHandle;
  }
}

void LrsClient::Impl::OnRequestSent(size_t server_index, uint64_t call_gen,
                                    bool ok) {
  Deferred d;
  {
    MutexLock lock(&mu_);
    Server* server = nullptr;
    Call* call = FindCallLocked(server_index, call_gen, &server);
    if (call == nullptr || call->sends.empty()) return;
    const bool was_report = call->sends.front();
    call->sends.pop_front();
    if (!ok) return;  // the stream is ending: OnStatusReceived follows
    // C-core: after a report, a server with nothing left to report stops
    // its stream; the last counts of released stats just went out.
    if (was_report && DoneLocked(*server)) {
      StopLocked(server, &d);
    } else {
      MaybeScheduleReportLocked(server, call);
    }
  }
  RunDeferred(&d);
}

void LrsClient::Impl::OnRecvMessage(size_t server_index, uint64_t call_gen,
                                    absl::string_view payload) {
  MutexLock lock(&mu_);
  Server* server = nullptr;
  Call* call = FindCallLocked(server_index, call_gen, &server);
  if (call == nullptr) return;
  absl::StatusOr<LrsResponse> response = ParseLrsResponse(payload);
  if (!response.ok()) return;  // C-core ignores it; the stream goes on
  call->seen_response = true;
  // C-core ignores a response identical to the current config (the report
  // timer keeps running); another one restarts the reporting.
  if (call->config.has_value() && *call->config == *response) return;
  CancelReportTimerLocked(call);
  call->config = *std::move(response);
  call->last_report_was_zero = false;
  MaybeScheduleReportLocked(server, call);
}

void LrsClient::Impl::OnReportTimer(size_t server_index, uint64_t call_gen,
                                    uint64_t token) {
  Deferred d;
  {
    MutexLock lock(&mu_);
    Server* server = nullptr;
    Call* call = FindCallLocked(server_index, call_gen, &server);
    if (call == nullptr || call->report_token != token ||
        call->report_timer == Timers::kInvalidHandle) {
      return;
    }
    call->report_timer = Timers::kInvalidHandle;
    std::vector<ClusterLoadReport> reports = server->store->TakeReports(
        call->config->send_all_clusters, call->config->clusters);
    bool zero = true;
    for (const ClusterLoadReport& report : reports) {
      zero = zero && report.IsZero();
    }
    const bool previous_was_zero = call->last_report_was_zero;
    call->last_report_was_zero = zero;
    if (zero && previous_was_zero) {
      // C-core: skip a second all-zero report in a row.
      if (DoneLocked(*server)) {
        StopLocked(server, &d);
      } else {
        MaybeScheduleReportLocked(server, call);
      }
    } else {
      call->sends.push_back(true);
      d.sends.emplace_back(call->box, BuildLrsReport(reports));
    }
  }
  RunDeferred(&d);
}

void LrsClient::Impl::OnStatusReceived(size_t server_index, uint64_t call_gen,
                                       absl::Status status) {
  Deferred d;
  {
    MutexLock lock(&mu_);
    Server* server = nullptr;
    Call* call = FindCallLocked(server_index, call_gen, &server);
    if (call == nullptr) return;
    CancelReportTimerLocked(call);
    const bool seen_response = call->seen_response;
    d.dead_calls.push_back(std::move(call->box));
    server->call.reset();
    if (!server->store->HasLiveStats()) {
      StopLocked(server, &d);
    } else {
      // C-core's RetryableCall: a stream that got a response restarts after
      // the initial backoff again.
      if (seen_response) server->backoff.Reset();
      server->retry_token = next_token_++;
      std::weak_ptr<Impl> weak = weak_from_this();
      server->retry_timer = timers_->RunAfter(
          server->backoff.NextDelay(),
          [weak, index = server->index, token = server->retry_token] {
            if (auto impl = weak.lock()) impl->OnRetryTimer(index, token);
          });
    }
  }
  RunDeferred(&d);
}

void LrsClient::Impl::OnRetryTimer(size_t server_index, uint64_t token) {
  Deferred d;
  {
    MutexLock lock(&mu_);
    if (shutting_down_ || server_index >= servers_.size()) return;
    Server* server = servers_[server_index].get();
    if (server->retry_token != token ||
        server->retry_timer == Timers::kInvalidHandle) {
      return;
    }
    server->retry_timer = Timers::kInvalidHandle;
    if (!server->store->HasLiveStats()) {
      StopLocked(server, &d);
    } else {
      StartCallLocked(server, &d);
    }
  }
  RunDeferred(&d);
}

void LrsClient::Impl::OnIdle(size_t server_index) {
  Deferred d;
  {
    MutexLock lock(&mu_);
    if (shutting_down_ || server_index >= servers_.size()) return;
    Server* server = servers_[server_index].get();
    // A new stats object may have come since the store called us.
    if (server->store->HasLiveStats()) return;
    // Reporting: the next report carries the last counts, then stops.
    if (server->call != nullptr && server->call->config.has_value()) return;
    StopLocked(server, &d);
  }
  RunDeferred(&d);
}

void LrsClient::Impl::StopLocked(Server* server, Deferred* d) {
  if (server->retry_timer != Timers::kInvalidHandle) {
    timers_->Cancel(server->retry_timer);
    server->retry_timer = Timers::kInvalidHandle;
  }
  if (server->call != nullptr) {
    CancelReportTimerLocked(server->call.get());
    d->dead_calls.push_back(std::move(server->call->box));
    server->call.reset();
  }
  if (server->transport != nullptr) {
    d->dead_transports.push_back(std::move(server->transport));
  }
  server->backoff.Reset();
}

void LrsClient::Impl::RunDeferred(Deferred* d) {
  for (auto& start : d->starts) start();
  d->starts.clear();
  for (auto& send : d->sends) {
    send.first->call->SendMessage(std::move(send.second));
  }
  d->sends.clear();
  d->dead_calls.clear();
  d->dead_transports.clear();
}

size_t LrsClient::Impl::ActiveStreamCount() const {
  MutexLock lock(&mu_);
  size_t n = 0;
  for (const auto& server : servers_) {
    if (server->call != nullptr ||
        server->retry_timer != Timers::kInvalidHandle) {
      ++n;
    }
  }
  return n;
}

void LrsClient::Impl::Shutdown() {
  Deferred d;
  {
    MutexLock lock(&mu_);
    shutting_down_ = true;
    for (auto& server : servers_) StopLocked(server.get(), &d);
  }
  RunDeferred(&d);
}

// --- LrsClient ---

absl::StatusOr<std::shared_ptr<LrsClient>> LrsClient::Create(
    std::shared_ptr<client::XdsClient> xds_client, Options options) {
  if (xds_client == nullptr) {
    return absl::InvalidArgumentError("lrs client needs an xds client");
  }
  // The same node as the ADS stream.
  options.user_agent_name = xds_client->options().user_agent_name;
  options.user_agent_version = xds_client->options().user_agent_version;
  if (options.timers == nullptr) options.timers = xds_client->options().timers;
  std::shared_ptr<const Bootstrap> bootstrap = xds_client->bootstrap();
  TransportSource source = [xds_client](const XdsServerConfig& server) {
    return xds_client->SharedTransport(server);
  };
  return Create(std::move(bootstrap), std::move(source), std::move(options));
}

absl::StatusOr<std::shared_ptr<LrsClient>> LrsClient::Create(
    std::shared_ptr<const Bootstrap> bootstrap,
    std::shared_ptr<client::XdsTransportFactory> factory, Options options) {
  if (factory == nullptr) {
    return absl::InvalidArgumentError("lrs client needs a transport factory");
  }
  TransportSource source = [factory](const XdsServerConfig& server)
      -> absl::StatusOr<std::shared_ptr<client::XdsTransport>> {
    // The stream notices an unreachable server itself.
    absl::StatusOr<std::unique_ptr<client::XdsTransport>> transport =
        factory->Create(server, [](absl::Status) {});
    if (!transport.ok()) return transport.status();
    return std::shared_ptr<client::XdsTransport>(*std::move(transport));
  };
  return Create(std::move(bootstrap), std::move(source), std::move(options));
}

absl::StatusOr<std::shared_ptr<LrsClient>> LrsClient::Create(
    std::shared_ptr<const Bootstrap> bootstrap, TransportSource source,
    Options options) {
  if (bootstrap == nullptr || bootstrap->servers().empty()) {
    return absl::InvalidArgumentError("lrs client needs a bootstrap");
  }
  if (source == nullptr) {
    return absl::InvalidArgumentError("lrs client needs a transport source");
  }
  auto impl = std::make_shared<Impl>(std::move(bootstrap), std::move(source),
                                     std::move(options));
  return std::shared_ptr<LrsClient>(new LrsClient(std::move(impl)));
}

LrsClient::LrsClient(std::shared_ptr<Impl> impl) : impl_(std::move(impl)) {}

LrsClient::~LrsClient() { impl_->Shutdown(); }

absl::StatusOr<std::shared_ptr<ClusterDropStats>>
LrsClient::AddClusterDropStats(const XdsServerConfig& lrs_server,
                               absl::string_view cluster,
                               absl::string_view eds_service_name) {
  return impl_->AddDropStats(lrs_server, cluster, eds_service_name);
}

absl::StatusOr<std::shared_ptr<ClusterLocalityStats>>
LrsClient::AddClusterLocalityStats(const XdsServerConfig& lrs_server,
                                   absl::string_view cluster,
                                   absl::string_view eds_service_name,
                                   const Locality& locality) {
  return impl_->AddLocalityStats(lrs_server, cluster, eds_service_name,
                                 locality);
}

size_t LrsClient::active_stream_count() const {
  return impl_->ActiveStreamCount();
}

}  // namespace lrs
}  // namespace xdsfed
