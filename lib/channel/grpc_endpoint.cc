#include "lib/channel/grpc_endpoint.h"

#include <atomic>
#include <deque>
#include <thread>
#include <utility>

#include "absl/strings/str_cat.h"
#include "lib/channel/endpoint_tls.h"
#include "lib/cluster/dns_resolver.h"
#include "lib/transport/grpc_lifetime.h"

namespace xdsfed {
namespace channel {
namespace {

Connectivity FromGrpc(grpc_connectivity_state s) {
  switch (s) {
    case GRPC_CHANNEL_IDLE:
      return Connectivity::kIdle;
    case GRPC_CHANNEL_CONNECTING:
      return Connectivity::kConnecting;
    case GRPC_CHANNEL_READY:
      return Connectivity::kReady;
    default:
      return Connectivity::kTransientFailure;
  }
}

int Millis(absl::Duration d) {
  return static_cast<int>(absl::ToInt64Milliseconds(d));
}

}  // namespace

absl::string_view ConnectivityName(Connectivity state) {
  switch (state) {
    case Connectivity::kIdle:
      return "IDLE";
    case Connectivity::kConnecting:
      return "CONNECTING";
    case Connectivity::kReady:
      return "READY";
    case Connectivity::kTransientFailure:
      return "TRANSIENT_FAILURE";
  }
  return "UNKNOWN";
}

std::string EndpointTarget(const std::string& address) {
  auto host_port = cluster::SplitHostPort(address);
  if (host_port.ok()) {
    const std::string& host = host_port->host;
    bool v4 = !host.empty() &&
              host.find_first_not_of("0123456789.") == std::string::npos;
    if (v4) return absl::StrCat("ipv4:", address);
    if (host.find(':') != std::string::npos) {
      return absl::StrCat("ipv6:", address);
    }
  }
  return absl::StrCat("dns:///", address);
}

struct GrpcEndpointFactory::Core {
  std::string address;
  // The channel, owned by the endpoint's Handle. A pending watch holds only
  // this: the Handle's release destroys the channel (when no call holds it
  // either), and gRPC ends a destroyed channel's watches at once (its state
  // becomes SHUTDOWN), so the factory's destructor does not wait for
  // watch_poll.
  std::weak_ptr<grpc::Channel> channel;
  std::function<void()> on_change;
  std::atomic<Connectivity> state{Connectivity::kIdle};
  std::atomic<bool> started{false};
  std::atomic<bool> released{false};
  // TLS endpoints only (A29).
  std::shared_ptr<const resources::UpstreamTlsContext> tls;
  std::shared_ptr<TlsHandshakeReport> report;
  std::atomic<bool> diagnosing{false};
  Mutex reason_mu;
  std::string reason ABSL_GUARDED_BY(reason_mu);
};

struct GrpcEndpointFactory::Diagnoser {
  std::shared_ptr<const Bootstrap> bootstrap;
  absl::Duration timeout;
  std::thread::id thread_id;
  Mutex mu;
  std::condition_variable_any changed;
  std::deque<std::shared_ptr<Core>> queue ABSL_GUARDED_BY(mu);
  bool stop ABSL_GUARDED_BY(mu) = false;
  bool exited ABSL_GUARDED_BY(mu) = false;
};

class GrpcEndpointFactory::Handle : public Endpoint {
 public:
  Handle(GrpcEndpointFactory* factory, std::shared_ptr<Core> core)
      : factory_(factory), core_(std::move(core)) {}
  ~Handle() override {
    core_->released.store(true);
    // Never started: no watch will return to end its count.
    if (!core_->started.load(std::memory_order_acquire)) factory_->Done();
  }
  const std::string& address() const override { return core_->address; }
  Connectivity state() const override {
    return core_->state.load(std::memory_order_acquire);
  }
  const std::shared_ptr<grpc::Channel>& channel() const override {
    return channel_;
  }
  void Start() override { factory_->StartChannel(core_, &channel_); }
  Connectivity Recheck() override {
    if (!core_->started.load(std::memory_order_acquire)) return state();
    // GetState(false) reads the channel's state without starting anything,
    // so it is safe under the data plane's lock; the watch thread asks an
    // IDLE channel to reconnect when its notification arrives.
    Connectivity now = FromGrpc(channel_->GetState(false));
    if (now != Connectivity::kReady) {
      // Only a READY record is corrected: a newer state the watch thread
      // stored meanwhile wins.
      Connectivity expected = Connectivity::kReady;
      core_->state.compare_exchange_strong(expected, now);
    }
    return now;
  }
  std::string failure_reason() const override {
    // Not tied to the state now: by the time a failing child's picker is
    // published the endpoint may already be CONNECTING again (backoff). A
    // READY connection clears it.
    {
      MutexLock lock(&core_->reason_mu);
      if (!core_->reason.empty()) return core_->reason;
    }
    // The verifier's verdict is known before the diagnosis runs.
    if (core_->report != nullptr) {
      std::string san = core_->report->san_mismatch();
      if (!san.empty()) return absl::StrCat("SAN check failed: ", san);
    }
    return "";
  }
  std::string peer_identity() const override {
    return core_->report == nullptr ? "" : core_->report->peer_identity();
  }

 private:
  GrpcEndpointFactory* const factory_;
  const std::shared_ptr<Core> core_;
  // Made by Start(), before `started` and the first state it stores: a
  // reader that loads either (acquire) sees it.
  std::shared_ptr<grpc::Channel> channel_;
};

GrpcEndpointFactory::GrpcEndpointFactory(Options options)
    : options_(std::move(options)), diagnoser_(std::make_shared<Diagnoser>()) {
  // An endpoint's channel may be released inside a call's callback.
  transport::HoldGrpcCallbackQueueForProcessLife();
  thread_ = std::thread([this] { Run(); });
  diagnoser_->bootstrap = options_.bootstrap;
  diagnoser_->timeout = options_.tls_diagnosis_timeout;
  std::thread diagnosis([d = diagnoser_] { RunDiagnoses(d); });
  diagnoser_->thread_id = diagnosis.get_id();
  diagnosis.detach();
}

GrpcEndpointFactory::~GrpcEndpointFactory() {
  {
    MutexLock lock(&mu_);
    shutting_down_ = true;
    while (pending_ > 0) idle_.wait(mu_);
  }
  {
    MutexLock lock(&diagnoser_->mu);
    diagnoser_->stop = true;
    diagnoser_->changed.notify_all();
    // On the diagnosis thread itself (its change notification released the
    // last owner): it ends on its own after this returns.
    if (std::this_thread::get_id() != diagnoser_->thread_id) {
      while (!diagnoser_->exited) diagnoser_->changed.wait(diagnoser_->mu);
    }
  }
  cq_.Shutdown();
  thread_.join();
}

std::shared_ptr<Endpoint> GrpcEndpointFactory::Create(
    const std::string& address, std::function<void()> on_change) {
  auto core = std::make_shared<Core>();
  core->address = address;
  core->on_change = std::move(on_change);
  {
    // Counted from now: the destructor waits for this endpoint's release
    // (never started) or its last watch.
    MutexLock lock(&mu_);
    ++pending_;
  }
  return std::make_shared<Handle>(this, std::move(core));
}

std::shared_ptr<Endpoint> GrpcEndpointFactory::CreateTls(
    const std::string& address,
    std::shared_ptr<const resources::UpstreamTlsContext> tls,
    std::function<void()> on_change) {
  auto core = std::make_shared<Core>();
  core->address = address;
  core->on_change = std::move(on_change);
  core->tls = std::move(tls);
  core->report = std::make_shared<TlsHandshakeReport>();
  {
    MutexLock lock(&mu_);
    ++pending_;
  }
  return std::make_shared<Handle>(this, std::move(core));
}

void GrpcEndpointFactory::StartChannel(
    const std::shared_ptr<Core>& core,
    std::shared_ptr<grpc::Channel>* channel) {
  if (core->started.load(std::memory_order_acquire)) return;
  {
    // Its release will end its count (the destructor is waiting for it).
    MutexLock lock(&mu_);
    if (shutting_down_) return;
  }
  grpc::ChannelArguments args;
  if (!options_.authority.empty()) {
    args.SetString(GRPC_ARG_DEFAULT_AUTHORITY, options_.authority);
  }
  args.SetInt(GRPC_ARG_INITIAL_RECONNECT_BACKOFF_MS,
              Millis(options_.min_reconnect_backoff));
  args.SetInt(GRPC_ARG_MIN_RECONNECT_BACKOFF_MS,
              Millis(options_.min_reconnect_backoff));
  args.SetInt(GRPC_ARG_MAX_RECONNECT_BACKOFF_MS,
              Millis(options_.max_reconnect_backoff));
  std::shared_ptr<grpc::ChannelCredentials> creds;
  if (core->tls == nullptr) {
    creds = grpc::InsecureChannelCredentials();
  } else {
    absl::StatusOr<std::shared_ptr<grpc::ChannelCredentials>> tls_creds =
        options_.bootstrap == nullptr
            ? absl::FailedPreconditionError(
                  "no bootstrap to find certificate providers in")
            : MakeEndpointCredentials(*options_.bootstrap, *core->tls,
                                      core->report);
    if (!tls_creds.ok()) {
      // No channel at all: the cluster asked for TLS and cannot have it.
      // Never started, so its release ends its count.
      {
        MutexLock lock(&core->reason_mu);
        core->reason = std::string(tls_creds.status().message());
      }
      const Connectivity before =
          core->state.exchange(Connectivity::kTransientFailure);
      if (before != Connectivity::kTransientFailure && core->on_change) {
        core->on_change();
      }
      return;
    }
    creds = *std::move(tls_creds);
  }
  *channel = grpc::CreateCustomChannel(EndpointTarget(core->address),
                                       std::move(creds), args);
  core->channel = *channel;
  core->started.store(true, std::memory_order_release);
  grpc_connectivity_state s = (*channel)->GetState(/*try_to_connect=*/true);
  const Connectivity now = FromGrpc(s);
  const Connectivity before = core->state.exchange(now);
  Arm(core, **channel, s);  // the count Create took passes to the watch
  // E.g. READY at once: a connection shared through gRPC's subchannel pool.
  if (now != before && core->on_change) core->on_change();
}

void GrpcEndpointFactory::Done() {
  MutexLock lock(&mu_);
  --pending_;
  idle_.notify_all();
}

void GrpcEndpointFactory::Arm(const std::shared_ptr<Core>& core,
                              grpc::Channel& channel,
                              grpc_connectivity_state last) {
  // The tag owns the Core, not the channel (see Core::channel).
  auto* tag = new std::shared_ptr<Core>(core);
  channel.NotifyOnStateChange(
      last,
      std::chrono::system_clock::now() +
          absl::ToChronoMilliseconds(options_.watch_poll),
      &cq_, tag);
}

void GrpcEndpointFactory::Run() {
  void* tag = nullptr;
  bool ok = false;
  while (cq_.Next(&tag, &ok)) {
    std::shared_ptr<Core> core =
        std::move(*static_cast<std::shared_ptr<Core>*>(tag));
    delete static_cast<std::shared_ptr<Core>*>(tag);
    // Held until the watch is re-armed: released meanwhile, the endpoint's
    // channel then goes on this thread, and its new watch ends at once.
    std::shared_ptr<grpc::Channel> channel = core->channel.lock();
    bool stop = channel == nullptr || core->released.load();
    {
      MutexLock lock(&mu_);
      stop = stop || shutting_down_;
    }
    if (stop) {
      Done();
      continue;  // `core` goes here
    }
    // Round robin keeps every endpoint connected: an IDLE channel (the
    // backend closed the connection) is asked to connect again.
    grpc_connectivity_state s = channel->GetState(true);
    Connectivity now = FromGrpc(s);
    Connectivity before = core->state.exchange(now);
    if (now == Connectivity::kReady && core->tls != nullptr) {
      MutexLock lock(&core->reason_mu);
      core->reason.clear();
    }
    Arm(core, *channel, s);
    if (now != before && core->on_change) core->on_change();
    if (now == Connectivity::kTransientFailure && core->tls != nullptr) {
      Diagnose(core);
    }
  }
}

void GrpcEndpointFactory::Diagnose(const std::shared_ptr<Core>& core) {
  if (core->diagnosing.exchange(true)) return;
  MutexLock lock(&diagnoser_->mu);
  diagnoser_->queue.push_back(core);
  diagnoser_->changed.notify_all();
}

void GrpcEndpointFactory::RunDiagnoses(const std::shared_ptr<Diagnoser>& d) {
  for (;;) {
    std::shared_ptr<Core> core;
    {
      MutexLock lock(&d->mu);
      while (d->queue.empty() && !d->stop) d->changed.wait(d->mu);
      if (d->stop) {
        d->queue.clear();
        d->exited = true;
        d->changed.notify_all();
        return;
      }
      core = std::move(d->queue.front());
      d->queue.pop_front();
    }
    std::string why;
    if (!core->released.load() && d->bootstrap != nullptr) {
      why = ExplainTlsFailure(*d->bootstrap, *core->tls, *core->report,
                              EndpointTarget(core->address), d->timeout);
    }
    bool changed = false;
    {
      MutexLock lock(&core->reason_mu);
      changed = why != core->reason;
      core->reason = std::move(why);
    }
    core->diagnosing.store(false);
    // The data plane republishes, so a failing pick names the reason. (It
    // may release the data plane's last reference, and so the factory.)
    if (changed && !core->released.load() && core->on_change) {
      core->on_change();
    }
  }
}

}  // namespace channel
}  // namespace xdsfed
