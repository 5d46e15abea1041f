// The RBAC HTTP filter config and RBACPerRoute validators (gRFC A41;
// gRPC C-core 1.51 src/core/ext/xds/xds_http_rbac_filter.cc, "C-core"
// below). Configs are built as proto3 JSON; every rejected row checks the
// full message with its field path. Issue 25 item 1: unsupported fields and
// unknown fields fail closed (NACK), never skipped.
#include "lib/resources/rbac.h"

#include <functional>
#include <string>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "envoy/extensions/filters/http/rbac/v3/rbac.pb.h"
#include "google/protobuf/util/json_util.h"
#include "gtest/gtest.h"
#include "lib/base/validation_errors.h"

namespace xdsfed::resources {
namespace {

namespace http_rbac = envoy::extensions::filters::http::rbac::v3;

http_rbac::RBAC FromJson(const std::string& json) {
  http_rbac::RBAC proto;
  EXPECT_TRUE(google::protobuf::util::JsonStringToMessage(json, &proto).ok())
      << json;
  return proto;
}

// A compact picture of a matcher tree: "and(any,not(port:80))".
std::string Shape(const RbacMatcher& m) {
  using K = RbacMatcher::Kind;
  auto children = [&m](absl::string_view name) {
    std::vector<std::string> parts;
    for (const RbacMatcher& c : m.children) parts.push_back(Shape(c));
    return absl::StrCat(name, "(", absl::StrJoin(parts, ","), ")");
  };
  switch (m.kind) {
    case K::kAnd:
      return children("and");
    case K::kOr:
      return children("or");
    case K::kNot:
      return children("not");
    case K::kAny:
      return "any";
    case K::kHeader:
      return absl::StrCat("header:", m.header.name,
                          m.header.invert_match ? "!" : "");
    case K::kUrlPath:
      return absl::StrCat("path:", m.string_match.value);
    case K::kDestinationIp:
      return absl::StrCat("dst:", m.cidr.ToString());
    case K::kDestinationPort:
      return absl::StrCat("port:", m.port);
    case K::kRequestedServerName:
      return absl::StrCat("sni:", m.string_match.value);
    case K::kMetadata:
      return m.invert ? "metadata!" : "metadata";
    case K::kAuthenticated:
      return m.has_principal_name ? absl::StrCat("authn:", m.string_match.value)
                                  : "authn";
    case K::kSourceIp:
      return absl::StrCat("src:", m.cidr.ToString());
    case K::kDirectRemoteIp:
      return absl::StrCat("direct:", m.cidr.ToString());
    case K::kRemoteIp:
      return absl::StrCat("remote:", m.cidr.ToString());
  }
  return "?";
}

// "ALLOW p1[perms|ids] p2[...]", "none" if no rules.
std::string Shape(const RbacConfig& c) {
  if (!c.rules.has_value()) return "none";
  std::string out =
      c.rules->action == RbacRules::Action::kAllow ? "ALLOW" : "DENY";
  for (const RbacPolicy& p : c.rules->policies) {
    std::vector<std::string> perms, ids;
    for (const RbacMatcher& m : p.permissions) perms.push_back(Shape(m));
    for (const RbacMatcher& m : p.principals) ids.push_back(Shape(m));
    absl::StrAppend(&out, " ", p.name, "[", absl::StrJoin(perms, ","), "|",
                    absl::StrJoin(ids, ","), "]");
  }
  return out;
}

// A policy with one permission and one principal, both given as JSON.
std::string Policy(absl::string_view permission, absl::string_view principal) {
  return absl::StrCat(R"({"rules":{"policies":{"p":{"permissions":[)",
                      permission, R"(],"principals":[)", principal, "]}}}}");
}

TEST(RbacConfig, Accepted) {
  struct Case {
    const char* source;
    std::string json;
    const char* shape;
  };
  const Case cases[] = {
      {"Envoy http rbac.proto: rules absent = no enforcing policy; issue 25 "
       "item 1 'a filter with no rules allows all'",
       "{}", "none"},
      {"A41 §Proposal: action LOG is ignored, as if RBAC were absent "
       "(C-core: 'Treat Log action as RBAC being absent')",
       R"({"rules":{"action":"LOG","policies":{"p":{}}}})", "none"},
      {"Envoy http rbac.proto: rules present and empty = ALLOW nothing",
       R"({"rules":{}})", "ALLOW"},
      {"DENY with no policies", R"({"rules":{"action":"DENY"}})", "DENY"},
      {"policies sorted by name (Envoy rbac.proto: 'evaluated in "
       "lexicographic order of the policy name')",
       R"({"rules":{"policies":{
           "b":{"permissions":[{"any":true}],"principals":[{"any":true}]},
           "a":{"permissions":[{"any":true}],"principals":[{"any":true}]}}}})",
       "ALLOW a[any|any] b[any|any]"},
      {"every Permission kind C-core reads",
       absl::StrCat(
           R"({"rules":{"policies":{"p":{"permissions":[)",
           R"({"and_rules":{"rules":[{"any":true},{"destination_port":80}]}},)",
           R"({"or_rules":{"rules":[{"not_rule":{"any":true}}]}},)",
           R"({"header":{"name":":method","exact_match":"POST"}},)",
           R"({"url_path":{"path":{"prefix":"/svc/"}}},)",
           R"({"destination_ip":{"address_prefix":"127.0.0.1","prefix_len":8}},)",
           R"({"metadata":{"invert":true}},)",
           R"({"requested_server_name":{"exact":""}}],)",
           R"("principals":[{"any":true}]}}}})"),
       "ALLOW p[and(any,port:80),or(not(any)),header::method,path:/svc/,"
       "dst:127.0.0.0/8,metadata!,sni:|any]"},
      {"every Principal kind C-core reads",
       absl::StrCat(
           R"({"rules":{"action":"DENY","policies":{"p":{)",
           R"("permissions":[{"any":true}],"principals":[)",
           R"({"and_ids":{"ids":[{"any":true}]}},)",
           R"({"or_ids":{"ids":[{"not_id":{"any":true}}]}},)",
           R"({"authenticated":{}},)",
           R"({"authenticated":{"principal_name":{"exact":"spiffe://a/b"}}},)",
           R"({"source_ip":{"address_prefix":"127.0.0.2","prefix_len":32}},)",
           R"({"direct_remote_ip":{"address_prefix":"::1","prefix_len":128}},)",
           R"({"remote_ip":{"address_prefix":"10.1.2.3"}},)",
           R"({"header":{"name":"x-user","present_match":true,"invert_match":true}},)",
           R"({"url_path":{"path":{"exact":"/a"}}},)",
           R"({"metadata":{"filter":"f","path":[{"key":"k"}],"value":{}}}]}}}})"),
       "DENY p[any|and(any),or(not(any)),authn,authn:spiffe://a/b,"
       "src:127.0.0.2/32,direct:::1/128,remote:0.0.0.0/0,header:x-user!,"
       "path:/a,metadata]"},
      {"C-core grpc_sockaddr_mask_bits: a prefix longer than the address is "
       "the whole address",
       Policy(
           R"({"destination_ip":{"address_prefix":"127.0.0.1","prefix_len":40}})",
           R"({"any":true})"),
       "ALLOW p[dst:127.0.0.1/32|any]"},
      {"A41: shadow_rules ignored; "
       "audit fields and stat options change no decision",
       R"({"shadow_rules":{"action":"LOG"},"shadow_rules_stat_prefix":"s",
           "track_per_rule_stats":true,"shadow_matcher":{},
           "rules":{"audit_condition":"ON_DENY","audit_log":[{"name":"l"}]}})",
       "ALLOW"},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.source);
    ValidationErrors errors;
    RbacConfig config =
        ParseRbacFilterConfig(FromJson(c.json).SerializeAsString(), &errors);
    EXPECT_TRUE(errors.ok()) << errors.Message();
    EXPECT_EQ(Shape(config), c.shape);
  }
}

TEST(RbacConfig, RejectedWithFieldPath) {
  struct Case {
    const char* source;
    std::string json;
    const char* error;
  };
  const Case cases[] = {
      {"A41 §Proposal: 'Policy.condition ... must cause a validation failure' "
       "(C-core: 'condition not supported')",
       R"({"rules":{"policies":{"p":{"condition":{}}}}})",
       R"([field:rules.policies["p"].condition error:condition not supported])"},
      {"A41 §Proposal: checked_condition likewise",
       R"({"rules":{"policies":{"p":{"checked_condition":{}}}}})",
       R"([field:rules.policies["p"].checked_condition error:checked condition not supported])"},
      {"A41 §Proposal: no header matcher for 'grpc-' names",
       Policy(R"({"header":{"name":"grpc-timeout","present_match":true}})",
              R"({"any":true})"),
       R"([field:rules.policies["p"].permissions[0].header.name error:'grpc-' prefixes not allowed in header])"},
      {"A41 §Proposal: no header matcher for ':scheme'",
       Policy(R"({"any":true})",
              R"({"header":{"name":":scheme","exact_match":"https"}})"),
       R"([field:rules.policies["p"].principals[0].header.name error:':scheme' not allowed in header])"},
      {"C-core ParseHeaderMatcherToJson reads no string_match",
       Policy(R"({"header":{"name":"x","string_match":{"exact":"v"}}})",
              R"({"any":true})"),
       R"([field:rules.policies["p"].permissions[0].header.string_match error:not supported in RBAC header matchers])"},
      {"fail closed: treat_missing_header_as_empty changes what matches",
       Policy(
           R"({"header":{"name":"x","exact_match":"","treat_missing_header_as_empty":true}})",
           R"({"any":true})"),
       R"([field:rules.policies["p"].permissions[0].header.treat_missing_header_as_empty error:not supported])"},
      {"a regex RE2 refuses (C-core HeaderMatcher::Create)",
       Policy(R"({"header":{"name":"x","safe_regex_match":{"regex":"a("}}})",
              R"({"any":true})"),
       R"([field:rules.policies["p"].permissions[0].header.safe_regex_match.regex error:not a valid RE2 regex: missing ): a(])"},
      {"a regex RE2 refuses, nested in a not_id / principal_name",
       Policy(
           R"({"any":true})",
           R"({"not_id":{"authenticated":{"principal_name":{"safe_regex":{"regex":"*"}}}}})"),
       R"([field:rules.policies["p"].principals[0].not_id.authenticated.principal_name.safe_regex.regex error:not a valid RE2 regex: no argument for repetition operator: *])"},
      {"C-core ParsePathMatcherToJson: url_path without path",
       Policy(R"({"url_path":{}})", R"({"any":true})"),
       R"([field:rules.policies["p"].permissions[0].url_path.path error:field not present])"},
      {"C-core ParsePermissionToJson: 'invalid rule' (nothing set)",
       Policy(R"({"and_rules":{"rules":[{}]}})", R"({"any":true})"),
       R"([field:rules.policies["p"].permissions[0].and_rules.rules[0] error:invalid rule: no rule set])"},
      {"C-core ParsePrincipalToJson: 'invalid rule' (nothing set)",
       Policy(R"({"any":true})", R"({"or_ids":{"ids":[{}]}})"),
       R"([field:rules.policies["p"].principals[0].or_ids.ids[0] error:invalid rule: no identifier set])"},
      {"C-core: destination_port_range is not a rule it reads",
       Policy(R"({"destination_port_range":{"start":1,"end":2}})",
              R"({"any":true})"),
       R"([field:rules.policies["p"].permissions[0].destination_port_range error:not supported])"},
      {"C-core: a custom matcher extension is not a rule it reads",
       Policy(R"({"not_rule":{"matcher":{"name":"m"}}})", R"({"any":true})"),
       R"([field:rules.policies["p"].permissions[0].not_rule.matcher error:not supported])"},
      {"C-core: filter_state is not an identifier it reads",
       Policy(R"({"any":true})", R"({"filter_state":{"key":"k"}})"),
       R"([field:rules.policies["p"].principals[0].filter_state error:not supported])"},
      {"Envoy rbac.proto any: (validate.rules).bool.const = true",
       Policy(R"({"any":false})", R"({"any":true})"),
       R"([field:rules.policies["p"].permissions[0].any error:must be true])"},
      {"Envoy rbac.proto destination_port: lte 65535",
       Policy(R"({"destination_port":65536})", R"({"any":true})"),
       R"([field:rules.policies["p"].permissions[0].destination_port error:must be at most 65535])"},
      {"CidrRange address_prefix must be an IP address",
       Policy(R"({"any":true})",
              R"({"source_ip":{"address_prefix":"localhost"}})"),
       R"([field:rules.policies["p"].principals[0].source_ip.address_prefix error:invalid IP address "localhost"])"},
      {"Envoy http rbac.proto: with a matcher, Envoy ignores rules; gRPC "
       "1.51 does not know it, so refusing is the only safe answer",
       R"({"rules":{},"matcher":{}})", "[field:matcher error:not supported]"},
      {"every error is reported, in policy name order",
       R"({"rules":{"policies":{"b":{"condition":{}},"a":{"condition":{}}}}})",
       R"([field:rules.policies["a"].condition error:condition not supported; )"
       R"(field:rules.policies["b"].condition error:condition not supported])"},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.source);
    ValidationErrors errors;
    ParseRbacFilterConfig(FromJson(c.json).SerializeAsString(), &errors);
    EXPECT_EQ(errors.Message(), c.error);
  }
}

// Fields our protos do not know are unknown fields after parsing; each must
// be an error at its path (issue 25: an unknown matcher is a NACK, never
// skipped; grpc-go GHSA-hrxh-6v49-42gf was an engine failing open on one).
TEST(RbacConfig, UnknownFieldsRejectedWithFieldPath) {
  http_rbac::RBAC base =
      FromJson(Policy(R"({"not_rule":{"url_path":{"path":{"exact":"/a"}}}})",
                      R"({"authenticated":{"principal_name":{"exact":"x"}}})"));
  struct Case {
    const char* where;
    std::function<google::protobuf::Message*(http_rbac::RBAC*)> target;
    const char* error;
  };
  auto policy = [](http_rbac::RBAC* r) {
    return &(*r->mutable_rules()->mutable_policies())["p"];
  };
  const Case cases[] = {
      {"the filter config itself (a future RBAC field 99)",
       [](http_rbac::RBAC* r) { return r; },
       "[field: error:unknown field number 99: not supported]"},
      {"a Permission (a future matcher kind)",
       [&](http_rbac::RBAC* r) {
         return policy(r)->mutable_permissions(0)->mutable_not_rule();
       },
       R"([field:rules.policies["p"].permissions[0].not_rule error:unknown field number 99: not supported])"},
      {"a StringMatcher (custom = 8, left out of our string.proto)",
       [&](http_rbac::RBAC* r) {
         return policy(r)
             ->mutable_principals(0)
             ->mutable_authenticated()
             ->mutable_principal_name();
       },
       R"([field:rules.policies["p"].principals[0].authenticated.principal_name error:unknown field number 99: not supported])"},
      {"a PathMatcher under not_rule",
       [&](http_rbac::RBAC* r) {
         return policy(r)
             ->mutable_permissions(0)
             ->mutable_not_rule()
             ->mutable_url_path();
       },
       R"([field:rules.policies["p"].permissions[0].not_rule.url_path error:unknown field number 99: not supported])"},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.where);
    http_rbac::RBAC proto = base;
    google::protobuf::Message* m = c.target(&proto);
    m->GetReflection()->MutableUnknownFields(m)->AddVarint(99, 1);
    ValidationErrors errors;
    ParseRbacFilterConfig(proto.SerializeAsString(), &errors);
    EXPECT_EQ(errors.Message(), c.error);
  }
}

TEST(RbacConfig, PerRoute) {
  struct Case {
    const char* source;
    std::string json;
    const char* shape;  // "" = error
    const char* error;
  };
  const Case cases[] = {
      {"Envoy http rbac.proto RBACPerRoute: no rbac disables the filter", "{}",
       "none", ""},
      {"an override with rules", R"({"rbac":{"rules":{"action":"DENY"}}})",
       "DENY", ""},
      {"errors under .rbac (C-core GenerateFilterConfigOverride)",
       R"({"rbac":{"rules":{"policies":{"p":{"condition":{}}}}}})", "",
       R"([field:rbac.rules.policies["p"].condition error:condition not supported])"},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.source);
    http_rbac::RBACPerRoute proto;
    ASSERT_TRUE(
        google::protobuf::util::JsonStringToMessage(c.json, &proto).ok());
    ValidationErrors errors;
    RbacConfig config = ParseRbacPerRoute(proto.SerializeAsString(), &errors);
    EXPECT_EQ(errors.Message(), c.error);
    if (errors.ok()) {
      EXPECT_EQ(Shape(config), c.shape);
    }
  }
}

TEST(RbacConfig, UndecodableBytes) {
  ValidationErrors errors;
  ParseRbacFilterConfig(std::string("\x0a\x05", 2), &errors);
  EXPECT_EQ(errors.Message(), "[field: error:cannot decode RBAC]");
}

// 'nesting 100 deep' (issue 25, bad input): protobuf's parse depth limit
// (100) refuses it, so the config is NACKed before any recursion of ours.
TEST(RbacConfig, DeepNestingRefused) {
  http_rbac::RBAC proto =
      FromJson(Policy(R"({"any":true})", R"({"any":true})"));
  auto* p =
      (*proto.mutable_rules()->mutable_policies())["p"].mutable_permissions(0);
  for (int i = 0; i < 100; ++i) p = p->mutable_not_rule();
  p->set_any(true);
  ValidationErrors errors;
  ParseRbacFilterConfig(proto.SerializeAsString(), &errors);
  EXPECT_EQ(errors.Message(), "[field: error:cannot decode RBAC]");
}

}  // namespace
}  // namespace xdsfed::resources
