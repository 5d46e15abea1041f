// Byte compatibility of proto/ with the official xDS v3 API.
//
// Every row hand-encodes a message from the field numbers published in
// envoyproxy/envoy api/ (and google/rpc/status.proto), then checks that our
// generated classes decode it to the expected fields with nothing left in
// unknown fields, and encode the expected message back to the same bytes.
// A wrong field number in proto/ shows up as an unknown field or a byte
// mismatch on the row that names that field.

#include <cstdint>
#include <cstring>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "absl/strings/escaping.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/string_view.h"
#include "envoy/config/cluster/v3/cluster.pb.h"
#include "envoy/config/endpoint/v3/endpoint.pb.h"
#include "envoy/config/endpoint/v3/load_report.pb.h"
#include "envoy/config/listener/v3/listener.pb.h"
#include "envoy/config/rbac/v3/rbac.pb.h"
#include "envoy/config/route/v3/route.pb.h"
#include "envoy/extensions/clusters/aggregate/v3/cluster.pb.h"
#include "envoy/extensions/filters/http/rbac/v3/rbac.pb.h"
#include "envoy/extensions/filters/http/router/v3/router.pb.h"
#include "envoy/extensions/filters/network/http_connection_manager/v3/http_connection_manager.pb.h"
#include "envoy/service/discovery/v3/ads.grpc.pb.h"
#include "envoy/service/discovery/v3/discovery.pb.h"
#include "envoy/service/load_stats/v3/lrs.grpc.pb.h"
#include "google/protobuf/any.pb.h"
#include "google/protobuf/descriptor.h"
#include "google/protobuf/util/message_differencer.h"
#include "google/rpc/status.pb.h"
#include "gtest/gtest.h"

namespace xdsfed {
namespace {

namespace aggregate = envoy::extensions::clusters::aggregate::v3;
namespace cds = envoy::config::cluster::v3;
namespace core = envoy::config::core::v3;
namespace discovery = envoy::service::discovery::v3;
namespace eds = envoy::config::endpoint::v3;
namespace hcm =
    envoy::extensions::filters::network::http_connection_manager::v3;
namespace lds = envoy::config::listener::v3;
namespace lrs = envoy::service::load_stats::v3;
namespace rds = envoy::config::route::v3;
namespace rbac = envoy::config::rbac::v3;
namespace http_rbac = envoy::extensions::filters::http::rbac::v3;
namespace router = envoy::extensions::filters::http::router::v3;

using google::protobuf::Message;

constexpr absl::string_view kHcmType =
    "envoy.extensions.filters.network.http_connection_manager.v3."
    "HttpConnectionManager";

// --- A minimal wire encoder, independent of protobuf's own. ---

std::string Varint(uint64_t v) {
  std::string out;
  while (v >= 0x80) {
    out.push_back(static_cast<char>((v & 0x7f) | 0x80));
    v >>= 7;
  }
  out.push_back(static_cast<char>(v));
  return out;
}

// Wire types: 0 varint, 1 fixed64, 2 length-delimited.
std::string Tag(int field, int wire_type) {
  return Varint((static_cast<uint64_t>(field) << 3) | wire_type);
}

// A varint field (ints, bools, enums).
std::string V(int field, uint64_t value) {
  return Tag(field, 0) + Varint(value);
}

// A length-delimited field (strings, bytes, messages, packed repeated).
std::string L(int field, absl::string_view payload) {
  return absl::StrCat(Tag(field, 2), Varint(payload.size()), payload);
}

// A double field (fixed64, little endian).
std::string D(int field, double value) {
  uint64_t bits;
  std::memcpy(&bits, &value, sizeof(bits));
  std::string out = Tag(field, 1);
  for (int i = 0; i < 8; ++i) out.push_back(static_cast<char>(bits >> (8 * i)));
  return out;
}

// google.protobuf.UInt32Value / BoolValue: value = 1.
std::string Wrapped(int field, uint64_t value) { return L(field, V(1, value)); }

// google.protobuf.Duration: seconds = 1, nanos = 2.
std::string Seconds(int field, int64_t seconds) {
  return L(field, V(1, seconds));
}

// google.protobuf.Any: type_url = 1, value = 2.
std::string AnyOf(int field, absl::string_view type, absl::string_view value) {
  return L(field, L(1, absl::StrCat("type.googleapis.com/", type)) +
                      (value.empty() ? "" : L(2, value)));
}

// True if `message` or anything nested in it kept fields it did not know.
bool HasUnknownFields(const Message& message) {
  const google::protobuf::Reflection* reflection = message.GetReflection();
  if (!reflection->GetUnknownFields(message).empty()) return true;
  std::vector<const google::protobuf::FieldDescriptor*> fields;
  reflection->ListFields(message, &fields);
  for (const auto* field : fields) {
    if (field->cpp_type() !=
        google::protobuf::FieldDescriptor::CPPTYPE_MESSAGE) {
      continue;
    }
    if (field->is_repeated()) {
      for (int i = 0; i < reflection->FieldSize(message, field); ++i) {
        if (HasUnknownFields(
                reflection->GetRepeatedMessage(message, field, i))) {
          return true;
        }
      }
    } else if (HasUnknownFields(reflection->GetMessage(message, field))) {
      return true;
    }
  }
  return false;
}

using MakeFn = std::function<std::unique_ptr<Message>()>;

// Builds the expected message of type T with `fill`.
template <typename T, typename F>
MakeFn Expect(F fill) {
  return [fill]() -> std::unique_ptr<Message> {
    auto message = std::make_unique<T>();
    fill(*message);
    return message;
  };
}

struct WireCase {
  absl::string_view field;  // the official field(s) the row pins down
  std::string wire;         // hand-encoded bytes
  MakeFn expected;
};

void CheckWireCases(const std::vector<WireCase>& cases) {
  for (const WireCase& c : cases) {
    SCOPED_TRACE(c.field);
    std::unique_ptr<Message> want = c.expected();
    std::unique_ptr<Message> got(want->New());
    ASSERT_TRUE(got->ParseFromString(c.wire));
    EXPECT_FALSE(HasUnknownFields(*got)) << got->DebugString();
    EXPECT_TRUE(google::protobuf::util::MessageDifferencer::Equals(*want, *got))
        << "want:\n"
        << want->DebugString() << "got:\n"
        << got->DebugString();
    EXPECT_EQ(absl::BytesToHexString(got->SerializeAsString()),
              absl::BytesToHexString(c.wire));
    EXPECT_EQ(absl::BytesToHexString(want->SerializeAsString()),
              absl::BytesToHexString(c.wire));
  }
}

// Envoy api/envoy/config/listener/v3/{listener,listener_components,
// api_listener}.proto; A36 §FilterChainMatch needs every match field.
TEST(WireCompatTest, Listener) {
  const std::vector<WireCase> cases = {
      // Literal bytes: tag (1 << 3 | 2) = 0x0a, length 3.
      {"Listener.name = 1", std::string("\x0a\x03lds", 5),
       Expect<lds::Listener>([](lds::Listener& l) { l.set_name("lds"); })},
      // Literal bytes: tag (19 << 3 | 2) = 154 = varint 9a 01, empty body.
      {"Listener.api_listener = 19", std::string("\x9a\x01\x00", 3),
       Expect<lds::Listener>(
           [](lds::Listener& l) { l.mutable_api_listener(); })},
      {"Listener.address = 2; Address.socket_address = 1; "
       "SocketAddress.address = 2, port_value = 3",
       L(2, L(1, L(2, "0.0.0.0") + V(3, 8080))),
       Expect<lds::Listener>([](lds::Listener& l) {
         auto* a = l.mutable_address()->mutable_socket_address();
         a->set_address("0.0.0.0");
         a->set_port_value(8080);
       })},
      {"Listener.use_original_dst = 4 (BoolValue)", Wrapped(4, 1),
       Expect<lds::Listener>([](lds::Listener& l) {
         l.mutable_use_original_dst()->set_value(true);
       })},
      {"Listener.listener_filters = 9; ListenerFilter.name = 1",
       L(9, L(1, "tls_inspector")), Expect<lds::Listener>([](lds::Listener& l) {
         l.add_listener_filters()->set_name("tls_inspector");
       })},
      {"Listener.default_filter_chain = 25; FilterChain.name = 7",
       L(25, L(7, "default")), Expect<lds::Listener>([](lds::Listener& l) {
         l.mutable_default_filter_chain()->set_name("default");
       })},
      {"ApiListener.api_listener = 1 (Any)",
       L(19, AnyOf(1,
                   "envoy.extensions.filters.network.http_connection_"
                   "manager.v3.HttpConnectionManager",
                   "")),
       Expect<lds::Listener>([](lds::Listener& l) {
         l.mutable_api_listener()->mutable_api_listener()->set_type_url(
             "type.googleapis.com/envoy.extensions.filters.network.http_"
             "connection_manager.v3.HttpConnectionManager");
       })},
      {"Listener.filter_chains = 3; FilterChain.filter_chain_match = 1, "
       "filters = 3, transport_socket = 6; Filter.name = 1, typed_config = 4; "
       "TransportSocket.name = 1",
       L(3, L(1, "") + L(3, L(1, "hcm") + AnyOf(4, kHcmType, "")) +
                L(6, L(1, "tls"))),
       Expect<lds::Listener>([](lds::Listener& l) {
         auto* chain = l.add_filter_chains();
         chain->mutable_filter_chain_match();
         auto* filter = chain->add_filters();
         filter->set_name("hcm");
         filter->mutable_typed_config()->set_type_url(
             absl::StrCat("type.googleapis.com/", kHcmType));
         chain->mutable_transport_socket()->set_name("tls");
       })},
      {"FilterChainMatch.prefix_ranges = 3; CidrRange.address_prefix = 1, "
       "prefix_len = 2 (UInt32Value); source_prefix_ranges = 6; "
       "source_ports = 7 (packed); destination_port = 8; "
       "transport_protocol = 9; application_protocols = 10; "
       "server_names = 11; source_type = 12",
       L(1, L(3, L(1, "10.0.0.0") + Wrapped(2, 8)) +
                L(6, L(1, "192.168.0.0") + Wrapped(2, 16)) +
                L(7, Varint(443) + Varint(8443)) + Wrapped(8, 50051) +
                L(9, "raw_buffer") + L(10, "h2") + L(11, "example.com") +
                V(12, 1)),
       Expect<lds::FilterChain>([](lds::FilterChain& c) {
         auto* m = c.mutable_filter_chain_match();
         auto* dst = m->add_prefix_ranges();
         dst->set_address_prefix("10.0.0.0");
         dst->mutable_prefix_len()->set_value(8);
         auto* src = m->add_source_prefix_ranges();
         src->set_address_prefix("192.168.0.0");
         src->mutable_prefix_len()->set_value(16);
         m->add_source_ports(443);
         m->add_source_ports(8443);
         m->mutable_destination_port()->set_value(50051);
         m->set_transport_protocol("raw_buffer");
         m->add_application_protocols("h2");
         m->add_server_names("example.com");
         m->set_source_type(lds::FilterChainMatch::SAME_IP_OR_LOOPBACK);
       })},
  };
  CheckWireCases(cases);
}

// Envoy api/envoy/extensions/filters/network/http_connection_manager/v3/
// http_connection_manager.proto and config/core/v3/config_source.proto;
// A47 §xDS API Changes (ConfigSource `ads` / `self`).
TEST(WireCompatTest, HttpConnectionManager) {
  const std::vector<WireCase> cases = {
      {"HttpConnectionManager.rds = 3; Rds.config_source = 1, "
       "route_config_name = 2; ConfigSource.ads = 3",
       L(3, L(1, L(3, "")) + L(2, "route-a")),
       Expect<hcm::HttpConnectionManager>([](hcm::HttpConnectionManager& m) {
         m.mutable_rds()->mutable_config_source()->mutable_ads();
         m.mutable_rds()->set_route_config_name("route-a");
       })},
      {"ConfigSource.self = 5; SelfConfigSource.transport_api_version = 1; "
       "ConfigSource.resource_api_version = 6 (V3 = 2)",
       L(3, L(1, L(5, V(1, 2)) + V(6, 2))),
       Expect<hcm::HttpConnectionManager>([](hcm::HttpConnectionManager& m) {
         auto* source = m.mutable_rds()->mutable_config_source();
         source->mutable_self()->set_transport_api_version(core::V3);
         source->set_resource_api_version(core::V3);
       })},
      {"HttpConnectionManager.codec_type = 1, stat_prefix = 2, "
       "route_config = 4; RouteConfiguration.name = 1",
       V(1, 2) + L(2, "in") + L(4, L(1, "inline")),
       Expect<hcm::HttpConnectionManager>([](hcm::HttpConnectionManager& m) {
         m.set_codec_type(hcm::HttpConnectionManager::HTTP2);
         m.set_stat_prefix("in");
         m.mutable_route_config()->set_name("inline");
       })},
      {"HttpConnectionManager.http_filters = 5; HttpFilter.name = 1, "
       "typed_config = 4, is_optional = 6",
       L(5, L(1, "router") +
                AnyOf(4, "envoy.extensions.filters.http.router.v3.Router", "") +
                V(6, 1)),
       Expect<hcm::HttpConnectionManager>([](hcm::HttpConnectionManager& m) {
         auto* filter = m.add_http_filters();
         filter->set_name("router");
         filter->mutable_typed_config()->set_type_url(
             "type.googleapis.com/envoy.extensions.filters.http.router.v3."
             "Router");
         filter->set_is_optional(true);
       })},
      {"HttpConnectionManager.scoped_routes = 31", L(31, ""),
       Expect<hcm::HttpConnectionManager>(
           [](hcm::HttpConnectionManager& m) { m.mutable_scoped_routes(); })},
      {"HttpConnectionManager.common_http_protocol_options = 35; "
       "HttpProtocolOptions.max_stream_duration = 4",
       L(35, Seconds(4, 30)),
       Expect<hcm::HttpConnectionManager>([](hcm::HttpConnectionManager& m) {
         m.mutable_common_http_protocol_options()
             ->mutable_max_stream_duration()
             ->set_seconds(30);
       })},
      {"Router.dynamic_stats = 1 (BoolValue, false = empty)", L(1, ""),
       Expect<router::Router>(
           [](router::Router& r) { r.mutable_dynamic_stats(); })},
  };
  CheckWireCases(cases);
}

// Envoy api/envoy/config/route/v3/{route,route_components}.proto;
// A36 §Resource Validation (non_forwarding_action for servers).
TEST(WireCompatTest, RouteConfiguration) {
  const std::vector<WireCase> cases = {
      {"RouteConfiguration.name = 1, virtual_hosts = 2; VirtualHost.name = 1, "
       "domains = 2, routes = 3; Route.match = 1, route = 2; "
       "RouteMatch.prefix = 1; RouteAction.cluster = 1, timeout = 8",
       L(1, "rc") +
           L(2, L(1, "vh") + L(2, "*") +
                    L(3, L(1, L(1, "/")) + L(2, L(1, "c1") + Seconds(8, 5)))),
       Expect<rds::RouteConfiguration>([](rds::RouteConfiguration& rc) {
         rc.set_name("rc");
         auto* vh = rc.add_virtual_hosts();
         vh->set_name("vh");
         vh->add_domains("*");
         auto* r = vh->add_routes();
         r->mutable_match()->set_prefix("/");
         r->mutable_route()->set_cluster("c1");
         r->mutable_route()->mutable_timeout()->set_seconds(5);
       })},
      {"RouteMatch.path = 2, case_sensitive = 4 (BoolValue); "
       "RouteAction.cluster_header = 2",
       L(1, L(2, "/svc/M") + L(4, "")) + L(2, L(2, "x-cluster")),
       Expect<rds::Route>([](rds::Route& r) {
         r.mutable_match()->set_path("/svc/M");
         r.mutable_match()->mutable_case_sensitive()->set_value(false);
         r.mutable_route()->set_cluster_header("x-cluster");
       })},
      {"RouteMatch.safe_regex = 10; RegexMatcher.regex = 2; "
       "Route.non_forwarding_action = 18; Route.name = 14",
       L(1, L(10, L(2, "/a.*"))) + L(14, "r") + L(18, ""),
       Expect<rds::Route>([](rds::Route& r) {
         r.mutable_match()->mutable_safe_regex()->set_regex("/a.*");
         r.set_name("r");
         r.mutable_non_forwarding_action();
       })},
      {"RouteMatch.headers = 6; HeaderMatcher.name = 1, exact_match = 4, "
       "invert_match = 8; range_match = 6 (Int64Range start = 1, end = 2); "
       "present_match = 7; string_match = 13 (StringMatcher.prefix = 2, "
       "ignore_case = 6); treat_missing_header_as_empty = 14",
       L(1, L(6, L(1, "a") + L(4, "v") + V(8, 1)) +
                L(6, L(1, "b") + L(6, V(1, 1) + V(2, 10))) +
                L(6, L(1, "c") + V(7, 1)) +
                L(6, L(1, "d") + L(13, L(2, "p") + V(6, 1)) + V(14, 1))),
       Expect<rds::Route>([](rds::Route& r) {
         auto* m = r.mutable_match();
         auto* a = m->add_headers();
         a->set_name("a");
         a->set_exact_match("v");
         a->set_invert_match(true);
         auto* b = m->add_headers();
         b->set_name("b");
         b->mutable_range_match()->set_start(1);
         b->mutable_range_match()->set_end(10);
         auto* c = m->add_headers();
         c->set_name("c");
         c->set_present_match(true);
         auto* d = m->add_headers();
         d->set_name("d");
         d->mutable_string_match()->set_prefix("p");
         d->mutable_string_match()->set_ignore_case(true);
         d->set_treat_missing_header_as_empty(true);
       })},
      {"RouteMatch.query_parameters = 7; QueryParameterMatcher.name = 1, "
       "present_match = 6; RouteMatch.runtime_fraction = 9; "
       "RuntimeFractionalPercent.default_value = 1; "
       "FractionalPercent.numerator = 1",
       L(1, L(7, L(1, "q") + V(6, 1)) + L(9, L(1, V(1, 50)))),
       Expect<rds::Route>([](rds::Route& r) {
         auto* q = r.mutable_match()->add_query_parameters();
         q->set_name("q");
         q->set_present_match(true);
         r.mutable_match()
             ->mutable_runtime_fraction()
             ->mutable_default_value()
             ->set_numerator(50);
       })},
      {"RouteAction.weighted_clusters = 3; WeightedCluster.clusters = 1, "
       "total_weight = 3; ClusterWeight.name = 1, weight = 2",
       L(2, L(3, L(1, L(1, "a") + Wrapped(2, 30)) +
                     L(1, L(1, "b") + Wrapped(2, 70)) + Wrapped(3, 100))),
       Expect<rds::Route>([](rds::Route& r) {
         auto* w = r.mutable_route()->mutable_weighted_clusters();
         auto* a = w->add_clusters();
         a->set_name("a");
         a->mutable_weight()->set_value(30);
         auto* b = w->add_clusters();
         b->set_name("b");
         b->mutable_weight()->set_value(70);
         w->mutable_total_weight()->set_value(100);
       })},
      {"RouteAction.hash_policy = 15; HashPolicy.header = 1; "
       "Header.header_name = 1; RouteAction.max_stream_duration = 36; "
       "MaxStreamDuration.grpc_timeout_header_max = 2",
       L(2, L(15, L(1, L(1, "x-user"))) + L(36, Seconds(2, 3))),
       Expect<rds::Route>([](rds::Route& r) {
         r.mutable_route()
             ->add_hash_policy()
             ->mutable_header()
             ->set_header_name("x-user");
         r.mutable_route()
             ->mutable_max_stream_duration()
             ->mutable_grpc_timeout_header_max()
             ->set_seconds(3);
       })},
  };
  CheckWireCases(cases);
}

// Envoy api/envoy/config/cluster/v3/{cluster,circuit_breaker}.proto and
// extensions/clusters/aggregate/v3/cluster.proto; A37 §Validation,
// A47 (eds_cluster_config.service_name for xdstp: names).
// Envoy api/envoy/config/rbac/v3/rbac.proto and
// api/envoy/extensions/filters/http/rbac/v3/rbac.proto (A41). Fields gRPC
// does not support have rows too: if one were missing from proto/, it would
// parse as an unknown field and the validator could not NACK it.
// A41's HCM fields (xff_num_trusted_hops = 19,
// original_ip_detection_extensions = 46).
TEST(WireCompatTest, HttpConnectionManagerA41Fields) {
  const std::vector<WireCase> cases = {
      {"HttpConnectionManager.xff_num_trusted_hops = 19", V(19, 2),
       Expect<hcm::HttpConnectionManager>([](hcm::HttpConnectionManager& m) {
         m.set_xff_num_trusted_hops(2);
       })},
      {"HttpConnectionManager.original_ip_detection_extensions = 46",
       L(46, L(1, "x")),
       Expect<hcm::HttpConnectionManager>([](hcm::HttpConnectionManager& m) {
         m.add_original_ip_detection_extensions()->set_name("x");
       })},
  };
  CheckWireCases(cases);
}

TEST(WireCompatTest, Rbac) {
  const std::vector<WireCase> cases = {
      {"http RBAC.rules = 1; RBAC.action = 1 (DENY)", L(1, V(1, 1)),
       Expect<http_rbac::RBAC>([](http_rbac::RBAC& r) {
         r.mutable_rules()->set_action(rbac::RBAC::DENY);
       })},
      {"http RBAC.shadow_rules = 2, shadow_rules_stat_prefix = 3, "
       "matcher = 4, shadow_matcher = 5, track_per_rule_stats = 6",
       L(2, "") + L(3, "p") + L(4, "") + L(5, "") + V(6, 1),
       Expect<http_rbac::RBAC>([](http_rbac::RBAC& r) {
         r.mutable_shadow_rules();
         r.set_shadow_rules_stat_prefix("p");
         r.mutable_matcher();
         r.mutable_shadow_matcher();
         r.set_track_per_rule_stats(true);
       })},
      {"RBACPerRoute.rbac = 2", L(2, L(1, "")),
       Expect<http_rbac::RBACPerRoute>([](http_rbac::RBACPerRoute& r) {
         r.mutable_rbac()->mutable_rules();
       })},
      {"RBAC.policies = 2 (map: key 1, value 2); audit_condition = 3; "
       "audit_log = 4",
       L(2, L(1, "p") + L(2, "")) + V(3, 1) + L(4, L(1, "a")),
       Expect<rbac::RBAC>([](rbac::RBAC& r) {
         (*r.mutable_policies())["p"];
         r.set_audit_condition(rbac::RBAC::ON_DENY);
         r.add_audit_log()->set_name("a");
       })},
      {"Policy.permissions = 1, principals = 2, condition = 3, "
       "checked_condition = 4",
       L(1, V(3, 1)) + L(2, V(3, 1)) + L(3, "") + L(4, ""),
       Expect<rbac::Policy>([](rbac::Policy& p) {
         p.add_permissions()->set_any(true);
         p.add_principals()->set_any(true);
         p.mutable_condition();
         p.mutable_checked_condition();
       })},
      {"Permission.and_rules = 1; Set.rules = 1", L(1, L(1, V(3, 1))),
       Expect<rbac::Permission>([](rbac::Permission& p) {
         p.mutable_and_rules()->add_rules()->set_any(true);
       })},
      {"Permission.or_rules = 2", L(2, L(1, V(6, 80))),
       Expect<rbac::Permission>([](rbac::Permission& p) {
         p.mutable_or_rules()->add_rules()->set_destination_port(80);
       })},
      {"Permission.header = 4", L(4, L(1, "x") + L(4, "v")),
       Expect<rbac::Permission>([](rbac::Permission& p) {
         p.mutable_header()->set_name("x");
         p.mutable_header()->set_exact_match("v");
       })},
      {"Permission.url_path = 10; PathMatcher.path = 1", L(10, L(1, L(2, "/"))),
       Expect<rbac::Permission>([](rbac::Permission& p) {
         p.mutable_url_path()->mutable_path()->set_prefix("/");
       })},
      {"Permission.destination_ip = 5 (CidrRange)",
       L(5, L(1, "127.0.0.1") + Wrapped(2, 32)),
       Expect<rbac::Permission>([](rbac::Permission& p) {
         p.mutable_destination_ip()->set_address_prefix("127.0.0.1");
         p.mutable_destination_ip()->mutable_prefix_len()->set_value(32);
       })},
      {"Permission.destination_port_range = 11", L(11, V(1, 1) + V(2, 9)),
       Expect<rbac::Permission>([](rbac::Permission& p) {
         p.mutable_destination_port_range()->set_start(1);
         p.mutable_destination_port_range()->set_end(9);
       })},
      {"Permission.metadata = 7; MetadataMatcher.filter = 1, path = 2, "
       "value = 3, invert = 4",
       L(7, L(1, "f") + L(2, L(1, "k")) + L(3, "") + V(4, 1)),
       Expect<rbac::Permission>([](rbac::Permission& p) {
         auto* m = p.mutable_metadata();
         m->set_filter("f");
         m->add_path()->set_key("k");
         m->mutable_value();
         m->set_invert(true);
       })},
      {"Permission.not_rule = 8", L(8, V(3, 1)),
       Expect<rbac::Permission>(
           [](rbac::Permission& p) { p.mutable_not_rule()->set_any(true); })},
      {"Permission.requested_server_name = 9", L(9, L(1, "")),
       Expect<rbac::Permission>([](rbac::Permission& p) {
         p.mutable_requested_server_name()->set_exact("");
       })},
      {"Permission.matcher = 12", L(12, L(1, "m")),
       Expect<rbac::Permission>(
           [](rbac::Permission& p) { p.mutable_matcher()->set_name("m"); })},
      {"Principal.and_ids = 1, Set.ids = 1", L(1, L(1, V(3, 1))),
       Expect<rbac::Principal>([](rbac::Principal& p) {
         p.mutable_and_ids()->add_ids()->set_any(true);
       })},
      {"Principal.or_ids = 2", L(2, L(1, V(3, 1))),
       Expect<rbac::Principal>([](rbac::Principal& p) {
         p.mutable_or_ids()->add_ids()->set_any(true);
       })},
      {"Principal.authenticated = 4; Authenticated.principal_name = 2",
       L(4, L(2, L(1, "spiffe://a"))),
       Expect<rbac::Principal>([](rbac::Principal& p) {
         p.mutable_authenticated()->mutable_principal_name()->set_exact(
             "spiffe://a");
       })},
      {"Principal.source_ip = 5", L(5, L(1, "::1")),
       Expect<rbac::Principal>([](rbac::Principal& p) {
         p.mutable_source_ip()->set_address_prefix("::1");
       })},
      {"Principal.direct_remote_ip = 10", L(10, L(1, "::1")),
       Expect<rbac::Principal>([](rbac::Principal& p) {
         p.mutable_direct_remote_ip()->set_address_prefix("::1");
       })},
      {"Principal.remote_ip = 11", L(11, L(1, "::1")),
       Expect<rbac::Principal>([](rbac::Principal& p) {
         p.mutable_remote_ip()->set_address_prefix("::1");
       })},
      {"Principal.header = 6", L(6, L(1, "x") + V(7, 1)),
       Expect<rbac::Principal>([](rbac::Principal& p) {
         p.mutable_header()->set_name("x");
         p.mutable_header()->set_present_match(true);
       })},
      {"Principal.url_path = 9", L(9, L(1, L(1, "/a"))),
       Expect<rbac::Principal>([](rbac::Principal& p) {
         p.mutable_url_path()->mutable_path()->set_exact("/a");
       })},
      {"Principal.metadata = 7", L(7, V(4, 1)),
       Expect<rbac::Principal>(
           [](rbac::Principal& p) { p.mutable_metadata()->set_invert(true); })},
      {"Principal.filter_state = 12; FilterStateMatcher.key = 1",
       L(12, L(1, "k")), Expect<rbac::Principal>([](rbac::Principal& p) {
         p.mutable_filter_state()->set_key("k");
       })},
      {"Principal.not_id = 8", L(8, V(3, 1)),
       Expect<rbac::Principal>(
           [](rbac::Principal& p) { p.mutable_not_id()->set_any(true); })},
  };
  CheckWireCases(cases);
}

TEST(WireCompatTest, Cluster) {
  const std::vector<WireCase> cases = {
      {"Cluster.name = 1, type = 2 (EDS = 3), eds_cluster_config = 3; "
       "EdsClusterConfig.eds_config = 1, service_name = 2; "
       "lb_policy = 6 (RING_HASH = 2)",
       L(1, "c1") + V(2, 3) + L(3, L(1, L(3, "")) + L(2, "xdstp://a/e/x")) +
           V(6, 2),
       Expect<cds::Cluster>([](cds::Cluster& c) {
         c.set_name("c1");
         c.set_type(cds::Cluster::EDS);
         c.mutable_eds_cluster_config()->mutable_eds_config()->mutable_ads();
         c.mutable_eds_cluster_config()->set_service_name("xdstp://a/e/x");
         c.set_lb_policy(cds::Cluster::RING_HASH);
       })},
      {"Cluster.circuit_breakers = 10; CircuitBreakers.thresholds = 1; "
       "Thresholds.priority = 1 (HIGH = 1), max_requests = 4",
       L(10, L(1, V(1, 1) + Wrapped(4, 100))),
       Expect<cds::Cluster>([](cds::Cluster& c) {
         auto* t = c.mutable_circuit_breakers()->add_thresholds();
         t->set_priority(core::HIGH);
         t->mutable_max_requests()->set_value(100);
       })},
      {"Cluster.load_assignment = 33 (LOGICAL_DNS = 2); "
       "ClusterLoadAssignment.cluster_name = 1",
       V(2, 2) + L(33, L(1, "dns")), Expect<cds::Cluster>([](cds::Cluster& c) {
         c.set_type(cds::Cluster::LOGICAL_DNS);
         c.mutable_load_assignment()->set_cluster_name("dns");
       })},
      {"Cluster.cluster_type = 38; CustomClusterType.name = 1, "
       "typed_config = 2; aggregate ClusterConfig.clusters = 1",
       L(38,
         L(1, "envoy.clusters.aggregate") +
             AnyOf(2, "envoy.extensions.clusters.aggregate.v3.ClusterConfig",
                   L(1, "p") + L(1, "s"))),
       Expect<cds::Cluster>([](cds::Cluster& c) {
         auto* t = c.mutable_cluster_type();
         t->set_name("envoy.clusters.aggregate");
         aggregate::ClusterConfig config;
         config.add_clusters("p");
         config.add_clusters("s");
         t->mutable_typed_config()->PackFrom(config);
       })},
      {"Cluster.lrs_server = 42; ConfigSource.self = 5", L(42, L(5, "")),
       Expect<cds::Cluster>(
           [](cds::Cluster& c) { c.mutable_lrs_server()->mutable_self(); })},
      {"Cluster.connect_timeout = 4, transport_socket = 24, metadata = 25; "
       "Metadata.filter_metadata = 1 (map entry key = 1, value = 2)",
       Seconds(4, 1) + L(24, L(1, "raw")) + L(25, L(1, L(1, "f") + L(2, ""))),
       Expect<cds::Cluster>([](cds::Cluster& c) {
         c.mutable_connect_timeout()->set_seconds(1);
         c.mutable_transport_socket()->set_name("raw");
         (*c.mutable_metadata()->mutable_filter_metadata())["f"];
       })},
  };
  CheckWireCases(cases);
}

// Envoy api/envoy/config/endpoint/v3/{endpoint,endpoint_components}.proto
// and config/core/v3/{base,health_check}.proto.
TEST(WireCompatTest, ClusterLoadAssignment) {
  const std::vector<WireCase> cases = {
      {"ClusterLoadAssignment.cluster_name = 1, endpoints = 2; "
       "LocalityLbEndpoints.locality = 1, lb_endpoints = 2, "
       "load_balancing_weight = 3, priority = 5; Locality.region = 1, "
       "zone = 2, sub_zone = 3; LbEndpoint.endpoint = 1, health_status = 2 "
       "(HEALTHY = 1), load_balancing_weight = 4; Endpoint.address = 1",
       L(1, "e1") +
           L(2, L(1, L(1, "r") + L(2, "z") + L(3, "s")) +
                    L(2, L(1, L(1, L(1, L(2, "10.0.0.1") + V(3, 443)))) +
                             V(2, 1) + Wrapped(4, 3)) +
                    Wrapped(3, 7) + V(5, 1)),
       Expect<eds::ClusterLoadAssignment>([](eds::ClusterLoadAssignment& a) {
         a.set_cluster_name("e1");
         auto* group = a.add_endpoints();
         group->mutable_locality()->set_region("r");
         group->mutable_locality()->set_zone("z");
         group->mutable_locality()->set_sub_zone("s");
         auto* lb = group->add_lb_endpoints();
         auto* socket = lb->mutable_endpoint()
                            ->mutable_address()
                            ->mutable_socket_address();
         socket->set_address("10.0.0.1");
         socket->set_port_value(443);
         lb->set_health_status(core::HEALTHY);
         lb->mutable_load_balancing_weight()->set_value(3);
         group->mutable_load_balancing_weight()->set_value(7);
         group->set_priority(1);
       })},
      {"ClusterLoadAssignment.policy = 4; Policy.drop_overloads = 2; "
       "DropOverload.category = 1, drop_percentage = 2; "
       "FractionalPercent.numerator = 1, denominator = 2 (MILLION = 2)",
       L(4, L(2, L(1, "lb") + L(2, V(1, 250) + V(2, 2)))),
       Expect<eds::ClusterLoadAssignment>([](eds::ClusterLoadAssignment& a) {
         auto* drop = a.mutable_policy()->add_drop_overloads();
         drop->set_category("lb");
         drop->mutable_drop_percentage()->set_numerator(250);
         drop->mutable_drop_percentage()->set_denominator(
             envoy::type::v3::FractionalPercent::MILLION);
       })},
  };
  CheckWireCases(cases);
}

// Envoy api/envoy/service/discovery/v3/discovery.proto,
// config/core/v3/base.proto (Node) and google/rpc/status.proto;
// A47 §XdsClient Changes (node, ACK / NACK, Resource wrapper).
TEST(WireCompatTest, Discovery) {
  const std::vector<WireCase> cases = {
      {"DiscoveryRequest.version_info = 1, node = 2, resource_names = 3, "
       "type_url = 4, response_nonce = 5, error_detail = 6; "
       "Status.code = 1, message = 2",
       L(1, "v1") + L(2, L(1, "n")) + L(3, "a") + L(3, "b") +
           L(4, "type.googleapis.com/envoy.config.cluster.v3.Cluster") +
           L(5, "n7") + L(6, V(1, 3) + L(2, "bad")),
       Expect<discovery::DiscoveryRequest>([](discovery::DiscoveryRequest& r) {
         r.set_version_info("v1");
         r.mutable_node()->set_id("n");
         r.add_resource_names("a");
         r.add_resource_names("b");
         r.set_type_url("type.googleapis.com/envoy.config.cluster.v3.Cluster");
         r.set_response_nonce("n7");
         r.mutable_error_detail()->set_code(3);
         r.mutable_error_detail()->set_message("bad");
       })},
      {"Node.id = 1, cluster = 2, metadata = 3 (Struct), locality = 4, "
       "user_agent_name = 6, user_agent_version = 7, client_features = 10",
       L(1, "id") + L(2, "cl") + L(3, L(1, L(1, "k") + L(2, L(3, "v")))) +
           L(4, L(2, "z")) + L(6, "xdsfed") + L(7, "0.1") +
           L(10, "envoy.lb.does_not_support_overprovisioning"),
       Expect<core::Node>([](core::Node& n) {
         n.set_id("id");
         n.set_cluster("cl");
         (*n.mutable_metadata()->mutable_fields())["k"].set_string_value("v");
         n.mutable_locality()->set_zone("z");
         n.set_user_agent_name("xdsfed");
         n.set_user_agent_version("0.1");
         n.add_client_features("envoy.lb.does_not_support_overprovisioning");
       })},
      {"DiscoveryResponse.version_info = 1, resources = 2, type_url = 4, "
       "nonce = 5",
       L(1, "3") + AnyOf(2, "envoy.config.listener.v3.Listener", L(1, "l")) +
           L(4, "type.googleapis.com/envoy.config.listener.v3.Listener") +
           L(5, "7"),
       Expect<discovery::DiscoveryResponse>(
           [](discovery::DiscoveryResponse& r) {
             r.set_version_info("3");
             lds::Listener listener;
             listener.set_name("l");
             r.add_resources()->PackFrom(listener);
             r.set_type_url(
                 "type.googleapis.com/envoy.config.listener.v3.Listener");
             r.set_nonce("7");
           })},
      {"Resource.version = 1, resource = 2, name = 3, aliases = 4, ttl = 6",
       L(1, "v") + AnyOf(2, "envoy.config.cluster.v3.Cluster", L(1, "c")) +
           L(3, "c") + L(4, "alias") + Seconds(6, 60),
       Expect<discovery::Resource>([](discovery::Resource& r) {
         r.set_version("v");
         cds::Cluster cluster;
         cluster.set_name("c");
         r.mutable_resource()->PackFrom(cluster);
         r.set_name("c");
         r.add_aliases("alias");
         r.mutable_ttl()->set_seconds(60);
       })},
      {"DeltaDiscoveryRequest.node = 1, type_url = 2, "
       "resource_names_subscribe = 3, resource_names_unsubscribe = 4, "
       "response_nonce = 6",
       L(1, L(1, "n")) + L(2, "t") + L(3, "a") + L(4, "b") + L(6, "x"),
       Expect<discovery::DeltaDiscoveryRequest>(
           [](discovery::DeltaDiscoveryRequest& r) {
             r.mutable_node()->set_id("n");
             r.set_type_url("t");
             r.add_resource_names_subscribe("a");
             r.add_resource_names_unsubscribe("b");
             r.set_response_nonce("x");
           })},
      {"DeltaDiscoveryResponse.system_version_info = 1, resources = 2, "
       "type_url = 4, nonce = 5, removed_resources = 6",
       L(1, "s") + L(2, L(3, "r")) + L(4, "t") + L(5, "n") + L(6, "gone"),
       Expect<discovery::DeltaDiscoveryResponse>(
           [](discovery::DeltaDiscoveryResponse& r) {
             r.set_system_version_info("s");
             r.add_resources()->set_name("r");
             r.set_type_url("t");
             r.set_nonce("n");
             r.add_removed_resources("gone");
           })},
  };
  CheckWireCases(cases);
}

// Envoy api/envoy/service/load_stats/v3/lrs.proto and
// config/endpoint/v3/load_report.proto.
TEST(WireCompatTest, LoadReporting) {
  const std::vector<WireCase> cases = {
      {"LoadStatsRequest.node = 1, cluster_stats = 2; "
       "ClusterStats.cluster_name = 1, upstream_locality_stats = 2, "
       "total_dropped_requests = 3, load_report_interval = 4, "
       "dropped_requests = 5, cluster_service_name = 6; "
       "DroppedRequests.category = 1, dropped_count = 2",
       L(1, L(1, "n")) + L(2, L(1, "c") + L(2, "") + V(3, 4) + Seconds(4, 10) +
                                  L(5, L(1, "lb") + V(2, 4)) + L(6, "svc")),
       Expect<lrs::LoadStatsRequest>([](lrs::LoadStatsRequest& r) {
         r.mutable_node()->set_id("n");
         auto* stats = r.add_cluster_stats();
         stats->set_cluster_name("c");
         stats->add_upstream_locality_stats();
         stats->set_total_dropped_requests(4);
         stats->mutable_load_report_interval()->set_seconds(10);
         auto* dropped = stats->add_dropped_requests();
         dropped->set_category("lb");
         dropped->set_dropped_count(4);
         stats->set_cluster_service_name("svc");
       })},
      {"UpstreamLocalityStats.locality = 1, total_successful_requests = 2, "
       "total_requests_in_progress = 3, total_error_requests = 4, "
       "load_metric_stats = 5, priority = 6, total_issued_requests = 8; "
       "EndpointLoadMetricStats.metric_name = 1, "
       "num_requests_finished_with_metric = 2, total_metric_value = 3",
       L(1, L(1, "r")) + V(2, 10) + V(3, 2) + V(4, 1) +
           L(5, L(1, "cpu") + V(2, 5) + D(3, 2.5)) + V(6, 1) + V(8, 13),
       Expect<eds::UpstreamLocalityStats>([](eds::UpstreamLocalityStats& s) {
         s.mutable_locality()->set_region("r");
         s.set_total_successful_requests(10);
         s.set_total_requests_in_progress(2);
         s.set_total_error_requests(1);
         auto* metric = s.add_load_metric_stats();
         metric->set_metric_name("cpu");
         metric->set_num_requests_finished_with_metric(5);
         metric->set_total_metric_value(2.5);
         s.set_priority(1);
         s.set_total_issued_requests(13);
       })},
      {"LoadStatsResponse.clusters = 1, load_reporting_interval = 2, "
       "report_endpoint_granularity = 3, send_all_clusters = 4",
       L(1, "c") + Seconds(2, 5) + V(3, 1) + V(4, 1),
       Expect<lrs::LoadStatsResponse>([](lrs::LoadStatsResponse& r) {
         r.add_clusters("c");
         r.mutable_load_reporting_interval()->set_seconds(5);
         r.set_report_endpoint_granularity(true);
         r.set_send_all_clusters(true);
       })},
  };
  CheckWireCases(cases);
}

// A47 §XdsClient Changes: resource types are recognised by type URL, so our
// full names must be the official ones.
TEST(WireCompatTest, TypeUrls) {
  struct Case {
    absl::string_view type_url;
    const google::protobuf::Descriptor* descriptor;
  };
  const Case kCases[] = {
      {"type.googleapis.com/envoy.config.listener.v3.Listener",
       lds::Listener::descriptor()},
      {"type.googleapis.com/envoy.config.route.v3.RouteConfiguration",
       rds::RouteConfiguration::descriptor()},
      {"type.googleapis.com/envoy.config.cluster.v3.Cluster",
       cds::Cluster::descriptor()},
      {"type.googleapis.com/envoy.config.endpoint.v3.ClusterLoadAssignment",
       eds::ClusterLoadAssignment::descriptor()},
      {"type.googleapis.com/envoy.extensions.filters.network."
       "http_connection_manager.v3.HttpConnectionManager",
       hcm::HttpConnectionManager::descriptor()},
      {"type.googleapis.com/envoy.extensions.filters.http.router.v3.Router",
       router::Router::descriptor()},
      {"type.googleapis.com/envoy.extensions.filters.http.rbac.v3.RBAC",
       http_rbac::RBAC::descriptor()},
      {"type.googleapis.com/envoy.extensions.filters.http.rbac.v3."
       "RBACPerRoute",
       http_rbac::RBACPerRoute::descriptor()},
      {"type.googleapis.com/"
       "envoy.extensions.clusters.aggregate.v3.ClusterConfig",
       aggregate::ClusterConfig::descriptor()},
      {"type.googleapis.com/envoy.service.discovery.v3.Resource",
       discovery::Resource::descriptor()},
      {"type.googleapis.com/google.rpc.Status",
       google::rpc::Status::descriptor()},
  };
  for (const Case& c : kCases) {
    SCOPED_TRACE(c.type_url);
    EXPECT_EQ(absl::StrCat("type.googleapis.com/", c.descriptor->full_name()),
              c.type_url);
    std::unique_ptr<Message> empty(
        google::protobuf::MessageFactory::generated_factory()
            ->GetPrototype(c.descriptor)
            ->New());
    google::protobuf::Any any;
    any.PackFrom(*empty);
    EXPECT_EQ(any.type_url(), c.type_url);
  }
}

// The aggregate cluster of A37 and the client Listener both carry their
// payload in an Any: pack, check the bytes, unpack, and refuse other types.
TEST(WireCompatTest, AnyPacking) {
  hcm::HttpConnectionManager manager;
  manager.mutable_rds()->mutable_config_source()->mutable_ads();
  manager.mutable_rds()->set_route_config_name("r");
  aggregate::ClusterConfig aggregate_config;
  aggregate_config.add_clusters("primary");
  aggregate_config.add_clusters("fallback");

  struct Case {
    absl::string_view name;
    const Message* payload;
    std::string want_any;  // hand-encoded Any
  };
  const Case kCases[] = {
      {"HttpConnectionManager in ApiListener.api_listener", &manager,
       L(1,
         "type.googleapis.com/envoy.extensions.filters.network."
         "http_connection_manager.v3.HttpConnectionManager") +
           L(2, L(3, L(1, L(3, "")) + L(2, "r")))},
      {"aggregate ClusterConfig in CustomClusterType.typed_config",
       &aggregate_config,
       L(1,
         "type.googleapis.com/"
         "envoy.extensions.clusters.aggregate.v3.ClusterConfig") +
           L(2, L(1, "primary") + L(1, "fallback"))},
  };
  for (const Case& c : kCases) {
    SCOPED_TRACE(c.name);
    google::protobuf::Any any;
    ASSERT_TRUE(any.PackFrom(*c.payload));
    EXPECT_EQ(absl::BytesToHexString(any.SerializeAsString()),
              absl::BytesToHexString(c.want_any));
    google::protobuf::Any parsed;
    ASSERT_TRUE(parsed.ParseFromString(c.want_any));
    std::unique_ptr<Message> back(c.payload->New());
    ASSERT_TRUE(parsed.UnpackTo(back.get()));
    EXPECT_TRUE(
        google::protobuf::util::MessageDifferencer::Equals(*back, *c.payload));
  }

  // Unpacking into the wrong type fails instead of misreading the bytes.
  google::protobuf::Any any;
  any.PackFrom(manager);
  EXPECT_TRUE(any.Is<hcm::HttpConnectionManager>());
  EXPECT_FALSE(any.Is<aggregate::ClusterConfig>());
  aggregate::ClusterConfig wrong;
  EXPECT_FALSE(any.UnpackTo(&wrong));
}

// Enum values travel as numbers; Envoy's api/ fixes them.
TEST(WireCompatTest, EnumNumbers) {
  struct Case {
    absl::string_view enum_name;
    absl::string_view value_name;
    int number;
  };
  const Case kCases[] = {
      {"envoy.config.cluster.v3.Cluster.DiscoveryType", "EDS", 3},
      {"envoy.config.cluster.v3.Cluster.DiscoveryType", "LOGICAL_DNS", 2},
      {"envoy.config.cluster.v3.Cluster.LbPolicy", "RING_HASH", 2},
      {"envoy.config.cluster.v3.Cluster.LbPolicy", "MAGLEV", 5},
      {"envoy.config.cluster.v3.Cluster.LbPolicy",
       "LOAD_BALANCING_POLICY_CONFIG", 7},
      {"envoy.config.rbac.v3.RBAC.Action", "ALLOW", 0},
      {"envoy.config.rbac.v3.RBAC.Action", "DENY", 1},
      {"envoy.config.rbac.v3.RBAC.Action", "LOG", 2},
      {"envoy.config.rbac.v3.RBAC.AuditCondition", "ON_DENY_AND_ALLOW", 3},
      {"envoy.config.core.v3.HealthStatus", "HEALTHY", 1},
      {"envoy.config.core.v3.HealthStatus", "DRAINING", 3},
      {"envoy.config.core.v3.HealthStatus", "DEGRADED", 5},
      {"envoy.config.core.v3.ApiVersion", "V3", 2},
      {"envoy.config.core.v3.RoutingPriority", "HIGH", 1},
      {"envoy.config.core.v3.TrafficDirection", "INBOUND", 1},
      {"envoy.config.core.v3.ApiConfigSource.ApiType", "AGGREGATED_GRPC", 5},
      {"envoy.type.v3.FractionalPercent.DenominatorType", "TEN_THOUSAND", 1},
      {"envoy.config.listener.v3.FilterChainMatch.ConnectionSourceType",
       "EXTERNAL", 2},
      {"envoy.extensions.filters.network.http_connection_manager.v3."
       "HttpConnectionManager.CodecType",
       "HTTP2", 2},
  };
  const google::protobuf::DescriptorPool* pool =
      google::protobuf::DescriptorPool::generated_pool();
  for (const Case& c : kCases) {
    SCOPED_TRACE(absl::StrCat(c.enum_name, ".", c.value_name));
    const google::protobuf::EnumDescriptor* e =
        pool->FindEnumTypeByName(std::string(c.enum_name));
    ASSERT_NE(e, nullptr);
    const google::protobuf::EnumValueDescriptor* v =
        e->FindValueByName(std::string(c.value_name));
    ASSERT_NE(v, nullptr);
    EXPECT_EQ(v->number(), c.number);
  }
}

// The HTTP/2 paths of the streams are built from the service and method
// names (ads.proto, lrs.proto).
TEST(WireCompatTest, ServiceNames) {
  struct Case {
    const google::protobuf::FileDescriptor* file;
    absl::string_view service;
    absl::string_view method;
    absl::string_view input;
    absl::string_view output;
  };
  // A message of each file reaches the file, and using it links the file in.
  const Case kCases[] = {
      {discovery::AdsDummy::descriptor()->file(),
       "envoy.service.discovery.v3.AggregatedDiscoveryService",
       "StreamAggregatedResources",
       "envoy.service.discovery.v3.DiscoveryRequest",
       "envoy.service.discovery.v3.DiscoveryResponse"},
      {discovery::AdsDummy::descriptor()->file(),
       "envoy.service.discovery.v3.AggregatedDiscoveryService",
       "DeltaAggregatedResources",
       "envoy.service.discovery.v3.DeltaDiscoveryRequest",
       "envoy.service.discovery.v3.DeltaDiscoveryResponse"},
      {lrs::LoadStatsRequest::descriptor()->file(),
       "envoy.service.load_stats.v3.LoadReportingService", "StreamLoadStats",
       "envoy.service.load_stats.v3.LoadStatsRequest",
       "envoy.service.load_stats.v3.LoadStatsResponse"},
  };
  for (const Case& c : kCases) {
    SCOPED_TRACE(absl::StrCat(c.service, "/", c.method));
    ASSERT_EQ(c.file->service_count(), 1);
    const google::protobuf::ServiceDescriptor* service = c.file->service(0);
    EXPECT_EQ(service->full_name(), c.service);
    const google::protobuf::MethodDescriptor* method =
        service->FindMethodByName(std::string(c.method));
    ASSERT_NE(method, nullptr);
    EXPECT_TRUE(method->client_streaming());
    EXPECT_TRUE(method->server_streaming());
    EXPECT_EQ(method->input_type()->full_name(), c.input);
    EXPECT_EQ(method->output_type()->full_name(), c.output);
  }
  EXPECT_STREQ(discovery::AggregatedDiscoveryService::service_full_name(),
               "envoy.service.discovery.v3.AggregatedDiscoveryService");
  EXPECT_STREQ(lrs::LoadReportingService::service_full_name(),
               "envoy.service.load_stats.v3.LoadReportingService");
}

}  // namespace
}  // namespace xdsfed
