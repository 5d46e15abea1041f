// lib/server's accept path next to a plain grpc::Server, in one process and
// one run (issue 12 §Performance "new connection + 1 RPC >= 0.95x a plain
// grpc::Server"): each iteration opens a new connection and makes one unary
// Health/Check on a plain grpc::Server (AddListeningPort), then the same on
// an XdsServer (own accept loop + FROM_FD hand-off, Listener with K filter
// chains from the embedded control plane), alternating so that both see the
// same machine load. Counters: connections + RPC per second of each and
// their ratio (xds / plain; >= 0.95 is the goal). BM_MaxConnectionAgeAB
// measures what the drain design's max-age filter costs, in the same way,
// and BM_RbacAB what an RBAC filter on the chain costs (issue 25: >= 0.95x
// the same server without it).
#include <atomic>
#include <chrono>
#include <memory>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/substitute.h"
#include "absl/time/clock.h"
#include "benchmark/benchmark.h"
#include "grpcpp/grpcpp.h"
#include "lib/server/xds_server.h"
#include "tests/server/server_test_support.h"
#include "tools/control_plane/control_plane.h"
#include "tools/health_backend/health_backend.h"

namespace xdsfed::server {
namespace {

// The shared harness's shape: K-1 chains on 10.a.b.0/24 sources and the
// last on 127.0.0.1/32, all routing to `route` (RDS).
// An HCM with an RBAC filter (ALLOW: one policy any/any, so every RPC is
// evaluated and passes) before the router, on RDS `route`.
std::string RbacHcm(absl::string_view route) {
  return absl::Substitute(
      R"({"@type":"type.googleapis.com/envoy.extensions.filters.network.http_connection_manager.v3.HttpConnectionManager",
  "rds":{"config_source":{"ads":{}},"route_config_name":"$0"},
  "http_filters":[
    {"name":"rbac","typed_config":{"@type":"type.googleapis.com/envoy.extensions.filters.http.rbac.v3.RBAC",
      "rules":{"policies":{"all":{"permissions":[{"any":true}],"principals":[{"any":true}]}}}}},
    {"name":"router","typed_config":{
      "@type":"type.googleapis.com/envoy.extensions.filters.http.router.v3.Router"}}]})",
      route);
}

std::string Listener(int port, int k, bool rbac = false) {
  std::string chains;
  auto chain = [&](absl::string_view ip, int len) {
    if (!chains.empty()) chains += ",";
    absl::StrAppend(
        &chains,
        absl::Substitute(
            R"({"filter_chain_match":{"source_prefix_ranges":[{"address_prefix":"$0","prefix_len":$1}]},
  "filters":[{"name":"hcm","typed_config":$2}]})",
            ip, len, rbac ? RbacHcm("r") : testing::Hcm("r")));
  };
  for (int i = 0; i < k - 1; ++i) {
    chain(absl::StrCat("10.", (i >> 8) & 255, ".", i & 255, ".0"), 24);
  }
  chain("127.0.0.1", 32);
  return absl::Substitute(
      R"("$0":{"address":{"socket_address":{"address":"127.0.0.1","port_value":$1}},
  "filter_chains":[$2]})",
      testing::ServerListenerName(port), port, chains);
}

bool OneRpcOnANewConnection(const std::string& target, int unique) {
  grpc::ChannelArguments args;
  args.SetInt("grpc.xdsfed_bench_unique", unique);
  auto channel = grpc::CreateCustomChannel(
      target, grpc::InsecureChannelCredentials(), args);
  return health_backend::HealthCheckOnce(channel, "", absl::Seconds(10), true)
      .status.ok();
}

// A plain grpc::Server and XdsServers (K chains each, one per max
// connection age asked for; default one with the builder's default age)
// serving one service.
struct Servers {
  // rbac[i]: XdsServer i's chains run an RBAC filter (default: none).
  bool Start(
      int k,
      std::vector<std::optional<absl::Duration>> max_ages = {std::nullopt},
      std::vector<bool> rbac = {});
  ~Servers() {
    for (auto& x : xds) x->Shutdown();
    if (plain != nullptr) plain->Shutdown(std::chrono::system_clock::now());
    if (cp != nullptr) cp->Shutdown();
  }
  health_backend::HealthService service{"bench"};
  testing::NotifierLog log;
  std::unique_ptr<grpc::Server> plain;
  std::unique_ptr<control_plane::ControlPlane> cp;
  std::vector<std::unique_ptr<XdsServer>> xds;
  std::string plain_target;
  std::vector<std::string> xds_targets;
  std::string xds_target;  // xds_targets[0]
};

bool Servers::Start(int k, std::vector<std::optional<absl::Duration>> max_ages,
                    std::vector<bool> rbac) {
  rbac.resize(max_ages.size(), false);
  grpc::ServerBuilder plain_builder;
  int plain_port = 0;
  plain_builder.AddListeningPort(
      "127.0.0.1:0", grpc::InsecureServerCredentials(), &plain_port);
  plain_builder.RegisterService(&service);
  plain = plain_builder.BuildAndStart();

  control_plane::ControlPlane::Options cp_options;
  cp_options.listen = "127.0.0.1:0";
  cp = std::make_unique<control_plane::ControlPlane>(cp_options);
  absl::StatusOr<int> cp_port = cp->Start();
  std::vector<int> ports;
  std::string listeners;
  for (size_t i = 0; i < max_ages.size(); ++i) {
    ports.push_back(testing::FreePort());
    if (!listeners.empty()) listeners += ",";
    listeners += Listener(ports.back(), k, rbac[i]);
  }
  auto snapshot =
      testing::MakeSnapshot(1, listeners, testing::ServerRouteJson("r"));
  if (plain == nullptr || !cp_port.ok() || !snapshot.ok()) return false;
  cp->SetSnapshot(*std::move(snapshot));
  for (size_t i = 0; i < max_ages.size(); ++i) {
    XdsServerBuilder builder;
    builder
        .AddListeningPort(absl::StrCat("127.0.0.1:", ports[i]),
                          grpc::InsecureServerCredentials())
        .RegisterService(&service)
        .set_bootstrap(testing::ServerBootstrap(*cp_port))
        .set_status_notifier(
            [this](const std::string& a, const absl::Status& s) {
              log.Record(a, s);
            });
    if (max_ages[i].has_value()) builder.set_max_connection_age(*max_ages[i]);
    auto built = builder.BuildAndStart();
    if (!built.ok()) return false;
    xds.push_back(*std::move(built));
    xds_targets.push_back(absl::StrCat("127.0.0.1:", ports[i]));
  }
  plain_target = absl::StrCat("127.0.0.1:", plain_port);
  xds_target = xds_targets[0];
  if (!log.WaitFor(max_ages.size())) return false;
  for (const auto& call : log.calls()) {
    if (!call.status.ok()) return false;
  }
  return true;
}

void BM_NewConnectionPlusRpc(benchmark::State& state) {
  Servers servers;
  if (!servers.Start(static_cast<int>(state.range(0)))) {
    state.SkipWithError("setup failed");
    return;
  }
  const std::string& plain_target = servers.plain_target;
  const std::string& xds_target = servers.xds_target;
  int unique = 0;
  absl::Duration plain_time;
  absl::Duration xds_time;
  int64_t failed = 0;
  for (auto _ : state) {
    absl::Time t0 = absl::Now();
    failed += !OneRpcOnANewConnection(plain_target, ++unique);
    absl::Time t1 = absl::Now();
    failed += !OneRpcOnANewConnection(xds_target, ++unique);
    absl::Time t2 = absl::Now();
    plain_time += t1 - t0;
    xds_time += t2 - t1;
  }
  const double n = static_cast<double>(state.iterations());
  state.counters["plain_per_s"] = n / absl::ToDoubleSeconds(plain_time);
  state.counters["xds_per_s"] = n / absl::ToDoubleSeconds(xds_time);
  state.counters["xds_vs_plain"] =
      absl::ToDoubleSeconds(plain_time) / absl::ToDoubleSeconds(xds_time);
  state.counters["failed"] = static_cast<double>(failed);
}
BENCHMARK(BM_NewConnectionPlusRpc)
    ->Arg(1)
    ->Arg(1000)
    ->MinTime(3)
    ->UseRealTime()
    ->Unit(benchmark::kMicrosecond);

// `threads` clients, each opening a new connection + 1 RPC back to back on
// `target` for 0.5 s; returns the RPCs that succeeded.
int64_t Window(const std::string& target, int threads, std::atomic<int>* unique,
               std::atomic<int64_t>* failed) {
  std::atomic<int64_t> done{0};
  const absl::Time end = absl::Now() + absl::Milliseconds(500);
  std::vector<std::thread> clients;
  for (int t = 0; t < threads; ++t) {
    clients.emplace_back([&] {
      while (absl::Now() < end) {
        if (OneRpcOnANewConnection(target, ++*unique)) {
          done.fetch_add(1);
        } else {
          failed->fetch_add(1);
        }
      }
    });
  }
  for (auto& c : clients) c.join();
  return done.load();
}

// As the shared harness drives it: 4 client threads, each opening a new
// connection + 1 RPC back to back, for 0.5 s on the plain server then 0.5 s
// on the XdsServer, per iteration (rounds alternate under the same load).
void BM_NewConnectionPlusRpc4Threads(benchmark::State& state) {
  Servers servers;
  if (!servers.Start(static_cast<int>(state.range(0)))) {
    state.SkipWithError("setup failed");
    return;
  }
  std::atomic<int> unique{0};
  std::atomic<int64_t> failed{0};
  int64_t plain = 0;
  int64_t xds = 0;
  for (auto _ : state) {
    plain += Window(servers.plain_target, 4, &unique, &failed);
    xds += Window(servers.xds_target, 4, &unique, &failed);
  }
  const double seconds = 0.5 * static_cast<double>(state.iterations());
  state.counters["plain_per_s"] = static_cast<double>(plain) / seconds;
  state.counters["xds_per_s"] = static_cast<double>(xds) / seconds;
  state.counters["xds_vs_plain"] =
      static_cast<double>(xds) / static_cast<double>(plain);
  state.counters["failed"] = static_cast<double>(failed.load());
}
BENCHMARK(BM_NewConnectionPlusRpc4Threads)
    ->Arg(1)
    ->Arg(1000)
    ->Iterations(6)
    ->UseRealTime()
    ->Unit(benchmark::kMillisecond);

// What the drain design costs per connection, A/B in one run: a plain
// server, an XdsServer as built by default (every connection's channel stack
// has gRPC's max-age filter: GRPC_ARG_MAX_CONNECTION_AGE_MS, README "Drain
// without failed RPCs") and one with an infinite max age (no such filter;
// its old generations would never drain: measurement only). 0.5 s windows
// of 4 clients in turn, the order rotating each iteration.
void BM_MaxConnectionAgeAB(benchmark::State& state) {
  Servers servers;
  if (!servers.Start(static_cast<int>(state.range(0)),
                     {std::nullopt, absl::InfiniteDuration()})) {
    state.SkipWithError("setup failed");
    return;
  }
  const std::string* targets[] = {
      &servers.plain_target, &servers.xds_targets[0], &servers.xds_targets[1]};
  std::atomic<int> unique{0};
  std::atomic<int64_t> failed{0};
  int64_t done[3] = {0, 0, 0};
  int round = 0;
  for (auto _ : state) {
    for (int i = 0; i < 3; ++i) {
      const int which = (i + round) % 3;
      done[which] += Window(*targets[which], 4, &unique, &failed);
    }
    ++round;
  }
  const double seconds = 0.5 * static_cast<double>(state.iterations());
  const auto plain = static_cast<double>(done[0]);
  state.counters["plain_per_s"] = plain / seconds;
  state.counters["xds_per_s"] = static_cast<double>(done[1]) / seconds;
  state.counters["xds_no_age_per_s"] = static_cast<double>(done[2]) / seconds;
  state.counters["xds_vs_plain"] = static_cast<double>(done[1]) / plain;
  state.counters["xds_no_age_vs_plain"] = static_cast<double>(done[2]) / plain;
  state.counters["failed"] = static_cast<double>(failed.load());
}
BENCHMARK(BM_MaxConnectionAgeAB)
    ->Arg(1)
    ->Arg(100)
    ->Arg(1000)
    ->Iterations(9)
    ->UseRealTime()
    ->Unit(benchmark::kMillisecond);

// Issue 25: new connection + 1 RPC on an XdsServer whose chain runs an
// RBAC filter (every RPC evaluated, allowed) against the same server
// without it, alternating. rbac_vs_none >= 0.95 is the goal.
void BM_RbacAB(benchmark::State& state) {
  Servers servers;
  if (!servers.Start(static_cast<int>(state.range(0)),
                     {std::nullopt, std::nullopt}, {false, true})) {
    state.SkipWithError("setup failed");
    return;
  }
  int unique = 0;
  absl::Duration none_time, rbac_time;
  int64_t failed = 0;
  for (auto _ : state) {
    absl::Time t0 = absl::Now();
    failed += !OneRpcOnANewConnection(servers.xds_targets[0], ++unique);
    absl::Time t1 = absl::Now();
    failed += !OneRpcOnANewConnection(servers.xds_targets[1], ++unique);
    absl::Time t2 = absl::Now();
    none_time += t1 - t0;
    rbac_time += t2 - t1;
  }
  const double n = static_cast<double>(state.iterations());
  state.counters["none_per_s"] = n / absl::ToDoubleSeconds(none_time);
  state.counters["rbac_per_s"] = n / absl::ToDoubleSeconds(rbac_time);
  state.counters["rbac_vs_none"] =
      absl::ToDoubleSeconds(none_time) / absl::ToDoubleSeconds(rbac_time);
  state.counters["failed"] = static_cast<double>(failed);
}
BENCHMARK(BM_RbacAB)->Arg(1)->MinTime(3)->UseRealTime()->Unit(
    benchmark::kMicrosecond);

}  // namespace
}  // namespace xdsfed::server

BENCHMARK_MAIN();
