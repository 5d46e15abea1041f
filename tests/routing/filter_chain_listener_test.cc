// FilterChainSelector over whole Listeners decoded by lib/resources, as the
// server runs it: A36 §FilterChainMatch (most specific destination prefix,
// then source type, source prefix, source port; else the default chain).
#include <optional>
#include <string>
#include <variant>

#include "absl/strings/str_cat.h"
#include "absl/strings/substitute.h"
#include "gtest/gtest.h"
#include "lib/resources/listener.h"
#include "lib/resources/proto_json.h"
#include "lib/routing/filter_chain_select.h"
#include "lib/routing/socket_address.h"

namespace xdsfed::routing {
namespace {

std::string Hcm(absl::string_view route) {
  return absl::Substitute(
      R"({"@type":"type.googleapis.com/envoy.extensions.filters.network.http_connection_manager.v3.HttpConnectionManager",
  "rds":{"config_source":{"ads":{}},"route_config_name":"$0"},
  "http_filters":[{"name":"router","typed_config":{
    "@type":"type.googleapis.com/envoy.extensions.filters.http.router.v3.Router"}}]})",
      route);
}

std::string Chain(absl::string_view route, absl::string_view match) {
  return absl::Substitute(
      R"({"filter_chain_match":$0,"filters":[{"name":"hcm","typed_config":$1}]})",
      match, Hcm(route));
}

std::shared_ptr<const resources::Listener> Decode(absl::string_view chains) {
  std::string json = absl::Substitute(
      R"({"name":"l","address":{"socket_address":{"address":"0.0.0.0","port_value":80}},
  "filter_chains":[$0],
  "default_filter_chain":{"filters":[{"name":"hcm","typed_config":$1}]}})",
      chains, Hcm("default"));
  auto bytes = resources::ProtoJsonToSerialized(
      json, "envoy.config.listener.v3.Listener");
  EXPECT_TRUE(bytes.ok()) << bytes.status();
  if (!bytes.ok()) return nullptr;
  const auto& type = resources::ListenerResourceType();
  resources::DecodeResult r = type.Decode({}, bytes->bytes);
  EXPECT_TRUE(r.value.ok()) << r.value.status();
  if (!r.value.ok()) return nullptr;
  return type.Cast(*r.value);
}

SocketAddress Addr(absl::string_view text) {
  std::optional<SocketAddress> a = SocketAddress::Parse(text);
  EXPECT_TRUE(a.has_value()) << text;
  return a.value_or(SocketAddress());
}

// The route name of the chain the connection gets ("default", "none").
std::string Selected(const resources::Listener& listener,
                     absl::string_view destination, absl::string_view source) {
  const auto& l = std::get<resources::ServerListener>(listener.listener);
  const SocketAddress peer = Addr(source);
  std::optional<size_t> i =
      FilterChainSelector(l).Select(Addr(destination), &peer);
  const resources::FilterChainData* chain =
      i.has_value()
          ? l.filter_chains.at(*i).get()
          : (l.default_filter_chain ? &*l.default_filter_chain : nullptr);
  if (chain == nullptr) return "none";
  return std::get<resources::HttpConnectionManager::Rds>(
             chain->http_connection_manager.route_config)
      .route_config_name;
}

TEST(FilterChainListenerTest, A36MostSpecificTable) {
  auto listener = Decode(absl::StrCat(
      Chain(
          "wide",
          R"({"prefix_ranges":[{"address_prefix":"10.0.0.0","prefix_len":8}]})"),
      ",",
      Chain(
          "narrow",
          R"({"prefix_ranges":[{"address_prefix":"10.1.2.0","prefix_len":24}]})"),
      ",",
      Chain("narrow-src",
            R"({"prefix_ranges":[{"address_prefix":"10.1.2.0","prefix_len":24}],
        "source_prefix_ranges":[{"address_prefix":"192.168.0.0","prefix_len":16}]})"),
      ",",
      Chain("narrow-src-port",
            R"({"prefix_ranges":[{"address_prefix":"10.1.2.0","prefix_len":24}],
        "source_prefix_ranges":[{"address_prefix":"192.168.0.0","prefix_len":16}],
        "source_ports":[443]})"),
      ",",
      Chain(
          "v6",
          R"({"prefix_ranges":[{"address_prefix":"fd00::","prefix_len":8}]})"),
      ",",
      Chain("loopback",
            R"({"prefix_ranges":[{"address_prefix":"127.0.0.0","prefix_len":8}],
        "source_type":"SAME_IP_OR_LOOPBACK"})")));
  ASSERT_NE(listener, nullptr);
  struct Case {
    const char* destination;
    const char* source;
    const char* want;
    const char* why;
  };
  const Case cases[] = {
      {"10.9.9.9:80", "1.2.3.4:1000", "wide", "only /8 contains it"},
      {"10.1.2.3:80", "1.2.3.4:1000", "narrow", "/24 beats /8"},
      {"10.1.2.3:80", "192.168.1.1:80", "narrow-src",
       "then the most specific source prefix"},
      {"10.1.2.3:80", "192.168.1.1:443", "narrow-src-port",
       "then the exact source port before any port"},
      {"11.0.0.1:80", "1.2.3.4:1000", "default", "no destination prefix"},
      {"[fd00::1]:80", "[fd00::2]:1000", "v6", "IPv6 prefix"},
      {"127.0.0.1:80", "127.0.0.1:1000", "loopback",
       "SAME_IP_OR_LOOPBACK for a loopback peer"},
      {"127.0.0.1:80", "10.0.0.1:1000", "default",
       "an external peer where only SAME_IP_OR_LOOPBACK is named: no chain"},
  };
  for (const Case& c : cases) {
    EXPECT_EQ(Selected(*listener, c.destination, c.source), c.want)
        << c.destination << " <- " << c.source << ": " << c.why;
  }
}

// The one source-type rule (A36 §FilterChainMatch: the standard matching
// logic, Envoy's FilterChainMatch documentation and grpc-go): a connection
// whose own source type has no chains falls back to the ANY chains. gRPC
// C-core 1.51 ("Use kAny only if kSameIporLoopback and kExternal are
// empty") gives the same-IP and loopback peers below no chain ("default").
TEST(FilterChainListenerTest, OwnSourceTypeWithoutChainsFallsBackToAny) {
  auto listener =
      Decode(absl::StrCat(Chain("any", "{}"), ",",
                          Chain("external", R"({"source_type":"EXTERNAL"})")));
  ASSERT_NE(listener, nullptr);
  struct Case {
    const char* destination;
    const char* source;
    const char* want;
    const char* why;
  };
  const Case cases[] = {
      {"10.0.0.1:80", "10.0.0.2:1", "external",
       "A36: EXTERNAL is more specific than ANY"},
      {"10.0.0.1:80", "10.0.0.1:1", "any",
       "Envoy/grpc-go: same IP, no SAME_IP_OR_LOOPBACK chain -> ANY"},
      {"10.0.0.1:80", "127.0.0.1:1", "any",
       "Envoy/grpc-go: loopback, no SAME_IP_OR_LOOPBACK chain -> ANY"},
  };
  for (const Case& c : cases) {
    EXPECT_EQ(Selected(*listener, c.destination, c.source), c.want)
        << c.destination << " <- " << c.source << ": " << c.why;
  }
}

// Longest source prefix among several lengths and both families.
TEST(FilterChainListenerTest, LongestSourcePrefixAcrossLengths) {
  auto src = [](absl::string_view ip, int len) {
    return absl::Substitute(
        R"({"source_prefix_ranges":[{"address_prefix":"$0","prefix_len":$1}]})",
        ip, len);
  };
  auto listener = Decode(absl::StrCat(Chain("s16", src("192.168.0.0", 16)), ",",
                                      Chain("s24", src("192.168.7.0", 24)), ",",
                                      Chain("s32", src("192.168.7.9", 32)), ",",
                                      Chain("v6-24", src("fd00::", 24))));
  ASSERT_NE(listener, nullptr);
  EXPECT_EQ(Selected(*listener, "10.0.0.1:80", "192.168.1.1:1"), "s16");
  EXPECT_EQ(Selected(*listener, "10.0.0.1:80", "192.168.7.1:1"), "s24");
  EXPECT_EQ(Selected(*listener, "10.0.0.1:80", "192.168.7.9:1"), "s32");
  EXPECT_EQ(Selected(*listener, "10.0.0.1:80", "192.169.0.1:1"), "default");
  EXPECT_EQ(Selected(*listener, "[fd00::1]:80", "[fd00:0:1::5]:1"), "v6-24");
  EXPECT_EQ(Selected(*listener, "[fd00::1]:80", "[fd01::5]:1"), "default");
}

}  // namespace
}  // namespace xdsfed::routing
