// RouteConfiguration decoding and validation (lib/resources/route_config.h).
// Sources: gRPC 1.51 src/core/ext/xds/xds_route_config.cc and
// xds_routing.cc (the client rules), A36 §Resource Validation.
#include "lib/resources/route_config.h"

#include <functional>
#include <memory>
#include <string>
#include <utility>

#include "envoy/config/route/v3/route.pb.h"
#include "envoy/extensions/filters/http/rbac/v3/rbac.pb.h"
#include "envoy/extensions/filters/http/router/v3/router.pb.h"
#include "google/protobuf/util/json_util.h"
#include "gtest/gtest.h"
#include "lib/resources/rbac.h"
#include "lib/resources/resource_type.h"
#include "lib/resources/route_config_fast.h"
#include "re2/re2.h"

namespace xdsfed {
namespace resources {
namespace {

namespace route_pb = envoy::config::route::v3;

// One valid vhost with one route "" -> cluster "c".
route_pb::RouteConfiguration BaseConfig() {
  route_pb::RouteConfiguration rc;
  rc.set_name("rc");
  auto* vh = rc.add_virtual_hosts();
  vh->set_name("vh");
  vh->add_domains("*");
  auto* route = vh->add_routes();
  route->mutable_match()->set_prefix("");
  route->mutable_route()->set_cluster("c");
  return rc;
}

route_pb::Route* FirstRoute(route_pb::RouteConfiguration* rc) {
  return rc->mutable_virtual_hosts(0)->mutable_routes(0);
}

DecodeResult DecodeProto(const route_pb::RouteConfiguration& rc) {
  return RouteConfigResourceType().Decode({}, rc.SerializeAsString());
}

std::string ErrorOf(const route_pb::RouteConfiguration& rc) {
  DecodeResult r = DecodeProto(rc);
  if (r.value.ok()) return "ok";
  EXPECT_EQ(r.value.status().code(), absl::StatusCode::kInvalidArgument);
  return std::string(r.value.status().message());
}

const RouteConfig& ValueOf(const DecodeResult& r) {
  return *XdsResourceType<RouteConfig>::Cast(r.value->get());
}

TEST(RouteConfigTest, TypeMetadata) {
  const ResourceType& t = RouteConfigResourceType();
  EXPECT_EQ(t.type_url(),
            "type.googleapis.com/envoy.config.route.v3.RouteConfiguration");
  EXPECT_EQ(t.type_name(), "envoy.config.route.v3.RouteConfiguration");
  EXPECT_EQ(t.short_name(), "RouteConfiguration");
  EXPECT_FALSE(t.all_resources_required_in_sotw());
}

TEST(RouteConfigTest, UndecodableBytes) {
  for (const std::string& bytes :
       {std::string("\xff\xff\xff", 3), std::string("\x0a\x05", 2)}) {
    DecodeResult r = RouteConfigResourceType().Decode({}, bytes);
    EXPECT_EQ(r.name, "");
    EXPECT_EQ(r.value.status().message(),
              "cannot decode RouteConfiguration: not a serialized "
              "envoy.config.route.v3.RouteConfiguration");
  }
}

TEST(RouteConfigTest, ValidValueAndXdstpClusterKeptVerbatim) {
  // A47 §xDS API changes: names inside resources may be xdstp: names.
  route_pb::RouteConfiguration rc = BaseConfig();
  const std::string cluster =
      "xdstp://a.com/envoy.config.cluster.v3.Cluster/c?b=2&a=1";
  FirstRoute(&rc)->mutable_route()->set_cluster(cluster);
  DecodeResult r = DecodeProto(rc);
  ASSERT_TRUE(r.value.ok()) << r.value.status();
  EXPECT_EQ(r.name, "rc");
  const RouteConfig& v = ValueOf(r);
  ASSERT_EQ(v.virtual_hosts.size(), 1u);
  ASSERT_EQ(v.virtual_hosts[0].routes.size(), 1u);
  const auto& action =
      std::get<RouteAction>(v.virtual_hosts[0].routes[0].action);
  EXPECT_EQ(action.cluster, cluster);
  EXPECT_TRUE(RouteConfigResourceType().Equal(r.value->get(), r.value->get()));
  DecodeResult again = DecodeProto(rc);
  EXPECT_TRUE(
      RouteConfigResourceType().Equal(r.value->get(), again.value->get()));
  rc.set_name("other");
  DecodeResult other = DecodeProto(rc);
  EXPECT_FALSE(
      RouteConfigResourceType().Equal(r.value->get(), other.value->get()));
}

TEST(RouteConfigTest, ToJsonShape) {
  route_pb::RouteConfiguration rc = BaseConfig();
  auto* route = FirstRoute(&rc);
  route->set_name("r0");
  auto* header = route->mutable_match()->add_headers();
  header->set_name("x-a");
  header->set_exact_match("1");
  auto* ms = route->mutable_route()->mutable_max_stream_duration();
  ms->mutable_max_stream_duration()->set_seconds(1);
  ms->mutable_max_stream_duration()->set_nanos(500000000);
  auto* r2 = rc.mutable_virtual_hosts(0)->add_routes();
  r2->mutable_match()->set_path("/s/m");
  r2->mutable_non_forwarding_action();
  DecodeResult r = DecodeProto(rc);
  ASSERT_TRUE(r.value.ok()) << r.value.status();
  Json::StreamWriterBuilder builder;
  builder["indentation"] = "";
  EXPECT_EQ(
      Json::writeString(builder,
                        RouteConfigResourceType().ToJson(r.value->get())),
      R"({"name":"rc","virtual_hosts":[{"domains":["*"],"name":"vh","routes":[)"
      R"({"match":{"headers":[{"invert_match":false,"name":"x-a","string_match":)"
      R"({"case_sensitive":true,"type":"exact","value":"1"}}],"path":)"
      R"({"case_sensitive":true,"type":"prefix","value":""}},"name":"r0",)"
      R"("route":{"cluster":"c","max_stream_duration":"1.500s"}},)"
      R"({"match":{"headers":[],"path":{"case_sensitive":true,"type":"exact",)"
      R"("value":"/s/m"}},"name":"","non_forwarding_action":{}}]}]})");
}

// gRPC 1.51 XdsRouting::IsValidDomainPattern.
TEST(RouteConfigTest, DomainPatterns) {
  struct Case {
    const char* domain;
    bool valid;
  };
  const Case kCases[] = {
      {"*", true},   {"*.example.com", true}, {"example.*", true},
      {"a.b", true}, {"*a*", true},           {"a*b", false},
      {"", false},
  };
  for (const Case& c : kCases) {
    SCOPED_TRACE(c.domain);
    route_pb::RouteConfiguration rc = BaseConfig();
    rc.mutable_virtual_hosts(0)->set_domains(0, c.domain);
    std::string want =
        c.valid ? "ok"
                : std::string(
                      "errors validating RouteConfiguration: "
                      "[field:virtual_hosts[0].domains[0] error:"
                      "invalid domain pattern \"") +
                      c.domain +
                      "\": '*' may only be the whole pattern, its first or "
                      "its last character]";
    EXPECT_EQ(ErrorOf(rc), want);
  }
}

// gRPC 1.51 xds_route_config.cc RoutePathMatchParse / query_parameters /
// RouteActionParse: routes that can never match or route to a cluster gRPC
// supports are dropped, not NACKed. A second valid route keeps the vhost
// non-empty.
TEST(RouteConfigTest, IgnoredRoutes) {
  struct Case {
    const char* what;
    std::function<void(route_pb::Route*)> mutate;
  };
  const Case kCases[] = {
      {"prefix without /",
       [](auto* r) { r->mutable_match()->set_prefix("a"); }},
      {"prefix with 3 slashes",
       [](auto* r) { r->mutable_match()->set_prefix("/a/b/c"); }},
      {"prefix //", [](auto* r) { r->mutable_match()->set_prefix("//a"); }},
      {"empty path", [](auto* r) { r->mutable_match()->set_path(""); }},
      {"path no service", [](auto* r) { r->mutable_match()->set_path("//m"); }},
      {"path no method", [](auto* r) { r->mutable_match()->set_path("/s/"); }},
      {"path one part", [](auto* r) { r->mutable_match()->set_path("/s"); }},
      {"query parameters",
       [](auto* r) {
         r->mutable_match()->add_query_parameters()->set_name("q");
       }},
      {"cluster_header",
       [](auto* r) { r->mutable_route()->set_cluster_header("x-cluster"); }},
      {"cluster_specifier_plugin",
       [](auto* r) { r->mutable_route()->set_cluster_specifier_plugin("p"); }},
      {"no cluster specifier", [](auto* r) { r->mutable_route()->Clear(); }},
  };
  for (const Case& c : kCases) {
    SCOPED_TRACE(c.what);
    route_pb::RouteConfiguration rc = BaseConfig();
    auto* keep = rc.mutable_virtual_hosts(0)->add_routes();
    keep->set_name("kept");
    keep->mutable_match()->set_prefix("/");
    keep->mutable_route()->set_cluster("c2");
    c.mutate(FirstRoute(&rc));
    DecodeResult r = DecodeProto(rc);
    ASSERT_TRUE(r.value.ok()) << r.value.status();
    ASSERT_EQ(ValueOf(r).virtual_hosts[0].routes.size(), 1u);
    EXPECT_EQ(ValueOf(r).virtual_hosts[0].routes[0].name, "kept");
  }
}

// gRPC 1.51 keeps routes with other actions (RPCs matching them fail);
// A36: non_forwarding_action is what a server serves.
TEST(RouteConfigTest, ActionsKept) {
  struct Case {
    const char* what;
    std::function<void(route_pb::Route*)> mutate;
    std::string kind;  // "" with non_forwarding = NonForwardingAction
    bool non_forwarding;
  };
  const Case kCases[] = {
      {"non_forwarding", [](auto* r) { r->mutable_non_forwarding_action(); },
       "", true},
      {"redirect", [](auto* r) { r->mutable_redirect(); }, "redirect", false},
      {"direct_response", [](auto* r) { r->mutable_direct_response(); },
       "direct_response", false},
      {"filter_action", [](auto* r) { r->mutable_filter_action(); },
       "filter_action", false},
      {"none", [](auto* r) { r->clear_action(); }, "", false},
  };
  for (const Case& c : kCases) {
    SCOPED_TRACE(c.what);
    route_pb::RouteConfiguration rc = BaseConfig();
    c.mutate(FirstRoute(&rc));
    DecodeResult r = DecodeProto(rc);
    ASSERT_TRUE(r.value.ok()) << r.value.status();
    const auto& action = ValueOf(r).virtual_hosts[0].routes[0].action;
    if (c.non_forwarding) {
      EXPECT_TRUE(std::holds_alternative<NonForwardingAction>(action));
    } else {
      ASSERT_TRUE(std::holds_alternative<UnsupportedAction>(action));
      EXPECT_EQ(std::get<UnsupportedAction>(action).kind, c.kind);
    }
  }
}

// gRPC 1.51 RouteRuntimeFractionParse: normalized to per million.
TEST(RouteConfigTest, RuntimeFraction) {
  using FP = envoy::type::v3::FractionalPercent;
  struct Case {
    uint32_t numerator;
    FP::DenominatorType denominator;
    uint32_t want;
  };
  const Case kCases[] = {
      {50, FP::HUNDRED, 500000},
      {5, FP::TEN_THOUSAND, 500},
      {7, FP::MILLION, 7},
      {4000000, FP::HUNDRED, 1000000},  // clamped, not wrapped
  };
  for (const Case& c : kCases) {
    SCOPED_TRACE(c.numerator);
    route_pb::RouteConfiguration rc = BaseConfig();
    auto* fraction = FirstRoute(&rc)
                         ->mutable_match()
                         ->mutable_runtime_fraction()
                         ->mutable_default_value();
    fraction->set_numerator(c.numerator);
    fraction->set_denominator(c.denominator);
    DecodeResult r = DecodeProto(rc);
    ASSERT_TRUE(r.value.ok()) << r.value.status();
    EXPECT_EQ(ValueOf(r).virtual_hosts[0].routes[0].match.fraction_per_million,
              c.want);
  }
}

// gRPC 1.51 RetryPolicyParse defaults: 1 retry, 25ms / 250ms, max = 10x base;
// the vhost policy applies to routes without their own.
TEST(RouteConfigTest, RetryPolicy) {
  route_pb::RouteConfiguration rc = BaseConfig();
  auto* policy = rc.mutable_virtual_hosts(0)->mutable_retry_policy();
  policy->set_retry_on("unavailable,5xx,cancelled");
  policy->mutable_retry_back_off()->mutable_base_interval()->set_nanos(
      300000000);
  DecodeResult r = DecodeProto(rc);
  ASSERT_TRUE(r.value.ok()) << r.value.status();
  const auto& action =
      std::get<RouteAction>(ValueOf(r).virtual_hosts[0].routes[0].action);
  ASSERT_TRUE(action.retry_policy.has_value());
  EXPECT_EQ(action.retry_policy->retry_on,
            (std::vector<std::string>{"unavailable", "cancelled"}));
  EXPECT_EQ(action.retry_policy->num_retries, 1u);
  EXPECT_EQ(action.retry_policy->base_interval, (ProtoDuration{0, 300000000}));
  EXPECT_EQ(action.retry_policy->max_interval, (ProtoDuration{3, 0}));
}

TEST(RouteConfigTest, WeightedClustersDropZeroWeights) {
  route_pb::RouteConfiguration rc = BaseConfig();
  auto* wc = FirstRoute(&rc)->mutable_route()->mutable_weighted_clusters();
  auto* a = wc->add_clusters();
  a->set_name("a");
  a->mutable_weight()->set_value(3);
  auto* b = wc->add_clusters();
  b->set_name("b");
  b->mutable_weight()->set_value(0);
  DecodeResult r = DecodeProto(rc);
  ASSERT_TRUE(r.value.ok()) << r.value.status();
  const auto& action =
      std::get<RouteAction>(ValueOf(r).virtual_hosts[0].routes[0].action);
  EXPECT_EQ(action.weighted_clusters, (std::vector<ClusterWeight>{{"a", 3}}));
  EXPECT_EQ(action.cluster, "");
}

// Errors: each row is a rule of gRPC 1.51 xds_route_config.cc unless noted;
// messages are ours, with field paths.
TEST(RouteConfigTest, Errors) {
  using Mutate = std::function<void(route_pb::RouteConfiguration*)>;
  struct Case {
    const char* what;
    Mutate mutate;
    std::string want;
  };
  const std::string p = "errors validating RouteConfiguration: [";
  const Case kCases[] = {
      {"no domains",
       [](auto* rc) { rc->mutable_virtual_hosts(0)->clear_domains(); },
       p + "field:virtual_hosts[0].domains error:must be non-empty]"},
      {"no routes",
       [](auto* rc) { rc->mutable_virtual_hosts(0)->clear_routes(); },
       p + "field:virtual_hosts[0].routes error:must be non-empty]"},
      {"every route ignored",
       [](auto* rc) { FirstRoute(rc)->mutable_match()->set_prefix("x"); },
       p + "field:virtual_hosts[0].routes error:no valid routes: every route "
           "was ignored]"},
      {"no match", [](auto* rc) { FirstRoute(rc)->clear_match(); },
       p + "field:virtual_hosts[0].routes[0].match error:field not present]"},
      {"no path specifier",
       [](auto* rc) {
         FirstRoute(rc)->mutable_match()->clear_path_specifier();
       },
       p + "field:virtual_hosts[0].routes[0].match.path_specifier "
           "error:invalid path specifier: none set]"},
      {"empty cluster",
       [](auto* rc) { FirstRoute(rc)->mutable_route()->set_cluster(""); },
       p + "field:virtual_hosts[0].routes[0].route.cluster error:must be "
           "non-empty]"},
      {"weighted: no name, no weight, zero sum",
       [](auto* rc) {
         auto* wc =
             FirstRoute(rc)->mutable_route()->mutable_weighted_clusters();
         wc->add_clusters()->mutable_weight()->set_value(0);
         wc->add_clusters()->set_name("b");
       },
       p + "field:virtual_hosts[0].routes[0].route.weighted_clusters "
           "error:sum of cluster weights must be greater than 0; "
           "field:virtual_hosts[0].routes[0].route.weighted_clusters."
           "clusters[0].name error:must be non-empty; "
           "field:virtual_hosts[0].routes[0].route.weighted_clusters."
           "clusters[1].weight error:field not present]"},
      {"weighted: sum overflows uint32",
       [](auto* rc) {
         auto* wc =
             FirstRoute(rc)->mutable_route()->mutable_weighted_clusters();
         for (const char* name : {"a", "b"}) {
           auto* c = wc->add_clusters();
           c->set_name(name);
           c->mutable_weight()->set_value(0xffffffffu);
         }
       },
       p + "field:virtual_hosts[0].routes[0].route.weighted_clusters "
           "error:sum of cluster weights exceeds uint32 max]"},
      {"header range end < start",
       [](auto* rc) {
         auto* h = FirstRoute(rc)->mutable_match()->add_headers();
         h->set_name("x");
         h->mutable_range_match()->set_start(5);
         h->mutable_range_match()->set_end(4);
       },
       p + "field:virtual_hosts[0].routes[0].match.headers[0].range_match "
           "error:end cannot be smaller than start]"},
      {"header without specifier",
       [](auto* rc) {
         FirstRoute(rc)->mutable_match()->add_headers()->set_name("x");
       },
       p + "field:virtual_hosts[0].routes[0].match.headers[0] error:invalid "
           "header matcher: no header_match_specifier set]"},
      {"header string_match without pattern",
       [](auto* rc) {
         FirstRoute(rc)->mutable_match()->add_headers()->mutable_string_match();
       },
       p + "field:virtual_hosts[0].routes[0].match.headers[0].string_match "
           "error:invalid string matcher: no match_pattern set]"},
      {"unknown fraction denominator",
       [](auto* rc) {
         FirstRoute(rc)
             ->mutable_match()
             ->mutable_runtime_fraction()
             ->mutable_default_value()
             ->set_denominator(
                 static_cast<
                     envoy::type::v3::FractionalPercent::DenominatorType>(7));
       },
       p + "field:virtual_hosts[0].routes[0].match.runtime_fraction."
           "default_value.denominator error:unknown denominator type 7]"},
      {"retry: zero retries, backoff without base, bad max",
       [](auto* rc) {
         auto* policy = FirstRoute(rc)->mutable_route()->mutable_retry_policy();
         policy->mutable_num_retries()->set_value(0);
         auto* backoff = policy->mutable_retry_back_off();
         backoff->mutable_max_interval()->set_seconds(-1);
       },
       p + "field:virtual_hosts[0].routes[0].route.retry_policy.num_retries "
           "error:must be greater than 0; "
           "field:virtual_hosts[0].routes[0].route.retry_policy.retry_back_off."
           "base_interval error:field not present; "
           "field:virtual_hosts[0].routes[0].route.retry_policy.retry_back_off."
           "max_interval.seconds error:value must be in the range [0, "
           "315576000000]]"},
      {"bad max_stream_duration",
       [](auto* rc) {
         FirstRoute(rc)
             ->mutable_route()
             ->mutable_max_stream_duration()
             ->mutable_grpc_timeout_header_max()
             ->set_nanos(1000000000);
       },
       p + "field:virtual_hosts[0].routes[0].route.max_stream_duration."
           "grpc_timeout_header_max.nanos error:value must be in the range "
           "[0, 999999999]]"},
      {"router filter override",
       [](auto* rc) {
         (*FirstRoute(rc)->mutable_typed_per_filter_config())["router"]
             .PackFrom(envoy::extensions::filters::http::router::v3::Router());
       },
       p + "field:virtual_hosts[0].routes[0].typed_per_filter_config"
           "[\"router\"] error:filter config override not supported for "
           "envoy.extensions.filters.http.router.v3.Router]"},
      {"unknown override, not optional",
       [](auto* rc) {
         auto& any = (*rc->mutable_virtual_hosts(0)
                           ->mutable_typed_per_filter_config())["f"];
         any.set_type_url("type.googleapis.com/foo.Bar");
       },
       p + "field:virtual_hosts[0].typed_per_filter_config[\"f\"] "
           "error:unsupported filter type foo.Bar]"},
      {"override with empty key and bad type url",
       [](auto* rc) {
         auto& map = *FirstRoute(rc)->mutable_typed_per_filter_config();
         map[""].set_type_url("type.googleapis.com/foo.Bar");
         map["g"].set_type_url("nothing");
       },
       p + "field:virtual_hosts[0].routes[0].typed_per_filter_config[\"\"] "
           "error:filter name must be non-empty; "
           "field:virtual_hosts[0].routes[0].typed_per_filter_config[\"g\"]."
           "type_url error:invalid value \"nothing\": expected "
           "\"type.googleapis.com/<message type>\"]"},
      {"FilterConfig wrapper without config, not optional",
       [](auto* rc) {
         (*FirstRoute(rc)->mutable_typed_per_filter_config())["f"].PackFrom(
             route_pb::FilterConfig());
       },
       p + "field:virtual_hosts[0].routes[0].typed_per_filter_config[\"f\"]."
           "value[envoy.config.route.v3.FilterConfig].config error:field not "
           "present]"},
      {"several errors in several virtual hosts",
       [](auto* rc) {
         rc->mutable_virtual_hosts(0)->clear_domains();
         auto* vh = rc->add_virtual_hosts();
         vh->add_domains("a*b");
         vh->add_routes()->mutable_match()->set_prefix("/");
         vh->mutable_routes(0)->mutable_route()->set_cluster("");
       },
       p + "field:virtual_hosts[0].domains error:must be non-empty; "
           "field:virtual_hosts[1].domains[0] error:invalid domain pattern "
           "\"a*b\": '*' may only be the whole pattern, its first or its last "
           "character; field:virtual_hosts[1].routes[0].route.cluster "
           "error:must be non-empty]"},
  };
  for (const Case& c : kCases) {
    SCOPED_TRACE(c.what);
    route_pb::RouteConfiguration rc = BaseConfig();
    c.mutate(&rc);
    EXPECT_EQ(ErrorOf(rc), c.want);
    EXPECT_EQ(DecodeProto(rc).name, "rc");
  }
}

// safe_regex (A28 §Route Matching, gRPC 1.51 StringMatcher::Create): every
// pattern is compiled with RE2 at validation; one RE2 rejects NACKs the
// resource with its field path; an accepted one is kept compiled, with the
// route's case_sensitive for a path regex.
TEST(RouteConfigTest, SafeRegex) {
  using Mutate = std::function<void(route_pb::Route*)>;
  struct Case {
    const char* what;
    Mutate mutate;
    std::string want;        // "" = valid
    const char* full_match;  // valid: a value the first regex fully matches
  };
  const std::string p = "errors validating RouteConfiguration: [";
  const Case kCases[] = {
      {"path regex",
       [](auto* r) {
         r->mutable_match()->mutable_safe_regex()->set_regex(
             "/svc/(Get|List)[A-Z].*");
       },
       "", "/svc/GetX"},
      {"path regex, case_sensitive false",
       [](auto* r) {
         r->mutable_match()->mutable_safe_regex()->set_regex("/svc/get.*");
         r->mutable_match()->mutable_case_sensitive()->set_value(false);
       },
       "", "/SVC/GET1"},
      {"header safe_regex_match",
       [](auto* r) {
         auto* h = r->mutable_match()->add_headers();
         h->set_name("x");
         h->mutable_safe_regex_match()->set_regex("v[0-9]+");
       },
       "", "v12"},
      {"header string_match safe_regex, ignore_case",
       [](auto* r) {
         auto* h = r->mutable_match()->add_headers();
         h->set_name("x");
         h->mutable_string_match()->mutable_safe_regex()->set_regex("ab+");
         h->mutable_string_match()->set_ignore_case(true);
       },
       "", "ABb"},
      {"path regex unbalanced",
       [](auto* r) {
         r->mutable_match()->mutable_safe_regex()->set_regex("/svc/(a");
       },
       p + "field:virtual_hosts[0].routes[0].match.safe_regex.regex "
           "error:not a valid RE2 regex: missing ): /svc/(a]"},
      {"header safe_regex_match bad class",
       [](auto* r) {
         auto* h = r->mutable_match()->add_headers();
         h->set_name("x");
         h->mutable_safe_regex_match()->set_regex("[a");
       },
       p + "field:virtual_hosts[0].routes[0].match.headers[0]"
           ".safe_regex_match.regex error:not a valid RE2 regex: missing ]: "
           "[a]"},
      {"header string_match backreference (not RE2 syntax)",
       [](auto* r) {
         auto* h = r->mutable_match()->add_headers();
         h->set_name("x");
         h->mutable_string_match()->mutable_safe_regex()->set_regex("(a)\\1");
       },
       p + "field:virtual_hosts[0].routes[0].match.headers[0].string_match"
           ".safe_regex.regex error:not a valid RE2 regex: invalid escape "
           "sequence: \\1]"},
      {"a pattern beyond RE2's program budget (hostile input costs bounded)",
       [](auto* r) {
         r->mutable_match()->mutable_safe_regex()->set_regex("\\pL{1000}");
       },
       p + "field:virtual_hosts[0].routes[0].match.safe_regex.regex "
           "error:not a valid RE2 regex: pattern too large - compile "
           "failed]"},
  };
  for (const Case& c : kCases) {
    SCOPED_TRACE(c.what);
    route_pb::RouteConfiguration rc = BaseConfig();
    c.mutate(FirstRoute(&rc));
    EXPECT_EQ(ErrorOf(rc), c.want.empty() ? "ok" : c.want);
    if (!c.want.empty()) continue;
    // Both decoders (the wire fast path Decode tries first, and libprotobuf)
    // keep the regex compiled.
    const std::string bytes = rc.SerializeAsString();
    RouteConfig fast;
    ASSERT_TRUE(internal::FastDecodeRouteConfig(bytes, &fast));
    DecodeResult slow = internal::DecodeRouteConfigWithProtobuf(bytes);
    ASSERT_TRUE(slow.value.ok());
    for (const RouteConfig* config : {&std::as_const(fast), &ValueOf(slow)}) {
      const RouteMatch& m = config->virtual_hosts[0].routes[0].match;
      const StringMatch& sm =
          m.headers.empty() ? m.path : m.headers[0].string_match;
      ASSERT_NE(sm.regex, nullptr);
      EXPECT_TRUE(re2::RE2::FullMatch(c.full_match, *sm.regex));
      // Full match, not a search.
      EXPECT_FALSE(
          re2::RE2::FullMatch(std::string("x") + c.full_match, *sm.regex));
    }
  }
}

// gRPC 1.51: optional per-filter overrides of unknown filters are skipped.
TEST(RouteConfigTest, OptionalOverrideSkipped) {
  route_pb::RouteConfiguration rc = BaseConfig();
  route_pb::FilterConfig wrapper;
  wrapper.set_is_optional(true);
  wrapper.mutable_config()->set_type_url("type.googleapis.com/foo.Bar");
  (*FirstRoute(&rc)->mutable_typed_per_filter_config())["f"].PackFrom(wrapper);
  EXPECT_EQ(ErrorOf(rc), "ok");
}

// A41: RBACPerRoute in typed_per_filter_config of virtual hosts and routes
// is validated and kept by filter name (lib/server picks the override for
// each RPC); the filter's own RBAC type there is refused.
TEST(RouteConfigTest, RbacPerRoute) {
  auto per_route = [](const std::string& json) {
    envoy::extensions::filters::http::rbac::v3::RBACPerRoute proto;
    EXPECT_TRUE(google::protobuf::util::JsonStringToMessage(json, &proto).ok());
    google::protobuf::Any any;
    any.PackFrom(proto);
    return any;
  };
  const std::string p = "errors validating RouteConfiguration: [";
  struct Case {
    const char* source;
    std::function<void(route_pb::RouteConfiguration*)> mutate;
    std::string want;
  };
  const Case kCases[] = {
      {"A41: an override on a virtual host and on a route",
       [&](auto* rc) {
         (*rc->mutable_virtual_hosts(0)
               ->mutable_typed_per_filter_config())["rbac"] =
             per_route(R"({"rbac":{"rules":{"action":"DENY"}}})");
         (*FirstRoute(rc)->mutable_typed_per_filter_config())["rbac"] =
             per_route("{}");
       },
       "ok"},
      {"an invalid override is a NACK with its path (A39)",
       [&](auto* rc) {
         (*FirstRoute(rc)->mutable_typed_per_filter_config())["rbac"] =
             per_route(
                 R"({"rbac":{"rules":{"policies":{"p":{"condition":{}}}}}})");
       },
       p + "field:virtual_hosts[0].routes[0].typed_per_filter_config[\"rbac\"]"
           ".value[envoy.extensions.filters.http.rbac.v3.RBACPerRoute].rbac."
           "rules.policies[\"p\"].condition error:condition not supported]"},
      {"the filter's RBAC message is not an override",
       [&](auto* rc) {
         envoy::extensions::filters::http::rbac::v3::RBAC rbac;
         (*FirstRoute(rc)->mutable_typed_per_filter_config())["rbac"].PackFrom(
             rbac);
       },
       p + "field:virtual_hosts[0].routes[0].typed_per_filter_config[\"rbac\"]"
           ".value[envoy.extensions.filters.http.rbac.v3.RBAC] error:expected "
           "RBACPerRoute, not the filter's RBAC]"},
  };
  for (const Case& c : kCases) {
    SCOPED_TRACE(c.source);
    route_pb::RouteConfiguration rc = BaseConfig();
    c.mutate(&rc);
    EXPECT_EQ(ErrorOf(rc), c.want);
  }
  route_pb::RouteConfiguration rc = BaseConfig();
  kCases[0].mutate(&rc);
  DecodeResult r = DecodeProto(rc);
  ASSERT_TRUE(r.value.ok());
  const VirtualHost& vh = ValueOf(r).virtual_hosts[0];
  ASSERT_NE(vh.rbac_overrides.Find("rbac"), nullptr);
  ASSERT_TRUE(vh.rbac_overrides.Find("rbac")->rules.has_value());
  EXPECT_EQ(vh.rbac_overrides.Find("rbac")->rules->action,
            RbacRules::Action::kDeny);
  EXPECT_EQ(vh.rbac_overrides.Find("other"), nullptr);
  ASSERT_NE(vh.routes[0].rbac_overrides.Find("rbac"), nullptr);
  // RBACPerRoute without rbac: the filter is disabled on this route.
  EXPECT_FALSE(vh.routes[0].rbac_overrides.Find("rbac")->rules.has_value());
}

}  // namespace
}  // namespace resources
}  // namespace xdsfed
