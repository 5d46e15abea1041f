// Response ingestion in-process (issue 4 §7): the real XdsClient and the
// real resource types behind a fake transport. One iteration hands one
// serialized DiscoveryResponse to the ADS call's OnRecvMessage and returns
// once the client has decoded and validated every resource, updated the
// cache, notified the watchers and handed the ACK to SendMessage (and been
// told the send completed). Responses alternate between two versions that
// differ in every resource, so each one is a real change (an equal value
// would short-circuit in ResourceType::Equal).
//
//   build/bench/ingestion_bench --benchmark_filter=BM_IngestEds
//
// Counters: resources/s and bytes/s (of the DiscoveryResponse), per_resource
// (seconds per resource), per_item (seconds per endpoint / virtual host /
// cluster), response_bytes.
//
// XDSFED_BENCH_METRICS=1 in the environment: the client records gRFC A78
// metrics into a Prometheus exporter (tools/prometheus_exporter, listening
// on 127.0.0.1:0), for issue 28's "metrics cost" goal; unset: off, as in
// production without --metrics-listen.
#include <cstdint>
#include <cstdlib>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/synchronization/mutex.h"
#include "absl/time/time.h"
#include "bench/bench_resources.h"
#include "benchmark/benchmark.h"
#include "envoy/service/discovery/v3/discovery.pb.h"
#include "google/protobuf/arena.h"
#include "lib/bootstrap/bootstrap.h"
#include "lib/client/xds_client.h"
#include "lib/client/xds_transport.h"
#include "lib/resources/cluster.h"
#include "lib/resources/cluster_fast.h"
#include "lib/resources/endpoint.h"
#include "lib/resources/endpoint_fast.h"
#include "lib/resources/listener.h"
#include "lib/resources/resource_type.h"
#include "lib/resources/route_config.h"
#include "lib/resources/route_config_fast.h"
#include "tools/prometheus_exporter/prometheus_exporter.h"

namespace xdsfed {
namespace {

using client::StreamingCall;
using client::StreamingCallPtr;
using client::XdsClient;
using client::XdsTransport;
using client::XdsTransportFactory;

// --- fake transport ---

// One ADS call driven by the benchmark thread: SendMessage only records the
// payload; the benchmark completes sends (OnRequestSent) and injects
// responses (OnRecvMessage) itself, so no callback ever overlaps another.
class BenchCall final : public StreamingCall {
 public:
  explicit BenchCall(std::unique_ptr<EventHandler> handler)
      : handler_(std::move(handler)) {}

  void SendMessage(std::string payload) override {
    absl::MutexLock lock(&mu_);
    if (ended_) return;
    last_sent_ = std::move(payload);
    ++sends_;
    ++pending_sends_;
  }

  void Orphan() override {
    std::unique_ptr<EventHandler> handler;
    {
      absl::MutexLock lock(&mu_);
      if (ended_) return;
      ended_ = true;
      handler = std::move(handler_);
    }
    handler->OnStatusReceived(absl::CancelledError("call cancelled"));
  }

  // Completes every queued send, including those the completions cause.
  void CompleteSends() {
    while (true) {
      {
        absl::MutexLock lock(&mu_);
        if (ended_ || pending_sends_ == 0) return;
        --pending_sends_;
      }
      handler_->OnRequestSent(true);
    }
  }

  // One response in; returns once the client is done with it and its ACK
  // has been sent.
  void Deliver(absl::string_view response) {
    handler_->OnRecvMessage(response);
    CompleteSends();
  }

  int64_t sends() {
    absl::MutexLock lock(&mu_);
    return sends_;
  }
  envoy::service::discovery::v3::DiscoveryRequest LastRequest() {
    absl::MutexLock lock(&mu_);
    envoy::service::discovery::v3::DiscoveryRequest request;
    request.ParseFromString(last_sent_);
    return request;
  }

 private:
  absl::Mutex mu_;
  std::unique_ptr<EventHandler> handler_;
  std::string last_sent_ ABSL_GUARDED_BY(mu_);
  int64_t sends_ ABSL_GUARDED_BY(mu_) = 0;
  int64_t pending_sends_ ABSL_GUARDED_BY(mu_) = 0;
  bool ended_ ABSL_GUARDED_BY(mu_) = false;
};

class BenchTransportFactory final : public XdsTransportFactory {
 public:
  absl::StatusOr<std::unique_ptr<XdsTransport>> Create(
      const XdsServerConfig& /*server*/,
      std::function<void(absl::Status)> /*on_connectivity_failure*/) override {
    return std::unique_ptr<XdsTransport>(new Transport(this));
  }

  // The latest ADS call (the benchmark uses one server, one stream).
  BenchCall* call() {
    absl::MutexLock lock(&mu_);
    return calls_.empty() ? nullptr : calls_.back().get();
  }

 private:
  class Transport final : public XdsTransport {
   public:
    explicit Transport(BenchTransportFactory* factory) : factory_(factory) {}
    StreamingCallPtr CreateStreamingCall(
        absl::string_view /*method*/,
        std::unique_ptr<StreamingCall::EventHandler> handler) override {
      auto call = std::make_shared<BenchCall>(std::move(handler));
      absl::MutexLock lock(&factory_->mu_);
      factory_->calls_.push_back(call);
      return StreamingCallPtr(call.get());
    }

   private:
    BenchTransportFactory* factory_;
  };

  absl::Mutex mu_;
  // Kept after Orphan so the benchmark's pointer stays valid.
  std::vector<std::shared_ptr<BenchCall>> calls_ ABSL_GUARDED_BY(mu_);
};

class CountingWatcher final : public client::AnyWatcher {
 public:
  void OnChanged(
      std::shared_ptr<const resources::ResourceData> /*value*/) override {
    ++changed;
  }
  void OnError(absl::Status status) override {
    ++errors;
    last_error = std::move(status);
  }
  void OnDoesNotExist() override { ++does_not_exist; }

  // Callbacks of one client never run concurrently.
  int64_t changed = 0;
  int64_t errors = 0;
  int64_t does_not_exist = 0;
  absl::Status last_error;
};

constexpr absl::string_view kBootstrap = R"json({
  "xds_servers": [{"server_uri": "fake-xds:443",
                   "channel_creds": [{"type": "insecure"}]}],
  "node": {"id": "ingestion-bench"},
  "authorities": {"a.example.com": {}}
})json";

// The two responses one case alternates between, and what they carry.
struct Responses {
  std::string bytes[2];  // versions "0" and "1", nonces "n0" and "n1"
  int resources = 0;     // per response
  int items = 0;         // endpoints, virtual hosts or clusters per response
  // Resources each response changes (watchers told); -1: all of them.
  int changed = -1;
};

void RunIngestion(benchmark::State& state, const resources::ResourceType& type,
                  const std::vector<std::string>& names,
                  const Responses& responses) {
  auto bootstrap = Bootstrap::Parse(kBootstrap, /*federation=*/true);
  if (!bootstrap.ok()) {
    state.SkipWithError(bootstrap.status().ToString().c_str());
    return;
  }
  auto factory = std::make_shared<BenchTransportFactory>();
  XdsClient::Options options;
  // No does-not-exist timer may fire during a run.
  options.does_not_exist_timeout = absl::Hours(24);
  static prometheus_exporter::PrometheusExporter* const exporter =
      []() -> prometheus_exporter::PrometheusExporter* {
    const char* on = std::getenv("XDSFED_BENCH_METRICS");
    if (on == nullptr || std::string(on) != "1") return nullptr;
    auto started =
        prometheus_exporter::PrometheusExporter::Start("127.0.0.1:0");
    return started.ok() ? started->release() : nullptr;
  }();
  options.metrics = exporter;
  options.metrics_target = "xds:///bench";
  auto created = XdsClient::Create(*bootstrap, factory, options);
  if (!created.ok()) {
    state.SkipWithError(created.status().ToString().c_str());
    return;
  }
  std::shared_ptr<XdsClient> xds_client = *std::move(created);
  auto watcher = std::make_shared<CountingWatcher>();
  std::vector<client::WatchId> ids;
  ids.reserve(names.size());
  for (const std::string& name : names) {
    ids.push_back(xds_client->Watch(type, name, watcher));
  }
  BenchCall* call = factory->call();
  if (call == nullptr) {
    state.SkipWithError("the client opened no ADS call");
    return;
  }
  call->CompleteSends();
  // The first value, outside the timed loop: from here on every response
  // changes every resource.
  call->Deliver(responses.bytes[0]);
  auto check_ack = [&](absl::string_view nonce) {
    envoy::service::discovery::v3::DiscoveryRequest ack = call->LastRequest();
    if (ack.response_nonce() != nonce || ack.has_error_detail()) {
      state.SkipWithError(
          absl::StrCat("expected an ACK of ", nonce, ", got nonce \"",
                       ack.response_nonce(),
                       "\" error: ", ack.error_detail().message())
              .c_str());
      return false;
    }
    return true;
  };
  if (!check_ack("n0")) return;
  const int64_t changed_before = watcher->changed;
  const int64_t sends_before = call->sends();

  int64_t next = 1;
  for (auto _ : state) {
    call->Deliver(responses.bytes[next & 1]);
    ++next;
  }

  const int64_t iterations = static_cast<int64_t>(state.iterations());
  if (!check_ack(next % 2 == 0 ? "n1" : "n0")) return;
  if (call->sends() - sends_before != iterations) {
    state.SkipWithError("not one ACK per response");
    return;
  }
  const int64_t changed_per_response =
      responses.changed < 0 ? responses.resources : responses.changed;
  if (watcher->changed - changed_before != iterations * changed_per_response ||
      watcher->errors != 0 || watcher->does_not_exist != 0) {
    state.SkipWithError(
        absl::StrCat("watchers: ", watcher->changed - changed_before,
                     " changes (want ", iterations * changed_per_response,
                     "), ", watcher->errors, " errors (",
                     watcher->last_error.ToString(), "), ",
                     watcher->does_not_exist, " does-not-exist")
            .c_str());
    return;
  }
  const double bytes = static_cast<double>(responses.bytes[0].size());
  state.counters["resources/s"] =
      benchmark::Counter(static_cast<double>(iterations * responses.resources),
                         benchmark::Counter::kIsRate);
  state.counters["bytes/s"] = benchmark::Counter(
      bytes * static_cast<double>(iterations), benchmark::Counter::kIsRate,
      benchmark::Counter::kIs1024);
  state.counters["per_resource"] = benchmark::Counter(
      static_cast<double>(iterations * responses.resources),
      benchmark::Counter::kIsRate | benchmark::Counter::kInvert);
  state.counters["per_item"] = benchmark::Counter(
      static_cast<double>(iterations * responses.items),
      benchmark::Counter::kIsRate | benchmark::Counter::kInvert);
  state.counters["response_bytes"] = bytes;
  for (client::WatchId id : ids) xds_client->CancelWatch(id);
}

// A resource type with its wire-reader fast path switched off: what its
// ingestion cost before route_config_fast.cc / endpoint_fast.cc /
// cluster_fast.cc (same client, same binary, so the two can be compared in
// one run).
using SlowDecode = resources::DecodeResult (*)(const resources::DecodeContext&,
                                               absl::string_view);

class ProtobufOnlyType final : public resources::ResourceType {
 public:
  ProtobufOnlyType(const resources::ResourceType& base, SlowDecode decode)
      : base_(base), decode_(decode) {}
  absl::string_view type_url() const override { return base_.type_url(); }
  absl::string_view short_name() const override { return base_.short_name(); }
  bool all_resources_required_in_sotw() const override {
    return base_.all_resources_required_in_sotw();
  }
  resources::DecodeResult Decode(const resources::DecodeContext& context,
                                 absl::string_view serialized) const override {
    return decode_(context, serialized);
  }
  Json::Value ToJson(const resources::ResourceData* value) const override {
    return base_.ToJson(value);
  }
  bool Equal(const resources::ResourceData* a,
             const resources::ResourceData* b) const override {
    return base_.Equal(a, b);
  }

 private:
  const resources::ResourceType& base_;
  SlowDecode decode_;
};

template <typename T>
resources::DecodeResult ToDecodeResult(absl::StatusOr<T> value,
                                       std::string name) {
  resources::DecodeResult result;
  result.name = std::move(name);
  if (value.ok()) {
    result.value = resources::XdsResourceType<T>::Wrap(*std::move(value));
  } else {
    result.value = value.status();
  }
  return result;
}

const resources::ResourceType& RouteConfigTypeFor(bool protobuf_only) {
  static const ProtobufOnlyType* const kProtobufOnly = new ProtobufOnlyType(
      resources::RouteConfigResourceType(),
      [](const resources::DecodeContext&, absl::string_view serialized) {
        return resources::internal::DecodeRouteConfigWithProtobuf(serialized);
      });
  if (protobuf_only) return *kProtobufOnly;
  return resources::RouteConfigResourceType();
}

const resources::ResourceType& EndpointTypeFor(bool protobuf_only) {
  static const ProtobufOnlyType* const kProtobufOnly = new ProtobufOnlyType(
      resources::EndpointResourceType(),
      [](const resources::DecodeContext&, absl::string_view serialized) {
        std::string name;
        auto value =
            resources::internal::DecodeClusterLoadAssignmentWithProtobuf(
                serialized, &name);
        return ToDecodeResult(std::move(value), std::move(name));
      });
  if (protobuf_only) return *kProtobufOnly;
  return resources::EndpointResourceType();
}

const resources::ResourceType& ClusterTypeFor(bool protobuf_only) {
  static const ProtobufOnlyType* const kProtobufOnly = new ProtobufOnlyType(
      resources::ClusterResourceType(),
      [](const resources::DecodeContext& context,
         absl::string_view serialized) {
        std::string name;
        auto value = resources::internal::DecodeClusterWithProtobuf(
            context, serialized, &name);
        return ToDecodeResult(std::move(value), std::move(name));
      });
  if (protobuf_only) return *kProtobufOnly;
  return resources::ClusterResourceType();
}

// One ClusterLoadAssignment with N endpoints, 100 per locality.
void BM_IngestEds(benchmark::State& state) {
  const int n = static_cast<int>(state.range(0));
  Responses responses;
  responses.resources = 1;
  responses.items = n;
  for (int v = 0; v < 2; ++v) {
    auto cla = bench::MakeClusterLoadAssignment("eds-0", n, v);
    responses.bytes[v] = bench::SerializeResponse(
        bench::kEdsTypeUrl, absl::StrCat(v), absl::StrCat("n", v), {&cla});
  }
  RunIngestion(state, EndpointTypeFor(state.range(1) != 0), {"eds-0"},
               responses);
}
// Second argument 1: the libprotobuf-only decode (the "before" figure).
BENCHMARK(BM_IngestEds)
    ->Args({1000, 0})
    ->Args({10000, 0})
    ->Args({10000, 1})
    ->Unit(benchmark::kMicrosecond);

// The shared harness's EDS shape (bench_resources.h): endpoint 0 HEALTHY,
// the other N-1 UNHEALTHY, so the value keeps one endpoint.
void BM_IngestEdsHarness(benchmark::State& state) {
  const int n = static_cast<int>(state.range(0));
  Responses responses;
  responses.resources = 1;
  responses.items = n;
  for (int v = 0; v < 2; ++v) {
    auto cla = bench::MakeHarnessClusterLoadAssignment("eds-0", n, v,
                                                       "127.0.0.1", 19301);
    responses.bytes[v] = bench::SerializeResponse(
        bench::kEdsTypeUrl, absl::StrCat(v), absl::StrCat("n", v), {&cla});
  }
  RunIngestion(state, EndpointTypeFor(state.range(1) != 0), {"eds-0"},
               responses);
}
BENCHMARK(BM_IngestEdsHarness)
    ->Args({10000, 0})
    ->Args({10000, 1})
    ->Unit(benchmark::kMicrosecond);

// One RouteConfiguration with N virtual hosts, each one domain + one route.
// Second argument 1: the libprotobuf-only decode (the "before" figure).
void BM_IngestRds(benchmark::State& state) {
  const int n = static_cast<int>(state.range(0));
  Responses responses;
  responses.resources = 1;
  responses.items = n;
  for (int v = 0; v < 2; ++v) {
    auto config = bench::MakeRouteConfiguration(
        "route-0", n, v, absl::StrCat("default.v", v, ".example.com"),
        "cluster-0");
    responses.bytes[v] = bench::SerializeResponse(
        bench::kRdsTypeUrl, absl::StrCat(v), absl::StrCat("n", v), {&config});
  }
  RunIngestion(state, RouteConfigTypeFor(state.range(1) != 0), {"route-0"},
               responses);
}
BENCHMARK(BM_IngestRds)
    ->Args({10000, 0})
    ->Args({10000, 1})
    ->Unit(benchmark::kMicrosecond);

// The shared harness's RDS shape (bench_resources.h): N-1 hosts
// "svc<i>.example.com" plus the real one, whose route timeout a push toggles.
// The value keeps no route `timeout` (gRPC ignores it too), so a push is
// decoded, validated, compared equal and ACKed; no watcher is told.
void BM_IngestRdsHarness(benchmark::State& state) {
  const int n = static_cast<int>(state.range(0));
  Responses responses;
  responses.resources = 1;
  responses.items = n;
  responses.changed = 0;
  for (int v = 0; v < 2; ++v) {
    auto config =
        bench::MakeHarnessRouteConfiguration("route-0", n, v, "lat-cluster");
    responses.bytes[v] = bench::SerializeResponse(
        bench::kRdsTypeUrl, absl::StrCat(v), absl::StrCat("n", v), {&config});
  }
  RunIngestion(state, RouteConfigTypeFor(state.range(1) != 0), {"route-0"},
               responses);
}
BENCHMARK(BM_IngestRdsHarness)
    ->Args({10000, 0})
    ->Args({10000, 1})
    ->Unit(benchmark::kMicrosecond);

// N Clusters in one response, every one watched; named `prefix`-i.
void IngestCds(benchmark::State& state, absl::string_view prefix) {
  const int n = static_cast<int>(state.range(0));
  std::vector<std::string> names;
  names.reserve(n);
  for (int i = 0; i < n; ++i) names.push_back(absl::StrCat(prefix, i));
  Responses responses;
  responses.resources = n;
  responses.items = n;
  for (int v = 0; v < 2; ++v) {
    std::vector<envoy::config::cluster::v3::Cluster> clusters;
    clusters.reserve(n);
    std::vector<const google::protobuf::Message*> pointers;
    pointers.reserve(n);
    for (int i = 0; i < n; ++i) {
      clusters.push_back(
          bench::MakeEdsCluster(names[i], absl::StrCat("eds-", i), v));
      pointers.push_back(&clusters.back());
    }
    responses.bytes[v] = bench::SerializeResponse(
        bench::kCdsTypeUrl, absl::StrCat(v), absl::StrCat("n", v), pointers);
  }
  RunIngestion(state, ClusterTypeFor(state.range(1) != 0), names, responses);
}
void BM_IngestCds(benchmark::State& state) { IngestCds(state, "cluster-"); }
// Second argument 1: the libprotobuf-only decode.
BENCHMARK(BM_IngestCds)
    ->Args({10000, 0})
    ->Args({10000, 1})
    ->Unit(benchmark::kMicrosecond);
// The same with xdstp names (federation): the client finds each response
// name in its cache by the guessed canonical form (ResourceCache::Find,
// lib/name/canonical_guess.h), as BM_LookupByName measures.
void BM_IngestCdsXdstp(benchmark::State& state) {
  IngestCds(state,
            "xdstp://a.example.com/envoy.config.cluster.v3.Cluster/cluster-");
}
BENCHMARK(BM_IngestCdsXdstp)->Args({10000, 0})->Unit(benchmark::kMicrosecond);

// Breakdown: the resource type's Decode alone (protobuf parse + validation
// into the immutable value), and the protobuf parse alone (on an arena, as
// Decode does), for the single-resource cases above.
template <typename Proto>
void ParseOnly(benchmark::State& state, const std::string& bytes) {
  google::protobuf::ArenaOptions options;
  options.start_block_size = 4096;
  options.max_block_size = 64 * 1024;
  for (auto _ : state) {
    google::protobuf::Arena arena(options);
    auto* proto = google::protobuf::Arena::CreateMessage<Proto>(&arena);
    if (!proto->ParseFromArray(bytes.data(), static_cast<int>(bytes.size()))) {
      state.SkipWithError("parse failed");
      return;
    }
    benchmark::DoNotOptimize(proto);
  }
}

void DecodeOnly(benchmark::State& state, const resources::ResourceType& type,
                const std::string& bytes) {
  for (auto _ : state) {
    resources::DecodeResult result = type.Decode({}, bytes);
    if (!result.value.ok()) {
      state.SkipWithError(result.value.status().ToString().c_str());
      return;
    }
    benchmark::DoNotOptimize(result);
  }
}

void BM_DecodeOnlyEds(benchmark::State& state) {
  const std::string bytes = bench::MakeClusterLoadAssignment(
                                "eds-0", static_cast<int>(state.range(0)), 0)
                                .SerializeAsString();
  DecodeOnly(state, EndpointTypeFor(state.range(1) != 0), bytes);
}
BENCHMARK(BM_DecodeOnlyEds)
    ->Args({10000, 0})
    ->Args({10000, 1})
    ->Unit(benchmark::kMicrosecond);

void BM_ParseOnlyEds(benchmark::State& state) {
  const std::string bytes = bench::MakeClusterLoadAssignment(
                                "eds-0", static_cast<int>(state.range(0)), 0)
                                .SerializeAsString();
  ParseOnly<envoy::config::endpoint::v3::ClusterLoadAssignment>(state, bytes);
}
BENCHMARK(BM_ParseOnlyEds)->Arg(10000)->Unit(benchmark::kMicrosecond);

// Second argument 1: the libprotobuf-only decode.
void BM_DecodeOnlyRds(benchmark::State& state) {
  const std::string bytes =
      bench::MakeRouteConfiguration("route-0", static_cast<int>(state.range(0)),
                                    0, "default.example.com", "cluster-0")
          .SerializeAsString();
  DecodeOnly(state, RouteConfigTypeFor(state.range(1) != 0), bytes);
}
BENCHMARK(BM_DecodeOnlyRds)
    ->Args({10000, 0})
    ->Args({10000, 1})
    ->Unit(benchmark::kMicrosecond);

void BM_ParseOnlyRds(benchmark::State& state) {
  const std::string bytes =
      bench::MakeRouteConfiguration("route-0", static_cast<int>(state.range(0)),
                                    0, "default.example.com", "cluster-0")
          .SerializeAsString();
  ParseOnly<envoy::config::route::v3::RouteConfiguration>(state, bytes);
}
BENCHMARK(BM_ParseOnlyRds)->Arg(10000)->Unit(benchmark::kMicrosecond);

}  // namespace
}  // namespace xdsfed

BENCHMARK_MAIN();
