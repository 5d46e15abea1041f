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
  vh.domains = std::move(domains);
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
