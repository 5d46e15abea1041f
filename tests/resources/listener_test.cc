// Listener decoding and validation (lib/resources/listener.h): the client
// (api_listener) rules of gRPC 1.51 xds_listener.cc and the server rules of
// A36 §Resource Validation and §FilterChainMatch.
#include "lib/resources/listener.h"

#include <atomic>
#include <functional>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "envoy/config/listener/v3/listener.pb.h"
#include "envoy/extensions/filters/http/rbac/v3/rbac.pb.h"
#include "envoy/extensions/filters/http/router/v3/router.pb.h"
#include "envoy/extensions/filters/network/http_connection_manager/v3/http_connection_manager.pb.h"
#include "envoy/extensions/transport_sockets/tls/v3/tls.pb.h"
#include "google/protobuf/util/json_util.h"
#include "gtest/gtest.h"
#include "lib/resources/resource_type.h"

namespace xdsfed {
namespace resources {
namespace {

namespace listener_pb = envoy::config::listener::v3;
namespace hcm_pb =
    envoy::extensions::filters::network::http_connection_manager::v3;
namespace tls_pb = envoy::extensions::transport_sockets::tls::v3;
using envoy::extensions::filters::http::router::v3::Router;

constexpr char kHcmValue[] =
    "value[envoy.extensions.filters.network.http_connection_manager.v3."
    "HttpConnectionManager]";

hcm_pb::HttpConnectionManager BaseHcm() {
  hcm_pb::HttpConnectionManager hcm;
  auto* rds = hcm.mutable_rds();
  rds->mutable_config_source()->mutable_ads();
  rds->set_route_config_name("rc");
  auto* router = hcm.add_http_filters();
  router->set_name("router");
  router->mutable_typed_config()->PackFrom(Router());
  return hcm;
}

listener_pb::Listener ClientListener(const hcm_pb::HttpConnectionManager& hcm) {
  listener_pb::Listener l;
  l.set_name("l");
  l.mutable_api_listener()->mutable_api_listener()->PackFrom(hcm);
  return l;
}

DecodeResult DecodeProto(const listener_pb::Listener& l) {
  return ListenerResourceType().Decode({}, l.SerializeAsString());
}

std::string ErrorOf(const listener_pb::Listener& l) {
  DecodeResult r = DecodeProto(l);
  if (r.value.ok()) return "ok";
  EXPECT_EQ(r.value.status().code(), absl::StatusCode::kInvalidArgument);
  return std::string(r.value.status().message());
}

const Listener& ValueOf(const DecodeResult& r) {
  return *XdsResourceType<Listener>::Cast(r.value->get());
}

std::string ToJsonText(const DecodeResult& r) {
  Json::StreamWriterBuilder builder;
  builder["indentation"] = "";
  return Json::writeString(builder,
                           ListenerResourceType().ToJson(r.value->get()));
}

TEST(ListenerTest, TypeMetadata) {
  const ResourceType& t = ListenerResourceType();
  EXPECT_EQ(t.type_url(),
            "type.googleapis.com/envoy.config.listener.v3.Listener");
  EXPECT_EQ(t.short_name(), "Listener");
  EXPECT_TRUE(t.all_resources_required_in_sotw());
}

TEST(ListenerTest, UndecodableBytes) {
  DecodeResult r =
      ListenerResourceType().Decode({}, std::string("\x0a\xff", 2));
  EXPECT_EQ(r.name, "");
  EXPECT_EQ(r.value.status().message(),
            "cannot decode Listener: not a serialized "
            "envoy.config.listener.v3.Listener");
}

TEST(ListenerTest, NeitherApiListenerNorAddress) {
  listener_pb::Listener l;
  l.set_name("l");
  EXPECT_EQ(ErrorOf(l),
            "errors validating Listener: [field:api_listener error:neither "
            "api_listener nor address is set]");
  EXPECT_EQ(DecodeProto(l).name, "l");
}

// gRPC 1.51 HttpConnectionManagerParse; A47: config_source ads or self;
// xdstp: names kept verbatim.
TEST(ListenerTest, ClientRdsAndJson) {
  hcm_pb::HttpConnectionManager hcm = BaseHcm();
  hcm.mutable_rds()->mutable_config_source()->mutable_self();
  hcm.mutable_rds()->set_route_config_name(
      "xdstp://a.com/envoy.config.route.v3.RouteConfiguration/r");
  hcm.mutable_common_http_protocol_options()
      ->mutable_max_stream_duration()
      ->set_seconds(5);
  DecodeResult r = DecodeProto(ClientListener(hcm));
  ASSERT_TRUE(r.value.ok()) << r.value.status();
  EXPECT_EQ(
      ToJsonText(r),
      R"({"api_listener":{"http_connection_manager":{"http_filters":[)"
      R"({"config_type":"envoy.extensions.filters.http.router.v3.Router",)"
      R"("name":"router"}],"http_max_stream_duration":"5s","rds":)"
      R"({"route_config_name":"xdstp://a.com/envoy.config.route.v3.)"
      R"(RouteConfiguration/r"}}},"name":"l"})");
  EXPECT_TRUE(ListenerResourceType().Equal(r.value->get(), r.value->get()));
}

TEST(ListenerTest, ClientInlineRouteConfig) {
  hcm_pb::HttpConnectionManager hcm = BaseHcm();
  auto* rc = hcm.mutable_route_config();
  rc->set_name("inline");
  auto* vh = rc->add_virtual_hosts();
  vh->add_domains("*");
  auto* route = vh->add_routes();
  route->mutable_match()->set_prefix("");
  route->mutable_route()->set_cluster("c");
  DecodeResult r = DecodeProto(ClientListener(hcm));
  ASSERT_TRUE(r.value.ok()) << r.value.status();
  const auto& api = std::get<ApiListener>(ValueOf(r).listener);
  const auto& config =
      std::get<RouteConfig>(api.http_connection_manager.route_config);
  EXPECT_EQ(config.name, "inline");
  EXPECT_EQ(config.virtual_hosts.size(), 1u);
}

// gRPC 1.51: an unknown HTTP filter marked is_optional is skipped (A39).
TEST(ListenerTest, OptionalFiltersSkipped) {
  hcm_pb::HttpConnectionManager hcm = BaseHcm();
  auto* unknown = hcm.add_http_filters();
  unknown->set_name("unknown");
  unknown->set_is_optional(true);
  unknown->mutable_typed_config()->set_type_url("type.googleapis.com/foo.Bar");
  auto* missing = hcm.add_http_filters();
  missing->set_name("no_config");
  missing->set_is_optional(true);
  // The router must stay last among the kept filters.
  hcm.mutable_http_filters()->SwapElements(0, 2);
  hcm.mutable_http_filters()->SwapElements(0, 1);
  DecodeResult r = DecodeProto(ClientListener(hcm));
  ASSERT_TRUE(r.value.ok()) << r.value.status();
  const auto& api = std::get<ApiListener>(ValueOf(r).listener);
  ASSERT_EQ(api.http_connection_manager.http_filters.size(), 1u);
  EXPECT_EQ(api.http_connection_manager.http_filters[0].name, "router");
}

// Client HCM errors: each row is a gRPC 1.51 xds_listener.cc rule
// (HttpConnectionManagerParse) unless noted.
TEST(ListenerTest, ClientErrors) {
  using Mutate = std::function<void(hcm_pb::HttpConnectionManager*)>;
  struct Case {
    const char* what;
    Mutate mutate;
    std::string want;  // after "field:api_listener.api_listener.<kHcmValue>"
  };
  const Case kCases[] = {
      {"no filters", [](auto* h) { h->clear_http_filters(); },
       ".http_filters error:expected at least one HTTP filter]"},
      {"unknown filter, not optional",
       [](auto* h) {
         auto* f = h->add_http_filters();
         f->set_name("f");
         f->mutable_typed_config()->set_type_url("type.googleapis.com/foo.Bar");
         h->mutable_http_filters()->SwapElements(0, 1);
       },
       ".http_filters[0].typed_config error:unsupported filter type foo.Bar]"},
      {"unknown filter in TypedStruct, not optional",
       [](auto* h) {
         auto* f = h->add_http_filters();
         f->set_name("f");
         // TypedStruct{type_url: "type.googleapis.com/foo.Baz"}
         f->mutable_typed_config()->set_type_url(
             "type.googleapis.com/xds.type.v3.TypedStruct");
         std::string inner = "type.googleapis.com/foo.Baz";
         f->mutable_typed_config()->set_value(
             std::string("\x0a", 1) + static_cast<char>(inner.size()) + inner);
         h->mutable_http_filters()->SwapElements(0, 1);
       },
       ".http_filters[0].typed_config error:unsupported filter type foo.Baz]"},
      {"missing typed_config",
       [](auto* h) { h->mutable_http_filters(0)->clear_typed_config(); },
       ".http_filters error:expected at least one HTTP filter; field:"
       "api_listener.api_listener." +
           std::string(kHcmValue) +
           ".http_filters[0].typed_config error:field not present]"},
      {"empty and duplicate names",
       [](auto* h) {
         h->add_http_filters()->set_name("router");
         h->add_http_filters();
       },
       ".http_filters[1].name error:duplicate HTTP filter name: router; "
       "field:api_listener.api_listener." +
           std::string(kHcmValue) +
           ".http_filters[2].name error:must be "
           "non-empty]"},
      {"A41: xff_num_trusted_hops must be 0",
       [](auto* h) { h->set_xff_num_trusted_hops(1); },
       ".xff_num_trusted_hops error:must be zero]"},
      {"A41: original_ip_detection_extensions must be empty",
       [](auto* h) {
         h->add_original_ip_detection_extensions()->set_name("x");
       },
       ".original_ip_detection_extensions error:must be empty]"},
      {"router not last",
       [](auto* h) {
         auto* f = h->add_http_filters();
         f->set_name("router2");
         f->mutable_typed_config()->PackFrom(Router());
       },
       ".http_filters[0] error:terminal filter for config type "
       "envoy.extensions.filters.http.router.v3.Router must be the last "
       "filter in the chain]"},
      {"undecodable router config",
       [](auto* h) {
         h->mutable_http_filters(0)->mutable_typed_config()->set_value("\xff");
       },
       ".http_filters error:expected at least one HTTP filter; field:"
       "api_listener.api_listener." +
           std::string(kHcmValue) +
           ".http_filters[0].typed_config.value[envoy.extensions.filters."
           "http.router.v3.Router] error:cannot decode Router]"},
      {"rds without config_source",
       [](auto* h) { h->mutable_rds()->clear_config_source(); },
       ".rds.config_source error:field not present]"},
      {"rds with api_config_source (A47: ads or self only)",
       [](auto* h) {
         h->mutable_rds()->mutable_config_source()->mutable_api_config_source();
       },
       ".rds.config_source error:ConfigSource does not specify ads or self]"},
      {"neither rds nor route_config",
       [](auto* h) { h->mutable_scoped_routes(); },
       " error:neither route_config nor rds is set]"},
      {"inline route_config validated",
       [](auto* h) { h->mutable_route_config()->add_virtual_hosts(); },
       ".route_config.virtual_hosts[0].domains error:must be non-empty; "
       "field:api_listener.api_listener." +
           std::string(kHcmValue) +
           ".route_config.virtual_hosts[0].routes error:must be non-empty]"},
      {"bad max_stream_duration",
       [](auto* h) {
         h->mutable_common_http_protocol_options()
             ->mutable_max_stream_duration()
             ->set_nanos(-1);
       },
       ".common_http_protocol_options.max_stream_duration.nanos error:value "
       "must be in the range [0, 999999999]]"},
  };
  for (const Case& c : kCases) {
    SCOPED_TRACE(c.what);
    hcm_pb::HttpConnectionManager hcm = BaseHcm();
    c.mutate(&hcm);
    EXPECT_EQ(ErrorOf(ClientListener(hcm)),
              "errors validating Listener: [field:api_listener.api_listener." +
                  std::string(kHcmValue) + c.want);
  }
}

TEST(ListenerTest, ClientApiListenerErrors) {
  struct Case {
    const char* what;
    std::function<void(listener_pb::Listener*)> mutate;
    std::string want;
  };
  const Case kCases[] = {
      {"empty api_listener",
       [](auto* l) { l->mutable_api_listener()->clear_api_listener(); },
       "[field:api_listener.api_listener error:field not present]"},
      {"not an HCM",
       [](auto* l) {
         l->mutable_api_listener()->mutable_api_listener()->PackFrom(Router());
       },
       "[field:api_listener.api_listener.type_url error:unsupported filter "
       "type envoy.extensions.filters.http.router.v3.Router: expected "
       "envoy.extensions.filters.network.http_connection_manager.v3."
       "HttpConnectionManager]"},
      {"undecodable HCM",
       [](auto* l) {
         l->mutable_api_listener()->mutable_api_listener()->set_value("\x0a");
       },
       "[field:api_listener.api_listener." + std::string(kHcmValue) +
           " error:cannot decode HttpConnectionManager]"},
  };
  for (const Case& c : kCases) {
    SCOPED_TRACE(c.what);
    listener_pb::Listener l = ClientListener(BaseHcm());
    c.mutate(&l);
    EXPECT_EQ(ErrorOf(l), "errors validating Listener: " + c.want);
  }
}

// ------------------------------------------------------------- server

listener_pb::FilterChain Chain() {
  listener_pb::FilterChain chain;
  hcm_pb::HttpConnectionManager hcm = BaseHcm();
  auto* filter = chain.add_filters();
  filter->set_name("hcm");
  filter->mutable_typed_config()->PackFrom(hcm);
  return chain;
}

listener_pb::Listener ServerListenerProto() {
  listener_pb::Listener l;
  l.set_name("s");
  auto* address = l.mutable_address()->mutable_socket_address();
  address->set_address("0.0.0.0");
  address->set_port_value(8080);
  *l.add_filter_chains() = Chain();
  return l;
}

void AddCidr(google::protobuf::RepeatedPtrField<
                 envoy::config::core::v3::CidrRange>* list,
             const std::string& address, int prefix_len /* -1: absent */) {
  auto* range = list->Add();
  range->set_address_prefix(address);
  if (prefix_len >= 0) range->mutable_prefix_len()->set_value(prefix_len);
}

TEST(ListenerTest, ServerBasic) {
  listener_pb::Listener l = ServerListenerProto();
  *l.mutable_default_filter_chain() = Chain();
  DecodeResult r = DecodeProto(l);
  ASSERT_TRUE(r.value.ok()) << r.value.status();
  const auto& server = std::get<ServerListener>(ValueOf(r).listener);
  EXPECT_EQ(server.address, "0.0.0.0:8080");
  ASSERT_EQ(server.filter_chains.size(), 1u);
  EXPECT_TRUE(server.default_filter_chain.has_value());
  ASSERT_EQ(server.filter_chain_map.destination_ips.size(), 1u);
  const auto& dest = server.filter_chain_map.destination_ips[0];
  EXPECT_FALSE(dest.prefix_range.has_value());
  ASSERT_EQ(dest.source_types[0].size(), 1u);
  EXPECT_EQ(dest.source_types[0][0].ports,
            (std::map<uint32_t, size_t>{{0, 0}}));
  EXPECT_EQ(
      ToJsonText(r),
      R"({"name":"s","server_listener":{"address":"0.0.0.0:8080",)"
      R"("default_filter_chain":{"has_downstream_tls_context":false,)"
      R"("http_connection_manager":{"http_filters":[{"config_type":)"
      R"("envoy.extensions.filters.http.router.v3.Router","name":"router"}],)"
      R"("rds":{"route_config_name":"rc"}}},"filter_chain_map":[)"
      R"({"prefix_range":null,"source_types":{"any":[{"ports":{"0":0},)"
      R"("prefix_range":null}],"external":[],"same_ip_or_loopback":[]}}],)"
      R"("filter_chains":[{"has_downstream_tls_context":false,)"
      R"("http_connection_manager":{"http_filters":[{"config_type":)"
      R"("envoy.extensions.filters.http.router.v3.Router","name":"router"}],)"
      R"("rds":{"route_config_name":"rc"}}}]}})");
}

TEST(ListenerTest, ServerIpv6Address) {
  listener_pb::Listener l = ServerListenerProto();
  l.mutable_address()->mutable_socket_address()->set_address("::");
  DecodeResult r = DecodeProto(l);
  ASSERT_TRUE(r.value.ok()) << r.value.status();
  EXPECT_EQ(std::get<ServerListener>(ValueOf(r).listener).address, "[::]:8080");
}

// A36 §FilterChainMatch: CIDR normalization (clamp, absent = 0, mask).
TEST(ListenerTest, CidrNormalization) {
  struct Case {
    const char* address;
    int prefix_len;  // -1 absent
    const char* want;
  };
  const Case kCases[] = {
      {"192.168.1.77", 24, "192.168.1.0/24"},
      {"10.1.2.3", 8, "10.0.0.0/8"},
      {"10.1.2.3", 33, "10.1.2.3/32"},
      {"10.1.2.3", 1000, "10.1.2.3/32"},
      {"10.1.2.3", -1, "0.0.0.0/0"},
      {"10.1.2.3", 0, "0.0.0.0/0"},
      {"10.255.255.255", 9, "10.128.0.0/9"},
      {"2001:db8::1", 32, "2001:db8::/32"},
      {"2001:db8:ffff::1", 47, "2001:db8:fffe::/47"},
      {"2001:db8::1", 129, "2001:db8::1/128"},
      {"::1", -1, "::/0"},
      {"::ffff:10.1.2.3", 104, "::ffff:10.0.0.0/104"},
  };
  for (const Case& c : kCases) {
    SCOPED_TRACE(std::string(c.address) + "/" + std::to_string(c.prefix_len));
    for (bool source : {false, true}) {
      listener_pb::Listener l = ServerListenerProto();
      auto* match = l.mutable_filter_chains(0)->mutable_filter_chain_match();
      AddCidr(source ? match->mutable_source_prefix_ranges()
                     : match->mutable_prefix_ranges(),
              c.address, c.prefix_len);
      DecodeResult r = DecodeProto(l);
      ASSERT_TRUE(r.value.ok()) << r.value.status();
      const auto& dest = std::get<ServerListener>(ValueOf(r).listener)
                             .filter_chain_map.destination_ips.at(0);
      const auto& range =
          source ? dest.source_types[0].at(0).prefix_range : dest.prefix_range;
      ASSERT_TRUE(range.has_value());
      EXPECT_EQ(range->ToString(), c.want);
    }
  }
}

// A36 §FilterChainMatch: duplicates after normalization NACK the Listener,
// including chains that can never match ("it must still be checked").
TEST(ListenerTest, DuplicateDetection) {
  using Match = listener_pb::FilterChainMatch;
  struct Case {
    const char* what;
    std::function<void(Match*)> first, second;
    std::string want;  // "" = valid
  };
  const std::string dup =
      "errors validating Listener: [field:filter_chains[1].filter_chain_match "
      "error:duplicate matching rules detected when adding filter chain: ";
  const Case kCases[] = {
      {"both empty", [](Match*) {}, [](Match*) {}, dup + "{}]"},
      {"same CIDR after masking",
       [](Match* m) { AddCidr(m->mutable_prefix_ranges(), "10.1.0.0", 16); },
       [](Match* m) { AddCidr(m->mutable_prefix_ranges(), "10.1.9.9", 16); },
       dup + "{prefix_ranges={10.1.0.0/16}}]"},
      {"same CIDR after clamping",
       [](Match* m) { AddCidr(m->mutable_prefix_ranges(), "10.1.0.1", 32); },
       [](Match* m) { AddCidr(m->mutable_prefix_ranges(), "10.1.0.1", 40); },
       dup + "{prefix_ranges={10.1.0.1/32}}]"},
      {"absent prefix_len equals 0",
       [](Match* m) {
         AddCidr(m->mutable_source_prefix_ranges(), "1.2.3.4", -1);
       },
       [](Match* m) {
         AddCidr(m->mutable_source_prefix_ranges(), "9.9.9.9", 0);
       },
       dup + "{source_prefix_ranges={0.0.0.0/0}}]"},
      {"prefix_len 0 differs from unset CIDR",
       [](Match* m) { AddCidr(m->mutable_prefix_ranges(), "0.0.0.0", 0); },
       [](Match*) {}, ""},
      {"IPv4 /0 differs from IPv6 /0",
       [](Match* m) { AddCidr(m->mutable_prefix_ranges(), "0.0.0.0", 0); },
       [](Match* m) { AddCidr(m->mutable_prefix_ranges(), "::", 0); }, ""},
      {"Cartesian product overlaps in one element",
       [](Match* m) {
         AddCidr(m->mutable_prefix_ranges(), "192.168.0.0", 24);
         AddCidr(m->mutable_prefix_ranges(), "10.1.0.0", 16);
         AddCidr(m->mutable_source_prefix_ranges(), "192.168.1.0", 24);
         AddCidr(m->mutable_source_prefix_ranges(), "10.2.0.0", 16);
         m->set_source_type(Match::EXTERNAL);
       },
       [](Match* m) {
         AddCidr(m->mutable_prefix_ranges(), "10.1.0.0", 16);
         AddCidr(m->mutable_source_prefix_ranges(), "10.2.0.0", 16);
         m->set_source_type(Match::EXTERNAL);
       },
       dup + "{prefix_ranges={10.1.0.0/16}, source_type=EXTERNAL, "
             "source_prefix_ranges={10.2.0.0/16}}]"},
      {"different source type",
       [](Match* m) { m->set_source_type(Match::EXTERNAL); },
       [](Match* m) { m->set_source_type(Match::SAME_IP_OR_LOOPBACK); }, ""},
      {"source ports overlap",
       [](Match* m) {
         m->add_source_ports(1);
         m->add_source_ports(2);
       },
       [](Match* m) {
         m->add_source_ports(3);
         m->add_source_ports(2);
       },
       dup + "{source_ports={3, 2}}]"},
      {"source port 0 is \"any port\" (C-core / Envoy port map key)",
       [](Match* m) { m->add_source_ports(0); }, [](Match*) {}, dup + "{}]"},
      {"source port 0 among others overlaps no ports", [](Match*) {},
       [](Match* m) {
         m->add_source_ports(443);
         m->add_source_ports(0);
       },
       dup + "{source_ports={443, 0}}]"},
      {"never-matching chains (destination_port) are still checked",
       [](Match* m) { m->mutable_destination_port()->set_value(80); },
       [](Match* m) { m->mutable_destination_port()->set_value(80); },
       dup + "{destination_port=80}]"},
      {"never-matching chains (server_names) are still checked",
       [](Match* m) { m->add_server_names("a"); },
       [](Match* m) {
         m->add_server_names("b");
         m->add_server_names("a");
       },
       dup + "{server_names={b, a}}]"},
      {"never-matching chains (transport_protocol) are still checked",
       [](Match* m) { m->set_transport_protocol("tls"); },
       [](Match* m) { m->set_transport_protocol("tls"); },
       dup + "{transport_protocol=tls}]"},
      {"never-matching chains (application_protocols) are still checked",
       [](Match* m) { m->add_application_protocols("h2"); },
       [](Match* m) { m->add_application_protocols("h2"); },
       dup + "{application_protocols={h2}}]"},
      {"different server names are distinct matchers",
       [](Match* m) { m->add_server_names("a"); },
       [](Match* m) { m->add_server_names("b"); }, ""},
      {"destination_port set vs unset are distinct",
       [](Match* m) { m->mutable_destination_port()->set_value(80); },
       [](Match*) {}, ""},
      {"raw_buffer vs empty transport_protocol are distinct",
       [](Match* m) { m->set_transport_protocol("raw_buffer"); }, [](Match*) {},
       ""},
  };
  for (const Case& c : kCases) {
    SCOPED_TRACE(c.what);
    listener_pb::Listener l = ServerListenerProto();
    *l.add_filter_chains() = Chain();
    c.first(l.mutable_filter_chains(0)->mutable_filter_chain_match());
    c.second(l.mutable_filter_chains(1)->mutable_filter_chain_match());
    EXPECT_EQ(ErrorOf(l), c.want.empty() ? "ok" : c.want);
  }
}

TEST(ListenerTest, DuplicateWithinOneChain) {
  // gRPC 1.51 (AddFilterChainDataForSourcePort) also rejects a chain that
  // repeats itself after normalization.
  listener_pb::Listener l = ServerListenerProto();
  auto* m = l.mutable_filter_chains(0)->mutable_filter_chain_match();
  AddCidr(m->mutable_prefix_ranges(), "10.0.0.1", 8);
  AddCidr(m->mutable_prefix_ranges(), "10.0.0.2", 8);
  EXPECT_EQ(ErrorOf(l),
            "errors validating Listener: [field:filter_chains[0]."
            "filter_chain_match error:duplicate matching rules detected when "
            "adding filter chain: {prefix_ranges={10.0.0.0/8, 10.0.0.0/8}}]");
}

// A36 §FilterChainMatch: chains that can never match are pruned from the
// map; a destination entry stays (most specific destination first, as in
// Envoy and C-core); raw_buffer beats an empty transport_protocol.
TEST(ListenerTest, MapPruning) {
  listener_pb::Listener l = ServerListenerProto();
  // 0: 10.0.0.0/8 with server_names (never matches).
  auto* m0 = l.mutable_filter_chains(0)->mutable_filter_chain_match();
  AddCidr(m0->mutable_prefix_ranges(), "10.0.0.0", 8);
  m0->add_server_names("x");
  // 1: any destination, transport "" -- dropped by 2.
  *l.add_filter_chains() = Chain();
  // 2: any destination, raw_buffer, source port 443.
  auto* c2 = l.add_filter_chains();
  *c2 = Chain();
  c2->mutable_filter_chain_match()->set_transport_protocol("raw_buffer");
  c2->mutable_filter_chain_match()->add_source_ports(443);
  // 3: destination_port (never matches, no destination entry).
  auto* c3 = l.add_filter_chains();
  *c3 = Chain();
  c3->mutable_filter_chain_match()->mutable_destination_port()->set_value(1);
  AddCidr(c3->mutable_filter_chain_match()->mutable_prefix_ranges(),
          "192.168.0.0", 16);
  // 4: 172.16.0.0/12 EXTERNAL from 1.2.3.0/24 (inline route config).
  auto* c4 = l.add_filter_chains();
  *c4 = Chain();
  auto* m4 = c4->mutable_filter_chain_match();
  AddCidr(m4->mutable_prefix_ranges(), "172.16.0.0", 12);
  AddCidr(m4->mutable_source_prefix_ranges(), "1.2.3.0", 24);
  m4->set_source_type(listener_pb::FilterChainMatch::EXTERNAL);
  DecodeResult r = DecodeProto(l);
  ASSERT_TRUE(r.value.ok()) << r.value.status();
  const auto& server = std::get<ServerListener>(ValueOf(r).listener);
  // Only chains 2 and 4 are selectable, renumbered 0 and 1.
  EXPECT_EQ(server.filter_chains.size(), 2u);
  EXPECT_EQ(server.input_index, (std::vector<size_t>{2, 4}));
  const auto& dests = server.filter_chain_map.destination_ips;
  ASSERT_EQ(dests.size(), 3u);  // "", "10.0.0.0/8", "172.16.0.0/12"
  EXPECT_FALSE(dests[0].prefix_range.has_value());
  ASSERT_EQ(dests[0].source_types[0].size(), 1u);
  EXPECT_EQ(dests[0].source_types[0][0].ports,
            (std::map<uint32_t, size_t>{{443, 0}}));
  EXPECT_EQ(dests[1].prefix_range->ToString(), "10.0.0.0/8");
  for (const auto& type : dests[1].source_types) EXPECT_TRUE(type.empty());
  EXPECT_EQ(dests[2].prefix_range->ToString(), "172.16.0.0/12");
  ASSERT_EQ(dests[2].source_types[2].size(), 1u);
  EXPECT_EQ(dests[2].source_types[2][0].prefix_range->ToString(), "1.2.3.0/24");
  EXPECT_EQ(dests[2].source_types[2][0].ports,
            (std::map<uint32_t, size_t>{{0, 1}}));
}

// Server errors: A36 §Resource Validation and gRPC 1.51 xds_listener.cc.
// Chains with byte-identical filters (and transport socket) are decoded once
// per Listener and copied (listener.cc): the copies equal a fresh decode,
// a different chain is not mistaken for a repeat, and an invalid chain that
// repeats still reports its errors under each chain's own path.
TEST(ListenerTest, RepeatedChainBytesDecodeOnceWithTheirOwnErrors) {
  listener_pb::Listener l = ServerListenerProto();
  listener_pb::FilterChain other = Chain();
  hcm_pb::HttpConnectionManager hcm = BaseHcm();
  hcm.mutable_rds()->set_route_config_name("rc2");
  other.mutable_filters(0)->mutable_typed_config()->PackFrom(hcm);
  for (int i = 1; i < 4; ++i) {
    listener_pb::FilterChain* c = l.add_filter_chains();
    *c = i == 2 ? other : Chain();
    AddCidr(c->mutable_filter_chain_match()->mutable_source_prefix_ranges(),
            "10.0.0." + std::to_string(i), 32);
  }
  DecodeResult r = DecodeProto(l);
  ASSERT_TRUE(r.value.ok()) << r.value.status();
  const auto& server = std::get<ServerListener>(ValueOf(r).listener);
  ASSERT_EQ(server.filter_chains.size(), 4u);
  auto rds_name = [&](size_t i) {
    return std::get<HttpConnectionManager::Rds>(
               server.filter_chains[i]->http_connection_manager.route_config)
        .route_config_name;
  };
  EXPECT_EQ(rds_name(0), "rc");
  EXPECT_EQ(rds_name(1), "rc");
  EXPECT_EQ(rds_name(2), "rc2");
  EXPECT_EQ(rds_name(3), "rc");
  EXPECT_EQ(server.filter_chains[3], server.filter_chains[0]);

  // The same invalid HttpConnectionManager (no route config) in two chains.
  listener_pb::Listener bad = ServerListenerProto();
  hcm_pb::HttpConnectionManager no_routes = BaseHcm();
  no_routes.clear_rds();
  bad.mutable_filter_chains(0)
      ->mutable_filters(0)
      ->mutable_typed_config()
      ->PackFrom(no_routes);
  *bad.add_filter_chains() = bad.filter_chains(0);
  AddCidr(bad.mutable_filter_chains(1)
              ->mutable_filter_chain_match()
              ->mutable_prefix_ranges(),
          "10.0.0.0", 8);
  const std::string error = ErrorOf(bad);
  EXPECT_NE(error.find("field:filter_chains[0].filters[0].typed_config"),
            std::string::npos)
      << error;
  EXPECT_NE(error.find("field:filter_chains[1].filters[0].typed_config"),
            std::string::npos)
      << error;
}

// The map lists a destination's sources in prefix-text order whatever the
// chain order (the value, its JSON and the identical-update check do not
// depend on hashing).
TEST(ListenerTest, MapSourcesInPrefixTextOrder) {
  listener_pb::Listener l;
  l.set_name("s");
  auto* address = l.mutable_address()->mutable_socket_address();
  address->set_address("0.0.0.0");
  address->set_port_value(8080);
  // 10.0.i.0 differ within their first 8 bytes, 192.168.i.0 only after.
  for (int i = 20; i >= 1; --i) {
    for (const char* net : {"10.0.", "192.168."}) {
      listener_pb::FilterChain* c = l.add_filter_chains();
      *c = Chain();
      AddCidr(c->mutable_filter_chain_match()->mutable_source_prefix_ranges(),
              net + std::to_string(i) + ".0", 24);
    }
  }
  DecodeResult r = DecodeProto(l);
  ASSERT_TRUE(r.value.ok()) << r.value.status();
  const auto& server = std::get<ServerListener>(ValueOf(r).listener);
  ASSERT_EQ(server.filter_chain_map.destination_ips.size(), 1u);
  const auto& sources =
      server.filter_chain_map.destination_ips[0].source_types[0];
  ASSERT_EQ(sources.size(), 40u);
  for (size_t i = 1; i < sources.size(); ++i) {
    ASSERT_TRUE(sources[i - 1].prefix_range.has_value());
    ASSERT_TRUE(sources[i].prefix_range.has_value());
    EXPECT_LT(sources[i - 1].prefix_range->ToString(),
              sources[i].prefix_range->ToString())
        << i;
  }
}

// The repeat key covers the transport socket too: chains with one
// HttpConnectionManager and different DownstreamTlsContexts keep their own
// TLS settings (A36 per-chain credentials), and a repeated pair is a repeat.
TEST(ListenerTest, RepeatedFiltersWithOtherTlsKeepTheirOwnTls) {
  listener_pb::Listener l = ServerListenerProto();
  const char* const kInstances[] = {"a", "b", "a"};
  for (int i = 0; i < 3; ++i) {
    listener_pb::FilterChain* c = l.add_filter_chains();
    *c = Chain();
    AddCidr(c->mutable_filter_chain_match()->mutable_source_prefix_ranges(),
            "10.0.0." + std::to_string(i + 1), 32);
    tls_pb::DownstreamTlsContext tls;
    auto* identity = tls.mutable_common_tls_context()
                         ->mutable_tls_certificate_provider_instance();
    identity->set_instance_name(kInstances[i]);
    c->mutable_transport_socket()->set_name("tls");
    c->mutable_transport_socket()->mutable_typed_config()->PackFrom(tls);
  }
  DecodeResult r = DecodeProto(l);
  ASSERT_TRUE(r.value.ok()) << r.value.status();
  const auto& server = std::get<ServerListener>(ValueOf(r).listener);
  ASSERT_EQ(server.filter_chains.size(), 4u);
  EXPECT_FALSE(server.filter_chains[0]->tls.has_value());
  for (size_t i = 1; i < 4; ++i) {
    ASSERT_TRUE(server.filter_chains[i]->tls.has_value()) << i;
    EXPECT_EQ(server.filter_chains[i]->tls->identity.instance_name,
              kInstances[i - 1])
        << i;
  }
  EXPECT_NE(server.filter_chains[2]->downstream_tls_context,
            server.filter_chains[1]->downstream_tls_context);
  EXPECT_EQ(server.filter_chains[3], server.filter_chains[1]);
}

TEST(ListenerTest, ServerErrors) {
  struct Case {
    const char* what;
    std::function<void(listener_pb::Listener*)> mutate;
    std::string want;
  };
  const std::string chain0 = "field:filter_chains[0]";
  const Case kCases[] = {
      {"pipe address",
       [](auto* l) { l->mutable_address()->mutable_pipe()->set_path("/p"); },
       "[field:address.socket_address error:field not present]"},
      {"UDP, port too large",
       [](auto* l) {
         auto* a = l->mutable_address()->mutable_socket_address();
         a->set_protocol(envoy::config::core::v3::SocketAddress::UDP);
         a->set_port_value(70000);
       },
       "[field:address.socket_address.port_value error:invalid port: must be "
       "at most 65535; field:address.socket_address.protocol error:value "
       "must be TCP]"},
      {"listener_filters (A36)",
       [](auto* l) { l->add_listener_filters()->set_name("tls_inspector"); },
       "[field:listener_filters error:must be empty]"},
      {"use_original_dst (A36)",
       [](auto* l) { l->mutable_use_original_dst()->set_value(true); },
       "[field:use_original_dst error:must not be true]"},
      {"no filter chains", [](auto* l) { l->clear_filter_chains(); },
       "[field:filter_chains error:no filter chain provided: need "
       "filter_chains or default_filter_chain]"},
      {"two filters (A36)",
       [](auto* l) {
         *l->mutable_filter_chains(0)->add_filters() = Chain().filters(0);
       },
       "[" + chain0 +
           ".filters error:must have exactly one filter, the "
           "HttpConnectionManager; no other filter is supported]"},
      {"filter without typed_config",
       [](auto* l) {
         l->mutable_filter_chains(0)->mutable_filters(0)->clear_typed_config();
       },
       "[" + chain0 + ".filters[0].typed_config error:field not present]"},
      {"filter not an HCM (A36)",
       [](auto* l) {
         l->mutable_filter_chains(0)
             ->mutable_filters(0)
             ->mutable_typed_config()
             ->PackFrom(Router());
       },
       "[" + chain0 +
           ".filters[0].typed_config.type_url error:unsupported filter type "
           "envoy.extensions.filters.http.router.v3.Router: expected "
           "envoy.extensions.filters.network.http_connection_manager.v3."
           "HttpConnectionManager]"},
      {"HCM validated in default_filter_chain",
       [](auto* l) {
         hcm_pb::HttpConnectionManager hcm = BaseHcm();
         hcm.clear_http_filters();
         auto* chain = l->mutable_default_filter_chain();
         *chain = Chain();
         chain->mutable_filters(0)->mutable_typed_config()->PackFrom(hcm);
       },
       "[field:default_filter_chain.filters[0].typed_config." +
           std::string(kHcmValue) +
           ".http_filters error:expected at least one HTTP filter]"},
      {"invalid CIDR addresses and source type, all listed",
       [](auto* l) {
         auto* m = l->mutable_filter_chains(0)->mutable_filter_chain_match();
         AddCidr(m->mutable_prefix_ranges(), "10.0.0.300", 8);
         AddCidr(m->mutable_source_prefix_ranges(), "fe80::1%eth0", 8);
         m->set_source_type(
             static_cast<listener_pb::FilterChainMatch::ConnectionSourceType>(
                 3));
       },
       "[" + chain0 +
           ".filter_chain_match.prefix_ranges[0].address_prefix error:invalid "
           "IP address \"10.0.0.300\": expected an IPv4 or IPv6 address; " +
           chain0 +
           ".filter_chain_match.source_prefix_ranges[0].address_prefix "
           "error:invalid IP address \"fe80::1%eth0\": expected an IPv4 or "
           "IPv6 address; " +
           chain0 +
           ".filter_chain_match.source_type error:unknown value 3: expected "
           "ANY, SAME_IP_OR_LOOPBACK or EXTERNAL]"},
      {"transport socket of another type",
       [](auto* l) {
         l->mutable_filter_chains(0)
             ->mutable_transport_socket()
             ->mutable_typed_config()
             ->set_type_url("type.googleapis.com/foo.Tls");
       },
       "[" + chain0 +
           ".transport_socket.typed_config.type_url error:unsupported "
           "transport socket type foo.Tls: expected "
           "envoy.extensions.transport_sockets.tls.v3.DownstreamTlsContext]"},
  };
  for (const Case& c : kCases) {
    SCOPED_TRACE(c.what);
    listener_pb::Listener l = ServerListenerProto();
    c.mutate(&l);
    EXPECT_EQ(ErrorOf(l), "errors validating Listener: " + c.want);
  }
}

// The normalized-matcher count is capped so hostile input cannot blow up.
TEST(ListenerTest, TooManyNormalizedMatchers) {
  listener_pb::Listener l = ServerListenerProto();
  auto* m = l.mutable_filter_chains(0)->mutable_filter_chain_match();
  for (int i = 0; i < 400; ++i) m->add_source_ports(i + 1);
  for (int i = 0; i < 300; ++i) m->add_server_names(std::to_string(i));
  EXPECT_EQ(ErrorOf(l),
            "errors validating Listener: [field:filter_chains[0]."
            "filter_chain_match error:too many normalized filter chain "
            "matchers: more than 100000 in the Listener]");
}

// Listener decodes start their arena in one kept block and take their
// working memory from a second (listener.cc), one decode at a time: decodes
// from several threads at once (and a prewarm meanwhile), one Listener past
// both blocks' 1 MiB, still give each Listener's own value.
TEST(ListenerTest, ConcurrentDecodesOnTheKeptArenaBlock) {
  auto listener_bytes = [](int chains, const std::string& tag) {
    listener_pb::Listener l = ServerListenerProto();
    l.clear_filter_chains();
    for (int i = 0; i < chains; ++i) {
      listener_pb::FilterChain* c = l.add_filter_chains();
      *c = Chain();
      hcm_pb::HttpConnectionManager hcm = BaseHcm();
      hcm.mutable_rds()->set_route_config_name(tag + std::to_string(i % 7));
      c->mutable_filters(0)->mutable_typed_config()->PackFrom(hcm);
      AddCidr(c->mutable_filter_chain_match()->mutable_source_prefix_ranges(),
              "10." + std::to_string((i >> 8) & 255) + "." +
                  std::to_string(i & 255) + ".0",
              24);
    }
    return l.SerializeAsString();
  };
  const std::vector<std::string> inputs = {listener_bytes(5000, "big"),
                                           listener_bytes(300, "mid"),
                                           listener_bytes(1, "one")};
  ASSERT_GT(inputs[0].size(), size_t{1} << 20);
  std::vector<std::string> expected;
  for (const std::string& bytes : inputs) {
    DecodeResult r = ListenerResourceType().Decode({}, bytes);
    ASSERT_TRUE(r.value.ok()) << r.value.status();
    expected.push_back(ToJsonText(r));
  }
  std::atomic<int> mismatches{0};
  std::vector<std::thread> threads;
  for (int t = 0; t < 4; ++t) {
    threads.emplace_back([&, t] {
      for (int i = 0; i < 12; ++i) {
        const size_t which = static_cast<size_t>(t + i) % inputs.size();
        if (t == 0 && i % 4 == 0) PrewarmListenerDecode();
        DecodeResult r = ListenerResourceType().Decode({}, inputs[which]);
        if (!r.value.ok() || ToJsonText(r) != expected[which]) ++mismatches;
      }
    });
  }
  for (std::thread& t : threads) t.join();
  EXPECT_EQ(mismatches.load(), 0);
}

// A36 + gRPC: api_listener wins when both are set.
TEST(ListenerTest, ApiListenerWinsOverAddress) {
  listener_pb::Listener l = ClientListener(BaseHcm());
  l.mutable_address()->mutable_socket_address()->set_address("::");
  DecodeResult r = DecodeProto(l);
  ASSERT_TRUE(r.value.ok()) << r.value.status();
  EXPECT_TRUE(std::holds_alternative<ApiListener>(ValueOf(r).listener));
}

// ------------------------------------------------------------- RBAC (A41)

envoy::extensions::filters::http::rbac::v3::RBAC RbacProto(
    const std::string& json) {
  envoy::extensions::filters::http::rbac::v3::RBAC rbac;
  EXPECT_TRUE(google::protobuf::util::JsonStringToMessage(json, &rbac).ok());
  return rbac;
}

void AddRbacFilter(hcm_pb::HttpConnectionManager* hcm, bool first,
                   const std::string& json, bool optional = false) {
  auto* f = hcm->add_http_filters();
  f->set_name("rbac");
  f->set_is_optional(optional);
  f->mutable_typed_config()->PackFrom(RbacProto(json));
  if (first) {
    for (int i = hcm->http_filters_size() - 1; i > 0; --i) {
      hcm->mutable_http_filters()->SwapElements(i, i - 1);
    }
  }
}

// The RBAC HTTP filter in a server chain's HCM (A41 §Proposal; A39 filter
// order; gRPC 1.51 xds_listener.cc HttpConnectionManagerParse).
TEST(ListenerTest, RbacFilter) {
  using Mutate = std::function<void(hcm_pb::HttpConnectionManager*)>;
  constexpr char kRules[] =
      R"({"rules":{"policies":{"p":{"permissions":[{"any":true}],)"
      R"("principals":[{"any":true}]}}}})";
  const std::string prefix =
      std::string("errors validating Listener: ") +
      "[field:filter_chains[0].filters[0].typed_config." + kHcmValue +
      ".http_filters";
  struct Case {
    const char* what;
    bool server;
    Mutate mutate;
    std::string want;  // "ok" or the error
  };
  const Case kCases[] = {
      {"A41: RBAC before the router on a server", true,
       [&](auto* h) { AddRbacFilter(h, true, kRules); }, "ok"},
      {"A39: a filter after the router (the router must be last, and the "
       "last filter terminal)",
       true, [&](auto* h) { AddRbacFilter(h, false, kRules); },
       prefix +
           "[0] error:terminal filter for config type "
           "envoy.extensions.filters.http.router.v3.Router must be the last "
           "filter in the chain; field:filter_chains[0].filters[0]."
           "typed_config." +
           kHcmValue +
           ".http_filters[1] error:non-terminal filter for config type "
           "envoy.extensions.filters.http.rbac.v3.RBAC is the last filter in "
           "the chain]"},
      {"RBAC only: the last filter is not terminal", true,
       [&](auto* h) {
         h->clear_http_filters();
         AddRbacFilter(h, false, kRules);
       },
       prefix +
           "[0] error:non-terminal filter for config type "
           "envoy.extensions.filters.http.rbac.v3.RBAC is the last filter in "
           "the chain]"},
      {"A41: the HCM checks hold on servers too", true,
       [&](auto* h) { h->set_xff_num_trusted_hops(2); },
       std::string("errors validating Listener: ") +
           "[field:filter_chains[0].filters[0].typed_config." + kHcmValue +
           ".xff_num_trusted_hops error:must be zero]"},
      {"a config error is a NACK with its path (A39: filter config "
       "validation failures NACK the Listener)",
       true,
       [&](auto* h) {
         AddRbacFilter(h, true,
                       R"({"rules":{"policies":{"p":{"condition":{}}}}})");
       },
       prefix + "[0].typed_config.value[envoy.extensions.filters.http.rbac.v3."
                "RBAC].rules.policies[\"p\"].condition error:condition not "
                "supported]"},
  };
  for (const Case& c : kCases) {
    SCOPED_TRACE(c.what);
    hcm_pb::HttpConnectionManager hcm = BaseHcm();
    c.mutate(&hcm);
    listener_pb::Listener l = ServerListenerProto();
    l.mutable_filter_chains(0)
        ->mutable_filters(0)
        ->mutable_typed_config()
        ->PackFrom(hcm);
    EXPECT_EQ(ErrorOf(l), c.want);
  }
  // The accepted chain keeps the config, in filter order.
  hcm_pb::HttpConnectionManager hcm = BaseHcm();
  AddRbacFilter(&hcm, true, kRules);
  listener_pb::Listener l = ServerListenerProto();
  l.mutable_filter_chains(0)
      ->mutable_filters(0)
      ->mutable_typed_config()
      ->PackFrom(hcm);
  DecodeResult r = DecodeProto(l);
  ASSERT_TRUE(r.value.ok()) << r.value.status();
  const auto& filters = std::get<ServerListener>(ValueOf(r).listener)
                            .filter_chains[0]
                            ->http_connection_manager.http_filters;
  ASSERT_EQ(filters.size(), 2u);
  ASSERT_NE(filters[0].rbac, nullptr);
  ASSERT_TRUE(filters[0].rbac->rules.has_value());
  EXPECT_EQ(filters[0].rbac->rules->policies.size(), 1u);
  EXPECT_EQ(filters[1].rbac, nullptr);
}

// A41: the RBAC filter is not run on clients; gRPC NACKs it there unless it
// is optional ("Filter %s is not supported on clients").
TEST(ListenerTest, RbacFilterOnClient) {
  hcm_pb::HttpConnectionManager hcm = BaseHcm();
  AddRbacFilter(&hcm, true, "{}");
  EXPECT_EQ(ErrorOf(ClientListener(hcm)),
            std::string("errors validating Listener: "
                        "[field:api_listener.api_listener.") +
                kHcmValue +
                ".http_filters[0].typed_config error:filter "
                "envoy.extensions.filters.http.rbac.v3.RBAC is not supported "
                "on clients]");
  hcm = BaseHcm();
  AddRbacFilter(&hcm, true, "{}", /*optional=*/true);
  EXPECT_EQ(ErrorOf(ClientListener(hcm)), "ok");
}

}  // namespace
}  // namespace resources
}  // namespace xdsfed
