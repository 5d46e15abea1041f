// ACK latency over loopback with real gRPC (issue 4 §7, issue 15): our
// control plane pushes a new version of one big resource (EDS: a
// ClusterLoadAssignment of N endpoints; RDS: a RouteConfiguration of N
// virtual hosts; CDS: N Clusters) and measures, on the server, the time from
// starting to write that response to reading the request that ACKs its nonce
// (ControlPlane::AdsResponseTimings()).
//
// Clients, each against its own control plane:
//   xdsfed   our XdsClient over GrpcXdsTransportFactory, watching the chain
//            Listener -> RouteConfiguration -> Cluster -> endpoints;
//            counters handler_median_ms / handler_cpu_median_ms: the longest
//            OnRecvMessage per push (the client's own processing of the big
//            response), wall and thread CPU time
//   grpc     Debian's gRPC C++ 1.51 with its own xDS client: an
//            xds:///server.example.com channel (bootstrap in
//            GRPC_XDS_BOOTSTRAP_CONFIG) that has completed one RPC through
//            the chain to a loopback backend
//   noparse  a bare ADS stream on our transport that reads only the
//            response's version, type and nonce and ACKs at once: the floor
//            set by serialization, loopback and gRPC itself
// gRPC reads its bootstrap once per process, so run one client per process:
//
//   build/bench/ack_latency_bench --benchmark_filter=/xdsfed/
//   build/bench/ack_latency_bench --benchmark_filter=/grpc/
//   build/bench/ack_latency_bench --benchmark_filter=/noparse/
//
// The same work as the shared harness (../shared/peers, run_ack_latency.sh):
// the resources are the harness's (bench_resources.h MakeHarness*: EDS
// endpoint 0 live and HEALTHY, N-1 UNHEALTHY, so no client's LB ever sees
// them; RDS N-1 hosts plus the real one), a push changes only the measured
// resource (endpoint 0's weight, the real route's timeout, the real
// cluster's max_requests), and only the changed type is sent
// (ControlPlane::Options::push_unchanged = false, as the harness's control
// plane does). CDS (not in the harness): the control plane sends all N
// clusters to every CDS subscriber (Options::answer_all_of_types); both
// clients subscribe to one and decode, validate and then ignore the other
// N-1 (gRPC 1.51 and xdsfed both decode before looking at the name).
// What still differs from the harness: the control plane is ours (grpc++
// callback API) in the client's process, not a Node process, and latency
// starts at grpc++'s StartWrite instead of grpc-js's call.write(); xdsfed
// is the library watching the whole chain, not `xdsfed watch --quiet`
// watching the one resource; gRPC sends no RPCs while being pushed to (the
// harness's peer sends one per second). The next push waits until the last
// one is ACKed. Reported time (manual) is the mean; counters median_ms,
// p90_ms, and first_ms: the ACK of the first response of the case's size
// (the harness's "initial ack": cold caches and allocator for a case run
// alone in its process); for xdsfed also first_handler_ms /
// first_handler_cpu_ms / first_handler_faults, that response's handler.
#include <sys/resource.h>
#include <time.h>

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cstdlib>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/strip.h"
#include "absl/synchronization/mutex.h"
#include "absl/time/clock.h"
#include "absl/time/time.h"
#include "bench/bench_resources.h"
#include "benchmark/benchmark.h"
#include "envoy/service/discovery/v3/discovery.pb.h"
#include "google/protobuf/io/coded_stream.h"
#include "google/protobuf/wire_format_lite.h"
#include "grpcpp/grpcpp.h"
#include "lib/bootstrap/bootstrap.h"
#include "lib/client/xds_client.h"
#include "lib/resources/cluster.h"
#include "lib/resources/endpoint.h"
#include "lib/resources/listener.h"
#include "lib/resources/resource_type.h"
#include "lib/resources/route_config.h"
#include "lib/transport/grpc_transport.h"
#include "tools/control_plane/control_plane.h"
#include "tools/control_plane/echo_backend.h"

namespace xdsfed {
namespace {

using control_plane::ControlPlane;
using control_plane::Snapshot;

constexpr char kListenerName[] = "server.example.com";
constexpr char kRouteName[] = "route-a";
constexpr char kClusterName[] = "cluster-a";
constexpr char kEdsName[] = "eds-a";
constexpr absl::Duration kWait = absl::Seconds(60);

enum class Kind { kEds, kRds, kCds };
enum class ClientKind { kXdsfed, kGrpc, kNoParse };

// One unary call over `channel`, waiting for the xDS config to arrive.
grpc::Status Echo(const std::shared_ptr<grpc::Channel>& channel) {
  std::string reply;
  return control_plane::EchoOnce(channel, absl::Seconds(60), &reply);
}

// --- the no-parse client ---

// Reads fields 1 (version_info), 4 (type_url) and 5 (nonce) of a serialized
// DiscoveryResponse, skipping the resources without looking inside.
bool ScanResponse(absl::string_view bytes, std::string* version,
                  std::string* type_url, std::string* nonce) {
  using google::protobuf::internal::WireFormatLite;
  google::protobuf::io::CodedInputStream in(
      reinterpret_cast<const uint8_t*>(bytes.data()),
      static_cast<int>(bytes.size()));
  in.SetTotalBytesLimit(INT32_MAX);
  while (uint32_t tag = in.ReadTag()) {
    switch (WireFormatLite::GetTagFieldNumber(tag)) {
      case 1:
        if (!WireFormatLite::ReadString(&in, version)) return false;
        break;
      case 4:
        if (!WireFormatLite::ReadString(&in, type_url)) return false;
        break;
      case 5:
        if (!WireFormatLite::ReadString(&in, nonce)) return false;
        break;
      default:
        if (!WireFormatLite::SkipField(&in, tag)) return false;
    }
  }
  return true;
}

std::vector<std::string> ChainNames(absl::string_view type_url) {
  if (type_url == bench::kLdsTypeUrl) return {kListenerName};
  if (type_url == bench::kRdsTypeUrl) return {kRouteName};
  if (type_url == bench::kCdsTypeUrl) return {kClusterName};
  return {kEdsName};
}

std::string ChainRequest(absl::string_view type_url, absl::string_view version,
                         absl::string_view nonce, bool with_node) {
  envoy::service::discovery::v3::DiscoveryRequest request;
  if (with_node) request.mutable_node()->set_id("noparse-bench");
  request.set_type_url(std::string(type_url));
  request.set_version_info(std::string(version));
  request.set_response_nonce(std::string(nonce));
  for (std::string& name : ChainNames(type_url)) {
    request.add_resource_names(std::move(name));
  }
  return request.SerializeAsString();
}

// Owned by the call; ACKs through `call`, which outlives the call's use of
// the handler (the rig orphans it, then the transport ends the call).
class NoParseHandler final : public client::StreamingCall::EventHandler {
 public:
  explicit NoParseHandler(std::shared_ptr<client::StreamingCall*> call)
      : call_(std::move(call)) {}
  void OnRequestSent(bool /*ok*/) override {}
  void OnRecvMessage(absl::string_view payload) override {
    std::string version, type_url, nonce;
    if (!ScanResponse(payload, &version, &type_url, &nonce)) return;
    (*call_)->SendMessage(ChainRequest(type_url, version, nonce, false));
  }
  void OnStatusReceived(absl::Status /*status*/) override {}

 private:
  std::shared_ptr<client::StreamingCall*> call_;
};

// --- our client: time spent inside its OnRecvMessage ---

// The longest OnRecvMessage of our client's ADS call since the last Take():
// the client's own share of an ACK latency (decode, validation, cache, ACK
// built and queued), the rest being serialization, loopback and gRPC.
// Also its thread CPU time, which the other jobs on a shared machine do not
// inflate.
class HandlerClock {
 public:
  struct Sample {
    absl::Duration wall;
    absl::Duration cpu;
    int64_t minor_faults = 0;  // page faults taken by the handler's thread
  };
  void Record(Sample sample) {
    absl::MutexLock lock(&mu_);
    if (sample.wall > longest_.wall) longest_ = sample;
  }
  Sample Take() {
    absl::MutexLock lock(&mu_);
    Sample sample = longest_;
    longest_ = Sample();
    return sample;
  }

 private:
  absl::Mutex mu_;
  Sample longest_ ABSL_GUARDED_BY(mu_);
};

// Minor page faults of the calling thread so far: memory the process
// touches for the first time (costly under gVisor, where this runs).
int64_t ThreadMinorFaults() {
  rusage usage;
  getrusage(RUSAGE_THREAD, &usage);
  return usage.ru_minflt;
}

absl::Duration ThreadCpuTime() {
  timespec ts;
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
  return absl::DurationFromTimespec(ts);
}

class TimedHandler final : public client::StreamingCall::EventHandler {
 public:
  TimedHandler(std::unique_ptr<client::StreamingCall::EventHandler> inner,
               std::shared_ptr<HandlerClock> clock)
      : inner_(std::move(inner)), clock_(std::move(clock)) {}
  void OnRequestSent(bool ok) override { inner_->OnRequestSent(ok); }
  void OnRecvMessage(absl::string_view payload) override {
    const absl::Time start = absl::Now();
    const absl::Duration start_cpu = ThreadCpuTime();
    const int64_t start_faults = ThreadMinorFaults();
    inner_->OnRecvMessage(payload);
    clock_->Record({absl::Now() - start, ThreadCpuTime() - start_cpu,
                    ThreadMinorFaults() - start_faults});
  }
  void OnStatusReceived(absl::Status status) override {
    inner_->OnStatusReceived(std::move(status));
  }

 private:
  std::unique_ptr<client::StreamingCall::EventHandler> inner_;
  std::shared_ptr<HandlerClock> clock_;
};

// GrpcXdsTransportFactory with every call's handler wrapped in TimedHandler.
class TimedTransportFactory final : public client::XdsTransportFactory {
 public:
  explicit TimedTransportFactory(std::shared_ptr<HandlerClock> clock)
      : clock_(std::move(clock)) {}
  absl::StatusOr<std::unique_ptr<client::XdsTransport>> Create(
      const XdsServerConfig& server,
      std::function<void(absl::Status)> on_connectivity_failure) override {
    auto inner = grpc_.Create(server, std::move(on_connectivity_failure));
    if (!inner.ok()) return inner.status();
    return std::unique_ptr<client::XdsTransport>(
        new Transport(*std::move(inner), clock_));
  }

 private:
  class Transport final : public client::XdsTransport {
   public:
    Transport(std::unique_ptr<client::XdsTransport> inner,
              std::shared_ptr<HandlerClock> clock)
        : inner_(std::move(inner)), clock_(std::move(clock)) {}
    client::StreamingCallPtr CreateStreamingCall(
        absl::string_view method,
        std::unique_ptr<client::StreamingCall::EventHandler> handler) override {
      return inner_->CreateStreamingCall(
          method, std::make_unique<TimedHandler>(std::move(handler), clock_));
    }

   private:
    std::unique_ptr<client::XdsTransport> inner_;
    std::shared_ptr<HandlerClock> clock_;
  };

  transport::GrpcXdsTransportFactory grpc_;
  std::shared_ptr<HandlerClock> clock_;
};

// --- our client's watchers ---

class NullWatcher final : public client::AnyWatcher {
 public:
  void OnChanged(
      std::shared_ptr<const resources::ResourceData> /*value*/) override {}
  void OnError(absl::Status /*status*/) override {}
  void OnDoesNotExist() override {}
};

// --- one control plane + backend + client, per process and client kind ---

// The chain with the measured resource at size `n` and version `version`;
// the others at size 1 and version 0, so a push changes only the measured
// one.
Snapshot MakeChainSnapshot(Kind kind, int n, int version, int backend_port) {
  auto size = [&](Kind k) { return k == kind ? n : 1; };
  auto at = [&](Kind k) { return k == kind ? version : 0; };
  Snapshot snapshot;
  snapshot.version = absl::StrCat(kind == Kind::kEds   ? "eds-"
                                  : kind == Kind::kRds ? "rds-"
                                                       : "cds-",
                                  n, "-v", version);
  snapshot.Add(kListenerName,
               bench::MakeApiListener(kListenerName, kRouteName));
  snapshot.Add(kRouteName,
               bench::MakeHarnessRouteConfiguration(
                   kRouteName, size(Kind::kRds), at(Kind::kRds), kClusterName));
  snapshot.Add(kClusterName,
               bench::MakeEdsCluster(kClusterName, kEdsName, at(Kind::kCds)));
  for (int i = 1; i < size(Kind::kCds); ++i) {
    const std::string name = absl::StrCat("cluster-", i);
    snapshot.Add(name, bench::MakeEdsCluster(name, absl::StrCat("eds-", i), 0));
  }
  snapshot.Add(kEdsName, bench::MakeHarnessClusterLoadAssignment(
                             kEdsName, size(Kind::kEds), at(Kind::kEds),
                             "127.0.0.1", backend_port));
  return snapshot;
}

absl::string_view TypeUrlOf(Kind kind) {
  switch (kind) {
    case Kind::kEds:
      return bench::kEdsTypeUrl;
    case Kind::kRds:
      return bench::kRdsTypeUrl;
    case Kind::kCds:
      return bench::kCdsTypeUrl;
  }
  return "";
}

std::string ServerJson(int port) {
  return absl::StrCat(R"({"server_uri":"127.0.0.1:)", port,
                      R"(","channel_creds":[{"type":"insecure"}],)",
                      R"("server_features":["xds_v3"]})");
}

class Rig {
 public:
  static absl::StatusOr<Rig*> Get(ClientKind kind) {
    static Rig* rigs[3] = {nullptr, nullptr, nullptr};
    Rig*& rig = rigs[static_cast<int>(kind)];
    if (rig == nullptr) {
      auto created = std::unique_ptr<Rig>(new Rig());
      absl::Status status = created->Start(kind);
      if (!status.ok()) return status;
      rig = created.release();
      All().push_back(rig);
    }
    return rig;
  }

  // Tears every rig down (clients first) before gRPC's statics go.
  static void DestroyAll() {
    for (Rig* rig : All()) delete rig;
    All().clear();
  }

  ~Rig() {
    xds_client_.reset();
    if (noparse_call_ != nullptr && *noparse_call_ != nullptr) {
      (*noparse_call_)->Orphan();
    }
    noparse_transport_.reset();
    grpc_channel_.reset();
    if (cp_ != nullptr) cp_->Shutdown();
    backend_.reset();
  }

  // Pushes `snapshot` and waits until every response it caused is ACKed;
  // returns the ACK latency of the response of `type_url`.
  absl::StatusOr<absl::Duration> Push(const Snapshot& snapshot,
                                      absl::string_view type_url) {
    const size_t before = cp_->AdsResponseTimings().size();
    cp_->SetSnapshot(snapshot);
    std::vector<ControlPlane::AdsResponseTiming> timings =
        cp_->AdsResponseTimings();
    std::vector<std::string> pending;
    size_t target = timings.size();
    for (size_t i = before; i < timings.size(); ++i) {
      pending.push_back(timings[i].nonce);
      if (timings[i].type_url == type_url) target = i;
    }
    if (target == timings.size()) {
      return absl::InternalError(
          absl::StrCat("the push sent no response of type ", type_url));
    }
    const std::string target_nonce = timings[target].nonce;
    size_t* cursor = &log_cursor_;
    bool acked = cp_->WaitForRequests(
        [&pending, cursor](const std::vector<Json::Value>& log) {
          for (; *cursor < log.size(); ++*cursor) {
            const std::string nonce = log[*cursor]["response_nonce"].asString();
            pending.erase(std::remove(pending.begin(), pending.end(), nonce),
                          pending.end());
          }
          return pending.empty();
        },
        kWait);
    if (!acked) return absl::DeadlineExceededError("no ACK within 60 s");
    for (const auto& timing : cp_->AdsResponseTimings()) {
      if (timing.nonce != target_nonce) continue;
      if (timing.nacked) {
        return absl::InternalError(
            absl::StrCat("response ", target_nonce, " was NACKed"));
      }
      if (!timing.write_started.has_value() || !timing.answered.has_value()) {
        return absl::InternalError("response timing incomplete");
      }
      return *timing.answered - *timing.write_started;
    }
    return absl::InternalError("response timing lost");
  }

  int backend_port() const { return backend_port_; }
  // Our client only: the longest OnRecvMessage since the last call.
  std::optional<HandlerClock::Sample> TakeHandlerTime() {
    if (handler_clock_ == nullptr) return std::nullopt;
    return handler_clock_->Take();
  }

 private:
  Rig() = default;

  static std::vector<Rig*>& All() {
    static std::vector<Rig*>* all = new std::vector<Rig*>();
    return *all;
  }

  absl::Status Start(ClientKind kind) {
    backend_ = std::make_unique<control_plane::EchoBackend>();
    absl::StatusOr<int> backend_port = backend_->Start();
    if (!backend_port.ok()) return backend_port.status();
    backend_port_ = *backend_port;

    ControlPlane::Options options;
    options.push_unchanged = false;
    options.answer_all_of_types = {std::string(
        absl::StripPrefix(bench::kCdsTypeUrl, resources::kTypeUrlPrefix))};
    cp_ = std::make_unique<ControlPlane>(options);
    cp_->SetSnapshot(MakeChainSnapshot(Kind::kEds, 1, 0, backend_port_));
    absl::StatusOr<int> port = cp_->Start();
    if (!port.ok()) return port.status();
    const std::string bootstrap =
        absl::StrCat(R"({"xds_servers":[)", ServerJson(*port),
                     R"(],"node":{"id":"ack-latency-bench"}})");
    switch (kind) {
      case ClientKind::kXdsfed: {
        auto parsed = Bootstrap::Parse(bootstrap, /*federation=*/true);
        if (!parsed.ok()) return parsed.status();
        handler_clock_ = std::make_shared<HandlerClock>();
        auto created = client::XdsClient::Create(
            *parsed, std::make_shared<TimedTransportFactory>(handler_clock_),
            client::XdsClient::Options());
        if (!created.ok()) return created.status();
        xds_client_ = *std::move(created);
        auto watcher = std::make_shared<NullWatcher>();
        xds_client_->Watch(resources::ListenerResourceType(), kListenerName,
                           watcher);
        xds_client_->Watch(resources::RouteConfigResourceType(), kRouteName,
                           watcher);
        xds_client_->Watch(resources::ClusterResourceType(), kClusterName,
                           watcher);
        xds_client_->Watch(resources::EndpointResourceType(), kEdsName,
                           watcher);
        break;
      }
      case ClientKind::kGrpc: {
        setenv("GRPC_XDS_BOOTSTRAP_CONFIG", bootstrap.c_str(), 1);
        grpc_channel_ =
            grpc::CreateChannel(absl::StrCat("xds:///", kListenerName),
                                grpc::InsecureChannelCredentials());
        grpc::Status status = Echo(grpc_channel_);
        if (!status.ok()) {
          return absl::UnavailableError(absl::StrCat(
              "gRPC's xDS channel failed its RPC: ", status.error_message()));
        }
        break;
      }
      case ClientKind::kNoParse: {
        auto parsed = Bootstrap::Parse(bootstrap, /*federation=*/true);
        if (!parsed.ok()) return parsed.status();
        transport::GrpcXdsTransportFactory factory;
        auto transport =
            factory.Create(*(*parsed)->servers().front(), [](absl::Status) {});
        if (!transport.ok()) return transport.status();
        noparse_transport_ = *std::move(transport);
        noparse_call_ = std::make_shared<client::StreamingCall*>(nullptr);
        client::StreamingCallPtr call = noparse_transport_->CreateStreamingCall(
            client::kAdsMethod,
            std::make_unique<NoParseHandler>(noparse_call_));
        *noparse_call_ = call.release();
        bool first = true;
        for (absl::string_view type :
             {bench::kLdsTypeUrl, bench::kRdsTypeUrl, bench::kCdsTypeUrl,
              bench::kEdsTypeUrl}) {
          (*noparse_call_)->SendMessage(ChainRequest(type, "", "", first));
          first = false;
        }
        break;
      }
    }
    // Subscribed to (and ACKed) all four types.
    bool ready = cp_->WaitForRequests(
        [](const std::vector<Json::Value>& log) {
          int acked = 0;
          for (absl::string_view type :
               {bench::kLdsTypeUrl, bench::kRdsTypeUrl, bench::kCdsTypeUrl,
                bench::kEdsTypeUrl}) {
            for (const Json::Value& entry : log) {
              if (entry["type_url"].asString() == type &&
                  !entry["response_nonce"].asString().empty()) {
                ++acked;
                break;
              }
            }
          }
          return acked == 4;
        },
        kWait);
    if (!ready) return absl::DeadlineExceededError("client never ACKed");
    return absl::OkStatus();
  }

  std::unique_ptr<control_plane::EchoBackend> backend_;
  int backend_port_ = 0;
  std::unique_ptr<ControlPlane> cp_;
  size_t log_cursor_ = 0;
  std::shared_ptr<HandlerClock> handler_clock_;
  std::shared_ptr<client::XdsClient> xds_client_;
  std::shared_ptr<grpc::Channel> grpc_channel_;
  std::unique_ptr<client::XdsTransport> noparse_transport_;
  std::shared_ptr<client::StreamingCall*> noparse_call_;
};

void BM_AckLatency(benchmark::State& state, ClientKind client_kind, Kind kind,
                   int n) {
  absl::StatusOr<Rig*> rig = Rig::Get(client_kind);
  if (!rig.ok()) {
    state.SkipWithError(rig.status().ToString().c_str());
    return;
  }
  const absl::string_view type_url = TypeUrlOf(kind);
  const int port = (*rig)->backend_port();
  const Snapshot snapshots[2] = {MakeChainSnapshot(kind, n, 1, port),
                                 MakeChainSnapshot(kind, n, 2, port)};
  // Untimed: switch the resources to this case's shape.
  absl::StatusOr<absl::Duration> warm = (*rig)->Push(snapshots[1], type_url);
  if (!warm.ok()) {
    state.SkipWithError(warm.status().ToString().c_str());
    return;
  }
  const double first_ms = absl::ToDoubleMilliseconds(*warm);
  // Our client's handler for that first response: how much of first_ms is
  // its own (a first-time heap of the case's size: page faults). The
  // handler records itself after the ACK has gone out (it then frees the
  // replaced value): give it time to finish.
  absl::SleepFor(absl::Milliseconds(200));
  if (std::optional<HandlerClock::Sample> h = (*rig)->TakeHandlerTime()) {
    state.counters["first_handler_ms"] = absl::ToDoubleMilliseconds(h->wall);
    state.counters["first_handler_cpu_ms"] = absl::ToDoubleMilliseconds(h->cpu);
    state.counters["first_handler_faults"] =
        static_cast<double>(h->minor_faults);
  }
  std::vector<double> samples_ms;
  std::vector<double> handler_ms;
  std::vector<double> handler_cpu_ms;
  std::vector<double> handler_faults;
  int next = 0;
  for (auto _ : state) {
    absl::StatusOr<absl::Duration> latency =
        (*rig)->Push(snapshots[next & 1], type_url);
    ++next;
    if (!latency.ok()) {
      state.SkipWithError(latency.status().ToString().c_str());
      return;
    }
    state.SetIterationTime(absl::ToDoubleSeconds(*latency));
    samples_ms.push_back(absl::ToDoubleMilliseconds(*latency));
    if (std::optional<HandlerClock::Sample> h = (*rig)->TakeHandlerTime()) {
      handler_ms.push_back(absl::ToDoubleMilliseconds(h->wall));
      handler_cpu_ms.push_back(absl::ToDoubleMilliseconds(h->cpu));
      handler_faults.push_back(static_cast<double>(h->minor_faults));
    }
  }
  const auto at = [](std::vector<double>& samples, double q) {
    std::sort(samples.begin(), samples.end());
    return samples[static_cast<size_t>(q * (samples.size() - 1) + 0.5)];
  };
  state.counters["first_ms"] = first_ms;
  state.counters["median_ms"] = at(samples_ms, 0.5);
  state.counters["p90_ms"] = at(samples_ms, 0.9);
  if (!handler_ms.empty()) {
    state.counters["handler_median_ms"] = at(handler_ms, 0.5);
    state.counters["handler_cpu_median_ms"] = at(handler_cpu_ms, 0.5);
    state.counters["handler_faults_median"] = at(handler_faults, 0.5);
  }
  double bytes = 0;
  for (const auto& [name, resource] : snapshots[0].resources.at(std::string(
           absl::StripPrefix(type_url, resources::kTypeUrlPrefix)))) {
    bytes += static_cast<double>(resource.bytes.size());
  }
  state.counters["response_bytes"] = bytes;
}

void RegisterAll() {
  struct Client {
    const char* label;
    ClientKind kind;
  };
  const Client clients[] = {{"xdsfed", ClientKind::kXdsfed},
                            {"grpc", ClientKind::kGrpc},
                            {"noparse", ClientKind::kNoParse}};
  struct Case {
    const char* label;
    Kind kind;
    int n;
    int iterations;
  };
  const Case cases[] = {{"EDS", Kind::kEds, 1000, 100},
                        {"EDS", Kind::kEds, 10000, 50},
                        {"RDS", Kind::kRds, 1000, 100},
                        {"RDS", Kind::kRds, 10000, 50},
                        {"CDS", Kind::kCds, 10000, 50}};
  for (const Client& c : clients) {
    for (const Case& k : cases) {
      benchmark::RegisterBenchmark(
          absl::StrCat("BM_AckLatency/", c.label, "/", k.label, "/", k.n)
              .c_str(),
          [c, k](benchmark::State& state) {
            BM_AckLatency(state, c.kind, k.kind, k.n);
          })
          ->UseManualTime()
          ->Iterations(k.iterations)
          ->Unit(benchmark::kMillisecond);
    }
  }
}

}  // namespace
}  // namespace xdsfed

int main(int argc, char** argv) {
  xdsfed::RegisterAll();
  benchmark::Initialize(&argc, argv);
  if (benchmark::ReportUnrecognizedArguments(argc, argv)) return 1;
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  xdsfed::Rig::DestroyAll();
  return 0;
}
