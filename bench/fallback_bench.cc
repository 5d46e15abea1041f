// gRFC A71 fallback over real gRPC on loopback (issue 28 goals).
//
// BM_FallbackFirstResource: the primary xDS server unreachable (a loopback
//   port nobody listens on), the fallback up. Each iteration creates an
//   XdsClient and watches one Listener; the time measured runs from the
//   moment the client is told of the primary's failure (the transport's
//   TRANSIENT_FAILURE callback, taken just before the client gets it) to
//   the watcher's OnChanged with the fallback server's resource: a new
//   channel to the fallback, its connection, the ADS request and response.
//   Goal: <= 50 ms. Counter max_ms: the slowest iteration.
// BM_FallbackRpcs: unary RPCs in a loop through an XdsChannel whose
//   primary is down at start (the fallback serves), then the primary comes
//   up with the same data (switch back, the fallback's stream closed),
//   goes down (everything cached: no fallback) and comes back. Counters:
//   rpcs, failed (goal 0), switched_back (1 if the fallback's stream was
//   closed).
#include <algorithm>
#include <atomic>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <thread>
#include <utility>

#include "absl/strings/str_cat.h"
#include "absl/strings/substitute.h"
#include "absl/synchronization/mutex.h"
#include "absl/time/clock.h"
#include "absl/time/time.h"
#include "benchmark/benchmark.h"
#include "lib/bootstrap/bootstrap.h"
#include "lib/channel/generic_call.h"
#include "lib/channel/xds_channel.h"
#include "lib/client/xds_client.h"
#include "lib/resources/listener.h"
#include "lib/transport/grpc_transport.h"
#include "tools/control_plane/control_plane.h"
#include "tools/health_backend/health_backend.h"

namespace xdsfed {
namespace {

constexpr char kCheck[] = "/grpc.health.v1.Health/Check";

// A loopback port nobody listens on.
int FreePort() {
  control_plane::ControlPlane probe{control_plane::ControlPlane::Options()};
  const int port = *probe.Start();
  probe.Shutdown();
  return port;
}

std::string Server(int port) {
  return absl::StrCat(R"({"server_uri":"127.0.0.1:)", port,
                      R"(","channel_creds":[{"type":"insecure"}]})");
}

std::shared_ptr<const Bootstrap> TwoServers(int primary, int fallback) {
  return *Bootstrap::Parse(
      absl::StrCat(R"({"xds_servers":[)", Server(primary), ",",
                   Server(fallback), R"(],"node":{"id":"bench"}})"),
      false);
}

// The whole chain for "svc" -> one endpoint.
control_plane::Snapshot Chain(int backend_port) {
  const std::string hcm =
      R"({"@type":"type.googleapis.com/envoy.extensions.filters.network.http_connection_manager.v3.HttpConnectionManager",
  "rds":{"config_source":{"ads":{}},"route_config_name":"route"},
  "http_filters":[{"name":"router","typed_config":{"@type":"type.googleapis.com/envoy.extensions.filters.http.router.v3.Router"}}]})";
  return *control_plane::ParseSnapshot(absl::Substitute(
      R"({"version":"1","resources":{
 "envoy.config.listener.v3.Listener":{"svc":{"api_listener":{"api_listener":$0}}},
 "envoy.config.route.v3.RouteConfiguration":{"route":{"virtual_hosts":[{"name":"vh","domains":["svc"],"routes":[{"match":{"prefix":""},"route":{"cluster":"c"}}]}]}},
 "envoy.config.cluster.v3.Cluster":{"c":{"type":"EDS","eds_cluster_config":{"eds_config":{"ads":{}}}}},
 "envoy.config.endpoint.v3.ClusterLoadAssignment":{"c":{"endpoints":[{"locality":{"zone":"z"},"load_balancing_weight":1,"lb_endpoints":[{"endpoint":{"address":{"socket_address":{"address":"127.0.0.1","port_value":$1}}}}]}]}}}})",
      hcm, backend_port));
}

// The real transport, with the time of the first failure of `uri` noted
// just before the client hears of it.
class TimingFactory final : public client::XdsTransportFactory {
 public:
  explicit TimingFactory(std::string uri) : uri_(std::move(uri)) {}
  absl::StatusOr<std::unique_ptr<client::XdsTransport>> Create(
      const XdsServerConfig& server,
      std::function<void(absl::Status)> on_failure) override {
    if (server.server_uri() == uri_) {
      on_failure = [this, inner = std::move(on_failure)](absl::Status s) {
        {
          absl::MutexLock lock(&mu_);
          if (!failed_at_.has_value()) failed_at_ = absl::Now();
        }
        inner(std::move(s));
      };
    }
    return real_.Create(server, std::move(on_failure));
  }
  std::optional<absl::Time> failed_at() {
    absl::MutexLock lock(&mu_);
    return failed_at_;
  }

 private:
  const std::string uri_;
  transport::GrpcXdsTransportFactory real_;
  absl::Mutex mu_;
  std::optional<absl::Time> failed_at_ ABSL_GUARDED_BY(mu_);
};

class FirstValue final : public client::AnyWatcher {
 public:
  void OnChanged(std::shared_ptr<const resources::ResourceData>) override {
    absl::MutexLock lock(&mu_);
    if (!at_.has_value()) at_ = absl::Now();
  }
  void OnError(absl::Status) override {}
  void OnDoesNotExist() override {}
  std::optional<absl::Time> Wait(absl::Duration timeout) {
    absl::MutexLock lock(&mu_);
    mu_.AwaitWithTimeout(
        absl::Condition(
            +[](std::optional<absl::Time>* at) { return at->has_value(); },
            &at_),
        timeout);
    return at_;
  }

 private:
  absl::Mutex mu_;
  std::optional<absl::Time> at_ ABSL_GUARDED_BY(mu_);
};

void BM_FallbackFirstResource(benchmark::State& state) {
  const int primary = FreePort();
  control_plane::ControlPlane fallback{control_plane::ControlPlane::Options()};
  const int fallback_port = *fallback.Start();
  fallback.SetSnapshot(Chain(1));
  const std::string primary_uri = absl::StrCat("127.0.0.1:", primary);
  double max_ms = 0;
  int64_t missing = 0;
  for (auto _ : state) {
    auto factory = std::make_shared<TimingFactory>(primary_uri);
    client::XdsClient::Options options;
    options.fallback = true;
    auto client = *client::XdsClient::Create(TwoServers(primary, fallback_port),
                                             factory, options);
    auto watcher = std::make_shared<FirstValue>();
    client->Watch(resources::ListenerResourceType(), "svc", watcher);
    const std::optional<absl::Time> got = watcher->Wait(absl::Seconds(10));
    const std::optional<absl::Time> failed = factory->failed_at();
    if (!got.has_value() || !failed.has_value()) {
      ++missing;
      state.SetIterationTime(10);
      continue;
    }
    const double seconds = absl::ToDoubleSeconds(*got - *failed);
    max_ms = std::max(max_ms, seconds * 1e3);
    state.SetIterationTime(seconds);
  }
  state.counters["max_ms"] = max_ms;
  state.counters["missing"] = static_cast<double>(missing);
}
BENCHMARK(BM_FallbackFirstResource)
    ->UseManualTime()
    ->Iterations(30)
    ->Unit(benchmark::kMillisecond);

void BM_FallbackRpcs(benchmark::State& state) {
  health_backend::HealthBackend backend{"b1"};
  const int backend_port = *backend.Start("127.0.0.1:0");
  const int primary_port = FreePort();
  control_plane::ControlPlane fallback{control_plane::ControlPlane::Options()};
  const int fallback_port = *fallback.Start();
  fallback.SetSnapshot(Chain(backend_port));
  auto ch = *channel::XdsChannel::Create(
      TwoServers(primary_port, fallback_port), "xds:///svc", {});
  // Ready before the loop: the first RPC waits for the config.
  channel::GenericUnary(*ch, kCheck, "", absl::Now() + absl::Seconds(10));
  for (auto _ : state) {
    std::atomic<bool> stop{false};
    std::atomic<int64_t> rpcs{0}, failed{0};
    std::thread loop([&] {
      while (!stop.load()) {
        const bool ok = channel::GenericUnary(*ch, kCheck, "",
                                              absl::Now() + absl::Seconds(5))
                            .status.ok();
        ++rpcs;
        if (!ok) ++failed;
      }
    });
    auto start_primary = [&] {
      control_plane::ControlPlane::Options options;
      options.listen = absl::StrCat("127.0.0.1:", primary_port);
      auto cp = std::make_unique<control_plane::ControlPlane>(options);
      cp->SetSnapshot(Chain(backend_port));
      if (!cp->Start().ok())
        return std::unique_ptr<control_plane::ControlPlane>();
      return cp;
    };
    absl::SleepFor(absl::Milliseconds(500));  // on the fallback's data
    auto primary = start_primary();           // switch back
    const absl::Time deadline = absl::Now() + absl::Seconds(10);
    while (fallback.ActiveAdsStreams() != 0 && absl::Now() < deadline) {
      absl::SleepFor(absl::Milliseconds(10));
    }
    const bool switched_back = fallback.ActiveAdsStreams() == 0;
    absl::SleepFor(absl::Milliseconds(500));
    if (primary != nullptr) primary->Shutdown();  // all cached: no fallback
    absl::SleepFor(absl::Milliseconds(1500));
    primary = start_primary();
    absl::SleepFor(absl::Milliseconds(1500));
    stop = true;
    loop.join();
    state.counters["rpcs"] = static_cast<double>(rpcs.load());
    state.counters["failed"] = static_cast<double>(failed.load());
    state.counters["switched_back"] = switched_back ? 1 : 0;
  }
}
BENCHMARK(BM_FallbackRpcs)
    ->Iterations(1)
    ->UseRealTime()
    ->Unit(benchmark::kMillisecond);

}  // namespace
}  // namespace xdsfed

BENCHMARK_MAIN();
