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
#include <memory>
#include <string>
#include <variant>

#include "absl/strings/str_cat.h"
#include "absl/strings/substitute.h"
#include "absl/time/clock.h"
#include "benchmark/benchmark.h"
#include "lib/resources/listener.h"
#include "lib/resources/proto_json.h"
#include "lib/routing/filter_chain_select.h"
#include "lib/routing/socket_address.h"
#include "lib/server/chain_routes.h"
#include "lib/server/generation.h"
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

std::string ListenerBytes(int k) {
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
          R"({"name":"l","address":{"socket_address":{"address":"127.0.0.1","port_value":19411}},
  "filter_chains":[$0]})",
          chains),
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

}  // namespace
}  // namespace xdsfed::server

BENCHMARK_MAIN();
