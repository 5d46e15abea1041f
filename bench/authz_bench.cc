// RBAC evaluation per RPC (lib/authz, issue 25 goal: 10 policies x 10
// permissions / principals <= 300 ns and 0 allocations per evaluation).
//
// BM_RbacEvaluate/<matchers>: the worst case of 10 policies x 10
// permissions x 10 principals, with distinct values in every policy (no
// matcher repeats, so deduplication cannot help): permissions 0..8 fail,
// permission 9 matches, and no principal matches, so the ALLOW decision is
// "denied" after every policy was tried.
// BM_RbacEvaluatePrincipalMatches/<matchers>: the same with the sides
// swapped (principal 9 matches, no permission does). The engine evaluates
// the cheaper side of a policy first; one of the two benchmarks makes that
// side match so that the other side is evaluated in full.
//   0 = header exact_match + source_ip CIDR
//   1 = header safe_regex_match (RE2 full match) + source_ip CIDR
//   2 = url_path prefix + authenticated principal_name exact on 2 URI SANs
// Matching entries differ per policy too: permission 9 of policy p reads
// its own header x-match-<p> (0, 1) or a prefix of its own length (2);
// principal 9 is 127.0.0.0/(8 + p) (0, 1) or a principal_name prefix of
// its own length (2).
#include <benchmark/benchmark.h>

#include <cstdlib>
#include <map>
#include <string>

#include "absl/strings/str_cat.h"
#include "envoy/extensions/filters/http/rbac/v3/rbac.pb.h"
#include "google/protobuf/util/json_util.h"
#include "lib/authz/rbac_engine.h"
#include "lib/base/validation_errors.h"
#include "lib/resources/rbac.h"
#include "tests/support/alloc_counter.h"

namespace {

using xdsfed::authz::RbacEngine;
using xdsfed::authz::RequestView;
using xdsfed::routing::SocketAddress;

constexpr absl::string_view kPath = "/pkg.Svc/Method";
constexpr absl::string_view kSan = "spiffe://td/ns/y/sa/a";

// Permission i of policy p; permission 9 matches iff `match`.
std::string Permission(int kind, int p, int i, bool match) {
  if (i == 9) {
    switch (kind) {
      case 0:
        return absl::StrCat(R"({"header":{"name":"x-match-)", p,
                            R"(","exact_match":")", match ? "m" : "no", p,
                            R"("}})");
      case 1:
        return absl::StrCat(R"({"header":{"name":"x-match-)", p,
                            R"(","safe_regex_match":{"regex":"m)", p,
                            match ? "[0-9]*" : "[a-z]+", R"("}}})");
      default:
        return absl::StrCat(
            R"({"url_path":{"path":{"prefix":")",
            match ? kPath.substr(0, 6 + p) : absl::StrCat("/pkg.Svc", p, "9"),
            R"("}}})");
    }
  }
  switch (kind) {
    case 0:
      return absl::StrCat(R"({"header":{"name":"x-header-name-)", i,
                          R"(","exact_match":"v)", p, "-", i, R"("}})");
    case 1:
      return absl::StrCat(R"({"header":{"name":"x-header-name-)", i,
                          R"(","safe_regex_match":{"regex":"v)", p,
                          R"([a-z]+"}}})");
    default:
      return absl::StrCat(R"({"url_path":{"path":{"prefix":"/pkg.Svc)", p, i,
                          R"("}}})");
  }
}

// Principal i of policy p; principal 9 matches iff `match`.
std::string Principal(int kind, int p, int i, bool match) {
  if (kind == 2) {
    if (i == 9 && match) {
      return absl::StrCat(R"({"authenticated":{"principal_name":{"prefix":")",
                          kSan.substr(0, 12 + p), R"("}}})");
    }
    return absl::StrCat(
        R"({"authenticated":{"principal_name":{"exact":"spiffe://td/ns/x/sa/)",
        p, "-", i, R"("}}})");
  }
  if (i == 9 && match) {
    return absl::StrCat(
        R"({"source_ip":{"address_prefix":"127.0.0.0","prefix_len":)", 8 + p,
        "}}");
  }
  return absl::StrCat(R"({"source_ip":{"address_prefix":"10.)", p, ".0.", i,
                      R"(","prefix_len":32}})");
}

// Policy p's permission 9 matches iff permission_matches, its principal 9
// iff principal_matches, for p in [first_policy, 10).
std::shared_ptr<const RbacEngine> Engine(int kind, bool permission_matches,
                                         bool principal_matches,
                                         int first_policy = 0) {
  std::string policies;
  for (int p = first_policy; p < 10; ++p) {
    std::string perms, ids;
    for (int i = 0; i < 10; ++i) {
      absl::StrAppend(&perms, i ? "," : "",
                      Permission(kind, p, i, permission_matches));
      absl::StrAppend(&ids, i ? "," : "",
                      Principal(kind, p, i, principal_matches));
    }
    absl::StrAppend(&policies, p > first_policy ? "," : "", "\"policy-", p,
                    R"(":{"permissions":[)", perms, R"(],"principals":[)", ids,
                    "]}");
  }
  envoy::extensions::filters::http::rbac::v3::RBAC proto;
  if (!google::protobuf::util::JsonStringToMessage(
           absl::StrCat(R"({"rules":{"policies":{)", policies, "}}}"), &proto)
           .ok()) {
    std::abort();
  }
  xdsfed::ValidationErrors errors;
  auto config = xdsfed::resources::ParseRbacFilterConfig(
      proto.SerializeAsString(), &errors);
  if (!errors.ok()) std::abort();
  auto engine = RbacEngine::Compile(config);
  if (!engine.ok()) std::abort();
  return *engine;
}

void RunEvaluate(benchmark::State& state, bool principal_matches) {
  const int kind = static_cast<int>(state.range(0));
  std::shared_ptr<const RbacEngine> engine =
      Engine(kind, !principal_matches, principal_matches);
  // grpc++'s client_metadata() is a multimap of string_ref: no key copies.
  std::multimap<absl::string_view, absl::string_view> metadata;
  std::vector<std::string> names;
  for (int i = 0; i < 10; ++i) {
    names.push_back(absl::StrCat("x-header-name-", i));
    names.push_back(absl::StrCat("x-match-", i));
    names.push_back(absl::StrCat("m", i));
  }
  for (int i = 0; i < 10; ++i) {
    metadata.emplace(names[3 * i], "v1");
    metadata.emplace(names[3 * i + 1], names[3 * i + 2]);
  }
  // A few unrelated entries, as a real call carries.
  metadata.emplace("user-agent", "grpc-c++/1.51.1 grpc-c/29.0.0 (linux)");
  metadata.emplace("content-type", "application/grpc");
  auto lookup = [&metadata](absl::string_view name, std::string* scratch) {
    return xdsfed::routing::JoinedHeaderValue(metadata, name, scratch);
  };
  const absl::string_view sans[] = {kSan, "spiffe://td/ns/y/sa/b"};
  RequestView view;
  view.path = kPath;
  view.authority = "svc.example.com";
  view.headers.emplace(lookup);
  view.peer = *SocketAddress::Parse("127.0.0.1:40000");
  view.local = *SocketAddress::Parse("127.0.0.1:50051");
  view.tls = true;
  view.uri_sans = sans;
  std::string scratch;
  scratch.reserve(64);
  const xdsfed::authz::Decision check = engine->Evaluate(view, &scratch);
  if (check.allowed || !check.policy.empty()) {
    state.SkipWithError("expected a denial with no matching policy");
    return;
  }
  // The side meant to match does match in every policy: with both sides
  // matching, each policy is the first match when those before it are
  // left out.
  for (int p = 0; p < 10; ++p) {
    std::shared_ptr<const RbacEngine> from_p = Engine(kind, true, true, p);
    const xdsfed::authz::Decision d = from_p->Evaluate(view, &scratch);
    if (!d.allowed || d.policy != absl::StrCat("policy-", p)) {
      state.SkipWithError("a policy's matching entry does not match");
      return;
    }
  }
  const int64_t allocs = xdsfed::test_support::AllocationCount();
  for (auto _ : state) {
    benchmark::DoNotOptimize(engine->Evaluate(view, &scratch));
  }
  state.SetItemsProcessed(state.iterations());
  state.counters["policies"] = static_cast<double>(engine->num_policies());
  state.counters["allocs_per_op"] = benchmark::Counter(
      static_cast<double>(xdsfed::test_support::AllocationCount() - allocs) /
      static_cast<double>(state.iterations()));
}

void BM_RbacEvaluate(benchmark::State& state) { RunEvaluate(state, false); }
BENCHMARK(BM_RbacEvaluate)->Arg(0)->Arg(1)->Arg(2);

void BM_RbacEvaluatePrincipalMatches(benchmark::State& state) {
  RunEvaluate(state, true);
}
BENCHMARK(BM_RbacEvaluatePrincipalMatches)->Arg(0)->Arg(1)->Arg(2);

// Issue 25 bad input: N policies of one header exact_match each; the
// request matches none, so every policy's permission runs (the header
// lookup is memoized: one lookup per evaluation).
void BM_RbacEvaluateManyPolicies(benchmark::State& state) {
  const int n = static_cast<int>(state.range(0));
  std::string policies;
  for (int p = 0; p < n; ++p) {
    absl::StrAppend(
        &policies, p ? "," : "", "\"p", p,
        R"(":{"permissions":[{"header":{"name":"x-user","exact_match":"u)", p,
        R"("}}],"principals":[{"any":true}]})");
  }
  envoy::extensions::filters::http::rbac::v3::RBAC proto;
  if (!google::protobuf::util::JsonStringToMessage(
           absl::StrCat(R"({"rules":{"policies":{)", policies, "}}}"), &proto)
           .ok()) {
    std::abort();
  }
  xdsfed::ValidationErrors errors;
  auto config = xdsfed::resources::ParseRbacFilterConfig(
      proto.SerializeAsString(), &errors);
  auto engine = RbacEngine::Compile(config);
  if (!errors.ok() || !engine.ok()) std::abort();
  std::multimap<absl::string_view, absl::string_view> metadata{
      {"x-user", "nobody"}};
  auto lookup = [&metadata](absl::string_view name, std::string* scratch) {
    return xdsfed::routing::JoinedHeaderValue(metadata, name, scratch);
  };
  RequestView view;
  view.path = "/pkg.Svc/Method";
  view.headers.emplace(lookup);
  std::string scratch;
  if ((*engine)->Evaluate(view, &scratch).allowed) {
    state.SkipWithError("expected a denial");
    return;
  }
  const int64_t allocs = xdsfed::test_support::AllocationCount();
  for (auto _ : state) {
    benchmark::DoNotOptimize((*engine)->Evaluate(view, &scratch));
  }
  state.counters["allocs_per_op"] = benchmark::Counter(
      static_cast<double>(xdsfed::test_support::AllocationCount() - allocs) /
      static_cast<double>(state.iterations()));
}
BENCHMARK(BM_RbacEvaluateManyPolicies)->Arg(100)->Arg(10000);

}  // namespace

BENCHMARK_MAIN();
