// How long destroying the library's owning objects takes when nothing is in
// flight (issue 29 item 3): an XdsClient that received its Listener, an
// XdsChannel after one RPC, an XdsServer that is SERVING. Each iteration
// builds the object against a real control plane on loopback, brings it to
// that state (untimed), then times only its destruction; the counters give
// the distribution over the iterations (p50_ms, p99_ms, max_ms).
//
//   build/bench/teardown_bench --benchmark_min_time=0   (1,000 cycles each)
#include <algorithm>
#include <memory>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/substitute.h"
#include "absl/synchronization/notification.h"
#include "absl/time/clock.h"
#include "benchmark/benchmark.h"
#include "lib/bootstrap/bootstrap.h"
#include "lib/channel/generic_call.h"
#include "lib/channel/xds_channel.h"
#include "lib/client/xds_client.h"
#include "lib/resources/listener.h"
#include "lib/server/xds_server.h"
#include "lib/transport/grpc_transport.h"
#include "tests/server/server_test_support.h"
#include "tools/control_plane/control_plane.h"
#include "tools/health_backend/health_backend.h"

namespace xdsfed {
namespace {

constexpr int kCycles = 1000;
constexpr char kCheck[] = "/grpc.health.v1.Health/Check";

// A control plane serving the client chain "svc" -> one health backend, and
// a server Listener for `server_port`; built once.
struct Loopback {
  health_backend::HealthBackend backend{"b1"};
  control_plane::ControlPlane cp{control_plane::ControlPlane::Options()};
  int cp_port = 0;
  int server_port = 0;
  std::shared_ptr<const Bootstrap> bootstrap;

  Loopback() {
    const int port = *backend.Start("127.0.0.1:0");
    cp_port = *cp.Start();
    server_port = server::testing::FreePort();
    auto snapshot = server::testing::MakeSnapshot(
        1,
        absl::StrCat(server::testing::ClientListenerJson(), ",",
                     server::testing::ServerListenerJson(server_port, "sr")),
        absl::StrCat(server::testing::ClientRouteJson(), ",",
                     server::testing::ServerRouteJson("sr")),
        server::testing::ClientClusterJson(),
        server::testing::ClientEndpointJson(port));
    cp.SetSnapshot(*snapshot);
    bootstrap = server::testing::ServerBootstrap(cp_port);
  }
};

Loopback& GetLoopback() {
  static Loopback* loopback = new Loopback();
  return *loopback;
}

void Report(benchmark::State& state, std::vector<double> ms) {
  if (ms.empty()) return;
  std::sort(ms.begin(), ms.end());
  auto at = [&ms](double q) {
    return ms[std::min(ms.size() - 1, static_cast<size_t>(q * ms.size()))];
  };
  state.counters["p50_ms"] = at(0.50);
  state.counters["p99_ms"] = at(0.99);
  state.counters["max_ms"] = ms.back();
}

// Destroys `doomed` (a unique_ptr or shared_ptr holding the last reference)
// and records how long that took, as the iteration's time.
template <typename Ptr>
void TimeDestroy(benchmark::State& state, Ptr doomed, std::vector<double>* ms) {
  const absl::Time start = absl::Now();
  doomed.reset();
  const double took = absl::ToDoubleMilliseconds(absl::Now() - start);
  state.SetIterationTime(took / 1e3);
  ms->push_back(took);
}

class ListenerSeen : public resources::ResourceWatcher<resources::Listener> {
 public:
  void OnChanged(std::shared_ptr<const resources::Listener>) override {
    if (!seen_.HasBeenNotified()) seen_.Notify();
  }
  void OnError(absl::Status) override {}
  void OnDoesNotExist() override {}
  bool Wait() {
    return seen_.WaitForNotificationWithTimeout(absl::Seconds(10));
  }

 private:
  absl::Notification seen_;
};

void BM_DestroyXdsClient(benchmark::State& state) {
  Loopback& lb = GetLoopback();
  std::vector<double> ms;
  for (auto _ : state) {
    auto client = client::XdsClient::Create(
        lb.bootstrap, std::make_shared<transport::GrpcXdsTransportFactory>(),
        {});
    auto watcher = std::make_shared<ListenerSeen>();
    (*client)->Watch<resources::Listener>("svc", watcher);
    if (!watcher->Wait()) state.SkipWithError("no Listener");
    TimeDestroy(state, std::shared_ptr<client::XdsClient>(*std::move(client)),
                &ms);
  }
  Report(state, std::move(ms));
}
BENCHMARK(BM_DestroyXdsClient)->Iterations(kCycles)->UseManualTime();

void BM_DestroyXdsChannel(benchmark::State& state) {
  Loopback& lb = GetLoopback();
  std::vector<double> ms;
  for (auto _ : state) {
    auto channel = channel::XdsChannel::Create(lb.bootstrap, "xds:///svc", {});
    channel::GenericCallResult r = channel::GenericUnary(
        **channel, kCheck, "", absl::Now() + absl::Seconds(10));
    if (!r.status.ok()) state.SkipWithError("RPC failed");
    TimeDestroy(state, *std::move(channel), &ms);
  }
  Report(state, std::move(ms));
}
BENCHMARK(BM_DestroyXdsChannel)->Iterations(kCycles)->UseManualTime();

void BM_DestroyXdsServer(benchmark::State& state) {
  Loopback& lb = GetLoopback();
  health_backend::HealthService service("s1");
  std::vector<double> ms;
  for (auto _ : state) {
    server::testing::NotifierLog log;
    server::XdsServerBuilder builder;
    builder
        .AddListeningPort(absl::StrCat("127.0.0.1:", lb.server_port),
                          grpc::InsecureServerCredentials())
        .RegisterService(&service)
        .set_bootstrap(lb.bootstrap)
        .set_status_notifier(
            [&log](const std::string& a, const absl::Status& s) {
              log.Record(a, s);
            });
    auto server = builder.BuildAndStart();
    if (!server.ok() || !log.WaitFor(1) || !log.calls()[0].status.ok()) {
      state.SkipWithError(server.ok() && !log.calls().empty()
                              ? log.calls()[0].status.ToString().c_str()
                              : "not SERVING");
      break;
    }
    TimeDestroy(state, *std::move(server), &ms);
  }
  Report(state, std::move(ms));
}
BENCHMARK(BM_DestroyXdsServer)->Iterations(kCycles)->UseManualTime();

}  // namespace
}  // namespace xdsfed

BENCHMARK_MAIN();
