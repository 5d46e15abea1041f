// RbacEngine decisions (gRFC A41; gRPC C-core 1.51
// src/core/lib/security/authorization/matchers.cc, "C-core" below). Each
// row is a filter config as proto3 JSON (validated by lib/resources, as a
// Listener's would be) and one request; the decision and the reported
// policy are checked.
#include "lib/authz/rbac_engine.h"

#include <map>
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "envoy/extensions/filters/http/rbac/v3/rbac.pb.h"
#include "google/protobuf/util/json_util.h"
#include "gtest/gtest.h"
#include "lib/base/validation_errors.h"
#include "lib/resources/rbac.h"
#include "tests/support/alloc_counter.h"

namespace xdsfed::authz {
namespace {

std::shared_ptr<const RbacEngine> EngineFor(const std::string& json) {
  envoy::extensions::filters::http::rbac::v3::RBAC proto;
  EXPECT_TRUE(google::protobuf::util::JsonStringToMessage(json, &proto).ok())
      << json;
  ValidationErrors errors;
  resources::RbacConfig config =
      resources::ParseRbacFilterConfig(proto.SerializeAsString(), &errors);
  EXPECT_TRUE(errors.ok()) << errors.Message();
  auto engine = RbacEngine::Compile(config);
  EXPECT_TRUE(engine.ok()) << engine.status();
  return engine.ok() ? *engine : nullptr;
}

// ALLOW (or `action`) with one policy "p": permission and principal JSON.
std::string One(absl::string_view permission, absl::string_view principal,
                absl::string_view action = "ALLOW") {
  return absl::StrCat(R"({"rules":{"action":")", action,
                      R"(","policies":{"p":{"permissions":[)", permission,
                      R"(],"principals":[)", principal, "]}}}}");
}
std::string Perm(absl::string_view permission) {
  return One(permission, R"({"any":true})");
}
std::string Id(absl::string_view principal) {
  return One(R"({"any":true})", principal);
}

struct Request {
  std::string path = "/pkg.Svc/Get";
  std::string authority = "svc.example.com";
  std::multimap<std::string, std::string> headers;
  std::string peer = "127.0.0.1:5000";
  std::string local = "127.0.0.1:8080";
  bool tls = false;
  std::vector<absl::string_view> uri_sans, dns_sans;
  std::string subject;
};

Decision Evaluate(const RbacEngine& engine, const Request& req) {
  RequestView view;
  view.path = req.path;
  view.authority = req.authority;
  auto lookup = [&req](absl::string_view name, std::string* scratch) {
    return routing::JoinedHeaderValue(req.headers, name, scratch);
  };
  view.headers.emplace(lookup);
  view.peer = *routing::SocketAddress::Parse(req.peer);
  view.local = *routing::SocketAddress::Parse(req.local);
  view.tls = req.tls;
  view.uri_sans = req.uri_sans;
  view.dns_sans = req.dns_sans;
  view.subject = req.subject;
  std::string scratch;
  return engine.Evaluate(view, &scratch);
}

Request With(std::function<void(Request&)> f) {
  Request r;
  f(r);
  return r;
}

TEST(RbacEngine, Decisions) {
  struct Case {
    const char* source;
    std::string config;
    Request request;
    bool allowed;
    const char* policy;
  };
  const Request plain;
  const Request tls = With([](Request& r) { r.tls = true; });
  const Case cases[] = {
      {"Envoy http rbac.proto: no rules, no enforcement", "{}", plain, true,
       ""},
      {"Envoy: rules present and empty with ALLOW denies everything",
       R"({"rules":{}})", plain, false, ""},
      {"Envoy: DENY with no policies allows everything",
       R"({"rules":{"action":"DENY"}})", plain, true, ""},
      {"A41 url_path = :path; ALLOW when a policy matches",
       Perm(R"({"url_path":{"path":{"prefix":"/pkg.Svc/"}}})"), plain, true,
       "p"},
      {"url_path mismatch: ALLOW denies",
       Perm(R"({"url_path":{"path":{"exact":"/pkg.Svc/Put"}}})"), plain, false,
       ""},
      {"C-core PathAuthorizationMatcher: an empty path never matches",
       Perm(R"({"url_path":{"path":{"safe_regex":{"regex":".*"}}}})"),
       With([](Request& r) { r.path = ""; }), false, ""},
      {"DENY when a policy matches, reporting it",
       One(R"({"url_path":{"path":{"exact":"/pkg.Svc/Get"}}})",
           R"({"any":true})", "DENY"),
       plain, false, "p"},
      {"header exact on a metadata entry",
       Perm(R"({"header":{"name":"x-user","exact_match":"alice"}})"),
       With([](Request& r) { r.headers.emplace("x-user", "alice"); }), true,
       "p"},
      {"A41: an absent header fails exact_match even with invert_match",
       Perm(R"({"header":{"name":"x-user","exact_match":"bob",
                "invert_match":true}})"),
       plain, false, ""},
      {"...and the same matcher on a present other value matches",
       Perm(R"({"header":{"name":"x-user","exact_match":"bob",
                "invert_match":true}})"),
       With([](Request& r) { r.headers.emplace("x-user", "alice"); }), true,
       "p"},
      {"A41: absent header, present_match == invert_match (false, false) "
       "matches",
       Perm(R"({"header":{"name":"x-user","present_match":false}})"), plain,
       true, "p"},
      {"A41: several values are joined with ',' (no spaces)",
       Perm(R"({"header":{"name":"x-tag","exact_match":"a,b"}})"),
       With([](Request& r) {
         r.headers.emplace("x-tag", "a");
         r.headers.emplace("x-tag", "b");
       }),
       true, "p"},
      {"lookups are memoized per name, but a joined value lives in scratch "
       "until the next join: x-a is looked up again after x-b",
       Perm(R"({"and_rules":{"rules":[
                {"header":{"name":"x-a","exact_match":"a,b"}},
                {"header":{"name":"x-b","exact_match":"c,d"}},
                {"header":{"name":"x-a","exact_match":"a,b"}},
                {"header":{"name":"x-c","exact_match":"e"}},
                {"header":{"name":"x-c","exact_match":"e"}}]}})"),
       With([](Request& r) {
         r.headers.emplace("x-a", "a");
         r.headers.emplace("x-a", "b");
         r.headers.emplace("x-b", "c");
         r.headers.emplace("x-b", "d");
         r.headers.emplace("x-c", "e");
       }),
       true, "p"},
      {"A41: Host and :authority are one header for RBAC",
       Perm(R"({"header":{"name":"host","exact_match":"svc.example.com"}})"),
       plain, true, "p"},
      {":authority from the request, not from metadata",
       Perm(R"({"header":{"name":":authority","suffix_match":".com"}})"), plain,
       true, "p"},
      {"A41: :method is POST for gRPC",
       Perm(R"({"header":{"name":":method","exact_match":"POST"}})"), plain,
       true, "p"},
      {"A41: TE (hop-by-hop) is never present, even if the transport shows it",
       Perm(R"({"header":{"name":"te","present_match":true}})"),
       With([](Request& r) { r.headers.emplace("te", "trailers"); }), false,
       ""},
      {"range_match [start, end) on an integer value",
       Perm(R"({"header":{"name":"x-n","range_match":{"start":1,"end":10}}})"),
       With([](Request& r) { r.headers.emplace("x-n", "9"); }), true, "p"},
      {"range_match: end is exclusive",
       Perm(R"({"header":{"name":"x-n","range_match":{"start":1,"end":10}}})"),
       With([](Request& r) { r.headers.emplace("x-n", "10"); }), false, ""},
      {"A41: a -bin header is matched in its base64 form (the lookup gives it)",
       Perm(R"({"header":{"name":"x-id-bin","exact_match":"AAE="}})"),
       With([](Request& r) { r.headers.emplace("x-id-bin", "AAE="); }), true,
       "p"},
      {"A41 destination_port = local port",
       Perm(R"({"destination_port":8080})"), plain, true, "p"},
      {"A41 destination_ip = local address, CIDR",
       Perm(
           R"({"destination_ip":{"address_prefix":"127.0.0.0","prefix_len":8}})"),
       plain, true, "p"},
      {"A41 source_ip = peer: 127.0.0.1/32 does not cover 127.0.0.2",
       Id(R"({"source_ip":{"address_prefix":"127.0.0.1","prefix_len":32}})"),
       With([](Request& r) { r.peer = "127.0.0.2:5000"; }), false, ""},
      {"A41 direct_remote_ip = peer",
       Id(R"({"direct_remote_ip":{"address_prefix":"127.0.0.2","prefix_len":32}})"),
       With([](Request& r) { r.peer = "127.0.0.2:5000"; }), true, "p"},
      {"A41 remote_ip = peer (no xff, no proxy protocol)",
       Id(R"({"remote_ip":{"address_prefix":"::1","prefix_len":128}})"),
       With([](Request& r) { r.peer = "[::1]:5000"; }), true, "p"},
      {"an IPv6 block never covers an IPv4 peer, even ::/0",
       Id(R"({"remote_ip":{"address_prefix":"::","prefix_len":0}})"), plain,
       false, ""},
      {"A41: requested_server_name is always ''",
       Perm(R"({"requested_server_name":{"exact":""}})"), plain, true, "p"},
      {"...so a non-empty matcher never matches",
       Perm(R"({"requested_server_name":{"prefix":"a"}})"), plain, false, ""},
      {"A41: metadata never matches", Perm(R"({"metadata":{}})"), plain, false,
       ""},
      {"...so with invert it always matches",
       Perm(R"({"metadata":{"invert":true}})"), plain, true, "p"},
      {"A41: authenticated without principal_name needs TLS",
       Id(R"({"authenticated":{}})"), plain, false, ""},
      {"A41: authenticated without principal_name: any TLS connection",
       Id(R"({"authenticated":{}})"), tls, true, "p"},
      {"A41 step 1: a URI SAN matches",
       Id(R"({"authenticated":{"principal_name":{"exact":"spiffe://td/a"}}})"),
       With([](Request& r) {
         r.tls = true;
         r.uri_sans = {"spiffe://td/b", "spiffe://td/a"};
       }),
       true, "p"},
      {"C-core AuthenticatedAuthorizationMatcher: DNS SANs are checked even "
       "when URI SANs exist",
       Id(R"({"authenticated":{"principal_name":{"exact":"a.example"}}})"),
       With([](Request& r) {
         r.tls = true;
         r.uri_sans = {"spiffe://td/a"};
         r.dns_sans = {"a.example"};
       }),
       true, "p"},
      {"A41 step 3: the subject",
       Id(R"({"authenticated":{"principal_name":{"prefix":"CN=client"}}})"),
       With([](Request& r) {
         r.tls = true;
         r.subject = "CN=client,O=test";
       }),
       true, "p"},
      {"A41 step 4: no certificate, '' matches",
       Id(R"({"authenticated":{"principal_name":{"exact":""}}})"), tls, true,
       "p"},
      {"C-core: principal_name without TLS never matches",
       Id(R"({"authenticated":{"principal_name":{"exact":""}}})"), plain, false,
       ""},
      {"not_rule negates", Perm(R"({"not_rule":{"any":true}})"), plain, false,
       ""},
      {"not_id negates a non-match",
       Id(R"({"not_id":{"source_ip":{"address_prefix":"10.0.0.0","prefix_len":8}}})"),
       plain, true, "p"},
      {"and_rules: every rule",
       Perm(R"({"and_rules":{"rules":[{"destination_port":8080},
                {"url_path":{"path":{"exact":"/pkg.Svc/Put"}}}]}})"),
       plain, false, ""},
      {"or_ids: some id",
       Id(R"({"or_ids":{"ids":[{"metadata":{}},{"any":true}]}})"), plain, true,
       "p"},
      {"C-core: an empty and matches, an empty or does not",
       One(R"({"and_rules":{"rules":[]}})", R"({"or_ids":{"ids":[]}})"), plain,
       false, ""},
      {"policies in name order: the first match is reported",
       R"({"rules":{"policies":{
           "b":{"permissions":[{"any":true}],"principals":[{"any":true}]},
           "a":{"permissions":[{"any":true}],"principals":[{"any":true}]}}}})",
       plain, true, "a"},
      {"a policy needs a permission AND a principal",
       One(R"({"any":true})", R"({"metadata":{}})"), plain, false, ""},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.source);
    std::shared_ptr<const RbacEngine> engine = EngineFor(c.config);
    ASSERT_NE(engine, nullptr);
    Decision d = Evaluate(*engine, c.request);
    EXPECT_EQ(d.allowed, c.allowed);
    EXPECT_EQ(d.policy, c.policy);
  }
}

// Issue 25 goal: evaluation allocates nothing (10 policies, each with 10
// permissions and 10 principals; every matcher is evaluated: only the last
// permission of each policy matches, and no principal does).
TEST(RbacEngine, EvaluateAllocatesNothing) {
  std::string policies;
  for (int p = 0; p < 10; ++p) {
    std::string perms, ids;
    for (int i = 0; i < 10; ++i) {
      absl::StrAppend(&perms, i ? "," : "",
                      R"({"header":{"name":"x-long-header-name-)", i,
                      R"(","safe_regex_match":{"regex":"v[0-9]+"}}})");
      absl::StrAppend(&ids, i ? "," : "",
                      R"({"source_ip":{"address_prefix":"10.0.0.)", i,
                      R"(","prefix_len":32}})");
    }
    absl::StrAppend(&policies, p ? "," : "", "\"p", p, R"(":{"permissions":[)",
                    perms, R"(],"principals":[)", ids, "]}");
  }
  auto engine =
      EngineFor(absl::StrCat(R"({"rules":{"policies":{)", policies, "}}}"));
  ASSERT_NE(engine, nullptr);
  Request req;
  for (int i = 0; i < 10; ++i) {
    // Joined "v1,v2" fails the full-match regex; header 9 has one value.
    req.headers.emplace(absl::StrCat("x-long-header-name-", i), "v1");
    if (i < 9)
      req.headers.emplace(absl::StrCat("x-long-header-name-", i), "v2");
  }
  RequestView view;
  view.path = req.path;
  // grpc++ metadata keys are string_refs: no key string is built.
  std::multimap<absl::string_view, absl::string_view> metadata(
      req.headers.begin(), req.headers.end());
  auto lookup = [&metadata](absl::string_view name, std::string* scratch) {
    return routing::JoinedHeaderValue(metadata, name, scratch);
  };
  view.headers.emplace(lookup);
  view.peer = *routing::SocketAddress::Parse(req.peer);
  view.local = *routing::SocketAddress::Parse(req.local);
  std::string scratch;
  scratch.reserve(64);
  EXPECT_FALSE(engine->Evaluate(view, &scratch).allowed);
  const int64_t before = test_support::AllocationCount();
  for (int i = 0; i < 100; ++i) engine->Evaluate(view, &scratch);
  EXPECT_EQ(test_support::AllocationCount() - before, 0);
}

// "p<i>" policies in name order (zero-padded) from (permission, principal)
// JSON pairs.
std::string Policies(const std::vector<std::pair<std::string, std::string>>&
                         permission_principal) {
  std::string policies;
  for (size_t i = 0; i < permission_principal.size(); ++i) {
    absl::StrAppend(&policies, i ? "," : "", "\"p", 10000 + i,
                    R"(":{"permissions":[)", permission_principal[i].first,
                    R"(],"principals":[)", permission_principal[i].second,
                    "]}");
  }
  return absl::StrCat(R"({"rules":{"policies":{)", policies, "}}}");
}

std::string HeaderExact(absl::string_view name, absl::string_view value) {
  return absl::StrCat(R"({"header":{"name":")", name, R"(","exact_match":")",
                      value, R"("}})");
}

std::string PrincipalExact(absl::string_view name) {
  return absl::StrCat(R"({"authenticated":{"principal_name":{"exact":")", name,
                      R"("}}})");
}

// The compiled engine (rbac_program.h) decides most leaves through
// indexes, pure policy sides and per-RPC memos, each with a cap past which
// it falls back to evaluating leaves one by one. Each row drives one of
// those paths (or a cap) and must decide as A41's recursive walk does.
TEST(RbacEngine, IndexedPathsDecideAsTheWalk) {
  struct Case {
    const char* source;
    std::string config;
    Request request;
    bool allowed;
    std::string policy;
  };
  auto sans = [](int n) {
    return With([n](Request& r) {
      r.tls = true;
      static const absl::string_view kSans[] = {"s0", "s1", "s2",
                                                "s3", "s4", "s5"};
      r.uri_sans.assign(kSans, kSans + n);
    });
  };
  std::vector<Case> cases = {
      {"one matcher in two policies is one leaf: evaluated once, its "
       "result good for both (p10001's principal is the one that matches)",
       Policies(
           {{HeaderExact("x-a", "1"),
             R"({"source_ip":{"address_prefix":"10.0.0.0","prefix_len":8}})"},
            {HeaderExact("x-a", "1"), R"({"any":true})"}}),
       With([](Request& r) { r.headers.emplace("x-a", "1"); }), true, "p10001"},
      {"more matching SANs than an index keeps keys (kMaxKeys 4): a pure "
       "side still hears of the 6th",
       Policies(
           {{HeaderExact("x-none", "1"),
             absl::StrCat(PrincipalExact("s0"), ",", PrincipalExact("s1"), ",",
                          PrincipalExact("s2"), ",", PrincipalExact("s3"), ",",
                          PrincipalExact("s4"))},
            {R"({"any":true})", PrincipalExact("s5")}}),
       sans(6), true, "p10001"},
      {"...and a leaf under and_ids is then evaluated on its own",
       Policies(
           {{HeaderExact("x-none", "1"),
             absl::StrCat(PrincipalExact("s0"), ",", PrincipalExact("s1"), ",",
                          PrincipalExact("s2"), ",", PrincipalExact("s3"), ",",
                          PrincipalExact("s4"))},
            {R"({"any":true})",
             absl::StrCat(R"({"and_ids":{"ids":[)", PrincipalExact("s5"),
                          R"(,{"any":true}]}})")}}),
       sans(6), true, "p10001"},
      {"...and with 5 SANs the 6th name is not matched",
       Policies({{R"({"any":true})", PrincipalExact("s5")}}), sans(5), false,
       ""},
      {"prefixes of several lengths in one index: only a prefix of the "
       "path matches (longer and differing ones do not)",
       Policies({{R"({"url_path":{"path":{"prefix":"/pkg.Svc/Gex"}}})",
                  R"({"any":true})"},
                 {R"({"url_path":{"path":{"prefix":"/pkg.Svc/Get/x"}}})",
                  R"({"any":true})"},
                 {R"({"url_path":{"path":{"prefix":"/pkg.Svc/Get"}}})",
                  R"({"any":true})"}}),
       Request(), true, "p10002"},
      {"regexes of one header share an RE2::Set: none matching decides "
       "every leaf false",
       Policies(
           {{R"({"header":{"name":"x-a","safe_regex_match":{"regex":"a+"}}})",
             R"({"any":true})"},
            {R"({"header":{"name":"x-a","safe_regex_match":{"regex":"c"}}})",
             R"({"any":true})"}}),
       With([](Request& r) { r.headers.emplace("x-a", "b"); }), false, ""},
      {"...and one matching sends the leaves to their own regex",
       Policies(
           {{R"({"header":{"name":"x-a","safe_regex_match":{"regex":"a+"}}})",
             R"({"any":true})"},
            {R"({"header":{"name":"x-a","safe_regex_match":{"regex":"b"}}})",
             R"({"any":true})"}}),
       With([](Request& r) { r.headers.emplace("x-a", "b"); }), true, "p10001"},
      {"A41 metadata (false) as a root does not stop a side from being "
       "decided by its index",
       Policies({{absl::StrCat(R"({"metadata":{}},)", HeaderExact("x-a", "1")),
                  R"({"metadata":{"invert":true}})"}}),
       With([](Request& r) { r.headers.emplace("x-a", "1"); }), true, "p10000"},
  };
  // 70 header names: past the 32 memoized names and the 64 indexes; only
  // the last policy's header is present.
  {
    std::vector<std::pair<std::string, std::string>> pp;
    for (int i = 0; i < 70; ++i) {
      pp.push_back(
          {HeaderExact(absl::StrCat("x-h", i), "1"), R"({"any":true})"});
    }
    cases.push_back({"70 header names: past the memo and index caps",
                     Policies(pp),
                     With([](Request& r) { r.headers.emplace("x-h69", "1"); }),
                     true, "p10069"});
  }
  // 600 policies: 1,200 sides (past the 512 pure sides) and 600 suffix
  // leaves (past the 256 memo slots); only the last policy matches.
  {
    std::vector<std::pair<std::string, std::string>> pp;
    for (int i = 0; i < 600; ++i) {
      pp.push_back({HeaderExact("x-u", absl::StrCat("u", i)),
                    absl::StrCat(R"({"header":{"name":"x-v","suffix_match":"v)",
                                 i, R"("}})")});
    }
    cases.push_back({"600 policies: past the pure side and memo caps",
                     Policies(pp), With([](Request& r) {
                       r.headers.emplace("x-u", "u599");
                       r.headers.emplace("x-v", "v599");
                     }),
                     true, "p10599"});
  }
  for (const Case& c : cases) {
    SCOPED_TRACE(c.source);
    std::shared_ptr<const RbacEngine> engine = EngineFor(c.config);
    ASSERT_NE(engine, nullptr);
    Decision d = Evaluate(*engine, c.request);
    EXPECT_EQ(d.allowed, c.allowed);
    EXPECT_EQ(d.policy, c.policy);
  }
}

// Issue 25 bad input: 10,000 policies are validated, compiled and
// evaluated (linear in the policies; no cap): the last policy is the one
// that matches. bench/authz_bench BM_RbacEvaluateManyPolicies times it.
TEST(RbacEngine, TenThousandPolicies) {
  std::string policies;
  for (int p = 0; p < 10000; ++p) {
    absl::StrAppend(
        &policies, p ? "," : "", "\"p", 10000 + p,
        R"(":{"permissions":[{"header":{"name":"x-user","exact_match":"u)", p,
        R"("}}],"principals":[{"any":true}]})");
  }
  auto engine =
      EngineFor(absl::StrCat(R"({"rules":{"policies":{)", policies, "}}}"));
  ASSERT_NE(engine, nullptr);
  EXPECT_EQ(engine->num_policies(), 10000u);
  const Decision d = Evaluate(
      *engine, With([](Request& r) { r.headers.emplace("x-user", "u9999"); }));
  EXPECT_TRUE(d.allowed);
  EXPECT_EQ(d.policy, "p19999");
  EXPECT_FALSE(Evaluate(*engine, Request()).allowed);
}

}  // namespace
}  // namespace xdsfed::authz
