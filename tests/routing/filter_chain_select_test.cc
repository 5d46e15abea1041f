// Filter chain selection (lib/routing/filter_chain_select.h). Sources: A36
// §FilterChainMatch and §Connection and Request Handling (the "standard
// matching logic": Envoy's most-specific order, destination prefix -> source
// type -> source prefix -> source port; a source type without chains falls
// back to ANY, as Envoy and grpc-go), gRPC C-core 1.51
// xds_server_config_fetcher.cc and Envoy for what a loopback peer is.
#include "lib/routing/filter_chain_select.h"

#include <optional>
#include <string>
#include <vector>

#include "gtest/gtest.h"
#include "lib/base/validation_errors.h"
#include "tests/support/alloc_counter.h"

namespace xdsfed {
namespace routing {
namespace {

using resources::CidrRange;
using resources::ConnectionSourceType;
using resources::FilterChainMatch;

// "10.1.0.0/16" (already normalized) -> CidrRange.
CidrRange Cidr(const std::string& text) {
  const size_t slash = text.find('/');
  CidrRange c;
  c.address_prefix = text.substr(0, slash);
  c.prefix_len = static_cast<uint32_t>(std::stoul(text.substr(slash + 1)));
  c.ipv6 = c.address_prefix.find(':') != std::string::npos;
  return c;
}

struct ChainSpec {
  std::vector<std::string> dest;
  ConnectionSourceType type = ConnectionSourceType::kAny;
  std::vector<std::string> src;
  std::vector<uint32_t> ports;
  std::optional<uint32_t> destination_port;
  std::vector<std::string> server_names;
};

FilterChainSelector Build(const std::vector<ChainSpec>& specs) {
  std::vector<std::optional<FilterChainMatch>> matches;
  for (const ChainSpec& s : specs) {
    FilterChainMatch m;
    for (const auto& d : s.dest) m.prefix_ranges.push_back(Cidr(d));
    m.source_type = s.type;
    for (const auto& d : s.src) m.source_prefix_ranges.push_back(Cidr(d));
    m.source_ports = s.ports;
    m.destination_port = s.destination_port;
    m.server_names = s.server_names;
    matches.push_back(m);
  }
  ValidationErrors errors;
  resources::FilterChainMap map =
      resources::BuildFilterChainMap(matches, &errors);
  EXPECT_TRUE(errors.ok()) << errors.status("map").message();
  return FilterChainSelector(map);
}

constexpr auto kSame = ConnectionSourceType::kSameIpOrLoopback;
constexpr auto kExternal = ConnectionSourceType::kExternal;

TEST(FilterChainSelectTest, MostSpecificChainTable) {
  const FilterChainSelector selector = Build({
      /*0*/ {{"10.0.0.0/8"}},
      /*1*/ {{"10.1.0.0/16"}},
      /*2*/ {{"10.1.0.0/16"}, kSame},
      /*3*/ {{"10.1.0.0/16"}, ConnectionSourceType::kAny, {"192.168.0.0/16"}},
      /*4*/
      {{"10.1.0.0/16"}, ConnectionSourceType::kAny, {"192.168.1.0/24"}, {443}},
      /*5*/ {{}, kExternal},
      /*6*/ {{"fd00::/8"}},
      /*7*/ {{"10.2.0.0/16"}, ConnectionSourceType::kAny, {"1.2.3.4/32"}},
      /*8*/ {{"10.3.0.0/16"}, ConnectionSourceType::kAny, {}, {}, 1},
      /*9*/ {{"10.4.0.0/16"}, ConnectionSourceType::kAny, {}, {}, {}, {"a"}},
  });
  struct Case {
    const char* rule;
    const char* local;
    const char* peer;  // nullptr: unknown
    int want;          // chain index, -1: none
  };
  const Case kCases[] = {
      {"A36: longest destination prefix (/8)", "10.9.0.1:80", "8.8.8.8:1000",
       0},
      // The one source-type rule: A36 §FilterChainMatch "standard matching
      // logic" = Envoy's documented rule and grpc-go. (C-core 1.51 would
      // select nothing here: it uses ANY only when both specific types are
      // empty, and chain 2 names SAME_IP_OR_LOOPBACK.)
      {"A36/Envoy/grpc-go: no chain of the peer's type (EXTERNAL) -> ANY",
       "10.1.0.1:80", "8.8.8.8:1000", 1},
      {"A36: SAME_IP_OR_LOOPBACK beats ANY (peer 127.0.0.1)", "10.1.0.1:80",
       "127.0.0.1:1000", 2},
      {"A36: SAME_IP_OR_LOOPBACK (peer has the local address)", "10.1.0.1:80",
       "10.1.0.1:1000", 2},
      {"C-core IsLoopbackIp, Envoy isLoopbackAddress: only 127.0.0.1",
       "10.1.0.1:80", "127.0.0.2:1000", 1},
      {"A36: longest source prefix, then the exact source port", "10.1.0.1:80",
       "192.168.1.5:443", 4},
      {"Envoy: most specific source prefix has no such port: no match",
       "10.1.0.1:80", "192.168.1.5:80", -1},
      {"A36: a shorter source prefix", "10.1.0.1:80", "192.168.2.5:80", 3},
      {"A36: no destination prefix = any destination", "11.0.0.1:80",
       "8.8.8.8:1", 5},
      {"Envoy: neither the type nor ANY has a chain: no match", "11.0.0.1:80",
       "127.0.0.1:1", -1},
      {"A36: IPv6 prefix", "[fd00::1]:80", "[fd00::2]:5", 6},
      {"A36: no IPv6 prefix contains it: the entry without one", "[fe80::1]:80",
       "[fe80::2]:5", 5},
      {"A36: an IPv4 prefix never contains an IPv6 address (/0 either)",
       "[::a01:1]:80", "[fe80::2]:5", 5},
      {"Envoy: the most specific destination has no match: no fallback",
       "10.2.0.1:80", "8.8.8.8:1", -1},
      {"A36: destination_port chains are never selected (no entry)",
       "10.3.0.1:80", "8.8.8.8:1", 0},
      {"A36: server_names chains never match, their entry stays", "10.4.0.1:80",
       "8.8.8.8:1", -1},
      {"IPv4-mapped IPv6 addresses are IPv4", "[::ffff:10.1.0.1]:80",
       "[::ffff:192.168.1.5]:443", 4},
      {"CLI.md: unknown peer: EXTERNAL, no source constraints", "10.1.0.1:80",
       nullptr, 1},
      {"CLI.md: unknown peer, /8", "10.9.0.1:80", nullptr, 0},
  };
  for (const Case& c : kCases) {
    SCOPED_TRACE(c.rule);
    std::optional<SocketAddress> local = SocketAddress::Parse(c.local);
    ASSERT_TRUE(local.has_value());
    std::optional<SocketAddress> peer;
    if (c.peer != nullptr) {
      peer = SocketAddress::Parse(c.peer);
      ASSERT_TRUE(peer.has_value());
    }
    std::optional<size_t> got =
        selector.Select(*local, peer.has_value() ? &*peer : nullptr);
    EXPECT_EQ(got.has_value() ? static_cast<int>(*got) : -1, c.want);
  }
  // No chains at all: nothing selected (the default chain, else close).
  EXPECT_FALSE(FilterChainSelector().Select(*SocketAddress::Parse("10.0.0.1:1"),
                                            nullptr));
}

TEST(FilterChainSelectTest, SocketAddressParse) {
  struct Case {
    const char* in;
    const char* want;  // ToString, "" = rejected
  };
  const Case kCases[] = {
      {"10.0.0.1:80", "10.0.0.1:80"},
      {"[::1]:443", "[::1]:443"},
      {"[FD00:0::1]:0", "[fd00::1]:0"},
      {"[::ffff:1.2.3.4]:5", "1.2.3.4:5"},
      {"10.0.0.1:65535", "10.0.0.1:65535"},
      {"10.0.0.1:65536", ""},
      {"10.0.0.1:", ""},
      {"10.0.0.1", ""},
      {"10.0.0.1:+80", ""},
      {"::1:80", ""},
      {"[::1]80", ""},
      {"[10.0.0.1]:80", ""},
      {"localhost:80", ""},
      {"10.0.0.256:80", ""},
      {"", ""},
  };
  for (const Case& c : kCases) {
    SCOPED_TRACE(c.in);
    std::optional<SocketAddress> a = SocketAddress::Parse(c.in);
    EXPECT_EQ(a.has_value() ? a->ToString() : "", c.want);
  }
}

TEST(FilterChainSelectTest, SelectAllocatesNothing) {
  std::vector<ChainSpec> specs;
  for (int i = 0; i < 999; ++i) {
    specs.push_back({{},
                     ConnectionSourceType::kAny,
                     {"10." + std::to_string(i / 256) + "." +
                      std::to_string(i % 256) + ".0/24"}});
  }
  specs.push_back({{}, ConnectionSourceType::kAny, {"127.0.0.1/32"}});
  const FilterChainSelector selector = Build(specs);
  const SocketAddress local = *SocketAddress::Parse("127.0.0.1:50051");
  const SocketAddress peer = *SocketAddress::Parse("127.0.0.1:40000");
  ASSERT_EQ(selector.Select(local, &peer), std::optional<size_t>(999));
  const int64_t before = test_support::AllocationCount();
  for (int i = 0; i < 100; ++i) selector.Select(local, &peer);
  EXPECT_EQ(test_support::AllocationCount() - before, 0);
}

}  // namespace
}  // namespace routing
}  // namespace xdsfed
