// GrpcXdsTransport against a real loopback grpc++ server (a generic echo
// service), checking the contract of lib/client/xds_transport.h: ordered
// sends and receives, one final status, orphaning from inside callbacks,
// connectivity failures, and channel credentials selection.
#include "lib/transport/grpc_transport.h"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cstdio>
#include <memory>
#include <string>
#include <vector>

#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "absl/synchronization/mutex.h"
#include "absl/time/clock.h"
#include "grpcpp/generic/async_generic_service.h"
#include "grpcpp/grpcpp.h"
#include "gtest/gtest.h"
#include "lib/json/json_reader.h"
#include "lib/transport/grpc_lifetime.h"

namespace xdsfed::transport {
namespace {

using client::StreamingCall;
using client::StreamingCallPtr;

constexpr absl::Duration kWait = absl::Seconds(10);
constexpr absl::string_view kMethod = "/test.Echo/Stream";

// --- server -----------------------------------------------------------------

std::string BufferToString(const grpc::ByteBuffer& buffer) {
  std::vector<grpc::Slice> slices;
  std::string out;
  if (!buffer.Dump(&slices).ok()) return out;
  for (const grpc::Slice& s : slices) {
    out.append(reinterpret_cast<const char*>(s.begin()), s.size());
  }
  return out;
}

// Echoes each message, one at a time. "finish:CODE:MESSAGE" ends the call with
// that status; "big:N" answers with N bytes.
class EchoReactor : public grpc::ServerGenericBidiReactor {
 public:
  EchoReactor() { StartRead(&in_); }

 private:
  void OnReadDone(bool ok) override {
    if (!ok) {
      Finish(grpc::Status::OK);
      return;
    }
    std::string text = BufferToString(in_);
    std::vector<std::string> parts =
        absl::StrSplit(text, absl::MaxSplits(':', 2));
    int n = 0;
    if (parts.size() == 3 && parts[0] == "finish" &&
        absl::SimpleAtoi(parts[1], &n)) {
      Finish(grpc::Status(static_cast<grpc::StatusCode>(n), parts[2]));
      return;
    }
    if (parts.size() == 2 && parts[0] == "big" &&
        absl::SimpleAtoi(parts[1], &n)) {
      text.assign(n, 'x');
      for (int i = 0; i < n; i += 4096)
        text[i] = static_cast<char>('a' + i % 26);
    }
    grpc::Slice slice(text);
    out_ = grpc::ByteBuffer(&slice, 1);
    StartWrite(&out_);
  }
  void OnWriteDone(bool ok) override {
    if (!ok) {
      Finish(grpc::Status::OK);
      return;
    }
    StartRead(&in_);
  }
  void OnDone() override { delete this; }

  grpc::ByteBuffer in_;
  grpc::ByteBuffer out_;
};

class EchoService : public grpc::CallbackGenericService {
  grpc::ServerGenericBidiReactor* CreateReactor(
      grpc::GenericCallbackServerContext*) override {
    return new EchoReactor();
  }
};

class EchoServer {
 public:
  explicit EchoServer(int port = 0) {
    grpc::ServerBuilder builder;
    builder.AddListeningPort(absl::StrCat("127.0.0.1:", port),
                             grpc::InsecureServerCredentials(), &port_);
    builder.RegisterCallbackGenericService(&service_);
    builder.SetMaxSendMessageSize(-1);
    server_ = builder.BuildAndStart();
  }
  ~EchoServer() { Shutdown(); }
  void Shutdown() {
    if (server_ == nullptr) return;
    server_->Shutdown(std::chrono::system_clock::now());
    server_->Wait();
    server_.reset();
  }
  std::string address() const { return absl::StrCat("127.0.0.1:", port_); }

 private:
  EchoService service_;
  int port_ = 0;
  std::unique_ptr<grpc::Server> server_;
};

// A port nothing listens on: bound, then released.
int UnusedPort() {
  int fd = socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  bind(fd, reinterpret_cast<sockaddr*>(&addr), sizeof(addr));
  socklen_t len = sizeof(addr);
  getsockname(fd, reinterpret_cast<sockaddr*>(&addr), &len);
  close(fd);
  return ntohs(addr.sin_port);
}

XdsServerConfig Server(const std::string& uri,
                       const std::string& creds = "insecure",
                       Json::Value config = Json::Value(Json::objectValue)) {
  return XdsServerConfig(uri, creds, std::move(config), {});
}

// --- client-side recording --------------------------------------------------

// What a handler saw; outlives the handler (the call owns and deletes it).
struct Recorder {
  absl::Mutex mu;
  std::vector<std::string> events ABSL_GUARDED_BY(mu);  // "sent:1", "recv:x"
  std::vector<absl::Status> statuses ABSL_GUARDED_BY(mu);
  bool handler_destroyed ABSL_GUARDED_BY(mu) = false;
  std::atomic<int> in_callback{0};
  std::atomic<bool> overlapped{false};

  void Add(std::string event) {
    absl::MutexLock lock(&mu);
    events.push_back(std::move(event));
  }
  bool Wait(std::function<bool(Recorder&)> done) {
    absl::Time deadline = absl::Now() + kWait;
    while (absl::Now() < deadline) {
      if (done(*this)) return true;
      absl::SleepFor(absl::Milliseconds(5));
    }
    return false;
  }
  size_t NumStatuses() {
    absl::MutexLock lock(&mu);
    return statuses.size();
  }
  std::vector<std::string> Events() {
    absl::MutexLock lock(&mu);
    return events;
  }
  bool Destroyed() {
    absl::MutexLock lock(&mu);
    return handler_destroyed;
  }
};

// Records every callback; optional hooks act from inside callbacks.
class Handler : public StreamingCall::EventHandler {
 public:
  explicit Handler(std::shared_ptr<Recorder> recorder)
      : recorder_(std::move(recorder)) {}
  ~Handler() override {
    absl::MutexLock lock(&recorder_->mu);
    recorder_->handler_destroyed = true;
  }
  std::function<void(absl::string_view)> on_recv;

  void OnRequestSent(bool ok) override {
    Enter();
    recorder_->Add(absl::StrCat("sent:", ok));
    Leave();
  }
  void OnRecvMessage(absl::string_view payload) override {
    Enter();
    // The hook first: tests wait on the recorded event, then read its effect.
    if (on_recv) on_recv(payload);
    recorder_->Add(absl::StrCat(
        "recv:", payload.size() > 64 ? absl::StrCat("<", payload.size(), ">")
                                     : std::string(payload)));
    Leave();
  }
  void OnStatusReceived(absl::Status status) override {
    Enter();
    {
      absl::MutexLock lock(&recorder_->mu);
      recorder_->statuses.push_back(std::move(status));
    }
    Leave();
  }

 private:
  void Enter() {
    if (recorder_->in_callback.fetch_add(1) != 0) recorder_->overlapped = true;
  }
  void Leave() { recorder_->in_callback.fetch_sub(1); }
  std::shared_ptr<Recorder> recorder_;
};

std::unique_ptr<client::XdsTransport> MakeTransport(
    const std::string& uri,
    std::function<void(absl::Status)> on_failure = nullptr,
    GrpcTransportOptions options = {}) {
  GrpcXdsTransportFactory factory(options);
  auto transport = factory.Create(Server(uri), std::move(on_failure));
  EXPECT_TRUE(transport.ok()) << transport.status();
  return transport.ok() ? *std::move(transport) : nullptr;
}

// --- tests ------------------------------------------------------------------

// xds_transport.h: sends complete in order, one OnRequestSent each; messages
// arrive in order; the status comes last, once.
TEST(GrpcTransportTest, MessagesInOrderAndStatusOnce) {
  EchoServer server;
  auto transport = MakeTransport(server.address());
  auto recorder = std::make_shared<Recorder>();
  StreamingCallPtr call = transport->CreateStreamingCall(
      kMethod, std::make_unique<Handler>(recorder));
  constexpr int kCount = 50;
  for (int i = 0; i < kCount; ++i) call->SendMessage(absl::StrCat("m", i));
  ASSERT_TRUE(recorder->Wait(
      [](Recorder& r) { return r.Events().size() == 2 * kCount; }));
  int sent = 0, received = 0;
  for (const std::string& event : recorder->Events()) {
    if (event == "sent:1") {
      ++sent;
    } else {
      EXPECT_EQ(event, absl::StrCat("recv:m", received));
      ++received;
    }
  }
  EXPECT_EQ(sent, kCount);
  EXPECT_EQ(received, kCount);
  call->SendMessage("finish:5:no such thing");
  ASSERT_TRUE(recorder->Wait([](Recorder& r) { return r.NumStatuses() > 0; }));
  call->SendMessage("after the end");  // ignored
  absl::SleepFor(absl::Milliseconds(100));
  {
    absl::MutexLock lock(&recorder->mu);
    ASSERT_EQ(recorder->statuses.size(), 1u);
    EXPECT_EQ(recorder->statuses[0], absl::NotFoundError("no such thing"));
    EXPECT_EQ(recorder->events.back(), "sent:1");
    EXPECT_FALSE(recorder->handler_destroyed);  // the caller still holds it
  }
  call.reset();
  EXPECT_TRUE(recorder->Destroyed());
  EXPECT_FALSE(recorder->overlapped);
}

// Orphan cancels; the handler still hears the status, then is destroyed.
TEST(GrpcTransportTest, OrphanCancels) {
  EchoServer server;
  auto transport = MakeTransport(server.address());
  auto recorder = std::make_shared<Recorder>();
  StreamingCallPtr call = transport->CreateStreamingCall(
      kMethod, std::make_unique<Handler>(recorder));
  call->SendMessage("hello");
  ASSERT_TRUE(
      recorder->Wait([](Recorder& r) { return r.Events().size() == 2; }));
  call.reset();
  ASSERT_TRUE(recorder->Wait([](Recorder& r) { return r.Destroyed(); }));
  absl::MutexLock lock(&recorder->mu);
  ASSERT_EQ(recorder->statuses.size(), 1u);
  EXPECT_EQ(recorder->statuses[0].code(), absl::StatusCode::kCancelled);
}

// SendMessage and Orphan are safe from inside a callback: ping-pong a few
// rounds, then orphan from OnRecvMessage.
TEST(GrpcTransportTest, SendAndOrphanFromInsideCallbacks) {
  EchoServer server;
  auto transport = MakeTransport(server.address());
  auto recorder = std::make_shared<Recorder>();
  auto handler = std::make_unique<Handler>(recorder);
  Handler* raw = handler.get();
  StreamingCallPtr call =
      transport->CreateStreamingCall(kMethod, std::move(handler));
  StreamingCall* call_raw = call.get();
  int rounds = 0;
  raw->on_recv = [&](absl::string_view) {
    if (++rounds < 5) {
      call_raw->SendMessage(absl::StrCat("round", rounds));
    } else {
      call.release()->Orphan();  // gives up the caller's reference in here
    }
  };
  call_raw->SendMessage("round0");
  ASSERT_TRUE(recorder->Wait([](Recorder& r) { return r.Destroyed(); }));
  EXPECT_EQ(rounds, 5);
  absl::MutexLock lock(&recorder->mu);
  ASSERT_EQ(recorder->statuses.size(), 1u);
  EXPECT_EQ(recorder->statuses[0].code(), absl::StatusCode::kCancelled);
  EXPECT_FALSE(recorder->overlapped);
}

// Large responses arrive whole (many slices, one copy); beyond the bound the
// stream fails with RESOURCE_EXHAUSTED rather than buffering without limit.
TEST(GrpcTransportTest, MessageSizes) {
  struct Case {
    int size;
    int max_receive;
    std::string want_event;  // "" = the call fails instead
  };
  const Case kCases[] = {
      {10 << 20, 128 << 20, absl::StrCat("recv:<", 10 << 20, ">")},
      {64 << 10, 32 << 10, ""},
  };
  EchoServer server;
  for (const Case& c : kCases) {
    SCOPED_TRACE(c.size);
    GrpcTransportOptions options;
    options.max_receive_message_bytes = c.max_receive;
    auto transport = MakeTransport(server.address(), nullptr, options);
    auto recorder = std::make_shared<Recorder>();
    auto handler = std::make_unique<Handler>(recorder);
    std::string received;
    handler->on_recv = [&](absl::string_view p) { received = std::string(p); };
    StreamingCallPtr call =
        transport->CreateStreamingCall(kMethod, std::move(handler));
    call->SendMessage(absl::StrCat("big:", c.size));
    if (c.want_event.empty()) {
      ASSERT_TRUE(
          recorder->Wait([](Recorder& r) { return r.NumStatuses() == 1; }));
      absl::MutexLock lock(&recorder->mu);
      EXPECT_EQ(recorder->statuses[0].code(),
                absl::StatusCode::kResourceExhausted);
      continue;
    }
    ASSERT_TRUE(
        recorder->Wait([](Recorder& r) { return r.Events().size() == 2; }));
    EXPECT_EQ(recorder->Events()[1], c.want_event);
    ASSERT_EQ(received.size(), static_cast<size_t>(c.size));
    EXPECT_EQ(received[4096], 'a' + 4096 % 26);
    EXPECT_EQ(received[4097], 'x');
  }
}

// An unreachable server: calls fail UNAVAILABLE and the connectivity
// callback reports TRANSIENT_FAILURE, even without a call.
// Issue 16 item 3: streams are wait-for-ready, as C-core's ADS and LRS calls
// are. One started while the server is down waits instead of failing (so a
// retry that fires before the channel has reconnected does not cost a whole
// extra backoff step), and goes through once a server listens there; the
// channel meanwhile reports that it cannot connect, and why.
TEST(GrpcTransportTest, ServerDownCallWaitsForReady) {
  const int port = UnusedPort();
  const std::string uri = absl::StrCat("127.0.0.1:", port);
  auto failures = std::make_shared<Recorder>();
  GrpcTransportOptions options;
  options.initial_reconnect_backoff = absl::Milliseconds(100);
  options.max_reconnect_backoff = absl::Milliseconds(100);
  auto transport = MakeTransport(
      uri,
      [failures](absl::Status status) {
        absl::MutexLock lock(&failures->mu);
        failures->statuses.push_back(std::move(status));
      },
      options);
  ASSERT_TRUE(failures->Wait([](Recorder& r) { return r.NumStatuses() > 0; }));
  {
    absl::MutexLock lock(&failures->mu);
    const absl::Status& failure = failures->statuses[0];
    EXPECT_EQ(failure.code(), absl::StatusCode::kUnavailable);
    EXPECT_TRUE(absl::StartsWith(
        failure.message(),
        absl::StrCat("xds channel to ", uri, " is in TRANSIENT_FAILURE: ")))
        << failure;
    EXPECT_TRUE(absl::StrContains(failure.message(), "onnection refused"))
        << failure;
  }
  auto recorder = std::make_shared<Recorder>();
  StreamingCallPtr call = transport->CreateStreamingCall(
      kMethod, std::make_unique<Handler>(recorder));
  call->SendMessage("hello");
  absl::SleepFor(absl::Milliseconds(500));  // several reconnect attempts
  EXPECT_EQ(recorder->NumStatuses(), 0u);
  EXPECT_TRUE(recorder->Events().empty());
  EchoServer server(port);
  ASSERT_TRUE(recorder->Wait([](Recorder& r) {
    return r.Events().size() == 2;
  })) << "the waiting call never reached the server";
  // The write's completion and the echo may be reported in either order.
  std::vector<std::string> events = recorder->Events();
  std::sort(events.begin(), events.end());
  EXPECT_EQ(events, (std::vector<std::string>{"recv:hello", "sent:1"}));
  EXPECT_EQ(recorder->NumStatuses(), 0u);
}

// grpc_lifetime.h: the idle server that holds gRPC's callback queue starts
// (without it a channel released inside a reaction could end the queue on
// its own thread: the double free in grpc_cq_internal_unref).
TEST(GrpcLifetimeTest, CallbackQueueHeld) {
  EXPECT_TRUE(HoldGrpcCallbackQueueForProcessLife());
  EXPECT_TRUE(HoldGrpcCallbackQueueForProcessLife());  // idempotent
}

// Issue 29 item 1: a channel that is already in TRANSIENT_FAILURE when the
// watcher first reads it is reported. Seen with four `xdsfed call`s at once
// and no control plane: the ADS stream (wait-for-ready) made the channel
// connect and fail before the watcher thread ran, gRPC 1.51 keeps the state
// in TRANSIENT_FAILURE while it backs off, and a watcher reporting only
// changes never reported it (3 of 24 runs waited their whole deadline). The
// watcher's start is delayed here so that it always reads a failed channel.
TEST(GrpcTransportTest, ChannelFailedBeforeTheWatcherStartsIsReported) {
  constexpr int kRuns = 20;
  GrpcTransportOptions options;
  options.watcher_start_delay = absl::Milliseconds(50);
  for (int run = 0; run < kRuns; ++run) {
    const std::string uri = absl::StrCat("127.0.0.1:", UnusedPort());
    auto failures = std::make_shared<Recorder>();
    auto transport = MakeTransport(
        uri,
        [failures](absl::Status status) {
          absl::MutexLock lock(&failures->mu);
          failures->statuses.push_back(std::move(status));
        },
        options);
    auto recorder = std::make_shared<Recorder>();
    StreamingCallPtr call = transport->CreateStreamingCall(
        kMethod, std::make_unique<Handler>(recorder));
    ASSERT_TRUE(failures->Wait([](Recorder& r) { return r.NumStatuses() > 0; }))
        << "run " << run << ": the failed channel was never reported";
    absl::MutexLock lock(&failures->mu);
    EXPECT_TRUE(absl::StartsWith(
        failures->statuses[0].message(),
        absl::StrCat("xds channel to ", uri, " is in TRANSIENT_FAILURE")))
        << failures->statuses[0];
  }
}

// Issue 29 item 3: destroying a transport does not wait for a poll interval
// (the watcher sleeps on its own condition variable, never inside gRPC),
// whether the channel is READY, failing, or has a call to cancel. The bound
// is generous for a loaded 2-core machine; bench/RESULTS.md has the
// distribution (teardown_bench).
TEST(GrpcTransportTest, DestroyingTheTransportIsPrompt) {
  EchoServer server;
  const std::string down = absl::StrCat("127.0.0.1:", UnusedPort());
  struct Case {
    const char* name;
    std::string uri;
    bool with_call;
  };
  const Case kCases[] = {{"ready, idle", server.address(), false},
                         {"ready, open call", server.address(), true},
                         {"server down", down, false},
                         {"server down, waiting call", down, true}};
  GrpcTransportOptions options;
  // Longer than the bound: a READY channel's watcher must be woken. (The
  // wait inside gRPC while not READY is connecting_poll_interval, 10 ms.)
  options.state_poll_interval = absl::Seconds(5);
  for (const Case& c : kCases) {
    auto transport = MakeTransport(
        c.uri, [](absl::Status) {}, options);
    auto recorder = std::make_shared<Recorder>();
    StreamingCallPtr call;
    if (c.with_call) {
      call = transport->CreateStreamingCall(
          kMethod, std::make_unique<Handler>(recorder));
      call->SendMessage("hello");
      if (c.uri == server.address()) {
        ASSERT_TRUE(recorder->Wait([](Recorder& r) {
          return r.Events().size() == 2;
        })) << c.name;
      }
      call.reset();  // orphaned: cancelled
    }
    absl::SleepFor(absl::Milliseconds(100));  // the watcher is asleep
    const absl::Time start = absl::Now();
    transport.reset();
    EXPECT_LT(absl::Now() - start, absl::Seconds(1)) << c.name;
  }
}

// A server that goes away: the open call ends UNAVAILABLE (or CANCELLED by
// the server's shutdown) and the channel reports the failure.
TEST(GrpcTransportTest, ServerGoesAway) {
  auto server = std::make_unique<EchoServer>();
  auto failures = std::make_shared<Recorder>();
  auto transport =
      MakeTransport(server->address(), [failures](absl::Status status) {
        absl::MutexLock lock(&failures->mu);
        failures->statuses.push_back(std::move(status));
      });
  auto recorder = std::make_shared<Recorder>();
  StreamingCallPtr call = transport->CreateStreamingCall(
      kMethod, std::make_unique<Handler>(recorder));
  call->SendMessage("hello");
  ASSERT_TRUE(
      recorder->Wait([](Recorder& r) { return r.Events().size() == 2; }));
  server.reset();
  ASSERT_TRUE(recorder->Wait([](Recorder& r) { return r.NumStatuses() > 0; }));
  EXPECT_TRUE(failures->Wait([](Recorder& r) { return r.NumStatuses() > 0; }));
  absl::MutexLock lock(&recorder->mu);
  EXPECT_FALSE(recorder->statuses[0].ok());
}

// Destroying the transport cancels its calls; callers may orphan later.
TEST(GrpcTransportTest, DestroyingTheTransportCancelsCalls) {
  EchoServer server;
  auto transport = MakeTransport(server.address());
  auto recorder = std::make_shared<Recorder>();
  StreamingCallPtr call = transport->CreateStreamingCall(
      kMethod, std::make_unique<Handler>(recorder));
  call->SendMessage("hello");
  ASSERT_TRUE(
      recorder->Wait([](Recorder& r) { return r.Events().size() == 2; }));
  transport.reset();
  ASSERT_TRUE(recorder->Wait([](Recorder& r) { return r.NumStatuses() > 0; }));
  EXPECT_FALSE(recorder->Destroyed());
  call.reset();
  EXPECT_TRUE(recorder->Destroyed());
  absl::MutexLock lock(&recorder->mu);
  EXPECT_EQ(recorder->statuses[0].code(), absl::StatusCode::kCancelled);
}

// The connectivity callback may destroy its own transport.
TEST(GrpcTransportTest, TransportDestroyedFromConnectivityCallback) {
  const std::string uri = absl::StrCat("127.0.0.1:", UnusedPort());
  absl::Mutex mu;
  std::unique_ptr<client::XdsTransport> transport;
  bool destroyed = false;
  absl::MutexLock lock(&mu);
  transport = MakeTransport(uri, [&](absl::Status) {
    std::unique_ptr<client::XdsTransport> doomed;
    {
      absl::MutexLock lock(&mu);
      doomed = std::move(transport);
      destroyed = true;
    }
  });
  EXPECT_TRUE(mu.AwaitWithTimeout(absl::Condition(&destroyed), kWait));
}

// CreateChannelCredentials: which creds each bootstrap config builds, and
// the errors for configs grpc++ could not use (A47 §LRS Server
// Representation: servers carry their channel creds).
TEST(GrpcTransportTest, ChannelCredentials) {
  char dir_template[] = "/tmp/transport_test.XXXXXX";
  const std::string dir = mkdtemp(dir_template);
  const std::string pem = dir + "/ca.pem";
  {
    FILE* f = std::fopen(pem.c_str(), "w");
    std::fputs("not really a certificate\n", f);
    std::fclose(f);
  }
  struct Case {
    const char* label;
    std::string type;
    std::string config_json;
    std::string want_error;  // "" = creds built
  };
  const Case kCases[] = {
      {"insecure", "insecure", "{}", ""},
      {"tls, system roots", "tls", "{}", ""},
      {"tls, ca file", "tls",
       absl::StrCat(R"({"ca_certificate_file":")", pem,
                    R"(","refresh_interval":"30s"})"),
       ""},
      {"tls, missing ca file", "tls",
       R"({"ca_certificate_file":"/no/such.pem"})",
       "tls channel creds for xds.example.com:443: cannot read "
       "ca_certificate_file \"/no/such.pem\""},
      // Configs the bootstrap would have rejected, built here by hand.
      {"tls, certificate without key", "tls",
       absl::StrCat(R"({"certificate_file":")", pem, R"("})"),
       "tls channel creds for xds.example.com:443: invalid tls channel creds "
       "config: [field: error:certificate_file and private_key_file must be "
       "set together]"},
      {"tls, bad refresh interval", "tls", R"({"refresh_interval":"soon"})",
       "tls channel creds for xds.example.com:443: invalid tls channel creds "
       "config: [field:refresh_interval error:is not a duration (decimal "
       "seconds with an \"s\" suffix, e.g. \"600s\" or \"1.5s\")]"},
      {"tls, sub-second refresh interval", "tls",
       absl::StrCat(R"({"ca_certificate_file":")", pem,
                    R"(","refresh_interval":"0.25s"})"),
       ""},
      {"unknown type", "alts", "{}",
       "channel creds for xds.example.com:443: unsupported type \"alts\"; "
       "expected insecure, google_default or tls"},
  };
  for (const Case& c : kCases) {
    SCOPED_TRACE(c.label);
    absl::StatusOr<Json::Value> config = ParseJsonText(c.config_json);
    ASSERT_TRUE(config.ok());
    XdsServerConfig server = Server("xds.example.com:443", c.type, *config);
    auto creds = CreateChannelCredentials(server);
    GrpcXdsTransportFactory factory;
    auto transport = factory.Create(server, nullptr);
    if (c.want_error.empty()) {
      EXPECT_TRUE(creds.ok()) << creds.status();
      EXPECT_TRUE(transport.ok()) << transport.status();
    } else {
      ASSERT_FALSE(creds.ok());
      EXPECT_EQ(creds.status().message(), c.want_error);
      ASSERT_FALSE(transport.ok());
      EXPECT_EQ(transport.status(), creds.status());
    }
  }
  std::remove(pem.c_str());
  rmdir(dir.c_str());
}

}  // namespace
}  // namespace xdsfed::transport
