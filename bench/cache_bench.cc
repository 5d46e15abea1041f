// Resource cache benchmarks (issue 3 §4): lookups by raw full name in random
// order over 4 authorities x 4 types (normalization and hashing included),
// inserts and updates; memory per entry as the RSS delta / N; heap
// allocations counted by a replaced global operator new.
//
//   build/bench/cache_bench --benchmark_filter=BM_LookupByName
#include <unistd.h>

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <memory>
#include <random>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/time/time.h"
#include "benchmark/benchmark.h"
#include "lib/cache/resource_cache.h"
#include "tests/support/alloc_counter.h"

// --- allocation counting (single-threaded benchmarks) ---
namespace {
// Calls of ResourceCache::Find(TypeId, raw), for callgrind per-call counts.
uint64_t g_lookups = 0;
}  // namespace

namespace xdsfed {
namespace cache {
namespace {

constexpr absl::string_view kAuthorities[] = {
    "xds.authority-a.example.com", "traffic-director-global.xds.googleapis.com",
    "xds.authority-c.example.com", "control-plane.d.example.org"};
constexpr absl::string_view kTypes[] = {
    "envoy.config.listener.v3.Listener",
    "envoy.config.route.v3.RouteConfiguration",
    "envoy.config.cluster.v3.Cluster",
    "envoy.config.endpoint.v3.ClusterLoadAssignment"};

size_t RssBytes() {
  std::ifstream statm("/proc/self/statm");
  size_t pages_total = 0, pages_resident = 0;
  statm >> pages_total >> pages_resident;
  return pages_resident * static_cast<size_t>(sysconf(_SC_PAGESIZE));
}

// Name i, as a control plane might spell it: params not sorted, so every
// lookup does the full normalization.
std::string RawName(size_t i) {
  return absl::StrCat("xdstp://", kAuthorities[i % 4], "/", kTypes[(i / 4) % 4],
                      "/projects/1234/svc-", i % 97, "/name-", i,
                      "?zone=us-east1-b&project_id=1234");
}

struct Lookup {
  TypeId type;
  absl::string_view name;
};

// One cache of N entries plus the lookup sequence (random order, its names
// laid out contiguously in that order so that reading them is not what is
// measured).
struct Fixture {
  size_t n = 0;
  std::unique_ptr<ResourceCache> cache;
  TypeId types[4];
  std::string arena;
  std::vector<Lookup> lookups;
  double bytes_per_entry = 0;
  struct Normalized {
    bool old_style;
    TypeId type;
    size_t hash;
    size_t offset, size;  // in canonical_arena
  };
  std::string canonical_arena;
  std::vector<Normalized> keys;  // lookups, already normalized
  // The same lookups spelled canonically (params sorted): what a control
  // plane usually sends back, the names the client subscribed with.
  std::vector<Lookup> canonical_lookups;
  // Names of the same shapes that are not cached (a response's resources
  // nobody watches): each takes the guessed probe, then normalization.
  std::string miss_arena;
  std::vector<Lookup> miss_lookups;
};

void SetUp(ResourceCache& cache, TypeId* types) {
  for (int t = 0; t < 4; ++t) types[t] = cache.RegisterType(kTypes[t]);
  for (int a = 0; a < 4; ++a) cache.AddAuthority(kAuthorities[a], a % 2);
  cache.SetOldStyleServer(0);
}

Fixture* GetFixture(size_t n) {
  static std::unique_ptr<Fixture> fixture;
  if (fixture != nullptr && fixture->n == n) return fixture.get();
  fixture.reset();  // free the previous size before measuring this one
  auto fx = std::make_unique<Fixture>();
  fx->n = n;
  std::vector<size_t> order(n);
  for (size_t i = 0; i < n; ++i) order[i] = i;
  std::shuffle(order.begin(), order.end(), std::mt19937_64(42));
  std::vector<size_t> offsets;
  offsets.reserve(n);
  for (size_t i : order) {
    offsets.push_back(fx->arena.size());
    fx->arena += RawName(i);
  }
  fx->lookups.reserve(n);
  for (size_t k = 0; k < n; ++k) {
    size_t end = k + 1 < n ? offsets[k + 1] : fx->arena.size();
    fx->lookups.push_back(
        {0, absl::string_view(fx->arena).substr(offsets[k], end - offsets[k])});
  }
  fx->cache = std::make_unique<ResourceCache>(/*federation=*/true);
  SetUp(*fx->cache, fx->types);
  for (size_t k = 0; k < n; ++k) {
    fx->lookups[k].type = fx->types[(order[k] / 4) % 4];
  }
  // Insert in name order (memory order unrelated to the lookup order),
  // measuring only what the cache adds.
  std::vector<std::string> names(n);
  for (size_t i = 0; i < n; ++i) names[i] = RawName(i);
  size_t rss_before = RssBytes();
  for (size_t i = 0; i < n; ++i) {
    auto r = fx->cache->Insert(fx->types[(i / 4) % 4], names[i]);
    if (!r.ok() || !r->inserted) std::abort();
    fx->cache->AddWatcher(r->entry, i);  // a resource has a watcher
  }
  size_t rss_after = RssBytes();
  fx->bytes_per_entry = static_cast<double>(rss_after - rss_before) / n;
  // Canonical keys for BM_FindNormalized: what remains after lib/name.
  for (const Lookup& l : fx->lookups) {
    auto key = fx->cache->Parse(l.type, l.name);
    if (!key.ok() || fx->cache->Find(*key) == nullptr) std::abort();
    fx->keys.push_back({key->name.old_style, key->type, key->hash,
                        fx->canonical_arena.size(),
                        key->name.normalized.size()});
    absl::StrAppend(&fx->canonical_arena, key->name.normalized);
  }
  for (size_t k = 0; k < n; ++k) {
    const Fixture::Normalized& c = fx->keys[k];
    fx->canonical_lookups.push_back(
        {fx->lookups[k].type,
         absl::string_view(fx->canonical_arena).substr(c.offset, c.size)});
    if (fx->cache->Find(fx->canonical_lookups[k].type,
                        fx->canonical_lookups[k].name) == nullptr) {
      std::abort();
    }
  }
  // Name i + above, above a multiple of 16 past n: another name with the
  // same authority and type as name i.
  const size_t above = (n + 15) / 16 * 16;
  std::vector<size_t> miss_offsets;
  for (size_t k = 0; k < n; ++k) {
    miss_offsets.push_back(fx->miss_arena.size());
    fx->miss_arena += RawName(above + order[k]);
  }
  for (size_t k = 0; k < n; ++k) {
    const size_t end = k + 1 < n ? miss_offsets[k + 1] : fx->miss_arena.size();
    fx->miss_lookups.push_back(
        {fx->lookups[k].type,
         absl::string_view(fx->miss_arena)
             .substr(miss_offsets[k], end - miss_offsets[k])});
    if (fx->cache->Find(fx->miss_lookups[k].type, fx->miss_lookups[k].name) !=
        nullptr) {
      std::abort();
    }
  }
  fixture = std::move(fx);
  return fixture.get();
}

enum class Spelling { kUnsorted, kCanonical, kMiss };

void LookupByName(benchmark::State& state, Spelling spelling) {
  Fixture* fx = GetFixture(static_cast<size_t>(state.range(0)));
  ResourceCache& cache = *fx->cache;
  const Lookup* lookups =
      spelling == Spelling::kCanonical ? fx->canonical_lookups.data()
      : spelling == Spelling::kMiss    ? fx->miss_lookups.data()
                                       : fx->lookups.data();
  const size_t n = fx->lookups.size();
  size_t i = 0;
  uint64_t allocs_before = xdsfed::test_support::AllocationCount();
  for (auto _ : state) {
    const Lookup& l = lookups[i];
    if (++i == n) i = 0;
    benchmark::DoNotOptimize(cache.Find(l.type, l.name));
  }
  g_lookups += state.iterations();
  state.SetItemsProcessed(state.iterations());
  state.counters["allocs_per_lookup"] =
      static_cast<double>(xdsfed::test_support::AllocationCount() -
                          allocs_before) /
      state.iterations();
  state.counters["bytes_per_entry"] = fx->bytes_per_entry;
  state.counters["entries"] = static_cast<double>(cache.size());
}

// Issue 3 §4's lookup, names spelled as RawName() does (params unsorted, so
// that every lookup sorts them).
void BM_LookupByName(benchmark::State& state) {
  LookupByName(state, Spelling::kUnsorted);
}
BENCHMARK(BM_LookupByName)->Arg(1000)->Arg(100000)->Arg(1000000);

// The same lookups with canonical spellings (the usual response).
void BM_LookupByName_Canonical(benchmark::State& state) {
  LookupByName(state, Spelling::kCanonical);
}
BENCHMARK(BM_LookupByName_Canonical)->Arg(1000)->Arg(100000)->Arg(1000000);

// Names that are not cached: the guessed probe misses, so each is also
// normalized and probed again (the price of the guess).
void BM_LookupByName_Miss(benchmark::State& state) {
  LookupByName(state, Spelling::kMiss);
}
BENCHMARK(BM_LookupByName_Miss)->Arg(1000);

// The cache's share of a lookup: the same sequence with names already
// normalized and hashed (hash probe + entry compare only).
void BM_FindNormalized(benchmark::State& state) {
  Fixture* fx = GetFixture(static_cast<size_t>(state.range(0)));
  ResourceCache& cache = *fx->cache;
  std::vector<ResourceCache::Key> keys(fx->keys.size());
  for (size_t k = 0; k < keys.size(); ++k) {
    const Fixture::Normalized& n = fx->keys[k];
    keys[k].name.old_style = n.old_style;
    keys[k].name.normalized =
        absl::string_view(fx->canonical_arena).substr(n.offset, n.size);
    keys[k].type = n.type;
    keys[k].hash = n.hash;
  }
  const size_t n = keys.size();
  size_t i = 0;
  for (auto _ : state) {
    const ResourceCache::Key& key = keys[i];
    if (++i == n) i = 0;
    benchmark::DoNotOptimize(cache.Find(key));
  }
  state.SetItemsProcessed(state.iterations());
}
BENCHMARK(BM_FindNormalized)->Arg(1000)->Arg(100000)->Arg(1000000);

// Insert of a new name (normalize, intern authority, allocate the entry,
// index it); the cache is emptied every kPool inserts outside the timing.
void BM_Insert(benchmark::State& state) {
  constexpr size_t kPool = 100000;
  static const std::vector<std::string>* pool = [] {
    auto* v = new std::vector<std::string>();
    for (size_t i = 0; i < kPool; ++i) v->push_back(RawName(i));
    return v;
  }();
  TypeId types[4];
  auto cache = std::make_unique<ResourceCache>(true);
  SetUp(*cache, types);
  size_t i = 0;
  uint64_t allocs_before = xdsfed::test_support::AllocationCount();
  for (auto _ : state) {
    if (i == kPool) {
      state.PauseTiming();
      cache = std::make_unique<ResourceCache>(true);
      SetUp(*cache, types);
      i = 0;
      state.ResumeTiming();
    }
    benchmark::DoNotOptimize(cache->Insert(types[(i / 4) % 4], (*pool)[i]));
    ++i;
  }
  state.SetItemsProcessed(state.iterations());
  state.counters["allocs_per_insert"] =
      static_cast<double>(xdsfed::test_support::AllocationCount() -
                          allocs_before) /
      state.iterations();
}
BENCHMARK(BM_Insert);

// An accepted update of a cached resource from a response: lookup by raw
// name + SetAcked (shared value, interned version, no serialized bytes).
void BM_Update(benchmark::State& state) {
  Fixture* fx = GetFixture(static_cast<size_t>(state.range(0)));
  ResourceCache& cache = *fx->cache;
  struct IntData final : ResourceData {
    int value = 1;
  };
  auto value = std::make_shared<const IntData>();
  const absl::Time now = absl::FromUnixSeconds(1700000000);
  const std::string versions[2] = {"2026-11-22T01:00:00Z/1",
                                   "2026-11-22T01:00:00Z/2"};
  const size_t n = fx->lookups.size();
  size_t i = 0, round = 0;
  uint64_t allocs_before = xdsfed::test_support::AllocationCount();
  for (auto _ : state) {
    const Lookup& l = fx->lookups[i];
    Entry* e = cache.Find(l.type, l.name);
    cache.SetAcked(e, value, std::string(), versions[round & 1], now);
    if (++i == n) i = 0, ++round;
  }
  state.SetItemsProcessed(state.iterations());
  state.counters["allocs_per_update"] =
      static_cast<double>(xdsfed::test_support::AllocationCount() -
                          allocs_before) /
      state.iterations();
}
BENCHMARK(BM_Update)->Arg(1000)->Arg(100000);

}  // namespace
}  // namespace cache
}  // namespace xdsfed

int main(int argc, char** argv) {
  benchmark::Initialize(&argc, argv);
  if (benchmark::ReportUnrecognizedArguments(argc, argv)) return 1;
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  // For callgrind: instructions in ResourceCache::Find / this = per lookup.
  std::fprintf(stderr, "cache_bench: %llu Find(type, raw) calls\n",
               static_cast<unsigned long long>(g_lookups));
  return 0;
}
