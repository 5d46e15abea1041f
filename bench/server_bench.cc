// lib/server (issue 12 §Performance), with the shared harness's 1,000-chain
// Listener shape (peers/tools/resources.js filterChainListener): 999 chains
// on source prefixes 10.a.b.0/24 and the last on 127.0.0.1/32, each with an
// inline route config whose one route has non_forwarding_action.
//   BM_SelectFilterChain/K    a loopback connection -> its chain, on the
//                             compiled map (what the accept loop runs);
//                             allocs/iter counted
//   BM_ListenerDecode/K       Listener bytes -> validated value (lib/resources,
//                             what the XdsClient runs on receipt)
//   BM_GenerationStart/K      validated Listener -> a started grpc::Server
//                             generation (chain map compiled, routes
//                             compiled); its shutdown is not timed
//   BM_RouteCheck             one RPC's route check (ChainRoutes::Check)
//   BM_ListenerToServing/K    issue 12 "Listener received -> SERVING": an
//                             XdsServer on a fake ADS transport gets the
//                             DiscoveryResponse bytes with the K-chain
//                             Listener; timed from handing the bytes to the
//                             XdsClient until the notifier says SERVING
//                             (decode, validation, config manager, chain
//                             compile, generation build and start); wall
//                             time, the work runs on the server's threads
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <chrono>
#include <condition_variable>
#include <memory>
#include <mutex>
#include <string>
#include <variant>

#include "absl/strings/str_cat.h"
#include "absl/strings/substitute.h"
#include "absl/time/clock.h"
#include "benchmark/benchmark.h"
#include "lib/bootstrap/bootstrap.h"
#include "lib/resources/listener.h"
#include "lib/resources/proto_json.h"
#include "lib/routing/filter_chain_select.h"
#include "lib/routing/socket_address.h"
#include "lib/server/chain_routes.h"
#include "lib/server/generation.h"
#include "lib/server/xds_server.h"
#include "tests/client/client_test_util.h"
#include "tests/support/alloc_counter.h"
#include "tools/health_backend/health_backend.h"

namespace xdsfed::server {
namespace {

std::string Hcm(absl::string_view prefix) {
  return absl::Substitute(
      R"({"@type":"type.googleapis.com/envoy.extensions.filters.network.http_connection_manager.v3.HttpConnectionManager",
  "route_config":{"name":"inbound","virtual_hosts":[{"name":"vh","domains":["*"],
    "routes":[{"match":{"prefix":"$0"},"non_forwarding_action":{}}]}]},
  "http_filters":[{"name":"router","typed_config":{
    "@type":"type.googleapis.com/envoy.extensions.filters.http.router.v3.Router"}}]})",
      prefix);
}

std::string ListenerBytes(int k, absl::string_view name = "l",
                          int port = 19411) {
  std::string chains;
  auto chain = [&](absl::string_view ip, int len) {
    if (!chains.empty()) chains += ",";
    absl::StrAppend(
        &chains,
        absl::Substitute(
            R"({"filter_chain_match":{"source_prefix_ranges":[{"address_prefix":"$0","prefix_len":$1}]},
  "filters":[{"name":"hcm","typed_config":$2}]})",
            ip, len, Hcm("")));
  };
  for (int i = 0; i < k - 1; ++i) {
    chain(absl::StrCat("10.", (i >> 8) & 255, ".", i & 255, ".0"), 24);
  }
  chain("127.0.0.1", 32);
  auto bytes = resources::ProtoJsonToSerialized(
      absl::Substitute(
          R"({"name":"$1","address":{"socket_address":{"address":"127.0.0.1","port_value":$2}},
  "filter_chains":[$0]})",
          chains, name, port),
      "envoy.config.listener.v3.Listener");
  return bytes.ok() ? bytes->bytes : "";
}

std::shared_ptr<const resources::Listener> Decode(const std::string& bytes) {
  const auto& type = resources::ListenerResourceType();
  resources::DecodeResult r = type.Decode({}, bytes);
  if (!r.value.ok()) return nullptr;
  return type.Cast(*r.value);
}

void BM_SelectFilterChain(benchmark::State& state) {
  auto listener = Decode(ListenerBytes(static_cast<int>(state.range(0))));
  if (listener == nullptr) {
    state.SkipWithError("bad listener");
    return;
  }
  const routing::FilterChainSelector selector(
      std::get<resources::ServerListener>(listener->listener));
  const routing::SocketAddress dest =
      *routing::SocketAddress::Parse("127.0.0.1:19411");
  const routing::SocketAddress source =
      *routing::SocketAddress::Parse("127.0.0.1:40000");
  const int64_t before = test_support::AllocationCount();
  for (auto _ : state) {
    std::optional<size_t> i = selector.Select(dest, &source);
    benchmark::DoNotOptimize(i);
  }
  state.counters["allocs/iter"] =
      static_cast<double>(test_support::AllocationCount() - before) /
      static_cast<double>(state.iterations());
  state.SetItemsProcessed(state.iterations());
}
BENCHMARK(BM_SelectFilterChain)->Arg(1)->Arg(100)->Arg(1000);

void BM_ListenerDecode(benchmark::State& state) {
  const std::string bytes = ListenerBytes(static_cast<int>(state.range(0)));
  for (auto _ : state) {
    auto listener = Decode(bytes);
    benchmark::DoNotOptimize(listener);
  }
  state.SetBytesProcessed(state.iterations() *
                          static_cast<int64_t>(bytes.size()));
}
BENCHMARK(BM_ListenerDecode)->Arg(1)->Arg(1000)->Unit(benchmark::kMillisecond);

void BM_GenerationStart(benchmark::State& state) {
  auto config = std::make_shared<xds_config::ServerConfig>();
  config->listener = Decode(ListenerBytes(static_cast<int>(state.range(0))));
  if (config->listener == nullptr) {
    state.SkipWithError("bad listener");
    return;
  }
  health_backend::HealthService health("bench");
  GenerationOptions options;
  options.services.push_back(&health);
  options.listening_address =
      *routing::ParseListeningAddress("127.0.0.1:19411");
  options.credentials = grpc::InsecureServerCredentials();
  options.drain_grace = absl::Seconds(1);
  options.max_connection_age = absl::Seconds(30);
  uint64_t id = 0;
  for (auto _ : state) {
    std::vector<std::string> errors;
    auto g = Generation::Start(++id, config, options, &errors);
    if (!g.ok()) {
      state.SkipWithError("start failed");
      return;
    }
    state.PauseTiming();
    (*g)->Shutdown(absl::Now());
    g->reset();
    state.ResumeTiming();
  }
}
BENCHMARK(BM_GenerationStart)
    ->Arg(1)
    ->Arg(1000)
    ->Unit(benchmark::kMillisecond)
    ->Iterations(30);

void BM_RouteCheck(benchmark::State& state) {
  auto listener = Decode(ListenerBytes(1000));
  if (listener == nullptr) {
    state.SkipWithError("bad listener");
    return;
  }
  xds_config::ServerConfig config;
  config.listener = listener;
  std::vector<std::string> errors;
  auto routes = ChainRoutes::Build(
      std::get<resources::ServerListener>(listener->listener), config, &errors);
  std::string scratch;
  const int64_t before = test_support::AllocationCount();
  for (auto _ : state) {
    absl::Status s = routes->Check(
        999, "127.0.0.1:19411", "/grpc.health.v1.Health/Check",
        [](absl::string_view, std::string*) {
          return std::optional<absl::string_view>();
        },
        &scratch);
    benchmark::DoNotOptimize(s);
  }
  state.counters["allocs/iter"] =
      static_cast<double>(test_support::AllocationCount() - before) /
      static_cast<double>(state.iterations());
}
BENCHMARK(BM_RouteCheck);

// A port free right now on 127.0.0.1 (A36 servers take no port 0).
int FreePort() {
  int fd = socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in a{};
  a.sin_family = AF_INET;
  a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  bind(fd, reinterpret_cast<sockaddr*>(&a), sizeof(a));
  socklen_t len = sizeof(a);
  getsockname(fd, reinterpret_cast<sockaddr*>(&a), &len);
  close(fd);
  return ntohs(a.sin_port);
}

void BM_ListenerToServing(benchmark::State& state) {
  constexpr char kTemplate[] = "grpc/server?xds.resource.listening_address=%s";
  auto bootstrap = Bootstrap::Parse(
      absl::Substitute(R"({"xds_servers":[{"server_uri":"127.0.0.1:1",
  "channel_creds":[{"type":"insecure"}]}],"node":{"id":"bench"},
  "server_listener_resource_name_template":"$0"})",
                       kTemplate),
      /*federation=*/false);
  if (!bootstrap.ok()) {
    state.SkipWithError("bad bootstrap");
    return;
  }
  health_backend::HealthService health("bench");
  for (auto _ : state) {
    state.PauseTiming();
    const int port = FreePort();
    const std::string address = absl::StrCat("127.0.0.1:", port);
    envoy::service::discovery::v3::DiscoveryResponse response;
    response.set_type_url(std::string(client::testing::kLdsUrl));
    response.set_version_info("1");
    response.set_nonce("1");
    google::protobuf::Any* any = response.add_resources();
    any->set_type_url(std::string(client::testing::kLdsUrl));
    any->set_value(ListenerBytes(static_cast<int>(state.range(0)),
                                 absl::StrCat("grpc/server?xds.resource."
                                              "listening_address=",
                                              address),
                                 port));
    const std::string bytes = response.SerializeAsString();
    auto transport = std::make_shared<client::testing::FakeTransportFactory>();
    std::mutex mu;
    std::condition_variable cv;
    bool serving = false;
    XdsServerBuilder builder;
    builder.AddListeningPort(address, grpc::InsecureServerCredentials())
        .RegisterService(&health)
        .set_bootstrap(*bootstrap)
        .set_transport_factory(transport)
        .set_status_notifier(
            [&](const std::string&, const absl::Status& status) {
              std::lock_guard<std::mutex> lock(mu);
              serving = status.ok();
              cv.notify_all();
            });
    auto server = builder.BuildAndStart();
    if (!server.ok()) {
      state.SkipWithError("start failed");
      return;
    }
    // The ADS stream and its Listener subscription.
    const absl::Time give_up = absl::Now() + absl::Seconds(10);
    while ((transport->call_count() == 0 ||
            transport->Call(0)->request_count() == 0) &&
           absl::Now() < give_up) {
      absl::SleepFor(absl::Microseconds(100));
    }
    if (transport->call_count() == 0) {
      state.SkipWithError("no ADS call");
      return;
    }
    state.ResumeTiming();
    transport->Call(0)->RespondBytes(bytes);
    {
      std::unique_lock<std::mutex> lock(mu);
      if (!cv.wait_for(lock, std::chrono::seconds(10),
                       [&] { return serving; })) {
        state.SkipWithError("not serving");
        return;
      }
    }
    state.PauseTiming();
    (*server)->Shutdown();
    server->reset();
    state.ResumeTiming();
  }
}
BENCHMARK(BM_ListenerToServing)
    ->Arg(1)
    ->Arg(1000)
    ->Unit(benchmark::kMillisecond)
    ->UseRealTime()
    ->Iterations(20);

}  // namespace
}  // namespace xdsfed::server

BENCHMARK_MAIN();
