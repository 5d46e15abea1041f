// LrsClient: one LoadReportStore and at most one LRS stream per server.
//
// Locking: mu_ guards the servers and their stream state; a store's own lock
// is taken inside it (mu_ -> store), never the other way: the store calls
// back (on_idle) only after releasing its lock. Transport work (creating a
// stream, sending, destroying streams and transports) is collected in a
// client::StreamWork and done after mu_ is released, as in the XdsClient. No
// stats object is released under mu_ (its destructor may call back).
//
// Streams: each server's LRS stream is a client::RetryingStream (call,
// backoff, generations, stream end), the helper the ADS stream uses too;
// this file adds the LRS protocol on top.
#include "lib/lrs/lrs_client.h"

#include <deque>
#include <optional>
#include <utility>
#include <vector>

#include "absl/base/thread_annotations.h"
#include "absl/container/flat_hash_map.h"
#include "absl/strings/str_cat.h"
#include "lib/base/mutex.h"
#include "lib/client/retrying_stream.h"
#include "lib/lrs/internal/load_report_store.h"
#include "lib/lrs/internal/lrs_wire.h"

namespace xdsfed {
namespace lrs {

using client::StreamWork;
using client::Timers;

class LrsClient::Impl final : public std::enable_shared_from_this<Impl>,
                              public client::RetryingStreamOwner {
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

  // Stream and timer events (client::RetryingStreamOwner; the key is the
  // server's index); (server, call generation) identify the stream, so late
  // events of a replaced one are dropped.
  void OnCallCreated(uint64_t server, uint64_t call_gen,
                     client::StreamingCallPtr call) override
      ABSL_LOCKS_EXCLUDED(mu_);
  void OnRequestSent(uint64_t server, uint64_t call_gen, bool ok) override
      ABSL_LOCKS_EXCLUDED(mu_);
  void OnRecvMessage(uint64_t server, uint64_t call_gen,
                     absl::string_view payload) override
      ABSL_LOCKS_EXCLUDED(mu_);
  void OnStatusReceived(uint64_t server, uint64_t call_gen,
                        absl::Status status) override ABSL_LOCKS_EXCLUDED(mu_);
  void OnRetryTimer(uint64_t server, uint64_t token) override
      ABSL_LOCKS_EXCLUDED(mu_);

 private:
  // The LRS protocol state of one call (RetryingStream's CallState).
  struct Call {
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
    explicit Server(client::RetryingStreamOptions stream_options)
        : stream(std::move(stream_options)) {}
    size_t index = 0;
    std::shared_ptr<const XdsServerConfig> config;
    std::shared_ptr<LoadReportStore> store;
    // Held while a stream is wanted (running or backing off).
    std::shared_ptr<client::XdsTransport> transport;
    // Its call() is null when stopped or backing off.
    client::RetryingStream<Call> stream;
  };

  // The server's state with a channel, ready for a new stats object.
  absl::StatusOr<Server*> PrepareServerLocked(const XdsServerConfig& config)
      ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  void EnsureStreamLocked(Server* server, StreamWork* d)
      ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  Call* FindCallLocked(size_t server, uint64_t call_gen, Server** out)
      ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  void MaybeScheduleReportLocked(Server* server, Call* call)
      ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  void OnReportTimer(size_t server, uint64_t call_gen, uint64_t token)
      ABSL_LOCKS_EXCLUDED(mu_);
  void OnIdle(size_t server) ABSL_LOCKS_EXCLUDED(mu_);
  // No stats object held and nothing left to report: the stream can stop.
  static bool DoneLocked(const Server& server) {
    return !server.store->HasLiveStats() && server.store->empty();
  }
  void CancelReportTimerLocked(Call* call) ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  void StopLocked(Server* server, StreamWork* d)
      ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);

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
    client::RetryingStreamOptions stream_options;
    stream_options.method = client::kLrsMethod;
    stream_options.backoff = options_.backoff;
    stream_options.jitter_seed = *options_.jitter_seed + index;
    stream_options.timers = timers_;
    stream_options.owner = weak_from_this();
    stream_options.key = index;
    servers_.push_back(std::make_unique<Server>(std::move(stream_options)));
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
  StreamWork d;
  std::shared_ptr<ClusterDropStats> stats;
  {
    MutexLock lock(&mu_);
    absl::StatusOr<Server*> server = PrepareServerLocked(lrs_server);
    if (!server.ok()) return server.status();
    stats = (*server)->store->GetOrCreateDropStats(cluster, eds_service_name);
    EnsureStreamLocked(*server, &d);
  }
  d.Run();
  return stats;
}

absl::StatusOr<std::shared_ptr<ClusterLocalityStats>>
LrsClient::Impl::AddLocalityStats(const XdsServerConfig& lrs_server,
                                  absl::string_view cluster,
                                  absl::string_view eds_service_name,
                                  const Locality& locality) {
  StreamWork d;
  std::shared_ptr<ClusterLocalityStats> stats;
  {
    MutexLock lock(&mu_);
    absl::StatusOr<Server*> server = PrepareServerLocked(lrs_server);
    if (!server.ok()) return server.status();
    stats = (*server)->store->GetOrCreateLocalityStats(
        cluster, eds_service_name, locality);
    EnsureStreamLocked(*server, &d);
  }
  d.Run();
  return stats;
}

void LrsClient::Impl::EnsureStreamLocked(Server* server, StreamWork* d) {
  // Running, or backing off (the retry starts it).
  if (server->stream.running() || server->stream.backing_off()) return;
  server->stream.Start(server->transport, d);
}

void LrsClient::Impl::OnCallCreated(uint64_t server_index, uint64_t call_gen,
                                    client::StreamingCallPtr stream) {
  StreamWork d;
  {
    MutexLock lock(&mu_);
    if (shutting_down_ || server_index >= servers_.size()) {
      d.Cancel(std::move(stream));
    } else {
      Server* server = servers_[server_index].get();
      if (server->stream.Adopt(call_gen, std::move(stream), &d)) {
        server->stream.call()->sends.push_back(false);
        server->stream.Send(BuildInitialLrsRequest(node_), &d);
      }
    }
  }
  d.Run();
}

LrsClient::Impl::Call* LrsClient::Impl::FindCallLocked(size_t server_index,
                                                       uint64_t call_gen,
                                                       Server** out) {
  if (shutting_down_ || server_index >= servers_.size()) return nullptr;
  Server* server = servers_[server_index].get();
  if (!server->stream.IsCurrent(call_gen)) return nullptr;
  *out = server;
  return server->stream.call();
}

void LrsClient::Impl::MaybeScheduleReportLocked(Server* server, Call* call) {
  // C-core: reporting waits for a response, and the next report for the
  // previous send to complete. A response can beat CreateCall storing the
  // stream (the handler is live first): reports wait for that too.
  if (!server->stream.ready() || !call->config.has_value() ||
      !call->sends.empty() || call->report_timer != Timers::kInvalidHandle) {
    return;
  }
  call->report_token = next_token_++;
  std::weak_ptr<Impl> weak = weak_from_this();
  call->report_timer = timers_->RunAfter(
      call->config->load_reporting_interval,
      [weak, index = server->index, gen = server->stream.generation(),
       token = call->report_token] {
        if (auto impl = weak.lock()) impl->OnReportTimer(index, gen, token);
      });
}

void LrsClient::Impl::CancelReportTimerLocked(Call* call) {
  if (call->report_timer != Timers::kInvalidHandle) {
    timers_->Cancel(call->report_timer);
    call->report_timer = Timers::kInvalidHandle;
  }
}

void LrsClient::Impl::OnRequestSent(uint64_t server_index, uint64_t call_gen,
                                    bool ok) {
  StreamWork d;
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
  d.Run();
}

void LrsClient::Impl::OnRecvMessage(uint64_t server_index, uint64_t call_gen,
                                    absl::string_view payload) {
  MutexLock lock(&mu_);
  Server* server = nullptr;
  Call* call = FindCallLocked(server_index, call_gen, &server);
  if (call == nullptr) return;
  absl::StatusOr<LrsResponse> response = ParseLrsResponse(payload);
  if (!response.ok()) return;  // C-core ignores it; the stream goes on
  server->stream.MarkResponse();
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
  StreamWork d;
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
      server->stream.Send(BuildLrsReport(reports), &d);
    }
  }
  d.Run();
}

void LrsClient::Impl::OnStatusReceived(uint64_t server_index, uint64_t call_gen,
                                       absl::Status status) {
  StreamWork d;
  {
    MutexLock lock(&mu_);
    Server* server = nullptr;
    Call* call = FindCallLocked(server_index, call_gen, &server);
    if (call == nullptr) return;
    CancelReportTimerLocked(call);
    // C-core's RetryableCall: a stream that got a response restarts after
    // the initial backoff again (End resets it).
    server->stream.End(&d);
    if (!server->store->HasLiveStats()) {
      StopLocked(server, &d);
    } else {
      server->stream.ScheduleRetry();
    }
  }
  d.Run();
}

void LrsClient::Impl::OnRetryTimer(uint64_t server_index, uint64_t token) {
  StreamWork d;
  {
    MutexLock lock(&mu_);
    if (shutting_down_ || server_index >= servers_.size()) return;
    Server* server = servers_[server_index].get();
    if (!server->stream.TakeRetry(token)) return;
    if (!server->store->HasLiveStats()) {
      StopLocked(server, &d);
    } else {
      server->stream.Start(server->transport, &d);
    }
  }
  d.Run();
}

void LrsClient::Impl::OnIdle(size_t server_index) {
  StreamWork d;
  {
    MutexLock lock(&mu_);
    if (shutting_down_ || server_index >= servers_.size()) return;
    Server* server = servers_[server_index].get();
    // A new stats object may have come since the store called us.
    if (server->store->HasLiveStats()) return;
    // Reporting: the next report carries the last counts, then stops.
    const Call* call = server->stream.call();
    if (call != nullptr && call->config.has_value()) return;
    StopLocked(server, &d);
  }
  d.Run();
}

void LrsClient::Impl::StopLocked(Server* server, StreamWork* d) {
  if (Call* call = server->stream.call()) CancelReportTimerLocked(call);
  server->stream.Stop(d);
  if (server->transport != nullptr) {
    d->ReleaseTransport(std::move(server->transport));
  }
  server->stream.ResetBackoff();
}

size_t LrsClient::Impl::ActiveStreamCount() const {
  MutexLock lock(&mu_);
  size_t n = 0;
  for (const auto& server : servers_) {
    if (server->stream.running() || server->stream.backing_off()) ++n;
  }
  return n;
}

void LrsClient::Impl::Shutdown() {
  StreamWork d;
  {
    MutexLock lock(&mu_);
    shutting_down_ = true;
    for (auto& server : servers_) StopLocked(server.get(), &d);
  }
  d.Run();
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
