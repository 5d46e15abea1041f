#include "lib/resources/virtual_host_select.h"

#include <string>
#include <vector>

#include "gtest/gtest.h"

namespace xdsfed {
namespace resources {
namespace {

VirtualHost Host(std::string name, std::vector<std::string> domains) {
  VirtualHost vh;
  vh.name = std::move(name);
  vh.domains.assign(domains.begin(), domains.end());
  return vh;
}

// Source: gRPC's xds_routing.cc domain ranking (exact > *suffix > prefix* >
// "*", longest pattern within a kind, first listed on ties), which Envoy's
// RouteConfiguration docs also describe.
TEST(VirtualHostSelectTest, RanksDomainPatternsAsGrpcDoes) {
  const std::vector<VirtualHost> hosts = {
      Host("universe", {"*"}),
      Host("prefix", {"svc.*"}),
      Host("longer-prefix", {"svc.example.*"}),
      Host("suffix", {"*.com"}),
      Host("longer-suffix", {"*.example.com"}),
      Host("exact", {"svc.example.com", "other.test"}),
  };
  struct Case {
    const char* domain;
    const char* want;  // "" = none
  } const kCases[] = {
      {"svc.example.com", "exact"},
      {"SVC.Example.COM", "exact"},  // case-insensitive
      {"api.example.com", "longer-suffix"},
      {"a.b.com", "suffix"},
      {"svc.example.org", "longer-prefix"},
      {"svc.test", "prefix"},
      {"unrelated", "universe"},
      {"other.test", "exact"},
  };
  for (const Case& c : kCases) {
    SCOPED_TRACE(c.domain);
    const VirtualHost* vh = FindVirtualHost(hosts, c.domain);
    ASSERT_NE(vh, nullptr);
    EXPECT_EQ(vh->name, c.want);
  }
}

TEST(VirtualHostSelectTest, WildcardNeedsAtLeastOneCharacterAndTiesGoFirst) {
  const std::vector<VirtualHost> hosts = {
      Host("first", {"*.example.com"}),
      Host("second", {"*.example.com"}),
  };
  const VirtualHost* vh = FindVirtualHost(hosts, "a.example.com");
  ASSERT_NE(vh, nullptr);
  EXPECT_EQ(vh->name, "first");
  // The '*' stands for at least one character (gRPC xds_routing.cc).
  EXPECT_EQ(FindVirtualHost(hosts, ".example.com"), nullptr);
  EXPECT_EQ(FindVirtualHost(hosts, "example.com"), nullptr);
  EXPECT_EQ(FindVirtualHost({}, "x"), nullptr);
}

// Issue 11 item 6: one table of domains against one route configuration,
// each case naming the rule it comes from: gRPC's xds_routing.cc
// (FindVirtualHostForDomain: match types EXACT < SUFFIX < PREFIX < UNIVERSE,
// INVALID never matches, longest pattern within a type, first on ties,
// lower-cased) and Envoy's route_components.proto VirtualHost.domains
// ("the longest wildcards match first", "the wildcard will not match the
// empty string", only a single "*").
TEST(VirtualHostSelectTest, DomainMatchingTable) {
  const std::vector<VirtualHost> hosts = {
      Host("universe", {"*"}),
      Host("bar-suffix", {"*-bar.foo.com"}),
      Host("foo-suffix", {"*.foo.com"}),
      Host("foo-prefix", {"foo-*"}),
      Host("long-prefix", {"foo-bar.example.*"}),
      Host("exact", {"www.foo.com"}),
      Host("invalid", {"a*b.com", ""}),
  };
  struct Case {
    const char* rule;
    const char* domain;
    const char* want;
  } const kCases[] = {
      {"exact beats every wildcard", "www.foo.com", "exact"},
      {"gRPC lower-cases both sides", "WWW.FOO.COM", "exact"},
      {"Envoy: *-bar.foo.com matches baz-bar.foo.com", "baz-bar.foo.com",
       "bar-suffix"},
      {"Envoy: longest suffix wildcard first", "x-bar.foo.com", "bar-suffix"},
      {"Envoy: the wildcard does not match the empty string", "-bar.foo.com",
       "foo-suffix"},
      {"suffix wildcard", "api.foo.com", "foo-suffix"},
      {"suffix needs one character before it", ".foo.com", "universe"},
      {"suffix (kind) beats a longer prefix", "foo-x.foo.com", "foo-suffix"},
      {"prefix wildcard", "foo-anything", "foo-prefix"},
      {"longest prefix wildcard first", "foo-bar.example.net", "long-prefix"},
      {"prefix needs one character after it", "foo-", "universe"},
      {"gRPC INVALID_MATCH: a '*' inside never matches", "a*b.com", "universe"},
      {"gRPC INVALID_MATCH: empty pattern never matches", "", "universe"},
      {"\"*\" takes the rest", "unrelated.example", "universe"},
  };
  for (const Case& c : kCases) {
    SCOPED_TRACE(c.rule);
    const VirtualHost* vh = FindVirtualHost(hosts, c.domain);
    ASSERT_NE(vh, nullptr);
    EXPECT_EQ(vh->name, c.want);
  }
  // Without "*", no match is no virtual host.
  EXPECT_EQ(FindVirtualHost({Host("x", {"a.com"})}, "b.com"), nullptr);
}

TEST(VirtualHostSelectTest, ClusterNamesInFirstAppearanceOrder) {
  VirtualHost vh = Host("vh", {"*"});
  Route a;
  RouteAction to_a;
  to_a.cluster = "a";
  a.action = to_a;
  Route weighted;
  RouteAction split;
  split.weighted_clusters = {{"b", 1}, {"a", 2}, {"c", 3}};
  weighted.action = split;
  Route served;
  served.action = NonForwardingAction{};
  vh.routes = {a, weighted, served, a};
  EXPECT_EQ(ClusterNamesOf(vh), (std::vector<std::string>{"a", "b", "c"}));
}

}  // namespace
}  // namespace resources
}  // namespace xdsfed
