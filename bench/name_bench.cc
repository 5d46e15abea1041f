// Benchmarks of NameNormalizer::Normalize on the names of issue 3 §4 (labels
// fixed): each iteration is what a response needs, raw name in -> canonical
// cache key + hash out, federation on.
//
//   build/bench/name_bench                         # Google Benchmark
//   valgrind --tool=callgrind build/bench/name_bench --calls=LABEL:N
//       # plain loop of N calls, no framework: run with N and 2N and divide
//       # the difference in instructions by N (see RESULTS.md); the same
//       # with --guess-calls=LABEL:N for CanonicalGuess (the lookup side)
#include <cstdio>
#include <cstring>
#include <string>

#include "absl/strings/numbers.h"
#include "absl/strings/string_view.h"
#include "benchmark/benchmark.h"
#include "lib/name/canonical_guess.h"
#include "lib/name/resource_name.h"
#include "tests/support/alloc_counter.h"

namespace {

struct Label {
  const char* label;
  const char* name;
};

const Label kLabels[] = {
    {"old_style", "server.example.com"},
    {"lds_1param",
     "xdstp://xds.authority.com/envoy.config.listener.v3.Listener/grpc/client/"
     "server.example.com?project_id=1234"},
    {"lds_2param_unsorted",
     "xdstp://xds.example.com/envoy.config.listener.v3.Listener/grpc/server/"
     "svc?zone=us-east1-b&project_id=1234"},
    {"rds_3param_pct",
     "xdstp://xds.authority.com/envoy.config.route.v3.RouteConfiguration/"
     "grpc%2Fserver/route%20config?zone=us-central1-a&project_id=1234&"
     "node.cluster=prod%2Fcell-7"},
    {"cds_long",
     "xdstp://traffic-director-global.xds.googleapis.com/"
     "envoy.config.cluster.v3.Cluster/projects/123456789/networks/default/"
     "backend_services/some-service-name-abcdef"},
};

void BM_Normalize(benchmark::State& state, absl::string_view raw) {
  xdsfed::NameNormalizer normalizer;
  // Check once, outside the timed loop; this also warms the scratch buffers.
  auto check = normalizer.Normalize(raw, /*federation=*/true);
  if (!check.ok()) {
    state.SkipWithError(std::string(check.status().message()).c_str());
    return;
  }
  const long allocs_before = xdsfed::test_support::AllocationCount();
  for (auto _ : state) {
    auto v = normalizer.Normalize(raw, /*federation=*/true);
    benchmark::DoNotOptimize(v->key.data());
    benchmark::DoNotOptimize(v->hash);
  }
  const long allocs = xdsfed::test_support::AllocationCount() - allocs_before;
  state.SetItemsProcessed(state.iterations());
  state.SetBytesProcessed(state.iterations() *
                          static_cast<int64_t>(raw.size()));
  state.counters["allocs_per_iter"] =
      static_cast<double>(allocs) / static_cast<double>(state.iterations());
}

// The lookup side (lib/name/canonical_guess.h): raw name in -> the
// canonical form it is guessed to have + its hash, nothing checked. The
// names with escapes are guessed too (a lookup would then miss and
// normalize).
void BM_GuessCanonical(benchmark::State& state, absl::string_view raw) {
  xdsfed::CanonicalGuess guess;
  if (!guess.Guess(raw, /*federation=*/true)) {
    state.SkipWithError("not guessed");
    return;
  }
  const long allocs_before = xdsfed::test_support::AllocationCount();
  for (auto _ : state) {
    xdsfed::CanonicalGuess g;
    benchmark::DoNotOptimize(g.Guess(raw, /*federation=*/true));
    benchmark::DoNotOptimize(g.hash());
  }
  state.SetItemsProcessed(state.iterations());
  state.counters["allocs_per_iter"] =
      static_cast<double>(xdsfed::test_support::AllocationCount() -
                          allocs_before) /
      static_cast<double>(state.iterations());
}

// --calls=LABEL:N (or --guess-calls=LABEL:N): N calls of Normalize (or of
// CanonicalGuess::Guess), printing a checksum so that nothing is elided.
int RunPlainLoop(absl::string_view spec, bool guess) {
  const size_t colon = spec.rfind(':');
  long n = 0;
  if (colon == absl::string_view::npos ||
      !absl::SimpleAtoi(spec.substr(colon + 1), &n) || n < 0) {
    std::fprintf(stderr, "usage: name_bench --calls=LABEL:N\n");
    return 2;
  }
  const absl::string_view label = spec.substr(0, colon);
  for (const Label& l : kLabels) {
    if (label != l.label) continue;
    xdsfed::NameNormalizer normalizer;
    size_t sum = 0;
    const long allocs_before = xdsfed::test_support::AllocationCount();
    for (long i = 0; i < n; ++i) {
      if (guess) {
        xdsfed::CanonicalGuess g;
        sum += g.Guess(l.name, /*federation=*/true) ? g.hash() : 1;
        continue;
      }
      auto v = normalizer.Normalize(l.name, /*federation=*/true);
      sum += v->hash + v->key.size();
    }
    std::printf("%s calls=%ld allocs=%ld checksum=%zu\n", l.label, n,
                xdsfed::test_support::AllocationCount() - allocs_before, sum);
    return 0;
  }
  std::fprintf(stderr, "unknown label\n");
  return 2;
}

}  // namespace

int main(int argc, char** argv) {
  for (int i = 1; i < argc; ++i) {
    absl::string_view arg = argv[i];
    if (arg.substr(0, 8) == "--calls=") {
      return RunPlainLoop(arg.substr(8), /*guess=*/false);
    }
    if (arg.substr(0, 14) == "--guess-calls=") {
      return RunPlainLoop(arg.substr(14), /*guess=*/true);
    }
  }
  for (const Label& l : kLabels) {
    benchmark::RegisterBenchmark(
        (std::string("BM_Normalize/") + l.label).c_str(),
        [name = l.name](benchmark::State& state) {
          BM_Normalize(state, name);
        });
  }
  for (const Label& l : kLabels) {
    if (std::strncmp(l.name, "xdstp://", 8) != 0) continue;
    benchmark::RegisterBenchmark(
        (std::string("BM_GuessCanonical/") + l.label).c_str(),
        [name = l.name](benchmark::State& state) {
          BM_GuessCanonical(state, name);
        });
  }
  benchmark::Initialize(&argc, argv);
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  return 0;
}
