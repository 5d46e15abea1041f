#include "lib/resources/rbac.h"

#include <arpa/inet.h>

#include <algorithm>
#include <climits>
#include <cstring>
#include <utility>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "envoy/config/rbac/v3/rbac.pb.h"
#include "envoy/extensions/filters/http/rbac/v3/rbac.pb.h"
#include "google/protobuf/descriptor.h"
#include "google/protobuf/message.h"
#include "google/protobuf/unknown_field_set.h"
#include "lib/base/validation_errors.h"
#include "lib/resources/internal/route_config_util.h"

namespace xdsfed {
namespace resources {

namespace {

namespace rbac_pb = envoy::config::rbac::v3;
namespace http_rbac_pb = envoy::extensions::filters::http::rbac::v3;
namespace route_pb = envoy::config::route::v3;
using Field = ValidationErrors::ScopedField;
using google::protobuf::Descriptor;
using google::protobuf::FieldDescriptor;
using google::protobuf::Message;
using google::protobuf::Reflection;

// ------------------------------------------------------- unknown fields

// Messages whose content is never read, so unknown fields inside them
// cannot change a decision: MetadataMatcher (never matches, A41 table),
// and the placeholders of fields whose mere presence is an error or that
// are ignored (CEL expressions, xds matchers).
bool ContentIgnored(const Descriptor* d) {
  const std::string& name = d->full_name();
  return name == "envoy.type.matcher.v3.MetadataMatcher" ||
         name == "google.api.expr.v1alpha1.Expr" ||
         name == "google.api.expr.v1alpha1.CheckedExpr" ||
         name == "xds.type.matcher.v3.Matcher";
}

// Adds an error for every unknown field in `message` or below, at its path:
// a field our protos do not know may be one that restricts access, so it
// must not be dropped silently (fail closed). The walk is bounded by
// protobuf's parse depth limit (100).
void CheckUnknownFields(const Message& message, ValidationErrors* errors) {
  const Reflection* reflection = message.GetReflection();
  const google::protobuf::UnknownFieldSet& unknown =
      reflection->GetUnknownFields(message);
  for (int i = 0; i < unknown.field_count(); ++i) {
    errors->AddError(absl::StrCat(
        "unknown field number ", unknown.field(i).number(), ": not supported"));
  }
  std::vector<const FieldDescriptor*> fields;
  reflection->ListFields(message, &fields);
  for (const FieldDescriptor* field : fields) {
    if (field->cpp_type() != FieldDescriptor::CPPTYPE_MESSAGE) continue;
    if (ContentIgnored(field->message_type())) continue;
    // The filter's shadow rules are not enforced (A41): nothing in them
    // can change a decision.
    if (field->full_name() ==
        "envoy.extensions.filters.http.rbac.v3.RBAC.shadow_rules") {
      continue;
    }
    Field name(errors, absl::StrCat(".", field->name()));
    if (!field->is_repeated()) {
      CheckUnknownFields(reflection->GetMessage(message, field), errors);
      continue;
    }
    const int n = reflection->FieldSize(message, field);
    for (int j = 0; j < n; ++j) {
      const Message& element =
          reflection->GetRepeatedMessage(message, field, j);
      if (field->is_map()) {
        const Descriptor* entry = field->message_type();
        const FieldDescriptor* key = entry->FindFieldByNumber(1);
        const FieldDescriptor* value = entry->FindFieldByNumber(2);
        const Reflection* er = element.GetReflection();
        Field piece(errors,
                    ValidationErrors::MapKey(er->GetString(element, key)));
        if (!er->GetUnknownFields(element).empty()) {
          errors->AddError("unknown field in map entry: not supported");
        }
        if (value->cpp_type() == FieldDescriptor::CPPTYPE_MESSAGE &&
            er->HasField(element, value)) {
          CheckUnknownFields(er->GetMessage(element, value), errors);
        }
      } else {
        Field piece(errors, absl::StrCat("[", j, "]"));
        CheckUnknownFields(element, errors);
      }
    }
  }
}

// --------------------------------------------------------------- leaves

RbacCidr ParseCidr(const envoy::config::core::v3::CidrRange& proto,
                   ValidationErrors* errors) {
  RbacCidr out;
  unsigned char bytes[16];
  uint32_t max_len = 0;
  if (inet_pton(AF_INET, proto.address_prefix().c_str(), bytes) == 1) {
    out.address.assign(reinterpret_cast<const char*>(bytes), 4);
    max_len = 32;
  } else if (inet_pton(AF_INET6, proto.address_prefix().c_str(), bytes) == 1) {
    out.address.assign(reinterpret_cast<const char*>(bytes), 16);
    max_len = 128;
  } else {
    Field field(errors, ".address_prefix");
    errors->AddError(
        absl::StrCat("invalid IP address \"", proto.address_prefix(), "\""));
    return out;
  }
  // gRPC (grpc_sockaddr_mask_bits) treats a prefix longer than the address
  // as the whole address; unset is 0, which matches the whole family.
  out.prefix_len = std::min(
      proto.has_prefix_len() ? proto.prefix_len().value() : 0u, max_len);
  for (uint32_t bit = out.prefix_len; bit < max_len; ++bit) {
    out.address[bit / 8] =
        static_cast<char>(static_cast<unsigned char>(out.address[bit / 8]) &
                          ~(0x80u >> (bit % 8)));
  }
  return out;
}

// gRPC C-core's RBAC header matcher (xds_http_rbac_filter.cc
// ParseHeaderMatcherToJson): ':scheme' and 'grpc-' names are refused (A41),
// and string_match is not one of the specifiers it reads.
HeaderMatch ParseRbacHeader(const route_pb::HeaderMatcher& proto,
                            ValidationErrors* errors) {
  using H = route_pb::HeaderMatcher;
  HeaderMatch out;
  out.name = proto.name();
  out.invert_match = proto.invert_match();
  {
    Field field(errors, ".name");
    if (out.name.empty()) {
      errors->AddError("must be non-empty");
    } else if (out.name == ":scheme") {
      errors->AddError("':scheme' not allowed in header");
    } else if (absl::StartsWith(out.name, "grpc-")) {
      errors->AddError("'grpc-' prefixes not allowed in header");
    }
  }
  if (proto.treat_missing_header_as_empty()) {
    // gRPC 1.51 does not read it; it would turn "absent" into "empty" and
    // change which requests match, so it is refused rather than ignored.
    Field field(errors, ".treat_missing_header_as_empty");
    errors->AddError("not supported");
  }
  if (proto.header_match_specifier_case() == H::kStringMatch) {
    Field field(errors, ".string_match");
    errors->AddError("not supported in RBAC header matchers");
    return out;
  }
  // Every other specifier as a route's header matcher reads it.
  return internal::ParseHeaderMatcherProto(proto, errors);
}

StringMatch ParsePathMatcher(const envoy::type::matcher::v3::PathMatcher& proto,
                             ValidationErrors* errors) {
  Field field(errors, ".path");
  if (!proto.has_path()) {
    errors->AddError("field not present");
    return {};
  }
  return internal::ParseStringMatcherProto(proto.path(), errors);
}

// --------------------------------------------------------------- trees

RbacMatcher ParsePermission(const rbac_pb::Permission& proto,
                            ValidationErrors* errors);
RbacMatcher ParsePrincipal(const rbac_pb::Principal& proto,
                           ValidationErrors* errors);

template <typename T, typename ParseFn>
void ParseSet(const google::protobuf::RepeatedPtrField<T>& items,
              absl::string_view field, ParseFn parse, RbacMatcher* out,
              ValidationErrors* errors) {
  for (int i = 0; i < items.size(); ++i) {
    Field piece(errors, absl::StrCat(field, "[", i, "]"));
    out->children.push_back(parse(items.Get(i), errors));
  }
}

void CheckAnyIsTrue(bool any, ValidationErrors* errors) {
  // Envoy's rule ((validate.rules).bool.const = true): `any: false` is not
  // a matcher that "matches nothing", it is an invalid config.
  if (!any) {
    Field field(errors, ".any");
    errors->AddError("must be true");
  }
}

void Unsupported(absl::string_view field, ValidationErrors* errors) {
  Field f(errors, field);
  errors->AddError("not supported");
}

RbacMatcher ParsePermission(const rbac_pb::Permission& proto,
                            ValidationErrors* errors) {
  using P = rbac_pb::Permission;
  using K = RbacMatcher::Kind;
  RbacMatcher out;
  switch (proto.rule_case()) {
    case P::kAndRules:
      out.kind = K::kAnd;
      ParseSet(proto.and_rules().rules(), ".and_rules.rules", ParsePermission,
               &out, errors);
      break;
    case P::kOrRules:
      out.kind = K::kOr;
      ParseSet(proto.or_rules().rules(), ".or_rules.rules", ParsePermission,
               &out, errors);
      break;
    case P::kAny:
      out.kind = K::kAny;
      CheckAnyIsTrue(proto.any(), errors);
      break;
    case P::kHeader: {
      Field field(errors, ".header");
      out.kind = K::kHeader;
      out.header = ParseRbacHeader(proto.header(), errors);
      break;
    }
    case P::kUrlPath: {
      Field field(errors, ".url_path");
      out.kind = K::kUrlPath;
      out.string_match = ParsePathMatcher(proto.url_path(), errors);
      break;
    }
    case P::kDestinationIp: {
      Field field(errors, ".destination_ip");
      out.kind = K::kDestinationIp;
      out.cidr = ParseCidr(proto.destination_ip(), errors);
      break;
    }
    case P::kDestinationPort:
      out.kind = K::kDestinationPort;
      out.port = proto.destination_port();
      if (out.port > 65535) {
        Field field(errors, ".destination_port");
        errors->AddError("must be at most 65535");
      }
      break;
    case P::kMetadata:
      out.kind = K::kMetadata;
      out.invert = proto.metadata().invert();
      break;
    case P::kNotRule: {
      Field field(errors, ".not_rule");
      out.kind = K::kNot;
      out.children.push_back(ParsePermission(proto.not_rule(), errors));
      break;
    }
    case P::kRequestedServerName: {
      Field field(errors, ".requested_server_name");
      out.kind = K::kRequestedServerName;
      out.string_match = internal::ParseStringMatcherProto(
          proto.requested_server_name(), errors);
      break;
    }
    case P::kDestinationPortRange:
      Unsupported(".destination_port_range", errors);
      break;
    case P::kMatcher:
      Unsupported(".matcher", errors);
      break;
    case P::RULE_NOT_SET:
      errors->AddError("invalid rule: no rule set");
      break;
  }
  return out;
}

RbacMatcher ParsePrincipal(const rbac_pb::Principal& proto,
                           ValidationErrors* errors) {
  using P = rbac_pb::Principal;
  using K = RbacMatcher::Kind;
  RbacMatcher out;
  switch (proto.identifier_case()) {
    case P::kAndIds:
      out.kind = K::kAnd;
      ParseSet(proto.and_ids().ids(), ".and_ids.ids", ParsePrincipal, &out,
               errors);
      break;
    case P::kOrIds:
      out.kind = K::kOr;
      ParseSet(proto.or_ids().ids(), ".or_ids.ids", ParsePrincipal, &out,
               errors);
      break;
    case P::kAny:
      out.kind = K::kAny;
      CheckAnyIsTrue(proto.any(), errors);
      break;
    case P::kAuthenticated:
      out.kind = K::kAuthenticated;
      if (proto.authenticated().has_principal_name()) {
        Field field(errors, ".authenticated.principal_name");
        out.has_principal_name = true;
        out.string_match = internal::ParseStringMatcherProto(
            proto.authenticated().principal_name(), errors);
      }
      break;
    case P::kSourceIp: {
      Field field(errors, ".source_ip");
      out.kind = K::kSourceIp;
      out.cidr = ParseCidr(proto.source_ip(), errors);
      break;
    }
    case P::kDirectRemoteIp: {
      Field field(errors, ".direct_remote_ip");
      out.kind = K::kDirectRemoteIp;
      out.cidr = ParseCidr(proto.direct_remote_ip(), errors);
      break;
    }
    case P::kRemoteIp: {
      Field field(errors, ".remote_ip");
      out.kind = K::kRemoteIp;
      out.cidr = ParseCidr(proto.remote_ip(), errors);
      break;
    }
    case P::kHeader: {
      Field field(errors, ".header");
      out.kind = K::kHeader;
      out.header = ParseRbacHeader(proto.header(), errors);
      break;
    }
    case P::kUrlPath: {
      Field field(errors, ".url_path");
      out.kind = K::kUrlPath;
      out.string_match = ParsePathMatcher(proto.url_path(), errors);
      break;
    }
    case P::kMetadata:
      out.kind = K::kMetadata;
      out.invert = proto.metadata().invert();
      break;
    case P::kNotId: {
      Field field(errors, ".not_id");
      out.kind = K::kNot;
      out.children.push_back(ParsePrincipal(proto.not_id(), errors));
      break;
    }
    case P::kFilterState:
      Unsupported(".filter_state", errors);
      break;
    case P::IDENTIFIER_NOT_SET:
      errors->AddError("invalid rule: no identifier set");
      break;
  }
  return out;
}

RbacPolicy ParsePolicy(const std::string& name, const rbac_pb::Policy& proto,
                       ValidationErrors* errors) {
  RbacPolicy out;
  out.name = name;
  for (int i = 0; i < proto.permissions_size(); ++i) {
    Field field(errors, absl::StrCat(".permissions[", i, "]"));
    out.permissions.push_back(ParsePermission(proto.permissions(i), errors));
  }
  for (int i = 0; i < proto.principals_size(); ++i) {
    Field field(errors, absl::StrCat(".principals[", i, "]"));
    out.principals.push_back(ParsePrincipal(proto.principals(i), errors));
  }
  // A41: CEL is not supported, so a condition must fail validation.
  if (proto.has_condition()) {
    Field field(errors, ".condition");
    errors->AddError("condition not supported");
  }
  if (proto.has_checked_condition()) {
    Field field(errors, ".checked_condition");
    errors->AddError("checked condition not supported");
  }
  return out;
}

RbacConfig ParseHttpRbac(const http_rbac_pb::RBAC& proto,
                         ValidationErrors* errors) {
  RbacConfig out;
  if (proto.has_matcher()) {
    // Envoy uses the matcher tree instead of `rules` when both are set;
    // enforcing `rules` alone would enforce something else.
    Field field(errors, ".matcher");
    errors->AddError("not supported");
  }
  if (!proto.has_rules()) return out;
  Field field(errors, ".rules");
  const rbac_pb::RBAC& rules = proto.rules();
  RbacRules parsed;
  switch (rules.action()) {
    case rbac_pb::RBAC::ALLOW:
      parsed.action = RbacRules::Action::kAllow;
      break;
    case rbac_pb::RBAC::DENY:
      parsed.action = RbacRules::Action::kDeny;
      break;
    case rbac_pb::RBAC::LOG:
      // A41 §Proposal / xds_http_rbac_filter.cc: "Treat Log action as RBAC
      // being absent". The policies are not even validated.
      return out;
    default: {
      Field action(errors, ".action");
      errors->AddError(absl::StrCat("unknown action ", rules.action()));
      return out;
    }
  }
  // Visited in name order (a protobuf Map's order is unspecified), which
  // is also the evaluation order.
  std::vector<const std::string*> names;
  names.reserve(rules.policies().size());
  for (const auto& entry : rules.policies()) names.push_back(&entry.first);
  std::sort(names.begin(), names.end(),
            [](const std::string* a, const std::string* b) { return *a < *b; });
  parsed.policies.reserve(names.size());
  for (const std::string* name : names) {
    Field policy(errors,
                 absl::StrCat(".policies", ValidationErrors::MapKey(*name)));
    parsed.policies.push_back(
        ParsePolicy(*name, rules.policies().at(*name), errors));
  }
  out.rules = std::move(parsed);
  return out;
}

// --------------------------------------------------------------- JSON

const char* KindName(RbacMatcher::Kind kind) {
  using K = RbacMatcher::Kind;
  switch (kind) {
    case K::kAnd:
      return "and";
    case K::kOr:
      return "or";
    case K::kNot:
      return "not";
    case K::kAny:
      return "any";
    case K::kHeader:
      return "header";
    case K::kUrlPath:
      return "url_path";
    case K::kDestinationIp:
      return "destination_ip";
    case K::kDestinationPort:
      return "destination_port";
    case K::kRequestedServerName:
      return "requested_server_name";
    case K::kMetadata:
      return "metadata";
    case K::kAuthenticated:
      return "authenticated";
    case K::kSourceIp:
      return "source_ip";
    case K::kDirectRemoteIp:
      return "direct_remote_ip";
    case K::kRemoteIp:
      return "remote_ip";
  }
  return "?";
}

}  // namespace

std::string RbacCidr::ToString() const {
  char text[INET6_ADDRSTRLEN] = "";
  if (address.size() == 4) {
    inet_ntop(AF_INET, address.data(), text, sizeof(text));
  } else if (address.size() == 16) {
    inet_ntop(AF_INET6, address.data(), text, sizeof(text));
  }
  return absl::StrCat(text, "/", prefix_len);
}

bool RbacMatcher::operator==(const RbacMatcher& o) const {
  using K = Kind;
  if (kind != o.kind) return false;
  switch (kind) {
    case K::kAnd:
    case K::kOr:
    case K::kNot:
      return children == o.children;
    case K::kAny:
      return true;
    case K::kHeader:
      return header == o.header;
    case K::kUrlPath:
    case K::kRequestedServerName:
      return string_match == o.string_match;
    case K::kAuthenticated:
      return has_principal_name == o.has_principal_name &&
             (!has_principal_name || string_match == o.string_match);
    case K::kDestinationIp:
    case K::kSourceIp:
    case K::kDirectRemoteIp:
    case K::kRemoteIp:
      return cidr == o.cidr;
    case K::kDestinationPort:
      return port == o.port;
    case K::kMetadata:
      return invert == o.invert;
  }
  return false;
}

Json::Value RbacMatcher::ToJson() const {
  using K = Kind;
  Json::Value out(Json::objectValue);
  Json::Value& v = out[KindName(kind)];
  switch (kind) {
    case K::kAnd:
    case K::kOr:
    case K::kNot:
      v = Json::Value(Json::arrayValue);
      for (const RbacMatcher& c : children) v.append(c.ToJson());
      break;
    case K::kAny:
      v = true;
      break;
    case K::kHeader:
      v = header.ToJson();
      break;
    case K::kUrlPath:
    case K::kRequestedServerName:
      v = string_match.ToJson();
      break;
    case K::kAuthenticated:
      v = Json::Value(Json::objectValue);
      if (has_principal_name) v["principal_name"] = string_match.ToJson();
      break;
    case K::kDestinationIp:
    case K::kSourceIp:
    case K::kDirectRemoteIp:
    case K::kRemoteIp:
      v = cidr.ToString();
      break;
    case K::kDestinationPort:
      v = Json::UInt{port};
      break;
    case K::kMetadata:
      v["invert"] = invert;
      break;
  }
  return out;
}

Json::Value RbacPolicy::ToJson() const {
  Json::Value out(Json::objectValue);
  out["name"] = name;
  Json::Value& perms = out["permissions"] = Json::Value(Json::arrayValue);
  for (const RbacMatcher& m : permissions) perms.append(m.ToJson());
  Json::Value& ids = out["principals"] = Json::Value(Json::arrayValue);
  for (const RbacMatcher& m : principals) ids.append(m.ToJson());
  return out;
}

Json::Value RbacRules::ToJson() const {
  Json::Value out(Json::objectValue);
  out["action"] = action == Action::kAllow ? "ALLOW" : "DENY";
  Json::Value& list = out["policies"] = Json::Value(Json::arrayValue);
  for (const RbacPolicy& p : policies) list.append(p.ToJson());
  return out;
}

Json::Value RbacConfig::ToJson() const {
  Json::Value out(Json::objectValue);
  if (rules.has_value()) out["rules"] = rules->ToJson();
  return out;
}

RbacConfig ParseRbacFilterConfig(absl::string_view serialized,
                                 ValidationErrors* errors) {
  http_rbac_pb::RBAC proto;
  if (serialized.size() > INT_MAX ||
      !proto.ParseFromArray(serialized.data(),
                            static_cast<int>(serialized.size()))) {
    errors->AddError("cannot decode RBAC");
    return {};
  }
  CheckUnknownFields(proto, errors);
  return ParseHttpRbac(proto, errors);
}

RbacConfig ParseRbacPerRoute(absl::string_view serialized,
                             ValidationErrors* errors) {
  http_rbac_pb::RBACPerRoute proto;
  if (serialized.size() > INT_MAX ||
      !proto.ParseFromArray(serialized.data(),
                            static_cast<int>(serialized.size()))) {
    errors->AddError("cannot decode RBACPerRoute");
    return {};
  }
  CheckUnknownFields(proto, errors);
  // A41 / Envoy: no `rbac` disables the filter for this route.
  if (!proto.has_rbac()) return {};
  Field field(errors, ".rbac");
  return ParseHttpRbac(proto.rbac(), errors);
}

}  // namespace resources
}  // namespace xdsfed
