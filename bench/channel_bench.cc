// lib/channel (issue 13): the cost of XdsChannel's pick, and unary RPC
// throughput through XdsChannel against the same RPCs on one direct
// grpc::Channel.
//
// BM_Pick: DataPlane::TryPick + CallTracker::Finish, the per-RPC path of
//   XdsChannel::Pick once a priority is READY (route match via lib/routing,
//   priority, drops check, circuit-breaker counter, locality by weight,
//   round robin, load recording), over 1,000 endpoints in 100 localities;
//   endpoints are fakes (their connectivity is all the picker reads).
//   Counter allocs_per_pick: heap allocations per pick (must be 0).
// BM_PickReal: XdsChannel::Pick + CallTracker::Finish on a real XdsChannel
//   (one READY endpoint, its grpc::Channel to a loopback health backend):
//   BM_Pick's path plus what fakes answer with a load, the endpoint's
//   connectivity check before the pick is counted (Endpoint::Recheck,
//   grpc::Channel::GetState(false): the re-queue of a pick whose endpoint
//   lost its connection). Counter allocs_per_pick.
// BM_EndpointCreate/0 vs /1: GrpcEndpointFactory::Create, which the data
//   plane calls under its lock (picks wait on it), vs Create + Start (the
//   grpc::Channel made and asked to connect, after the lock is released);
//   real channels to the loopback health backend.
// BM_Unary/xds vs BM_Unary/direct: real gRPC on loopback, one health
//   backend; "xds" goes through an XdsChannel fed by the embedded control
//   plane (pick + the call on the endpoint's cached stub + Finish),
//   "direct" sends the same grpc::GenericStub call on one channel to the
//   backend.
#include <atomic>
#include <condition_variable>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/substitute.h"
#include "absl/time/clock.h"
#include "benchmark/benchmark.h"
#include "grpcpp/generic/generic_stub.h"
#include "grpcpp/grpcpp.h"
#include "lib/bootstrap/bootstrap.h"
#include "lib/channel/data_plane.h"
#include "lib/channel/generic_call.h"
#include "lib/channel/grpc_endpoint.h"
#include "lib/channel/xds_channel.h"
#include "tests/channel/channel_test_util.h"
#include "tests/support/alloc_counter.h"
#include "tools/control_plane/control_plane.h"
#include "tools/health_backend/health_backend.h"

namespace xdsfed {
namespace channel {
namespace {

constexpr char kCheck[] = "/grpc.health.v1.Health/Check";

// One DataPlane per shape, built once and shared by every thread of a run
// (so that no thread's setup or teardown lands in another's measurement).
struct PickFixture {
  std::shared_ptr<testing::FakeEndpointFactory> factory =
      std::make_shared<testing::FakeEndpointFactory>(Connectivity::kReady);
  lrs::CallCounterRegistry counters;
  std::shared_ptr<DataPlane> dp;

  PickFixture(int endpoints, int localities) {
    DataPlane::Options options;
    options.endpoints = factory;
    options.call_counters = &counters;
    dp = DataPlane::Create(options);
    std::vector<testing::TestLocality> locs(localities);
    for (int i = 0; i < endpoints; ++i) {
      auto& l = locs[i % localities];
      l.zone = absl::StrCat("z", i % localities);
      l.weight = 1 + (i % localities) % 7;
      l.addresses.push_back(
          absl::StrCat("10.0.", i / 250, ".", i % 250, ":80"));
    }
    dp->Update(testing::Config(
        {{"/other.", "x"}, {"/grpc.health.v1.Health/", "c"}},
        {testing::Cluster("c", {testing::EdsLeaf("c", {locs})}),
         testing::Cluster(
             "x", {testing::EdsLeaf("x", {{{"z", 1, {"1.1.1.1:1"}}}})})}));
  }
};

PickFixture& GetPickFixture(int endpoints, int localities) {
  static std::mutex mu;
  static auto* fixtures = new std::map<std::pair<int, int>, PickFixture*>();
  std::lock_guard<std::mutex> lock(mu);
  auto& f = (*fixtures)[{endpoints, localities}];
  if (f == nullptr) f = new PickFixture(endpoints, localities);
  return *f;
}

// The timed loop of the pick benchmarks: one pick and its Finish per
// iteration, with allocations per pick counted as a counter.
template <typename PickFn>
void RunPicks(benchmark::State& state, PickFn pick) {
  int64_t allocs_before = 0;
  bool first = true;
  for (auto _ : state) {
    // Counted from the first iteration: every thread is past its setup.
    if (first) {
      allocs_before = test_support::AllocationCount();
      first = false;
    }
    PickResult r = pick();
    benchmark::DoNotOptimize(r.endpoint.get());
    r.tracker.Finish(true);
  }
  state.counters["allocs_per_pick"] = benchmark::Counter(
      static_cast<double>(test_support::AllocationCount() - allocs_before) /
      static_cast<double>(state.iterations()));
  state.SetItemsProcessed(state.iterations());
}

void BM_Pick(benchmark::State& state) {
  PickFixture& f = GetPickFixture(static_cast<int>(state.range(0)),
                                  static_cast<int>(state.range(1)));
  const PickArgs args{"/grpc.health.v1.Health/Check", {}};
  bool queued = false;
  {
    PickResult warm = f.dp->TryPick(args, &queued);  // thread-local state
    if (!warm.status.ok()) state.SkipWithError("pick failed");
  }
  RunPicks(state, [&] { return f.dp->TryPick(args, &queued); });
}
BENCHMARK(BM_Pick)->Args({1000, 100})->Args({10, 1});
BENCHMARK(BM_Pick)->Args({1000, 100})->Threads(2);

// One health backend, a control plane routing "svc" to it, an XdsChannel and
// a direct channel; built once for every BM_Unary run.
struct Loopback {
  health_backend::HealthBackend backend{"b1"};
  control_plane::ControlPlane cp{control_plane::ControlPlane::Options()};
  std::unique_ptr<XdsChannel> xds;
  std::shared_ptr<grpc::Channel> direct;
  std::unique_ptr<grpc::GenericStub> direct_stub;

  std::string backend_address;

  Loopback() {
    int port = *backend.Start("127.0.0.1:0");
    backend_address = absl::StrCat("127.0.0.1:", port);
    int cp_port = *cp.Start();
    const std::string hcm = absl::Substitute(
        R"({"@type":"type.googleapis.com/envoy.extensions.filters.network.http_connection_manager.v3.HttpConnectionManager",
  "rds":{"config_source":{"ads":{}},"route_config_name":"route"},
  "http_filters":[{"name":"router","typed_config":{"@type":"type.googleapis.com/envoy.extensions.filters.http.router.v3.Router"}}]})");
    auto snapshot = control_plane::ParseSnapshot(absl::Substitute(
        R"({"version":"1","resources":{
 "envoy.config.listener.v3.Listener":{"svc":{"api_listener":{"api_listener":$0}}},
 "envoy.config.route.v3.RouteConfiguration":{"route":{"virtual_hosts":[{"name":"vh","domains":["svc"],"routes":[{"match":{"prefix":""},"route":{"cluster":"c"}}]}]}},
 "envoy.config.cluster.v3.Cluster":{"c":{"type":"EDS","eds_cluster_config":{"eds_config":{"ads":{}}}}},
 "envoy.config.endpoint.v3.ClusterLoadAssignment":{"c":{"endpoints":[{"locality":{"zone":"z"},"load_balancing_weight":1,"lb_endpoints":[{"endpoint":{"address":{"socket_address":{"address":"127.0.0.1","port_value":$1}}}}]}]}}}})",
        hcm, port));
    cp.SetSnapshot(*snapshot);
    auto bootstrap = Bootstrap::Parse(
        absl::Substitute(R"({"xds_servers":[{"server_uri":"127.0.0.1:$0",
  "channel_creds":[{"type":"insecure"}]}],"node":{"id":"bench"}})",
                         cp_port),
        false);
    xds = *XdsChannel::Create(*bootstrap, "xds:///svc", {});
    grpc::ChannelArguments args;
    args.SetString(GRPC_ARG_DEFAULT_AUTHORITY, "svc");
    direct =
        grpc::CreateCustomChannel(absl::StrCat("ipv4:127.0.0.1:", port),
                                  grpc::InsecureChannelCredentials(), args);
    direct_stub = std::make_unique<grpc::GenericStub>(direct);
    // Both connected before measuring.
    GenericUnary(*xds, kCheck, "", absl::Now() + absl::Seconds(10));
    direct->WaitForConnected(std::chrono::system_clock::now() +
                             std::chrono::seconds(10));
  }
};

Loopback& GetLoopback() {
  static Loopback* loopback = new Loopback();
  return *loopback;
}

void BM_PickReal(benchmark::State& state) {
  Loopback& lb = GetLoopback();
  const PickArgs args{kCheck, {}};
  {
    PickResult warm = lb.xds->Pick(args, absl::Now() + absl::Seconds(10));
    if (!warm.status.ok()) state.SkipWithError("pick failed");
  }
  RunPicks(state, [&] { return lb.xds->Pick(args, absl::InfiniteFuture()); });
}
BENCHMARK(BM_PickReal);

void BM_EndpointCreate(benchmark::State& state) {
  Loopback& lb = GetLoopback();
  const bool start = state.range(0) == 1;
  auto factory = std::make_shared<GrpcEndpointFactory>(
      GrpcEndpointFactory::Options{.authority = "svc"});
  std::vector<std::shared_ptr<Endpoint>> made;
  made.reserve(state.max_iterations);
  for (auto _ : state) {
    auto e = factory->Create(lb.backend_address, [] {});
    if (start) e->Start();
    made.push_back(std::move(e));
  }
  // After the timed loop: the factory waits for the started ones' watches.
  made.clear();
  factory.reset();
}
BENCHMARK(BM_EndpointCreate)->Arg(0)->Arg(1)->Iterations(300);

// The same call GenericUnary makes, on the direct channel.
grpc::Status DirectUnary(grpc::GenericStub& stub) {
  grpc::ClientContext ctx;
  ctx.set_deadline(std::chrono::system_clock::now() + std::chrono::seconds(10));
  grpc::Slice slice("");
  grpc::ByteBuffer request(&slice, 1), response;
  std::mutex mu;
  std::condition_variable cv;
  bool done = false;
  grpc::Status status;
  stub.UnaryCall(&ctx, kCheck, grpc::StubOptions(), &request, &response,
                 [&](grpc::Status s) {
                   std::lock_guard<std::mutex> lock(mu);
                   status = std::move(s);
                   done = true;
                   cv.notify_all();
                 });
  std::unique_lock<std::mutex> lock(mu);
  cv.wait(lock, [&] { return done; });
  return status;
}

// 0: the call on the direct channel; 1: XdsChannel::Pick, the same call on
// the picked endpoint's cached stub, CallTracker::Finish; 2: the library's
// GenericUnary helper (which also copies the response and its metadata).
void BM_Unary(benchmark::State& state) {
  Loopback& lb = GetLoopback();
  const int mode = static_cast<int>(state.range(0));
  state.SetLabel(mode == 0 ? "direct" : mode == 1 ? "xds" : "xds GenericUnary");
  int64_t failed = 0;
  for (auto _ : state) {
    bool ok = false;
    if (mode == 0) {
      ok = DirectUnary(*lb.direct_stub).ok();
    } else if (mode == 1) {
      PickResult pick =
          lb.xds->Pick(PickArgs{kCheck, {}}, absl::Now() + absl::Seconds(10));
      ok = pick.status.ok() &&
           DirectUnary(pick.endpoint->Stub<grpc::GenericStub>()).ok();
      pick.tracker.Finish(ok);
    } else {
      ok = GenericUnary(*lb.xds, kCheck, "", absl::Now() + absl::Seconds(10))
               .status.ok();
    }
    if (!ok) ++failed;
  }
  if (failed > 0) state.SkipWithError("RPCs failed");
  state.SetItemsProcessed(state.iterations());
}
// Interleaved so that machine noise hits both alike.
BENCHMARK(BM_Unary)
    ->Arg(0)
    ->Arg(1)
    ->Arg(2)
    ->Arg(0)
    ->Arg(1)
    ->Arg(2)
    ->UseRealTime();
BENCHMARK(BM_Unary)->Arg(0)->Arg(1)->Arg(0)->Arg(1)->Threads(4)->UseRealTime();

}  // namespace
}  // namespace channel
}  // namespace xdsfed

BENCHMARK_MAIN();
