// lib/xds_config at scale (issue 11 item 7), driven through a fake watch
// source on the bench thread, so each figure is the manager's own work from
// the watcher callback to the published snapshot (the same code path the
// XdsClient's callbacks run; decoding the resource is not included):
//   BM_EdsUpdateToPublish/N   N routed EDS clusters x 10 localities x 10
//                             endpoints; one EDS update of one cluster ->
//                             the new XdsConfig in the callback. Flat in N
//                             if no whole-config rebuild happens.
//   BM_RdsUpdateToPublish/N   a RouteConfiguration of N virtual hosts
//                             (the last one matches) updated -> the new
//                             XdsConfig (virtual host selection, cluster
//                             set unchanged).
//   BM_InitialConfig/N        a route naming N clusters, every CDS and EDS
//                             answer delivered -> the first XdsConfig
//                             (teardown not timed): linear in N up to the
//                             fake source's std::map lookups and cache
//                             misses, not quadratic.
#include <memory>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "benchmark/benchmark.h"
#include "lib/base/check.h"
#include "lib/xds_config/xds_dependency_manager.h"
#include "tests/xds_config/fake_watch_source.h"
#include "tests/xds_config/test_resources.h"

namespace xdsfed {
namespace xds_config {
namespace {

using namespace testing;  // NOLINT: test resource builders

struct Fixture {
  std::shared_ptr<FakeWatchSource> source = std::make_shared<FakeWatchSource>();
  std::shared_ptr<XdsDependencyManager> manager;
  std::shared_ptr<const XdsConfig> last;
  int published = 0;

  void Start() {
    XdsDependencyManager::Options options;
    options.dns_resolver = std::make_shared<FakeDnsResolver>();
    manager = XdsDependencyManager::Start(
        source, "L", "svc.example.com", options,
        [this](std::shared_ptr<const XdsConfig> config) {
          last = std::move(config);
          ++published;
        });
    FakeWatchSource::Deliver(source->lds, "L", ClientListener("L", "R"));
  }
  void Route(resources::RouteConfig rc) {
    FakeWatchSource::Deliver(
        source->rds, "R",
        std::make_shared<const resources::RouteConfig>(std::move(rc)));
  }
  ~Fixture() { manager->Stop(); }
};

std::vector<std::string> Names(int n) {
  std::vector<std::string> names;
  for (int i = 0; i < n; ++i) names.push_back(absl::StrCat("cluster-", i));
  return names;
}

void BM_EdsUpdateToPublish(benchmark::State& state) {
  const int n = static_cast<int>(state.range(0));
  Fixture f;
  f.Start();
  std::vector<std::string> names = Names(n);
  f.Route(Routes("R", "*", absl::StrJoin(names, ",")));
  for (const std::string& name : names) {
    FakeWatchSource::Deliver(f.source->cds, name, Eds(name));
  }
  // Two versions of each cluster's endpoints, alternated.
  std::vector<std::shared_ptr<const resources::EndpointResource>> v[2];
  for (int k = 0; k < 2; ++k) {
    for (int i = 0; i < n; ++i) {
      v[k].push_back(Endpoints(names[i], 10, 10, k));
      if (k == 0) FakeWatchSource::Deliver(f.source->eds, names[i], v[0][i]);
    }
  }
  XDSFED_CHECK(f.published == 1 && f.last->clusters.size() == size_t(n));
  int i = 0;
  int round = 1;
  for (auto _ : state) {
    const int before = f.published;
    FakeWatchSource::Deliver(f.source->eds, names[i], v[round & 1][i]);
    XDSFED_CHECK(f.published == before + 1);
    if (++i == n) {
      i = 0;
      ++round;
    }
  }
  state.SetItemsProcessed(state.iterations());
}
BENCHMARK(BM_EdsUpdateToPublish)
    ->Arg(1000)
    ->Arg(10000)
    ->Unit(benchmark::kMicrosecond);

void BM_RdsUpdateToPublish(benchmark::State& state) {
  const int n = static_cast<int>(state.range(0));
  Fixture f;
  f.Start();
  // N virtual hosts; only the last matches the authority. Two versions
  // that differ in one virtual host's name.
  resources::RouteConfig rc[2];
  for (int k = 0; k < 2; ++k) {
    rc[k].name = "R";
    for (int i = 0; i < n - 1; ++i) {
      resources::VirtualHost vh =
          Routes("R", absl::StrCat("host-", i, ".example.com"), "c")
              .virtual_hosts[0];
      if (i == 0) vh.name = absl::StrCat("v", k);
      rc[k].virtual_hosts.push_back(std::move(vh));
    }
    rc[k].virtual_hosts.push_back(
        Routes("R", "svc.example.com", "c").virtual_hosts[0]);
  }
  auto shared0 = std::make_shared<const resources::RouteConfig>(rc[0]);
  auto shared1 = std::make_shared<const resources::RouteConfig>(rc[1]);
  FakeWatchSource::Deliver(f.source->rds, "R", shared0);
  FakeWatchSource::Deliver(f.source->cds, "c", Eds("c"));
  FakeWatchSource::Deliver(f.source->eds, "c", Endpoints("c", 10, 10));
  XDSFED_CHECK(f.published == 1);
  int k = 1;
  for (auto _ : state) {
    const int before = f.published;
    FakeWatchSource::Deliver(f.source->rds, "R", (k++ & 1) ? shared1 : shared0);
    XDSFED_CHECK(f.published == before + 1);
  }
  state.SetItemsProcessed(state.iterations());
}
BENCHMARK(BM_RdsUpdateToPublish)->Arg(10000)->Unit(benchmark::kMicrosecond);

void BM_InitialConfig(benchmark::State& state) {
  const int n = static_cast<int>(state.range(0));
  std::vector<std::string> names = Names(n);
  resources::RouteConfig rc = Routes("R", "*", absl::StrJoin(names, ","));
  std::vector<std::shared_ptr<const resources::ClusterResource>> cds;
  std::vector<std::shared_ptr<const resources::EndpointResource>> eds;
  for (const std::string& name : names) {
    cds.push_back(Eds(name));
    eds.push_back(Endpoints(name, 1, 1));
  }
  for (auto _ : state) {
    auto f_owner = std::make_unique<Fixture>();
    Fixture& f = *f_owner;
    f.Start();
    f.Route(rc);
    for (int i = 0; i < n; ++i) {
      FakeWatchSource::Deliver(f.source->cds, names[i], cds[i]);
    }
    for (int i = 0; i < n; ++i) {
      FakeWatchSource::Deliver(f.source->eds, names[i], eds[i]);
    }
    XDSFED_CHECK(f.published == 1);
    state.PauseTiming();  // teardown (Stop, frees) is not the measured work
    f_owner.reset();
    state.ResumeTiming();
  }
  state.SetItemsProcessed(state.iterations() * n);
}
BENCHMARK(BM_InitialConfig)
    ->Arg(1000)
    ->Arg(10000)
    ->Unit(benchmark::kMillisecond);

}  // namespace
}  // namespace xds_config
}  // namespace xdsfed

BENCHMARK_MAIN();
