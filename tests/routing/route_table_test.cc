// Route selection (lib/routing/route_table.h). Sources: gRFC A28 (route
// matching; §Response Validation), A36 §Connection and Request Handling (a
// server routes "using the same rules as on the client"), and gRPC C-core
// 1.51 xds_routing.cc / matchers.cc for the details A28 leaves to code.
#include "lib/routing/route_table.h"

#include <iterator>
#include <map>
#include <random>
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "gtest/gtest.h"
#include "lib/resources/virtual_host_select.h"
#include "tests/support/alloc_counter.h"

namespace xdsfed {
namespace routing {
namespace {

using resources::HeaderMatch;
using resources::Route;
using resources::RouteAction;
using resources::StringMatch;
using Headers = std::multimap<std::string, std::string>;

StringMatch Str(StringMatch::Type type, std::string value,
                bool case_sensitive = true) {
  StringMatch m;
  m.type = type;
  m.value = std::move(value);
  m.case_sensitive = case_sensitive;
  return m;
}

Route MakeRoute(std::string name, StringMatch path,
                std::vector<HeaderMatch> headers = {},
                std::optional<uint32_t> fraction = std::nullopt) {
  Route r;
  r.name = std::move(name);
  r.match.path = std::move(path);
  r.match.headers = std::move(headers);
  r.match.fraction_per_million = fraction;
  RouteAction action;
  action.cluster = "c-" + r.name;
  r.action = action;
  return r;
}

HeaderMatch HStr(std::string name, StringMatch m, bool invert = false) {
  HeaderMatch h;
  h.name = std::move(name);
  h.type = HeaderMatch::Type::kString;
  h.string_match = std::move(m);
  h.invert_match = invert;
  return h;
}

HeaderMatch HRange(std::string name, int64_t start, int64_t end) {
  HeaderMatch h;
  h.name = std::move(name);
  h.type = HeaderMatch::Type::kRange;
  h.range_start = start;
  h.range_end = end;
  return h;
}

HeaderMatch HPresent(std::string name, bool present, bool invert = false) {
  HeaderMatch h;
  h.name = std::move(name);
  h.type = HeaderMatch::Type::kPresent;
  h.present_match = present;
  h.invert_match = invert;
  return h;
}

constexpr auto kExact = StringMatch::Type::kExact;
constexpr auto kPrefix = StringMatch::Type::kPrefix;
constexpr auto kSuffix = StringMatch::Type::kSuffix;
constexpr auto kContains = StringMatch::Type::kContains;
constexpr auto kRegex = StringMatch::Type::kSafeRegex;

RouteTable BuildTable(std::vector<Route> routes) {
  auto vh = std::make_shared<resources::VirtualHost>();
  vh->name = "vh";
  vh->domains = {"*"};
  vh->routes.assign(routes.begin(), routes.end());
  absl::StatusOr<RouteTable> t = RouteTable::Build(std::move(vh));
  EXPECT_TRUE(t.ok()) << t.status();
  return *std::move(t);
}

// The name of the route matched, "" if none.
std::string MatchName(const RouteTable& table, absl::string_view path,
                      const Headers& headers, uint64_t draw = 0) {
  std::string scratch;
  const Route* r = table.Match(
      path,
      [&](absl::string_view name, std::string* s) {
        return JoinedHeaderValue(headers, name, s);
      },
      [draw](uint64_t bound) { return draw % bound; }, &scratch);
  return r == nullptr ? "" : r->name;
}

// One route r plus a catch-all "else" behind it, so a row says which won.
struct Case {
  const char* rule;  // where the rule comes from
  Route route;
  const char* path;
  Headers headers;
  bool want;  // true: the route matches; false: "else" does
};

void RunCases(const std::vector<Case>& cases) {
  for (const Case& c : cases) {
    SCOPED_TRACE(c.rule);
    RouteTable table =
        BuildTable({c.route, MakeRoute("else", Str(kPrefix, ""))});
    EXPECT_EQ(MatchName(table, c.path, c.headers), c.want ? "r" : "else");
  }
}

TEST(RouteTableTest, PathMatchers) {
  RunCases({
      {"A28: empty prefix matches every path",
       MakeRoute("r", Str(kPrefix, "")),
       "/pkg.Svc/M",
       {},
       true},
      {"A28: prefix",
       MakeRoute("r", Str(kPrefix, "/pkg.Svc/")),
       "/pkg.Svc/M",
       {},
       true},
      {"A28: prefix is case sensitive by default",
       MakeRoute("r", Str(kPrefix, "/pkg.Svc/")),
       "/PKG.svc/M",
       {},
       false},
      {"A28: case_sensitive false folds ASCII case",
       MakeRoute("r", Str(kPrefix, "/pkg.Svc/", false)),
       "/PKG.svc/M",
       {},
       true},
      {"A28: path is an exact match",
       MakeRoute("r", Str(kExact, "/pkg.Svc/M")),
       "/pkg.Svc/M",
       {},
       true},
      {"A28: path longer than exact",
       MakeRoute("r", Str(kExact, "/pkg.Svc/M")),
       "/pkg.Svc/MM",
       {},
       false},
      {"A28: exact, case_sensitive false",
       MakeRoute("r", Str(kExact, "/pkg.Svc/M", false)),
       "/PKG.SVC/m",
       {},
       true},
      {"A28: safe_regex",
       MakeRoute("r", Str(kRegex, "/pkg\\.Svc/(Get|List)")),
       "/pkg.Svc/List",
       {},
       true},
      {"A28: safe_regex is a full match, not a search",
       MakeRoute("r", Str(kRegex, "Svc")),
       "/pkg.Svc/M",
       {},
       false},
      {"C-core: safe_regex honours case_sensitive false",
       MakeRoute("r", Str(kRegex, "/pkg\\.svc/.*", false)),
       "/PKG.Svc/M",
       {},
       true},
      {"C-core: safe_regex case sensitive by default",
       MakeRoute("r", Str(kRegex, "/pkg\\.svc/.*")),
       "/PKG.Svc/M",
       {},
       false},
  });
}

TEST(RouteTableTest, HeaderMatchers) {
  const auto any = Str(kPrefix, "");
  RunCases({
      {"A28: exact",
       MakeRoute("r", any, {HStr("x", Str(kExact, "v"))}),
       "/",
       {{"x", "v"}},
       true},
      {"A28: exact, other value",
       MakeRoute("r", any, {HStr("x", Str(kExact, "v"))}),
       "/",
       {{"x", "w"}},
       false},
      {"A28: absent header fails a string matcher",
       MakeRoute("r", any, {HStr("x", Str(kExact, "v"))}),
       "/",
       {},
       false},
      {"A28: prefix",
       MakeRoute("r", any, {HStr("x", Str(kPrefix, "ab"))}),
       "/",
       {{"x", "abc"}},
       true},
      {"A28: suffix",
       MakeRoute("r", any, {HStr("x", Str(kSuffix, "bc"))}),
       "/",
       {{"x", "abc"}},
       true},
      {"A28: suffix, no",
       MakeRoute("r", any, {HStr("x", Str(kSuffix, "ab"))}),
       "/",
       {{"x", "abc"}},
       false},
      {"A28: contains",
       MakeRoute("r", any, {HStr("x", Str(kContains, "b"))}),
       "/",
       {{"x", "abc"}},
       true},
      {"StringMatcher.ignore_case: contains",
       MakeRoute("r", any, {HStr("x", Str(kContains, "BC", false))}),
       "/",
       {{"x", "abc"}},
       true},
      {"StringMatcher.ignore_case: exact",
       MakeRoute("r", any, {HStr("x", Str(kExact, "ABC", false))}),
       "/",
       {{"x", "abc"}},
       true},
      {"A28: safe_regex full match",
       MakeRoute("r", any, {HStr("x", Str(kRegex, "v[0-9]+"))}),
       "/",
       {{"x", "v12"}},
       true},
      {"A28: safe_regex does not search",
       MakeRoute("r", any, {HStr("x", Str(kRegex, "v[0-9]+"))}),
       "/",
       {{"x", "xv12"}},
       false},
      {"A28: range [start, end) start in",
       MakeRoute("r", any, {HRange("n", 10, 20)}),
       "/",
       {{"n", "10"}},
       true},
      {"A28: range end excluded",
       MakeRoute("r", any, {HRange("n", 10, 20)}),
       "/",
       {{"n", "20"}},
       false},
      {"A28: range negative",
       MakeRoute("r", any, {HRange("n", -10, 0)}),
       "/",
       {{"n", "-5"}},
       true},
      {"C-core: range on a non-integer fails",
       MakeRoute("r", any, {HRange("n", 0, 100)}),
       "/",
       {{"n", "5x"}},
       false},
      {"A28: present true, present",
       MakeRoute("r", any, {HPresent("x", true)}),
       "/",
       {{"x", ""}},
       true},
      {"A28: present true, absent",
       MakeRoute("r", any, {HPresent("x", true)}),
       "/",
       {},
       false},
      {"A28: present false, absent",
       MakeRoute("r", any, {HPresent("x", false)}),
       "/",
       {},
       true},
      {"A28: invert_match",
       MakeRoute("r", any, {HStr("x", Str(kExact, "v"), true)}),
       "/",
       {{"x", "w"}},
       true},
      {"A28: invert_match of a match",
       MakeRoute("r", any, {HStr("x", Str(kExact, "v"), true)}),
       "/",
       {{"x", "v"}},
       false},
      {"C-core: invert_match, absent header matches",
       MakeRoute("r", any, {HStr("x", Str(kExact, "v"), true)}),
       "/",
       {},
       true},
      {"A28: -bin headers never match string matchers",
       MakeRoute("r", any, {HStr("x-bin", Str(kExact, "v"))}),
       "/",
       {{"x-bin", "v"}},
       false},
      {"C-core: a -bin header is seen as absent (present:false matches)",
       MakeRoute("r", any, {HPresent("x-bin", false)}),
       "/",
       {{"x-bin", "v"}},
       true},
      {"A28: content-type is seen as application/grpc",
       MakeRoute("r", any,
                 {HStr("content-type", Str(kExact, "application/grpc"))}),
       "/",
       {{"content-type", "application/grpc+proto"}},
       true},
      {"A28: content-type application/grpc even when not given",
       MakeRoute("r", any,
                 {HStr("content-type", Str(kExact, "application/grpc"))}),
       "/",
       {},
       true},
      {"A28: values of a repeated header joined with ','",
       MakeRoute("r", any, {HStr("x", Str(kExact, "a,b"))}),
       "/",
       {{"x", "a"}, {"x", "b"}},
       true},
      {"Envoy: header names compare in lower case",
       MakeRoute("r", any, {HStr("X-Id", Str(kExact, "1"))}),
       "/",
       {{"x-id", "1"}},
       true},
      {"A28: every header matcher must match",
       MakeRoute("r", any,
                 {HStr("x", Str(kExact, "1")), HStr("y", Str(kExact, "2"))}),
       "/",
       {{"x", "1"}, {"y", "3"}},
       false},
      {"A28: every header matcher matches",
       MakeRoute("r", any,
                 {HStr("x", Str(kExact, "1")), HStr("y", Str(kExact, "2"))}),
       "/",
       {{"x", "1"}, {"y", "2"}},
       true},
      {"A28: path must match too",
       MakeRoute("r", Str(kPrefix, "/a/"), {HStr("x", Str(kExact, "1"))}),
       "/b/M",
       {{"x", "1"}},
       false},
  });
}

TEST(RouteTableTest, FirstMatchingRouteWins) {
  // A28: routes are matched in order, the first match is used.
  RouteTable table = BuildTable({MakeRoute("a", Str(kPrefix, "/s/")),
                                 MakeRoute("b", Str(kExact, "/s/M")),
                                 MakeRoute("c", Str(kPrefix, ""))});
  EXPECT_EQ(MatchName(table, "/s/M", {}), "a");
  EXPECT_EQ(MatchName(table, "/t/M", {}), "c");
  // A36 §Connection and Request Handling: no route matches -> nullptr
  // (the caller fails the RPC UNAVAILABLE).
  RouteTable narrow = BuildTable({MakeRoute("a", Str(kExact, "/s/M"))});
  EXPECT_EQ(MatchName(narrow, "/s/N", {}), "");
}

TEST(RouteTableTest, RuntimeFraction) {
  // A28: runtime_fraction.default_value; a route that loses the draw falls
  // through to the next one.
  struct FractionCase {
    uint32_t per_million;
    uint64_t draw;
    bool want;
  };
  const FractionCase kCases[] = {
      {500000, 499999, true}, {500000, 500000, false},
      {0, 0, false},          {1000000, 999999, true},
      {1, 0, true},           {1, 1, false},
  };
  for (const FractionCase& c : kCases) {
    SCOPED_TRACE(testing::Message() << c.per_million << " " << c.draw);
    RouteTable table =
        BuildTable({MakeRoute("r", Str(kPrefix, ""), {}, c.per_million),
                    MakeRoute("else", Str(kPrefix, ""))});
    EXPECT_EQ(MatchName(table, "/", {}, c.draw), c.want ? "r" : "else");
  }
}

TEST(RouteTableTest, PickCluster) {
  // A28 §Traffic Splitting: weighted_clusters pick a cluster with
  // probability weight / total weight.
  RouteAction split;
  split.weighted_clusters = {{"a", 1}, {"b", 3}, {"c", 6}};
  struct PickCase {
    uint64_t draw;
    const char* want;
  };
  const PickCase kCases[] = {{0, "a"}, {1, "b"}, {3, "b"}, {4, "c"}, {9, "c"}};
  for (const PickCase& c : kCases) {
    SCOPED_TRACE(c.draw);
    uint64_t seen_bound = 0;
    EXPECT_EQ(PickCluster(split,
                          [&](uint64_t bound) {
                            seen_bound = bound;
                            return c.draw;
                          }),
              c.want);
    EXPECT_EQ(seen_bound, 10u);
  }
  RouteAction single;
  single.cluster = "only";
  EXPECT_EQ(PickCluster(single, [](uint64_t) -> uint64_t { abort(); }), "only");
  EXPECT_EQ(PickCluster(RouteAction{}, ThreadLocalRandom), "");
  // Weights near uint32 max do not overflow the total.
  RouteAction big;
  big.weighted_clusters = {{"x", 0xffffffffu}, {"y", 0xffffffffu}};
  EXPECT_EQ(PickCluster(big, [](uint64_t b) { return b - 1; }), "y");
  // ThreadLocalRandom stays in range and reaches both sides of a 50/50.
  RouteAction half;
  half.weighted_clusters = {{"l", 1}, {"r", 1}};
  std::map<std::string, int> counts;
  for (int i = 0; i < 1000; ++i) ++counts[PickCluster(half, ThreadLocalRandom)];
  EXPECT_GT(counts["l"], 400);
  EXPECT_GT(counts["r"], 400);
}

TEST(RouteTableTest, RouteConfigTableFindsVirtualHostAndKeepsConfigAlive) {
  auto config = std::make_shared<resources::RouteConfig>();
  config->name = "rc";
  resources::VirtualHost a;
  a.name = "a";
  a.domains = {"a.example.com"};
  a.routes = {MakeRoute("ra", Str(kPrefix, ""))};
  resources::VirtualHost any;
  any.name = "any";
  any.domains = {"*"};
  any.routes = {MakeRoute("rany", Str(kPrefix, ""))};
  config->virtual_hosts = {a, any};
  auto table = RouteConfigTable::Build(config);
  ASSERT_TRUE(table.ok()) << table.status();
  config.reset();  // the table holds it
  const RouteTable* vh = (*table)->FindVirtualHost("A.example.com");
  ASSERT_NE(vh, nullptr);
  EXPECT_EQ(vh->virtual_host().name, "a");
  EXPECT_EQ(MatchName(*vh, "/s/M", {}), "ra");
  EXPECT_EQ((*table)->FindVirtualHost("b.example.com")->virtual_host().name,
            "any");

  // Hand-built values without a compiled regex are compiled; a bad one fails.
  auto bad = std::make_shared<resources::RouteConfig>();
  bad->name = "bad";
  resources::VirtualHost v;
  v.domains = {"*"};
  v.routes = {MakeRoute("ok", Str(kPrefix, "")),
              MakeRoute("r", Str(kPrefix, ""), {HStr("x", Str(kRegex, "(a"))})};
  bad->virtual_hosts = {v};
  auto err = RouteConfigTable::Build(bad);
  ASSERT_FALSE(err.ok());
  EXPECT_EQ(err.status().message(),
            "route configuration \"bad\": virtual_hosts[0].routes[1].match."
            "headers[0]: not a valid RE2 regex: missing ): (a");
  auto empty = std::make_shared<resources::RouteConfig>();
  auto none = RouteConfigTable::Build(empty);
  ASSERT_TRUE(none.ok());
  EXPECT_EQ((*none)->FindVirtualHost("x"), nullptr);
}

// A28 / C-core FindVirtualHostForDomain ranking, through the table's index:
// it must pick exactly what resources::FindVirtualHost (the scan, with its
// own table tests) picks, for random configurations over a small pool of
// overlapping patterns and authorities.
TEST(RouteTableTest, FindVirtualHostAgreesWithTheScan) {
  const char* const kPatterns[] = {
      "*",   "a.com",    "A.COM", "*.com",   "*a.com",    "*.a.com", "b.a.com",
      "a.*", "a.c*",     "b.*",   "*m",      "x*",        "",        "a*b",
      "**",  "a.com:80", "*:80",  "a.com:*", "*.b.a.com", "B.A.com"};
  const char* const kAuthorities[] = {
      "a.com",    "A.com", "b.a.com", "c.b.a.com", "a.cm", "x", "m",
      "a.com:80", "b.com", "a.",      "xyz",       "",     "*", "b.A.COM"};
  std::mt19937 rng(7);
  for (int round = 0; round < 2000; ++round) {
    auto config = std::make_shared<resources::RouteConfig>();
    const int hosts = 1 + static_cast<int>(rng() % 6);
    for (int h = 0; h < hosts; ++h) {
      resources::VirtualHost vh;
      vh.name = absl::StrCat("vh", h);
      const int domains = 1 + static_cast<int>(rng() % 3);
      for (int d = 0; d < domains; ++d) {
        vh.domains.push_back(kPatterns[rng() % std::size(kPatterns)]);
      }
      vh.routes = {MakeRoute("r", Str(kPrefix, ""))};
      config->virtual_hosts.push_back(vh);
    }
    auto table = RouteConfigTable::Build(config);
    ASSERT_TRUE(table.ok());
    for (const char* authority : kAuthorities) {
      const resources::VirtualHost* want =
          resources::FindVirtualHost(config->virtual_hosts, authority);
      const RouteTable* got = (*table)->FindVirtualHost(authority);
      ASSERT_EQ(got == nullptr ? nullptr : &got->virtual_host(), want)
          << "round " << round << " authority " << authority;
    }
  }
}

TEST(RouteTableTest, MatchAllocatesNothing) {
  // Hot path (BRIEF: no allocation): a realistic table, every matcher kind,
  // the scratch string reused.
  RouteTable table = BuildTable({
      MakeRoute("r1", Str(kRegex, "/pkg\\.Other/.*")),
      MakeRoute(
          "r2", Str(kPrefix, "/pkg.Svc/", false),
          {HStr("x-user", Str(kContains, "ADMIN", false)), HRange("x-n", 0, 10),
           HPresent("x-bin", false), HStr("x-multi", Str(kRegex, "a,b"))},
          500000),
      MakeRoute("r3", Str(kExact, "/pkg.Svc/M")),
  });
  Headers headers = {{"x-user", "the-admin-user"},
                     {"x-n", "7"},
                     {"x-multi", "a"},
                     {"x-multi", "b"}};
  std::string scratch;
  auto lookup = [&](absl::string_view name, std::string* s) {
    return JoinedHeaderValue(headers, name, s);
  };
  auto random = [](uint64_t bound) -> uint64_t { return 0; };
  ASSERT_EQ(table.Match("/pkg.Svc/M", lookup, random, &scratch)->name, "r2");
  const int64_t before = test_support::AllocationCount();
  for (int i = 0; i < 100; ++i) {
    table.Match("/pkg.Svc/M", lookup, random, &scratch);
    table.Match("/pkg.Other/M", lookup, random, &scratch);
  }
  EXPECT_EQ(test_support::AllocationCount() - before, 0);
}

}  // namespace
}  // namespace routing
}  // namespace xdsfed
