// GrpcXdsTransport over grpc++ 1.51.
//
// Threading. grpc++ runs reactions (OnReadDone, OnWriteDone, OnDone) on its
// own threads, possibly concurrently, and may run one inline inside the
// Start*/TryCancel call that caused it. So:
//   - no lock is held while calling into grpc++;
//   - handler callbacks go through a per-call event queue drained by one
//     thread at a time (whoever finds it idle), which keeps them ordered and
//     never concurrent, and lets a handler call SendMessage/Orphan re-entrantly
//     (a nested event is queued and run after the current one returns);
//   - a call is reference counted (the caller's StreamingCallPtr, grpc++ until
//     OnDone, and briefly a destroying transport), and deletes itself, with
//     its handler, when the last reference goes.
// One hold keeps the write flow open for SendMessage calls made outside
// reactions; it is released once the read loop has ended and no write is in
// flight, after which grpc++ can complete the call and run OnDone.
#include "lib/transport/grpc_transport.h"

#include <algorithm>
#include <atomic>
#include <condition_variable>
#include <cstdint>
#include <cstdio>
#include <deque>
#include <limits>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include "absl/container/flat_hash_set.h"
#include "absl/status/status.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/string_view.h"
#include "absl/synchronization/notification.h"
#include "absl/time/clock.h"
#include "grpcpp/create_channel.h"
#include "grpcpp/generic/generic_stub.h"
#include "grpcpp/grpcpp.h"
#include "grpcpp/security/credentials.h"
#include "grpcpp/security/tls_certificate_provider.h"
#include "grpcpp/security/tls_credentials_options.h"
#include "lib/base/mutex.h"
#include "lib/transport/grpc_lifetime.h"
#include "lib/transport/tls_diagnosis.h"

namespace xdsfed::transport {
namespace {

using client::StreamingCall;

// gRPC's file watcher re-reads its files every N whole seconds; C-core
// raises anything smaller to 1 s (grpc++ 1.51 would spin on 0).
unsigned int RefreshSeconds(absl::Duration interval) {
  const int64_t seconds = absl::ToInt64Seconds(interval);
  return static_cast<unsigned int>(std::clamp<int64_t>(
      seconds, 1, std::numeric_limits<unsigned int>::max()));
}

bool FileReadable(const std::string& path) {
  FILE* file = std::fopen(path.c_str(), "rb");
  if (file == nullptr) return false;
  std::fclose(file);
  return true;
}

absl::StatusOr<std::shared_ptr<grpc::ChannelCredentials>> TlsCreds(
    const XdsServerConfig& server) {
  const std::string prefix =
      absl::StrCat("tls channel creds for ", server.server_uri(), ": ");
  // The bootstrap validated the config (schema/channel_creds.proto); only a
  // config built by hand can get here invalid.
  if (!server.channel_creds_status().ok()) {
    return absl::InvalidArgumentError(
        absl::StrCat(prefix, server.channel_creds_status().message()));
  }
  const schema::TlsChannelCredsConfig& tls = *server.tls_config();
  const std::pair<const char*, const std::string*> kFiles[] = {
      {"ca_certificate_file", &tls.ca_certificate_file},
      {"certificate_file", &tls.certificate_file},
      {"private_key_file", &tls.private_key_file}};
  for (const auto& [key, path] : kFiles) {
    // The file watcher would only log unreadable files and retry forever;
    // failing here tells the user which path is wrong.
    if (!path->empty() && !FileReadable(*path)) {
      return absl::FailedPreconditionError(
          absl::StrCat(prefix, "cannot read ", key, " \"", *path, "\""));
    }
  }
  grpc::experimental::TlsChannelCredentialsOptions options;
  if (!tls.ca_certificate_file.empty() || !tls.certificate_file.empty()) {
    auto provider =
        std::make_shared<grpc::experimental::FileWatcherCertificateProvider>(
            tls.private_key_file, tls.certificate_file, tls.ca_certificate_file,
            RefreshSeconds(tls.refresh_interval));
    options.set_certificate_provider(std::move(provider));
    // Without ca_certificate_file the system roots verify the server.
    if (!tls.ca_certificate_file.empty()) options.watch_root_certs();
    if (!tls.certificate_file.empty()) options.watch_identity_key_cert_pairs();
  }
  std::shared_ptr<grpc::ChannelCredentials> creds =
      grpc::experimental::TlsCredentials(options);
  if (creds == nullptr) {
    return absl::InvalidArgumentError(
        absl::StrCat(prefix, "grpc++ rejected the TLS options"));
  }
  return creds;
}

absl::Status ToAbslStatus(const grpc::Status& status) {
  return absl::Status(static_cast<absl::StatusCode>(status.error_code()),
                      status.error_message());
}

class GrpcStreamingCall;

// What a transport shares with its calls, which may outlive it.
struct CallRegistry {
  Mutex mu;
  absl::flat_hash_set<GrpcStreamingCall*> calls ABSL_GUARDED_BY(mu);
  // Started calls whose OnDone has not returned yet, and a signal when one
  // does.
  int in_grpc ABSL_GUARDED_BY(mu) = 0;
  std::condition_variable_any ended;
};

// The registry whose call's reaction runs on this thread (Drain), so that a
// transport destroyed from inside one does not wait for that call's end.
thread_local const CallRegistry* tls_reacting_registry = nullptr;

class GrpcStreamingCall final
    : public StreamingCall,
      public grpc::ClientBidiReactor<grpc::ByteBuffer, grpc::ByteBuffer> {
 public:
  GrpcStreamingCall(std::shared_ptr<CallRegistry> registry,
                    std::unique_ptr<EventHandler> handler)
      : registry_(std::move(registry)), handler_(std::move(handler)) {}

  // Registers the call (so a destroyed transport can cancel it) and starts
  // it: a read is always pending, writes start as SendMessage queues them.
  void Start(grpc::GenericStub* stub, const std::string& method) {
    {
      MutexLock lock(&registry_->mu);
      registry_->calls.insert(this);
      ++registry_->in_grpc;
    }
    // Wait-for-ready, as C-core's xDS calls: a stream started while the
    // channel is reconnecting waits for it rather than failing at once and
    // costing the caller a whole extra backoff step.
    context_.set_wait_for_ready(true);
    stub->PrepareBidiStreamingCall(&context_, method, grpc::StubOptions(),
                                   this);
    AddHold();  // the write flow, see the file comment
    StartRead(&read_buffer_);
    StartCall();
  }

  void SendMessage(std::string payload) override {
    const grpc::ByteBuffer* write = nullptr;
    {
      MutexLock lock(&mu_);
      if (writes_closed_) return;  // the call ended: ignored, as documented
      grpc::Slice slice(payload);
      writes_.emplace_back(&slice, 1);
      write = ClaimWriteLocked();
    }
    if (write != nullptr) StartWrite(write);
  }

  void Orphan() override {
    Cancel();
    Unref();
  }

  void Cancel() {
    {
      MutexLock lock(&mu_);
      if (done_) return;
    }
    context_.TryCancel();
  }

  // Called with registry_->mu held, while the call is registered (so grpc++'s
  // reference keeps it alive).
  void Ref() { refs_.fetch_add(1, std::memory_order_relaxed); }
  void Unref() {
    if (refs_.fetch_sub(1, std::memory_order_acq_rel) == 1) delete this;
  }

 private:
  struct Event {
    enum Kind { kSent, kRecv, kStatus } kind;
    bool ok = false;
    std::string payload;
    absl::Status status;
  };

  ~GrpcStreamingCall() override = default;

  const grpc::ByteBuffer* ClaimWriteLocked()
      ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_) {
    if (writing_ || writes_.empty()) return nullptr;
    writing_ = true;
    return &writes_.front();
  }

  // Once reads are over the call is over: queued messages will never go out.
  // Returns whether the write hold should now be released.
  bool CloseWritesLocked() ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_) {
    if (writes_closed_ || writing_ || !ended_) return false;
    writes_closed_ = true;
    for (size_t i = 0; i < writes_.size(); ++i) {
      events_.push_back(Event{Event::kSent, false});
    }
    writes_.clear();
    return true;
  }

  void OnReadDone(bool ok) override {
    bool release_hold = false;
    {
      MutexLock lock(&mu_);
      if (ok) {
        events_.push_back(Event{Event::kRecv, true, FlattenReadBuffer()});
      } else {
        ended_ = true;
        release_hold = CloseWritesLocked();
      }
    }
    Drain();
    if (ok) {
      StartRead(&read_buffer_);
    } else if (release_hold) {
      RemoveHold();
    }
  }

  void OnWriteDone(bool ok) override {
    const grpc::ByteBuffer* write = nullptr;
    bool release_hold = false;
    {
      MutexLock lock(&mu_);
      writing_ = false;
      writes_.pop_front();
      events_.push_back(Event{Event::kSent, ok});
      if (!ok) ended_ = true;  // a write fails only on a dead call
      write = ended_ ? nullptr : ClaimWriteLocked();
      release_hold = CloseWritesLocked();
    }
    Drain();
    if (write != nullptr) StartWrite(write);
    if (release_hold) RemoveHold();
  }

  void OnDone(const grpc::Status& status) override {
    {
      MutexLock lock(&registry_->mu);
      registry_->calls.erase(this);
    }
    {
      MutexLock lock(&mu_);
      done_ = true;
      events_.push_back(Event{Event::kStatus, false, "", ToAbslStatus(status)});
    }
    Drain();
    // grpc++'s reference goes; if it is the last, the call (and its
    // ClientContext's channel reference) is destroyed here, before the
    // count below ends. `this` may be gone after Unref.
    std::shared_ptr<CallRegistry> registry = registry_;
    Unref();
    MutexLock lock(&registry->mu);
    --registry->in_grpc;
    registry->ended.notify_all();
  }

  // One copy from the (possibly fragmented) buffer into contiguous bytes.
  std::string FlattenReadBuffer() ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_) {
    std::string out;
    std::vector<grpc::Slice> slices;
    if (read_buffer_.Dump(&slices).ok()) {
      out.reserve(read_buffer_.Length());
      for (const grpc::Slice& slice : slices) {
        out.append(reinterpret_cast<const char*>(slice.begin()), slice.size());
      }
    }
    read_buffer_.Clear();
    return out;
  }

  // Runs queued events unless another thread (or an outer frame of this one)
  // already is: callbacks stay ordered and never overlap.
  void Drain() {
    {
      MutexLock lock(&mu_);
      if (draining_) return;
      draining_ = true;
    }
    const CallRegistry* const outer = tls_reacting_registry;
    tls_reacting_registry = registry_.get();
    struct Restore {
      const CallRegistry* outer;
      ~Restore() { tls_reacting_registry = outer; }
    } restore{outer};
    while (true) {
      Event event;
      {
        MutexLock lock(&mu_);
        if (events_.empty()) {
          draining_ = false;
          return;
        }
        event = std::move(events_.front());
        events_.pop_front();
      }
      switch (event.kind) {
        case Event::kSent:
          handler_->OnRequestSent(event.ok);
          break;
        case Event::kRecv:
          handler_->OnRecvMessage(event.payload);
          break;
        case Event::kStatus:
          handler_->OnStatusReceived(std::move(event.status));
          break;
      }
    }
  }

  const std::shared_ptr<CallRegistry> registry_;
  const std::unique_ptr<EventHandler> handler_;
  grpc::ClientContext context_;
  grpc::ByteBuffer read_buffer_;  // only touched by the read reactions
  // The caller's reference and grpc++'s (until OnDone).
  std::atomic<int> refs_{2};

  Mutex mu_;
  std::deque<grpc::ByteBuffer> writes_
      ABSL_GUARDED_BY(mu_);  // front: in flight
  bool writing_ ABSL_GUARDED_BY(mu_) = false;
  // The call is over: a read or a write failed.
  bool ended_ ABSL_GUARDED_BY(mu_) = false;
  bool writes_closed_ ABSL_GUARDED_BY(mu_) = false;
  bool done_ ABSL_GUARDED_BY(mu_) = false;
  std::deque<Event> events_ ABSL_GUARDED_BY(mu_);
  bool draining_ ABSL_GUARDED_BY(mu_) = false;
};

// The connectivity watcher's state, shared with its thread so that the thread
// may outlive a transport destroyed from inside the callback.
//
// While the channel is READY the thread does not wait inside gRPC: it reads
// the state (GetState neither blocks nor polls) and sleeps on its own
// condition variable, which Stop() wakes. A thread in grpc++'s
// WaitForStateChange waits in a completion queue's Next, cannot be woken
// before its deadline, and takes turns as gRPC's epoll poller for every
// connection in the process (in an xDS-enabled server a third poller beside
// the callback threads: ~1.2 more context switches per served connection,
// bench/RESULTS.md session 10). In any other state it waits there for at
// most connecting_poll_interval at a time: that polling is what moves a
// connection attempt on.
struct Watcher {
  std::shared_ptr<grpc::Channel> channel;
  std::function<void(absl::Status)> on_failure;
  std::string server_uri;
  absl::Duration poll_interval;
  absl::Duration connecting_poll_interval;
  absl::Duration probe_timeout;
  absl::Duration start_delay;
  // Why a "tls" server's certificate was rejected (tls_diagnosis.h); empty
  // for other creds types.
  std::function<std::string()> diagnose_certificate;

  Mutex mu;
  std::condition_variable_any wake;
  bool stop ABSL_GUARDED_BY(mu) = false;
  // The failure probe in flight, cancelled by Stop().
  grpc::ClientContext* probe ABSL_GUARDED_BY(mu) = nullptr;

  void Stop() {
    MutexLock lock(&mu);
    stop = true;
    if (probe != nullptr) probe->TryCancel();
    wake.notify_all();
  }

  bool stopped() {
    MutexLock lock(&mu);
    return stop;
  }

  // False when stopped (at once, or during the sleep).
  bool SleepUnlessStopped(absl::Duration d) {
    const auto deadline = absl::ToChronoTime(absl::Now() + d);
    MutexLock lock(&mu);
    while (!stop) {
      if (wake.wait_until(mu, deadline) == std::cv_status::timeout) break;
    }
    return !stop;
  }

  // grpc++ gives a channel's state but not why it failed. A call that is
  // not wait-for-ready fails at once on a channel in TRANSIENT_FAILURE, with
  // the connection error as its message (C-core's picker status), which is
  // what tells a user that the TLS handshake failed verification, that the
  // host name did not match, or that nothing listens. The probe names a
  // method no server has: should the channel connect in the
  // meantime, it gets UNIMPLEMENTED and is ignored. Returns ": <reason>" or
  // "".
  std::string FailureReason() {
    grpc::GenericStub stub(channel);
    grpc::ClientContext context;
    context.set_deadline(absl::ToChronoTime(absl::Now() + probe_timeout));
    {
      MutexLock lock(&mu);
      if (stop) return "";
      probe = &context;
    }
    grpc::Slice empty("");
    grpc::ByteBuffer request(&empty, 1);
    grpc::ByteBuffer response;
    absl::Notification done;
    grpc::Status status;
    stub.UnaryCall(&context, "/xdsfed.transport.v1.Probe/WhyNotConnected",
                   grpc::StubOptions(), &request, &response,
                   [&](grpc::Status s) {
                     status = std::move(s);
                     done.Notify();
                   });
    done.WaitForNotification();
    {
      MutexLock lock(&mu);
      probe = nullptr;
    }
    if (status.error_code() != grpc::StatusCode::UNAVAILABLE ||
        status.error_message().empty()) {
      return "";
    }
    std::string reason = absl::StrCat(": ", status.error_message());
    // gRPC's words for a rejected server certificate (OpenSSL's, and its
    // own host name verifier's) do not say what was wrong with it.
    if (diagnose_certificate && !stopped() &&
        (absl::StrContains(reason, "certificate verify failed") ||
         absl::StrContains(reason, "Hostname Verification Check failed"))) {
      const std::string why = diagnose_certificate();
      if (!why.empty()) absl::StrAppend(&reason, "; ", why);
    }
    return reason;
  }

  void Run() {
    // Every entry into TRANSIENT_FAILURE is reported, the state the channel
    // is in when the watch starts included: a channel that failed before
    // the first read (an address gRPC already failed to reach, its
    // subchannel shared through the global pool) stays in
    // TRANSIENT_FAILURE while it backs off, and gives no change to wait for.
    // try_to_connect: an xDS channel connects eagerly, so an unreachable
    // server is reported even before the first stream.
    grpc_connectivity_state last = GRPC_CHANNEL_IDLE;
    bool try_to_connect = true;
    if (start_delay > absl::ZeroDuration() &&
        !SleepUnlessStopped(start_delay)) {
      return;
    }
    while (true) {
      const grpc_connectivity_state now = channel->GetState(try_to_connect);
      // An IDLE channel (the server closed the connection) reconnects.
      try_to_connect = now == GRPC_CHANNEL_IDLE;
      if (now == GRPC_CHANNEL_TRANSIENT_FAILURE &&
          last != GRPC_CHANNEL_TRANSIENT_FAILURE) {
        const std::string reason = FailureReason();
        if (stopped()) return;
        on_failure(absl::UnavailableError(
            absl::StrCat("xds channel to ", server_uri,
                         " is in TRANSIENT_FAILURE", reason)));
      }
      last = now;
      if (now == GRPC_CHANNEL_READY) {
        // READY is left only for another state that is not a failure yet
        // (TRANSIENT_FAILURE follows a failed reconnect): read less often,
        // and not from inside gRPC (see the comment above the struct).
        if (!SleepUnlessStopped(poll_interval)) return;
      } else {
        // Inside gRPC, briefly: a thread waiting for a state change polls
        // the channel's connection attempt, which nothing else may do while
        // the channel has no call (only gRPC's 5 s backup poller would).
        // Bounds how long destroying a transport waits for this thread.
        channel->WaitForStateChange(
            now, absl::ToChronoTime(absl::Now() + connecting_poll_interval));
        if (stopped()) return;
      }
    }
  }
};

class GrpcXdsTransport final : public client::XdsTransport {
 public:
  GrpcXdsTransport(std::shared_ptr<grpc::Channel> channel,
                   std::shared_ptr<Watcher> watcher)
      : stub_(std::move(channel)),
        registry_(std::make_shared<CallRegistry>()),
        watcher_(std::move(watcher)) {
    if (watcher_->on_failure) {
      watcher_thread_ = std::thread([w = watcher_] { w->Run(); });
    }
  }

  ~GrpcXdsTransport() override {
    watcher_->Stop();
    if (watcher_thread_.joinable()) {
      if (watcher_thread_.get_id() == std::this_thread::get_id()) {
        watcher_thread_.detach();  // destroyed from inside the callback
      } else {
        watcher_thread_.join();
      }
    }
    // Cancel outside the registry lock: a cancelled call may finish inline.
    std::vector<GrpcStreamingCall*> calls;
    {
      MutexLock lock(&registry_->mu);
      for (GrpcStreamingCall* call : registry_->calls) {
        call->Ref();
        calls.push_back(call);
      }
    }
    for (GrpcStreamingCall* call : calls) {
      call->Cancel();
      call->Unref();
    }
    WaitForCalls();
  }

  client::StreamingCallPtr CreateStreamingCall(
      absl::string_view method,
      std::unique_ptr<StreamingCall::EventHandler> handler) override {
    auto* call = new GrpcStreamingCall(registry_, std::move(handler));
    call->Start(&stub_, std::string(method));
    return client::StreamingCallPtr(call);
  }

 private:
  // The cancelled calls end within milliseconds (gRPC runs their OnDone on
  // its callback threads). Waiting for each OnDone to return (which
  // destroys the call unless its caller still holds it) keeps the channel
  // (stub_) from being released before them: otherwise the last call's
  // ClientContext could drop the process's last gRPC reference on a gRPC
  // callback thread, and grpc_shutdown called there hands the library's
  // teardown to a detached thread ("grpc_shutdown spawns clean-up thread",
  // src/core/lib/surface/init.cc) that races the process's exit: the double
  // free inside grpc_cq_internal_unref that one ASan run hung on (session
  // 10). Not from inside a reaction of one of these calls (that call cannot
  // end before the reaction returns), and bounded by kCallEndWait.
  void WaitForCalls() {
    if (tls_reacting_registry == registry_.get()) return;
    const auto deadline = absl::ToChronoTime(absl::Now() + kCallEndWait);
    MutexLock lock(&registry_->mu);
    while (registry_->in_grpc > 0) {
      if (registry_->ended.wait_until(registry_->mu, deadline) ==
          std::cv_status::timeout) {
        return;
      }
    }
  }

  static constexpr absl::Duration kCallEndWait = absl::Seconds(1);

  grpc::GenericStub stub_;  // holds the channel
  std::shared_ptr<CallRegistry> registry_;
  std::shared_ptr<Watcher> watcher_;
  std::thread watcher_thread_;
};

}  // namespace

absl::StatusOr<std::shared_ptr<grpc::ChannelCredentials>>
CreateChannelCredentials(const XdsServerConfig& server) {
  const std::string& type = server.channel_creds_type();
  if (type == "insecure") return grpc::InsecureChannelCredentials();
  if (type == "google_default") {
    std::shared_ptr<grpc::ChannelCredentials> creds =
        grpc::GoogleDefaultCredentials();
    if (creds == nullptr) {
      return absl::FailedPreconditionError(
          absl::StrCat("google_default channel creds for ", server.server_uri(),
                       ": no application default credentials found"));
    }
    return creds;
  }
  if (type == "tls") return TlsCreds(server);
  return absl::InvalidArgumentError(absl::StrCat(
      "channel creds for ", server.server_uri(), ": unsupported type \"", type,
      "\"; expected insecure, google_default or tls"));
}

absl::StatusOr<std::unique_ptr<client::XdsTransport>>
GrpcXdsTransportFactory::Create(
    const XdsServerConfig& server,
    std::function<void(absl::Status)> on_connectivity_failure) {
  absl::StatusOr<std::shared_ptr<grpc::ChannelCredentials>> creds =
      CreateChannelCredentials(server);
  if (!creds.ok()) return creds.status();
  HoldGrpcCallbackQueueForProcessLife();
  grpc::ChannelArguments args;
  args.SetMaxReceiveMessageSize(options_.max_receive_message_bytes);
  args.SetInt(
      GRPC_ARG_KEEPALIVE_TIME_MS,
      static_cast<int>(absl::ToInt64Milliseconds(options_.keepalive_time)));
  args.SetInt(GRPC_ARG_INITIAL_RECONNECT_BACKOFF_MS,
              static_cast<int>(absl::ToInt64Milliseconds(
                  options_.initial_reconnect_backoff)));
  args.SetInt(GRPC_ARG_MAX_RECONNECT_BACKOFF_MS,
              static_cast<int>(
                  absl::ToInt64Milliseconds(options_.max_reconnect_backoff)));
  if (options_.http2_stream_lookahead_bytes > 0) {
    args.SetInt(GRPC_ARG_HTTP2_STREAM_LOOKAHEAD_BYTES,
                options_.http2_stream_lookahead_bytes);
  }
  auto watcher = std::make_shared<Watcher>();
  watcher->channel =
      grpc::CreateCustomChannel(server.server_uri(), *creds, args);
  watcher->on_failure = std::move(on_connectivity_failure);
  watcher->server_uri = server.server_uri();
  watcher->poll_interval = options_.state_poll_interval;
  watcher->connecting_poll_interval = options_.connecting_poll_interval;
  watcher->probe_timeout = options_.failure_probe_timeout;
  watcher->start_delay = options_.watcher_start_delay;
  if (server.channel_creds_type() == "tls" &&
      options_.tls_diagnosis_timeout > absl::ZeroDuration()) {
    watcher->diagnose_certificate = [server,
                                     timeout = options_.tls_diagnosis_timeout] {
      return DiagnoseServerCertificate(server, timeout);
    };
  }
  std::shared_ptr<grpc::Channel> channel = watcher->channel;
  return std::make_unique<GrpcXdsTransport>(std::move(channel),
                                            std::move(watcher));
}

}  // namespace xdsfed::transport
