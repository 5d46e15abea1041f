// RBAC evaluation per RPC (lib/authz, issue 25 goal: 10 policies x 10
// permissions / principals <= 300 ns and 0 allocations per evaluation).
//
// BM_RbacEvaluate/<matchers>: every matcher is evaluated (worst case): in
// each of the 10 policies, permissions 0..8 fail, permission 9 matches, and
// none of the 10 principals matches, so the ALLOW decision is "denied" after
// 10 x (10 + 10) matcher calls.
//   0 = header exact_match + source_ip CIDR
//   1 = header safe_regex_match (RE2 full match) + source_ip CIDR
//   2 = url_path prefix + authenticated principal_name exact on 2 URI SANs
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

std::string Permission(int kind, int i) {
  switch (kind) {
    case 0:
      return absl::StrCat(R"({"header":{"name":"x-header-name-)", i,
                          R"(","exact_match":"v)", i == 9 ? 1 : 100 + i,
                          R"("}})");
    case 1:
      return absl::StrCat(R"({"header":{"name":"x-header-name-)", i,
                          R"(","safe_regex_match":{"regex":"v)",
                          i == 9 ? "[0-9]+" : "[a-z]+", R"("}}})");
    default:
      return absl::StrCat(R"({"url_path":{"path":{"prefix":"/pkg.Svc)",
                          i == 9 ? "" : absl::StrCat(i), R"("}}})");
  }
}

std::string Principal(int kind, int i) {
  if (kind == 2) {
    return absl::StrCat(
        R"({"authenticated":{"principal_name":{"exact":"spiffe://td/ns/x/sa/)",
        i, R"("}}})");
  }
  return absl::StrCat(R"({"source_ip":{"address_prefix":"10.0.0.)", i,
                      R"(","prefix_len":32}})");
}

std::shared_ptr<const RbacEngine> Engine(int kind) {
  std::string policies;
  for (int p = 0; p < 10; ++p) {
    std::string perms, ids;
    for (int i = 0; i < 10; ++i) {
      absl::StrAppend(&perms, i ? "," : "", Permission(kind, i));
      absl::StrAppend(&ids, i ? "," : "", Principal(kind, i));
    }
    absl::StrAppend(&policies, p ? "," : "", "\"policy-", p,
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

void BM_RbacEvaluate(benchmark::State& state) {
  const int kind = static_cast<int>(state.range(0));
  std::shared_ptr<const RbacEngine> engine = Engine(kind);
  // grpc++'s client_metadata() is a multimap of string_ref: no key copies.
  std::multimap<absl::string_view, absl::string_view> metadata;
  std::vector<std::string> names;
  for (int i = 0; i < 10; ++i)
    names.push_back(absl::StrCat("x-header-name-", i));
  for (int i = 0; i < 10; ++i) metadata.emplace(names[i], "v1");
  // A few unrelated entries, as a real call carries.
  metadata.emplace("user-agent", "grpc-c++/1.51.1 grpc-c/29.0.0 (linux)");
  metadata.emplace("content-type", "application/grpc");
  auto lookup = [&metadata](absl::string_view name, std::string* scratch) {
    return xdsfed::routing::JoinedHeaderValue(metadata, name, scratch);
  };
  const absl::string_view sans[] = {"spiffe://td/ns/y/sa/a",
                                    "spiffe://td/ns/y/sa/b"};
  RequestView view;
  view.path = "/pkg.Svc/Method";
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
BENCHMARK(BM_RbacEvaluate)->Arg(0)->Arg(1)->Arg(2);

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
