// lib/routing hot paths (issue 12; the code a server / channel runs per
// connection and per RPC). Inputs go through the production decoders.
//
// - BM_FilterChainSelect/K: FilterChainSelector::Select for a new connection
//   on a Listener of K chains shaped as ../shared/peers/run_server_perf.sh
//   builds them: K-1 chains with distinct source_prefix_ranges 10.a.b.0/24
//   that never match the client, the last 127.0.0.1/32, every chain
//   transport_protocol "raw_buffer"; the client on 127.0.0.1. Issue target
//   at 1,000 chains: <= 500 ns, 0 allocations.
// - BM_RouteMatch/N: RouteTable::Match of an RPC on a virtual host of N
//   routes (prefix routes for N services, each with a header matcher) whose
//   last route matches; plus FindVirtualHost among 10 hosts.
// - BM_RouteMatchRegex: a safe_regex path route and a header regex.
// - BM_FindVirtualHost/N vs BM_FindVirtualHostScan/N: a server's per-RPC
//   :authority lookup among N exact-domain virtual hosts, index vs scan.
// Counter allocs_per_op: heap allocations per call after a warm-up (must be
// 0; a few allocations of the benchmark library itself show up as a tiny
// fraction).
#include <benchmark/benchmark.h>

#include <memory>
#include <string>
#include <variant>

#include "absl/strings/str_cat.h"
#include "envoy/config/listener/v3/listener.pb.h"
#include "envoy/config/route/v3/route.pb.h"
#include "envoy/extensions/filters/http/router/v3/router.pb.h"
#include "envoy/extensions/filters/network/http_connection_manager/v3/http_connection_manager.pb.h"
#include "lib/resources/listener.h"
#include "lib/resources/route_config.h"
#include "lib/resources/virtual_host_select.h"
#include "lib/routing/filter_chain_select.h"
#include "lib/routing/route_table.h"
#include "tests/support/alloc_counter.h"

namespace {

namespace listener_pb = envoy::config::listener::v3;
namespace route_pb = envoy::config::route::v3;
namespace hcm_pb =
    envoy::extensions::filters::network::http_connection_manager::v3;
using xdsfed::routing::SocketAddress;

std::shared_ptr<const xdsfed::resources::Listener> HarnessListener(int k) {
  hcm_pb::HttpConnectionManager hcm;
  auto* vh = hcm.mutable_route_config()->add_virtual_hosts();
  vh->set_name("all");
  vh->add_domains("*");
  auto* route = vh->add_routes();
  route->mutable_match()->set_prefix("");
  route->mutable_non_forwarding_action();
  auto* router = hcm.add_http_filters();
  router->set_name("router");
  router->mutable_typed_config()->PackFrom(
      envoy::extensions::filters::http::router::v3::Router());
  listener_pb::Listener l;
  l.set_name("l");
  auto* sa = l.mutable_address()->mutable_socket_address();
  sa->set_address("127.0.0.1");
  sa->set_port_value(50051);
  for (int i = 0; i < k; ++i) {
    auto* chain = l.add_filter_chains();
    auto* filter = chain->add_filters();
    filter->set_name("hcm");
    filter->mutable_typed_config()->PackFrom(hcm);
    auto* m = chain->mutable_filter_chain_match();
    m->set_transport_protocol("raw_buffer");
    auto* src = m->add_source_prefix_ranges();
    if (i == k - 1) {
      src->set_address_prefix("127.0.0.1");
      src->mutable_prefix_len()->set_value(32);
    } else {
      src->set_address_prefix(absl::StrCat("10.", i / 256, ".", i % 256, ".0"));
      src->mutable_prefix_len()->set_value(24);
    }
  }
  auto r = xdsfed::resources::ListenerResourceType().Decode(
      {}, l.SerializeAsString());
  if (!r.value.ok()) std::abort();
  return xdsfed::resources::ListenerResourceType().Cast(*r.value);
}

void BM_FilterChainSelect(benchmark::State& state) {
  const int k = static_cast<int>(state.range(0));
  auto listener = HarnessListener(k);
  const auto& server =
      std::get<xdsfed::resources::ServerListener>(listener->listener);
  const xdsfed::routing::FilterChainSelector selector(server);
  const SocketAddress local = *SocketAddress::Parse("127.0.0.1:50051");
  SocketAddress peer = *SocketAddress::Parse("127.0.0.1:40000");
  if (selector.Select(local, &peer) != std::optional<size_t>(k - 1)) {
    state.SkipWithError("wrong chain");
    return;
  }
  const int64_t allocs = xdsfed::test_support::AllocationCount();
  for (auto _ : state) {
    peer.port = static_cast<uint16_t>(40000 + (state.iterations() & 1023));
    benchmark::DoNotOptimize(selector.Select(local, &peer));
  }
  state.SetItemsProcessed(state.iterations());
  state.counters["allocs_per_op"] = benchmark::Counter(
      static_cast<double>(xdsfed::test_support::AllocationCount() - allocs) /
      static_cast<double>(state.iterations()));
}
BENCHMARK(BM_FilterChainSelect)->Arg(1)->Arg(1000);

std::shared_ptr<const xdsfed::resources::RouteConfig> Routes(int n,
                                                             bool regex) {
  route_pb::RouteConfiguration rc;
  rc.set_name("rc");
  for (int h = 0; h < 10; ++h) {
    auto* vh = rc.add_virtual_hosts();
    vh->set_name(absl::StrCat("vh", h));
    vh->add_domains(h == 9 ? "svc.example.com"
                           : absl::StrCat("other", h, ".example.com"));
    for (int i = 0; i < n; ++i) {
      auto* route = vh->add_routes();
      auto* match = route->mutable_match();
      auto* header = match->add_headers();
      if (regex) {
        match->mutable_safe_regex()->set_regex(
            absl::StrCat("/pkg\\.Service", i, "/(Get|List)[A-Za-z]*"));
        header->set_name("x-user");
        header->mutable_safe_regex_match()->set_regex("user-[0-9]+");
      } else {
        match->set_prefix(absl::StrCat("/pkg.Service", i, "/"));
        header->set_name("x-env");
        header->set_exact_match("prod");
      }
      route->mutable_route()->set_cluster(absl::StrCat("cluster", i));
    }
  }
  auto r = xdsfed::resources::RouteConfigResourceType().Decode(
      {}, rc.SerializeAsString());
  if (!r.value.ok()) std::abort();
  return xdsfed::resources::RouteConfigResourceType().Cast(*r.value);
}

void RunMatch(benchmark::State& state, bool regex) {
  const int n = static_cast<int>(state.range(0));
  auto table = xdsfed::routing::RouteConfigTable::Build(Routes(n, regex));
  if (!table.ok()) std::abort();
  // grpc++'s ServerContext::client_metadata() shape.
  const std::multimap<std::string, std::string> headers = {
      {"content-type", "application/grpc"},
      {"user-agent", "grpc-c++/1.51.1"},
      {"x-env", "prod"},
      {"x-user", "user-42"}};
  const std::string path = absl::StrCat("/pkg.Service", n - 1, "/GetThing");
  std::string scratch;
  auto lookup = [&headers](absl::string_view name, std::string* s) {
    return xdsfed::routing::JoinedHeaderValue(headers, name, s);
  };
  // Warm-up: RE2 builds its DFA states lazily, on the first matches.
  for (int i = 0; i < 100; ++i) {
    (*table)
        ->FindVirtualHost("svc.example.com")
        ->Match(path, lookup, xdsfed::routing::ThreadLocalRandom, &scratch);
  }
  const int64_t allocs = xdsfed::test_support::AllocationCount();
  for (auto _ : state) {
    const auto* vh = (*table)->FindVirtualHost("svc.example.com");
    const auto* route =
        vh->Match(path, lookup, xdsfed::routing::ThreadLocalRandom, &scratch);
    benchmark::DoNotOptimize(route);
  }
  state.SetItemsProcessed(state.iterations());
  state.counters["allocs_per_op"] = benchmark::Counter(
      static_cast<double>(xdsfed::test_support::AllocationCount() - allocs) /
      static_cast<double>(state.iterations()));
}

void BM_RouteMatch(benchmark::State& state) { RunMatch(state, false); }
BENCHMARK(BM_RouteMatch)->Arg(1)->Arg(10)->Arg(100);
void BM_RouteMatchRegex(benchmark::State& state) { RunMatch(state, true); }
BENCHMARK(BM_RouteMatchRegex)->Arg(1)->Arg(10)->Arg(100);

// Virtual host lookup for a server's per-RPC :authority among N virtual
// hosts with exact domains (svcI.example.com) plus a "*" host last; the
// authority names the last exact host. The table's index against the scan
// (resources::FindVirtualHost, what FindVirtualHost ran before the index).
std::shared_ptr<const xdsfed::resources::RouteConfig> Hosts(int n) {
  auto config = std::make_shared<xdsfed::resources::RouteConfig>();
  for (int h = 0; h <= n; ++h) {
    xdsfed::resources::VirtualHost vh;
    vh.name = absl::StrCat("vh", h);
    vh.domains = {h == n ? std::string("*")
                         : absl::StrCat("svc", h, ".example.com")};
    xdsfed::resources::Route route;
    route.action = xdsfed::resources::NonForwardingAction{};
    vh.routes = {route};
    config->virtual_hosts.push_back(std::move(vh));
  }
  return config;
}

void BM_FindVirtualHost(benchmark::State& state) {
  const int n = static_cast<int>(state.range(0));
  auto table = xdsfed::routing::RouteConfigTable::Build(Hosts(n));
  if (!table.ok()) std::abort();
  const std::string authority = absl::StrCat("SVC", n - 1, ".example.com");
  for (auto _ : state) {
    benchmark::DoNotOptimize((*table)->FindVirtualHost(authority));
  }
  state.SetItemsProcessed(state.iterations());
}
BENCHMARK(BM_FindVirtualHost)->Arg(10)->Arg(10000);

void BM_FindVirtualHostScan(benchmark::State& state) {
  const int n = static_cast<int>(state.range(0));
  auto config = Hosts(n);
  const std::string authority = absl::StrCat("SVC", n - 1, ".example.com");
  for (auto _ : state) {
    benchmark::DoNotOptimize(
        xdsfed::resources::FindVirtualHost(config->virtual_hosts, authority));
  }
  state.SetItemsProcessed(state.iterations());
}
BENCHMARK(BM_FindVirtualHostScan)->Arg(10)->Arg(10000);

}  // namespace

BENCHMARK_MAIN();
