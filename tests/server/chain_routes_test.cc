// ChainRoutes: A36 §Connection and Request Handling per RPC (virtual host by
// :authority, route by path and headers as on the client, then
// non_forwarding_action or UNAVAILABLE) and §Configuration Error Logging.
#include "lib/server/chain_routes.h"

#include <variant>

#include "absl/strings/str_cat.h"
#include "absl/strings/substitute.h"
#include "gtest/gtest.h"
#include "lib/resources/proto_json.h"
#include "tests/server/server_test_support.h"

namespace xdsfed::server {
namespace {

template <typename T>
std::shared_ptr<const T> DecodeJson(const resources::XdsResourceType<T>& type,
                                    absl::string_view type_name,
                                    absl::string_view json) {
  auto bytes = resources::ProtoJsonToSerialized(json, type_name);
  EXPECT_TRUE(bytes.ok()) << bytes.status();
  if (!bytes.ok()) return nullptr;
  resources::DecodeResult r = type.Decode({}, bytes->bytes);
  EXPECT_TRUE(r.value.ok()) << r.value.status();
  if (!r.value.ok()) return nullptr;
  return type.Cast(*r.value);
}

std::shared_ptr<const resources::Listener> Listener(absl::string_view chains,
                                                    absl::string_view deflt) {
  return DecodeJson(
      resources::ListenerResourceType(), "envoy.config.listener.v3.Listener",
      absl::Substitute(
          R"({"name":"l","address":{"socket_address":{"address":"127.0.0.1","port_value":80}},
  "filter_chains":[$0],"default_filter_chain":$1})",
          chains, deflt));
}

std::string ChainJson(absl::string_view route, absl::string_view match) {
  return absl::Substitute(
      R"({"filter_chain_match":$0,"filters":[{"name":"hcm","typed_config":$1}]})",
      match, testing::Hcm(route));
}

constexpr char kRoutes[] = R"({"name":"r","virtual_hosts":[
  {"name":"api","domains":["api.example.com"],"routes":[
    {"match":{"prefix":"/grpc.health.v1.Health/"},"non_forwarding_action":{}},
    {"match":{"prefix":"/forward/"},"route":{"cluster":"c"}},
    {"match":{"prefix":"/hdr/","headers":[{"name":"x-env","exact_match":"prod"}]},
     "non_forwarding_action":{}}]},
  {"name":"any","domains":["*"],"routes":[
    {"match":{"path":"/only.This/Method"},"non_forwarding_action":{}}]}]})";

std::shared_ptr<const resources::RouteConfig> Routes() {
  return DecodeJson(resources::RouteConfigResourceType(),
                    "envoy.config.route.v3.RouteConfiguration", kRoutes);
}

absl::Status Check(const ChainRoutes& routes, size_t chain,
                   absl::string_view authority, absl::string_view path,
                   const std::multimap<std::string, std::string>& headers) {
  std::string scratch;
  return routes.Check(
      chain, authority, path,
      [&](absl::string_view name, std::string* s) {
        return routing::JoinedHeaderValue(headers, name, s);
      },
      &scratch);
}

TEST(ChainRoutes, PerRpcTable) {
  auto listener =
      Listener("", absl::StrCat(R"({"filters":[{"name":"hcm","typed_config":)",
                                testing::Hcm("r"), "}]}"));
  ASSERT_NE(listener, nullptr);
  xds_config::ServerConfig config;
  config.listener = listener;
  config.route_configs["r"].route_config = Routes();
  std::vector<std::string> errors;
  auto routes = ChainRoutes::Build(
      std::get<resources::ServerListener>(listener->listener), config, &errors);
  // §Configuration Error Logging: the route with a `route` action.
  ASSERT_EQ(errors.size(), 1u);
  EXPECT_NE(errors[0].find("not non_forwarding_action"), std::string::npos);
  EXPECT_TRUE(routes->uniform());
  struct Case {
    const char* authority;
    const char* path;
    std::multimap<std::string, std::string> headers;
    bool ok;
    const char* why;
  };
  const Case cases[] = {
      {"api.example.com",
       "/grpc.health.v1.Health/Check",
       {},
       true,
       "prefix route, non_forwarding_action"},
      {"api.example.com",
       "/forward/x",
       {},
       false,
       "matched route's action is `route`"},
      {"api.example.com", "/nothing/x", {}, false, "no route matches"},
      {"api.example.com",
       "/hdr/x",
       {{"x-env", "prod"}},
       true,
       "header matcher passes"},
      {"api.example.com",
       "/hdr/x",
       {{"x-env", "dev"}},
       false,
       "header matcher fails"},
      {"other.example.com",
       "/only.This/Method",
       {},
       true,
       "wildcard virtual host, exact path"},
      {"other.example.com",
       "/grpc.health.v1.Health/Check",
       {},
       false,
       "the :authority picks the virtual host"},
  };
  for (const Case& c : cases) {
    absl::Status s = Check(*routes, 0, c.authority, c.path, c.headers);
    EXPECT_EQ(s.ok(), c.ok) << c.why << ": " << s;
    if (!c.ok) {
      EXPECT_EQ(s.code(), absl::StatusCode::kUnavailable) << c.why;
    }
  }
}

// A36: an RDS NACKed without a good version, missing or does-not-exist
// fails RPCs on its chain with UNAVAILABLE; other chains are unaffected.
TEST(ChainRoutes, BrokenRdsFailsOnlyItsChain) {
  auto listener =
      Listener(ChainJson("missing", R"({"source_ports":[7]})"),
               absl::StrCat(R"({"filters":[{"name":"hcm","typed_config":)",
                            testing::Hcm("r"), "}]}"));
  ASSERT_NE(listener, nullptr);
  xds_config::ServerConfig config;
  config.listener = listener;
  config.route_configs["r"].route_config = Routes();
  config.route_configs["missing"].status =
      absl::NotFoundError("does not exist");
  std::vector<std::string> errors;
  auto routes = ChainRoutes::Build(
      std::get<resources::ServerListener>(listener->listener), config, &errors);
  EXPECT_FALSE(routes->uniform());
  absl::Status broken =
      Check(*routes, 0, "api.example.com", "/grpc.health.v1.Health/Check", {});
  EXPECT_EQ(broken.code(), absl::StatusCode::kUnavailable);
  EXPECT_NE(broken.message().find("missing"), std::string::npos) << broken;
  EXPECT_TRUE(
      Check(*routes, 1, "api.example.com", "/grpc.health.v1.Health/Check", {})
          .ok());
  // Both the broken RDS and the `route` action are configuration errors.
  EXPECT_EQ(errors.size(), 2u);
}

// Inline route configs: chains repeating one HttpConnectionManager (one
// shared value) use one compiled table; a chain with another config gets its
// own, and each chain is checked against its own.
TEST(ChainRoutes, InlineConfigsPerChain) {
  auto inline_chain = [](absl::string_view prefix, int port) {
    return absl::Substitute(
        R"({"filter_chain_match":{"source_ports":[$0]},"filters":[{"name":"hcm","typed_config":{
  "@type":"type.googleapis.com/envoy.extensions.filters.network.http_connection_manager.v3.HttpConnectionManager",
  "route_config":{"name":"inline","virtual_hosts":[{"name":"vh","domains":["*"],
    "routes":[{"match":{"prefix":"$1"},"non_forwarding_action":{}}]}]},
  "http_filters":[{"name":"router","typed_config":{
    "@type":"type.googleapis.com/envoy.extensions.filters.http.router.v3.Router"}}]}}]})",
        port, prefix);
  };
  auto listener = Listener(
      absl::StrCat(inline_chain("/a/", 1), ",", inline_chain("/a/", 2), ",",
                   inline_chain("/b/", 3), ",", inline_chain("/a/", 4)),
      "null");
  ASSERT_NE(listener, nullptr);
  const auto& server = std::get<resources::ServerListener>(listener->listener);
  ASSERT_EQ(server.filter_chains.size(), 4u);
  EXPECT_EQ(server.filter_chains[0], server.filter_chains[1]);  // shared
  xds_config::ServerConfig config;
  config.listener = listener;
  std::vector<std::string> errors;
  auto routes = ChainRoutes::Build(server, config, &errors);
  EXPECT_TRUE(errors.empty());
  EXPECT_FALSE(routes->uniform());
  const char* const kAllowed[] = {"/a/", "/a/", "/b/", "/a/"};
  for (size_t chain = 0; chain < 4; ++chain) {
    for (const char* prefix : {"/a/", "/b/"}) {
      absl::Status s =
          Check(*routes, chain, "x", absl::StrCat(prefix, "M"), {});
      EXPECT_EQ(s.ok(), absl::string_view(prefix) == kAllowed[chain])
          << "chain " << chain << " path " << prefix << ": " << s;
    }
  }
}

// When every RPC passes (each chain's configuration has a "*" virtual host
// and every host's first route matches anything with non_forwarding_action),
// the server leaves the per-RPC check out; any case that can fail an RPC
// keeps it (A36 §Connection and Request Handling).
TEST(ChainRoutes, AllowsEveryRpcTable) {
  auto vh = [](absl::string_view domain, absl::string_view match,
               absl::string_view action) {
    return absl::Substitute(
        R"({"name":"vh-$0","domains":["$0"],"routes":[{"match":$1,$2}]})",
        domain, match, action);
  };
  const std::string kNf = R"("non_forwarding_action":{})";
  const std::string kAll = R"({"prefix":""})";
  struct Case {
    std::string virtual_hosts;  // of RDS "r", used by every chain
    bool rds_missing;
    bool allows;
    const char* why;
  };
  const Case cases[] = {
      {vh("*", kAll, kNf), false, true, "prefix \"\" on \"*\""},
      {vh("*", R"({"prefix":"/"})", kNf), false, true,
       "prefix \"/\" (gRPC paths start with /)"},
      {vh("*", R"({"prefix":"/","case_sensitive":false})", kNf), false, true,
       "case folding changes nothing for \"/\""},
      {vh("api.example.com", kAll, kNf), false, false,
       "no \"*\" host: an authority can find no virtual host"},
      {absl::StrCat(vh("api.example.com", kAll, kNf), ",", vh("*", kAll, kNf)),
       false, true, "every host passes everything"},
      {absl::StrCat(vh("api.example.com", R"({"prefix":"/a/"})", kNf), ",",
                    vh("*", kAll, kNf)),
       false, false, "a more specific host with a narrower route"},
      {vh("*", R"({"prefix":"/grpc."})", kNf), false, false,
       "a narrower prefix"},
      {vh("*", R"({"path":"/grpc.health.v1.Health/Check"})", kNf), false, false,
       "an exact path"},
      {vh("*", R"({"safe_regex":{"regex":".*"}})", kNf), false, false,
       "a regex (not recognised as matching everything)"},
      {vh("*", R"({"prefix":"","headers":[{"name":"x","present_match":true}]})",
          kNf),
       false, false, "a header matcher"},
      {vh("*",
          R"({"prefix":"","runtime_fraction":{"default_value":{"numerator":50}}})",
          kNf),
       false, false, "a runtime fraction below 100%"},
      {vh("*", kAll, R"("route":{"cluster":"c"})"), false, false,
       "a route action"},
      {vh("*", kAll, kNf), true, false, "the RDS resource does not exist"},
  };
  auto listener =
      Listener(ChainJson("r", R"({"source_ports":[7]})"),
               absl::StrCat(R"({"filters":[{"name":"hcm","typed_config":)",
                            testing::Hcm("r"), "}]}"));
  ASSERT_NE(listener, nullptr);
  for (const Case& c : cases) {
    xds_config::ServerConfig config;
    config.listener = listener;
    if (c.rds_missing) {
      config.route_configs["r"].status = absl::NotFoundError("does not exist");
    } else {
      config.route_configs["r"].route_config =
          DecodeJson(resources::RouteConfigResourceType(),
                     "envoy.config.route.v3.RouteConfiguration",
                     absl::StrCat(R"({"name":"r","virtual_hosts":[)",
                                  c.virtual_hosts, "]}"));
      ASSERT_NE(config.route_configs["r"].route_config, nullptr) << c.why;
    }
    std::vector<std::string> errors;
    auto routes = ChainRoutes::Build(
        std::get<resources::ServerListener>(listener->listener), config,
        &errors);
    EXPECT_EQ(routes->allows_every_rpc(), c.allows) << c.why;
  }
}

// One chain that can fail an RPC is enough to keep the check; the
// placeholder for an absent default chain (never selected) does not count.
TEST(ChainRoutes, AllowsEveryRpcNeedsEveryChain) {
  const std::string kOpen = R"({"name":"open","virtual_hosts":[
    {"name":"vh","domains":["*"],"routes":[{"match":{"prefix":""},"non_forwarding_action":{}}]}]})";
  const std::string kNarrow = R"({"name":"narrow","virtual_hosts":[
    {"name":"vh","domains":["*"],"routes":[{"match":{"prefix":"/a/"},"non_forwarding_action":{}}]}]})";
  auto route = [](const std::string& json) {
    return DecodeJson(resources::RouteConfigResourceType(),
                      "envoy.config.route.v3.RouteConfiguration", json);
  };
  struct Case {
    std::string chains;
    std::string default_chain;
    bool allows;
    const char* why;
  };
  const std::string kDefaultOpen =
      absl::StrCat(R"({"filters":[{"name":"hcm","typed_config":)",
                   testing::Hcm("open"), "}]}");
  const std::string kDefaultNarrow =
      absl::StrCat(R"({"filters":[{"name":"hcm","typed_config":)",
                   testing::Hcm("narrow"), "}]}");
  const Case cases[] = {
      {ChainJson("open", R"({"source_ports":[7]})"), "null", true,
       "one open chain, no default chain"},
      {absl::StrCat(ChainJson("open", R"({"source_ports":[7]})"), ",",
                    ChainJson("narrow", R"({"source_ports":[8]})")),
       kDefaultOpen, false, "the second chain is narrow"},
      {ChainJson("open", R"({"source_ports":[7]})"), kDefaultNarrow, false,
       "the default chain is narrow"},
      {ChainJson("open", R"({"source_ports":[7]})"), kDefaultOpen, true,
       "open chain and open default chain"},
  };
  for (const Case& c : cases) {
    auto listener = Listener(c.chains, c.default_chain);
    ASSERT_NE(listener, nullptr) << c.why;
    xds_config::ServerConfig config;
    config.listener = listener;
    config.route_configs["open"].route_config = route(kOpen);
    config.route_configs["narrow"].route_config = route(kNarrow);
    std::vector<std::string> errors;
    auto routes = ChainRoutes::Build(
        std::get<resources::ServerListener>(listener->listener), config,
        &errors);
    EXPECT_EQ(routes->allows_every_rpc(), c.allows) << c.why;
  }
}

// A41 / A39 per RPC: after routing, the chain's RBAC filters run in order,
// each with the route's RBACPerRoute, else the virtual host's, else its
// own config.
TEST(ChainRoutes, RbacFiltersAndOverrides) {
  auto rbac = [](absl::string_view name, absl::string_view json) {
    return absl::StrCat(
        R"({"name":")", name,
        R"(","typed_config":{"@type":"type.googleapis.com/envoy.extensions.filters.http.rbac.v3.RBAC",)",
        json.substr(1), "}");
  };
  auto per_route = [](absl::string_view json) {
    return absl::StrCat(
        R"({"@type":"type.googleapis.com/envoy.extensions.filters.http.rbac.v3.RBACPerRoute",)",
        json.substr(1));
  };
  // Filter "a" denies paths under /deny/; filter "b" allows only x-user:
  // alice.
  const std::string hcm = absl::StrCat(
      R"({"@type":"type.googleapis.com/envoy.extensions.filters.network.http_connection_manager.v3.HttpConnectionManager",
  "rds":{"config_source":{"ads":{}},"route_config_name":"r"},"http_filters":[)",
      rbac("a", R"({"rules":{"action":"DENY","policies":{"deny-path":{
        "permissions":[{"url_path":{"path":{"prefix":"/deny/"}}}],
        "principals":[{"any":true}]}}}})"),
      ",", rbac("b", R"({"rules":{"policies":{"alice":{
        "permissions":[{"any":true}],
        "principals":[{"header":{"name":"x-user","exact_match":"alice"}}]}}}})"),
      R"(,{"name":"router","typed_config":{"@type":"type.googleapis.com/envoy.extensions.filters.http.router.v3.Router"}}]})");
  auto listener = Listener(
      "",
      absl::StrCat(R"({"filters":[{"name":"hcm","typed_config":)", hcm, "}]}"));
  ASSERT_NE(listener, nullptr);
  // Virtual host "open" disables "b"; its route /strict/ puts "b" back with
  // a DENY-nothing-but-bob override, showing the route wins over the host.
  const std::string routes_json = absl::StrCat(
      R"({"name":"r","virtual_hosts":[
  {"name":"open","domains":["open.example.com"],
   "typed_per_filter_config":{"b":)",
      per_route("{}"), R"(},
   "routes":[
    {"match":{"prefix":"/strict/"},"non_forwarding_action":{},
     "typed_per_filter_config":{"b":)",
      per_route(R"({"rbac":{"rules":{"action":"DENY","policies":{"bob":{
        "permissions":[{"any":true}],
        "principals":[{"header":{"name":"x-user","exact_match":"bob"}}]}}}}})"),
      R"(}},
    {"match":{"prefix":""},"non_forwarding_action":{}}]},
  {"name":"any","domains":["*"],"routes":[
    {"match":{"prefix":""},"non_forwarding_action":{}}]}]})");
  xds_config::ServerConfig config;
  config.listener = listener;
  config.route_configs["r"].route_config =
      DecodeJson(resources::RouteConfigResourceType(),
                 "envoy.config.route.v3.RouteConfiguration", routes_json);
  ASSERT_NE(config.route_configs["r"].route_config, nullptr);
  std::vector<std::string> errors;
  auto routes = ChainRoutes::Build(
      std::get<resources::ServerListener>(listener->listener), config, &errors);
  EXPECT_TRUE(errors.empty());
  EXPECT_TRUE(routes->has_rbac());
  EXPECT_FALSE(routes->allows_every_rpc());
  struct Case {
    const char* why;
    const char* authority;
    const char* path;
    std::multimap<std::string, std::string> headers;
    const char* want;  // "" = OK
  };
  const Case cases[] = {
      {"both filters pass",
       "x.example.com",
       "/svc/M",
       {{"x-user", "alice"}},
       ""},
      {"filter b (ALLOW): no policy matches",
       "x.example.com",
       "/svc/M",
       {},
       "RBAC: access denied: no policy matched"},
      {"filter a (DENY) runs first and names its policy",
       "x.example.com",
       "/deny/M",
       {{"x-user", "alice"}},
       "RBAC: access denied by policy \"deny-path\""},
      {"A39: the host's RBACPerRoute without rbac disables b there",
       "open.example.com",
       "/svc/M",
       {},
       ""},
      {"...but not a, which it does not name",
       "open.example.com",
       "/deny/M",
       {},
       "RBAC: access denied by policy \"deny-path\""},
      {"A39: the route's override wins over the host's",
       "open.example.com",
       "/strict/M",
       {{"x-user", "bob"}},
       "RBAC: access denied by policy \"bob\""},
      {"...and lets others through", "open.example.com", "/strict/M", {}, ""},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.why);
    absl::Status s = Check(*routes, 0, c.authority, c.path, c.headers);
    if (c.want[0] == '\0') {
      EXPECT_TRUE(s.ok()) << s;
    } else {
      EXPECT_EQ(s.code(), absl::StatusCode::kPermissionDenied) << s;
      EXPECT_EQ(s.message(), c.want);
    }
  }
}

}  // namespace
}  // namespace xdsfed::server
