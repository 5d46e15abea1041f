#include "lib/resources/route_config.h"

#include <algorithm>
#include <charconv>
#include <climits>
#include <cstdint>
#include <cstring>
#include <memory>
#include <string>
#include <utility>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "absl/types/span.h"
#include "envoy/config/route/v3/route.pb.h"
#include "envoy/config/route/v3/route_components.pb.h"
#include "google/protobuf/arena.h"
#include "lib/base/validation_errors.h"
#include "lib/resources/internal/route_config_util.h"
#include "lib/resources/internal/wire_nesting.h"
#include "lib/resources/rbac.h"
#include "lib/resources/resource_type.h"
#include "lib/resources/route_config_fast.h"
#include "lib/resources/safe_regex.h"

namespace xdsfed {
namespace resources {

namespace {

namespace route_pb = envoy::config::route::v3;
using Field = ValidationErrors::ScopedField;

// ---------------------------------------------------------------- ToJson

Json::Value StringList(absl::Span<const std::string> list) {
  Json::Value out(Json::arrayValue);
  for (const std::string& s : list) out.append(s);
  return out;
}

// ------------------------------------------------------------- validation

// XdsRouting::IsValidDomainPattern in gRPC: non-empty, and a '*' only as
// the whole pattern, its first character or its last character.
bool IsValidDomainPattern(absl::string_view domain) {
  if (domain.empty()) return false;
  if (domain.find('*') == absl::string_view::npos) return true;
  if (domain == "*") return true;
  return domain.front() == '*' || domain.back() == '*';
}

// gRPC ignores (does not NACK) a prefix that can never match a gRPC path
// "/service/method": not starting with '/', more than two '/', or "//...".
// (Counted, not split: this runs for every route of every virtual host.)
bool PrefixCanMatch(absl::string_view prefix) {
  if (prefix.empty()) return true;
  if (prefix[0] != '/') return false;
  const absl::string_view rest = prefix.substr(1);
  const size_t slash = rest.find('/');
  if (slash == absl::string_view::npos) return true;
  if (rest.find('/', slash + 1) != absl::string_view::npos) return false;
  return slash != 0;
}

// Likewise for a full path: exactly "/service/method", both non-empty.
bool PathCanMatch(absl::string_view path) {
  if (path.empty() || path[0] != '/') return false;
  const absl::string_view rest = path.substr(1);
  const size_t slash = rest.find('/');
  return slash != absl::string_view::npos && slash != 0 &&
         slash + 1 < rest.size() &&
         rest.find('/', slash + 1) == absl::string_view::npos;
}

// The field path piece "<prefix><index>]" in a stack buffer: built for every
// virtual host and route, so it avoids a heap string per entry.
class IndexPiece {
 public:
  IndexPiece(absl::string_view prefix, int index) {
    const size_t n = std::min(prefix.size(), sizeof(text_) - 16);
    std::memcpy(text_, prefix.data(), n);
    char* end = std::to_chars(text_ + n, text_ + sizeof(text_) - 1, index).ptr;
    *end++ = ']';
    size_ = static_cast<size_t>(end - text_);
  }
  absl::string_view view() const { return absl::string_view(text_, size_); }

 private:
  char text_[48];
  size_t size_;
};

// For a kSafeRegex match: compiles the pattern into m->regex, or reports
// RE2's reason at the current path + `field` (gRPC NACKs such a resource).
void CompileRegexOf(StringMatch* m, absl::string_view field,
                    ValidationErrors* errors) {
  if (m->type != StringMatch::Type::kSafeRegex) return;
  auto re = CompileSafeRegex(m->value, m->case_sensitive);
  if (re.ok()) {
    m->regex = *std::move(re);
  } else {
    Field f(errors, field);
    errors->AddError(re.status().message());
  }
}

StringMatch ParseStringMatcher(const envoy::type::matcher::v3::StringMatcher& m,
                               ValidationErrors* errors) {
  using M = envoy::type::matcher::v3::StringMatcher;
  StringMatch out;
  out.case_sensitive = !m.ignore_case();
  switch (m.match_pattern_case()) {
    case M::kExact:
      out.type = StringMatch::Type::kExact;
      out.value = m.exact();
      break;
    case M::kPrefix:
      out.type = StringMatch::Type::kPrefix;
      out.value = m.prefix();
      break;
    case M::kSuffix:
      out.type = StringMatch::Type::kSuffix;
      out.value = m.suffix();
      break;
    case M::kContains:
      out.type = StringMatch::Type::kContains;
      out.value = m.contains();
      break;
    case M::kSafeRegex:
      out.type = StringMatch::Type::kSafeRegex;
      out.value = m.safe_regex().regex();
      break;
    case M::MATCH_PATTERN_NOT_SET:
      errors->AddError("invalid string matcher: no match_pattern set");
      break;
  }
  CompileRegexOf(&out, ".safe_regex.regex", errors);
  return out;
}

HeaderMatch ParseHeaderMatcher(const route_pb::HeaderMatcher& h,
                               ValidationErrors* errors) {
  using H = route_pb::HeaderMatcher;
  HeaderMatch out;
  out.name = h.name();
  out.invert_match = h.invert_match();
  auto string_match = [&out](StringMatch::Type type, const std::string& v) {
    out.type = HeaderMatch::Type::kString;
    out.string_match.type = type;
    out.string_match.value = v;
  };
  switch (h.header_match_specifier_case()) {
    case H::kExactMatch:
      string_match(StringMatch::Type::kExact, h.exact_match());
      break;
    case H::kSafeRegexMatch:
      string_match(StringMatch::Type::kSafeRegex, h.safe_regex_match().regex());
      CompileRegexOf(&out.string_match, ".safe_regex_match.regex", errors);
      break;
    case H::kPrefixMatch:
      string_match(StringMatch::Type::kPrefix, h.prefix_match());
      break;
    case H::kSuffixMatch:
      string_match(StringMatch::Type::kSuffix, h.suffix_match());
      break;
    case H::kContainsMatch:
      string_match(StringMatch::Type::kContains, h.contains_match());
      break;
    case H::kStringMatch: {
      Field field(errors, ".string_match");
      out.type = HeaderMatch::Type::kString;
      out.string_match = ParseStringMatcher(h.string_match(), errors);
      break;
    }
    case H::kRangeMatch:
      out.type = HeaderMatch::Type::kRange;
      out.range_start = h.range_match().start();
      out.range_end = h.range_match().end();
      if (out.range_end < out.range_start) {
        Field field(errors, ".range_match");
        errors->AddError("end cannot be smaller than start");
      }
      break;
    case H::kPresentMatch:
      out.type = HeaderMatch::Type::kPresent;
      out.present_match = h.present_match();
      break;
    case H::HEADER_MATCH_SPECIFIER_NOT_SET:
      errors->AddError("invalid header matcher: no header_match_specifier set");
      break;
  }
  return out;
}

// gRPC's RetryPolicyParse; errors under the current path.
RetryPolicy ParseRetryPolicy(const route_pb::RetryPolicy& proto,
                             ValidationErrors* errors) {
  RetryPolicy out;
  for (absl::string_view code : absl::StrSplit(proto.retry_on(), ',')) {
    // Other retry_on values (e.g. HTTP ones) are ignored, as in gRPC.
    if (code == "cancelled" || code == "deadline-exceeded" ||
        code == "internal" || code == "resource-exhausted" ||
        code == "unavailable") {
      out.retry_on.emplace_back(code);
    }
  }
  if (proto.has_num_retries()) {
    out.num_retries = proto.num_retries().value();
    if (out.num_retries == 0) {
      Field field(errors, ".num_retries");
      errors->AddError("must be greater than 0");
    }
  }
  if (proto.has_retry_back_off()) {
    Field field(errors, ".retry_back_off");
    const auto& backoff = proto.retry_back_off();
    if (!backoff.has_base_interval()) {
      Field base(errors, ".base_interval");
      errors->AddError("field not present");
    } else {
      Field base(errors, ".base_interval");
      out.base_interval =
          internal::ParseDuration(backoff.base_interval(), errors);
    }
    if (backoff.has_max_interval()) {
      Field max(errors, ".max_interval");
      out.max_interval =
          internal::ParseDuration(backoff.max_interval(), errors);
    } else if (!errors->FieldHasErrors()) {
      // gRPC: an unset max_interval is 10 times the (valid, so small
      // enough not to overflow) base.
      int64_t nanos10 = int64_t{out.base_interval.nanos} * 10;
      out.max_interval.seconds =
          out.base_interval.seconds * 10 + nanos10 / 1000000000;
      out.max_interval.nanos = static_cast<int32_t>(nanos10 % 1000000000);
    }
  }
  return out;
}

// Returns false if gRPC would ignore the route (no cluster we support).
bool ParseRouteAction(const route_pb::RouteAction& proto,
                      const std::optional<RetryPolicy>& vhost_retry,
                      ValidationErrors* errors, RouteAction* out) {
  using R = route_pb::RouteAction;
  Field route_field(errors, ".route");
  switch (proto.cluster_specifier_case()) {
    case R::kCluster:
      out->cluster = proto.cluster();
      if (out->cluster.empty()) {
        Field field(errors, ".cluster");
        errors->AddError("must be non-empty");
      }
      break;
    case R::kWeightedClusters: {
      Field field(errors, ".weighted_clusters");
      uint64_t sum = 0;
      const auto& clusters = proto.weighted_clusters().clusters();
      for (int i = 0; i < clusters.size(); ++i) {
        Field index(errors, absl::StrCat(".clusters[", i, "]"));
        const auto& c = clusters[i];
        if (c.name().empty()) {
          Field name(errors, ".name");
          errors->AddError("must be non-empty");
        }
        if (!c.has_weight()) {
          Field weight(errors, ".weight");
          errors->AddError("field not present");
          continue;
        }
        {
          Field tpfc(errors, ".typed_per_filter_config");
          internal::ValidateTypedPerFilterConfig(c.typed_per_filter_config(),
                                                 errors);
        }
        // A zero-weight cluster never gets traffic; gRPC drops it.
        if (c.weight().value() == 0) continue;
        sum += c.weight().value();
        out->weighted_clusters.push_back({c.name(), c.weight().value()});
      }
      // total_weight is deprecated in Envoy and not checked, as in later
      // gRPC; the weights only need a positive sum that fits uint32.
      if (sum == 0) {
        errors->AddError("sum of cluster weights must be greater than 0");
      } else if (sum > UINT32_MAX) {
        errors->AddError("sum of cluster weights exceeds uint32 max");
      }
      break;
    }
    case R::kClusterHeader:
    case R::kClusterSpecifierPlugin:
    case R::CLUSTER_SPECIFIER_NOT_SET:
      // gRPC 1.51 ignores routes it cannot route (cluster_header always,
      // cluster_specifier_plugin with RLS off, the default).
      return false;
  }
  if (proto.has_max_stream_duration()) {
    const auto& msd = proto.max_stream_duration();
    Field field(errors, ".max_stream_duration");
    if (msd.has_grpc_timeout_header_max()) {
      Field inner(errors, ".grpc_timeout_header_max");
      out->max_stream_duration =
          internal::ParseDuration(msd.grpc_timeout_header_max(), errors);
    } else if (msd.has_max_stream_duration()) {
      Field inner(errors, ".max_stream_duration");
      out->max_stream_duration =
          internal::ParseDuration(msd.max_stream_duration(), errors);
    }
  }
  if (proto.has_retry_policy()) {
    Field field(errors, ".retry_policy");
    out->retry_policy = ParseRetryPolicy(proto.retry_policy(), errors);
  } else {
    out->retry_policy = vhost_retry;
  }
  return true;
}

// Returns false if gRPC would ignore the route.
bool ParseRoute(const route_pb::Route& proto,
                const std::optional<RetryPolicy>& vhost_retry,
                ValidationErrors* errors, Route* out) {
  using RM = route_pb::RouteMatch;
  out->name = proto.name();
  if (!proto.has_match()) {
    Field field(errors, ".match");
    errors->AddError("field not present");
    return false;
  }
  const RM& match = proto.match();
  // gRPC does not support query parameter matchers: such a route could
  // match requests it should not, so it is skipped.
  if (match.query_parameters_size() > 0) return false;
  {
    Field match_field(errors, ".match");
    StringMatch& path = out->match.path;
    path.case_sensitive =
        !match.has_case_sensitive() || match.case_sensitive().value();
    switch (match.path_specifier_case()) {
      case RM::kPrefix:
        if (!PrefixCanMatch(match.prefix())) return false;
        path.type = StringMatch::Type::kPrefix;
        path.value = match.prefix();
        break;
      case RM::kPath:
        if (!PathCanMatch(match.path())) return false;
        path.type = StringMatch::Type::kExact;
        path.value = match.path();
        break;
      case RM::kSafeRegex:
        path.type = StringMatch::Type::kSafeRegex;
        path.value = match.safe_regex().regex();
        CompileRegexOf(&path, ".safe_regex.regex", errors);
        break;
      case RM::PATH_SPECIFIER_NOT_SET: {
        Field field(errors, ".path_specifier");
        errors->AddError("invalid path specifier: none set");
        break;
      }
    }
    for (int i = 0; i < match.headers_size(); ++i) {
      Field field(errors, absl::StrCat(".headers[", i, "]"));
      out->match.headers.push_back(
          ParseHeaderMatcher(match.headers(i), errors));
    }
    if (match.has_runtime_fraction() &&
        match.runtime_fraction().has_default_value()) {
      Field field(errors, ".runtime_fraction.default_value");
      const auto& fraction = match.runtime_fraction().default_value();
      uint64_t numerator = fraction.numerator();
      using FP = envoy::type::v3::FractionalPercent;
      switch (fraction.denominator()) {
        case FP::HUNDRED:
          numerator *= 10000;
          break;
        case FP::TEN_THOUSAND:
          numerator *= 100;
          break;
        case FP::MILLION:
          break;
        default: {
          Field denominator(errors, ".denominator");
          errors->AddError(
              absl::StrCat("unknown denominator type ",
                           static_cast<int>(fraction.denominator())));
        }
      }
      // More than 100% is always; clamp instead of wrapping around.
      out->match.fraction_per_million =
          static_cast<uint32_t>(std::min<uint64_t>(numerator, 1000000));
    }
  }
  switch (proto.action_case()) {
    case route_pb::Route::kRoute: {
      RouteAction action;
      if (!ParseRouteAction(proto.route(), vhost_retry, errors, &action)) {
        return false;
      }
      out->action = std::move(action);
      break;
    }
    case route_pb::Route::kNonForwardingAction:
      out->action = NonForwardingAction{};
      break;
    case route_pb::Route::kRedirect:
      out->action = UnsupportedAction{"redirect"};
      break;
    case route_pb::Route::kDirectResponse:
      out->action = UnsupportedAction{"direct_response"};
      break;
    case route_pb::Route::kFilterAction:
      out->action = UnsupportedAction{"filter_action"};
      break;
    case route_pb::Route::ACTION_NOT_SET:
      out->action = UnsupportedAction{""};
      break;
  }
  // Field paths are pushed only where there is something to check or
  // report: this runs for each of tens of thousands of routes / hosts.
  if (!proto.typed_per_filter_config().empty()) {
    Field field(errors, ".typed_per_filter_config");
    internal::ValidateTypedPerFilterConfig(proto.typed_per_filter_config(),
                                           errors, &out->rbac_overrides);
  }
  return true;
}

VirtualHost ParseVirtualHost(const route_pb::VirtualHost& proto,
                             ValidationErrors* errors) {
  VirtualHost out;
  out.name = proto.name();
  out.domains.assign(proto.domains().begin(), proto.domains().end());
  if (out.domains.empty() ||
      !std::all_of(out.domains.begin(), out.domains.end(),
                   IsValidDomainPattern)) {
    Field field(errors, ".domains");
    if (out.domains.empty()) errors->AddError("must be non-empty");
    for (size_t i = 0; i < out.domains.size(); ++i) {
      const std::string& domain = out.domains[i];
      if (!IsValidDomainPattern(domain)) {
        Field index(errors, absl::StrCat("[", i, "]"));
        errors->AddError(absl::StrCat("invalid domain pattern \"", domain,
                                      "\": '*' may only be the whole pattern, "
                                      "its first or its last character"));
      }
    }
  }
  // Field paths are pushed only where there is something to check or
  // report: this runs for each of tens of thousands of routes / hosts.
  if (!proto.typed_per_filter_config().empty()) {
    Field field(errors, ".typed_per_filter_config");
    internal::ValidateTypedPerFilterConfig(proto.typed_per_filter_config(),
                                           errors, &out.rbac_overrides);
  }
  std::optional<RetryPolicy> retry;
  if (proto.has_retry_policy()) {
    Field field(errors, ".retry_policy");
    retry = ParseRetryPolicy(proto.retry_policy(), errors);
  }
  Field routes_field(errors, ".routes");
  if (proto.routes().empty()) {
    errors->AddError("must be non-empty");
    return out;
  }
  out.routes.reserve(proto.routes_size());
  for (int i = 0; i < proto.routes_size(); ++i) {
    Field index(errors, IndexPiece("[", i).view());
    Route route;
    if (ParseRoute(proto.routes(i), retry, errors, &route)) {
      out.routes.push_back(std::move(route));
    }
  }
  // gRPC 1.51 NACKs a virtual host whose routes were all ignored.
  if (out.routes.empty() && !errors->FieldHasErrors()) {
    errors->AddError("no valid routes: every route was ignored");
  }
  return out;
}

// ------------------------------------------------------------ the type

class RouteConfigType final : public XdsResourceType<RouteConfig> {
 public:
  absl::string_view type_url() const override { return kRouteConfigTypeUrl; }
  absl::string_view short_name() const override { return "RouteConfiguration"; }
  bool all_resources_required_in_sotw() const override { return false; }

  // An update usually changes a few of many virtual hosts: the hosts whose
  // bytes are those of the held value's host at the same index are not
  // decoded again (route_config_fast.h), and an update equal to the held
  // value returns it.
  DecodeResult DecodeUpdate(const DecodeContext& context,
                            absl::string_view serialized,
                            const PreviousLookup& previous) const override {
    absl::string_view peeked;
    if (!internal::PeekRouteConfigName(serialized, &peeked) || peeked.empty()) {
      return Decode(context, serialized);
    }
    PreviousResource held = previous(peeked);
    const RouteConfig* old = Cast(held.value.get());
    if (old == nullptr || held.serialized == nullptr) {
      return Decode(context, serialized);
    }
    DecodeResult result;
    RouteConfig config;
    switch (internal::FastDecodeRouteConfigUpdate(serialized, *old,
                                                  *held.serialized, &config)) {
      case internal::RouteConfigUpdate::kUnchanged:
        result.name = old->name;
        result.value = std::move(held.value);
        return result;
      case internal::RouteConfigUpdate::kDecoded:
        result.name = config.name;
        result.value = Wrap(std::move(config));
        return result;
      case internal::RouteConfigUpdate::kGaveUp:
        break;
    }
    return Decode(context, serialized);
  }

 protected:
  absl::StatusOr<RouteConfig> DecodeValue(const DecodeContext& /*context*/,
                                          absl::string_view serialized,
                                          std::string* name) const override {
    // Most configurations take the wire reader in route_config_fast.cc,
    // which gives the same value without building protobuf messages; it
    // leaves anything unusual and every error to the libprotobuf path, so
    // error messages come from one validator.
    RouteConfig config;
    if (internal::FastDecodeRouteConfig(serialized, &config)) {
      *name = config.name;
      return config;
    }
    return internal::DecodeRouteConfigProto(serialized, name);
  }
};

}  // namespace

const char* StringMatchTypeName(StringMatch::Type type) {
  switch (type) {
    case StringMatch::Type::kExact:
      return "exact";
    case StringMatch::Type::kPrefix:
      return "prefix";
    case StringMatch::Type::kSuffix:
      return "suffix";
    case StringMatch::Type::kContains:
      return "contains";
    case StringMatch::Type::kSafeRegex:
      return "safe_regex";
  }
  return "unknown";
}

// ---------------------------------------------------------------- ToJson

Json::Value StringMatch::ToJson() const {
  Json::Value out(Json::objectValue);
  out["type"] = StringMatchTypeName(type);
  out["value"] = value;
  out["case_sensitive"] = case_sensitive;
  return out;
}

Json::Value HeaderMatch::ToJson() const {
  Json::Value out(Json::objectValue);
  out["name"] = name;
  switch (type) {
    case Type::kString:
      out["string_match"] = string_match.ToJson();
      break;
    case Type::kRange:
      out["range_match"]["start"] = Json::Int64{range_start};
      out["range_match"]["end"] = Json::Int64{range_end};
      break;
    case Type::kPresent:
      out["present_match"] = present_match;
      break;
  }
  out["invert_match"] = invert_match;
  return out;
}

const RbacConfig* RbacOverrides::Find(absl::string_view name) const {
  for (const auto& [filter, config] : by_filter) {
    if (filter == name) return config.get();
  }
  return nullptr;
}

bool RbacOverrides::operator==(const RbacOverrides& o) const {
  if (by_filter.size() != o.by_filter.size()) return false;
  for (size_t i = 0; i < by_filter.size(); ++i) {
    if (by_filter[i].first != o.by_filter[i].first ||
        *by_filter[i].second != *o.by_filter[i].second) {
      return false;
    }
  }
  return true;
}

Json::Value RbacOverrides::ToJson() const {
  Json::Value out(Json::objectValue);
  for (const auto& [filter, config] : by_filter) out[filter] = config->ToJson();
  return out;
}

Json::Value RouteMatch::ToJson() const {
  Json::Value out(Json::objectValue);
  out["path"] = path.ToJson();
  Json::Value headers_json(Json::arrayValue);
  for (const HeaderMatch& h : headers) headers_json.append(h.ToJson());
  out["headers"] = headers_json;
  if (fraction_per_million.has_value()) {
    out["fraction_per_million"] = Json::UInt{*fraction_per_million};
  }
  return out;
}

Json::Value RetryPolicy::ToJson() const {
  Json::Value out(Json::objectValue);
  out["retry_on"] = StringList(retry_on);
  out["num_retries"] = Json::UInt{num_retries};
  out["base_interval"] = base_interval.ToJson();
  out["max_interval"] = max_interval.ToJson();
  return out;
}

Json::Value RouteAction::ToJson() const {
  Json::Value out(Json::objectValue);
  if (!weighted_clusters.empty()) {
    Json::Value list(Json::arrayValue);
    for (const ClusterWeight& c : weighted_clusters) {
      Json::Value entry(Json::objectValue);
      entry["name"] = c.name;
      entry["weight"] = Json::UInt{c.weight};
      list.append(entry);
    }
    out["weighted_clusters"] = list;
  } else {
    out["cluster"] = cluster;
  }
  if (max_stream_duration.has_value()) {
    out["max_stream_duration"] = max_stream_duration->ToJson();
  }
  if (retry_policy.has_value()) out["retry_policy"] = retry_policy->ToJson();
  return out;
}

Json::Value Route::ToJson() const {
  Json::Value out(Json::objectValue);
  out["name"] = name;
  out["match"] = match.ToJson();
  if (const auto* route = std::get_if<RouteAction>(&action)) {
    out["route"] = route->ToJson();
  } else if (std::holds_alternative<NonForwardingAction>(action)) {
    out["non_forwarding_action"] = Json::Value(Json::objectValue);
  } else {
    out["unsupported_action"] = std::get<UnsupportedAction>(action).kind;
  }
  if (!rbac_overrides.empty()) out["rbac_overrides"] = rbac_overrides.ToJson();
  return out;
}

Json::Value VirtualHost::ToJson() const {
  Json::Value out(Json::objectValue);
  out["name"] = name;
  out["domains"] = StringList(domains);
  Json::Value routes_json(Json::arrayValue);
  for (const Route& r : routes) routes_json.append(r.ToJson());
  out["routes"] = routes_json;
  if (!rbac_overrides.empty()) out["rbac_overrides"] = rbac_overrides.ToJson();
  return out;
}

Json::Value RouteConfig::ToJson() const {
  Json::Value out(Json::objectValue);
  out["name"] = name;
  Json::Value vhosts(Json::arrayValue);
  for (const VirtualHost& v : virtual_hosts) vhosts.append(v.ToJson());
  out["virtual_hosts"] = vhosts;
  return out;
}

// ------------------------------------------------------------ public API

RouteConfig ParseRouteConfig(const route_pb::RouteConfiguration& proto,
                             ValidationErrors* errors) {
  RouteConfig out;
  out.name = proto.name();
  // cluster_specifier_plugins are read only with RLS on in gRPC 1.51 (off by
  // default), so they are not validated here.
  out.virtual_hosts.reserve(proto.virtual_hosts_size());
  for (int i = 0; i < proto.virtual_hosts_size(); ++i) {
    Field field(errors, IndexPiece(".virtual_hosts[", i).view());
    out.virtual_hosts.push_back(
        ParseVirtualHost(proto.virtual_hosts(i), errors));
  }
  return out;
}

namespace internal {

absl::StatusOr<RouteConfig> DecodeRouteConfigProto(absl::string_view serialized,
                                                   std::string* name) {
  // On an arena, as for ClusterLoadAssignment: a 10,000-virtual-host
  // configuration is ~100,000 small messages and strings, and freeing them
  // one by one cost as much as validating them.
  google::protobuf::ArenaOptions options;
  options.start_block_size = 4096;
  options.max_block_size = 64 * 1024;
  google::protobuf::Arena arena(options);
  auto& proto =
      *google::protobuf::Arena::CreateMessage<route_pb::RouteConfiguration>(
          &arena);
  if (serialized.size() > static_cast<size_t>(INT_MAX) ||
      !proto.ParseFromArray(serialized.data(),
                            static_cast<int>(serialized.size()))) {
    return absl::InvalidArgumentError(
        DecodeFailureMessage("cannot decode RouteConfiguration",
                             *proto.GetDescriptor(), serialized));
  }
  *name = proto.name();
  ValidationErrors errors;
  RouteConfig config = ParseRouteConfig(proto, &errors);
  if (!errors.ok()) {
    return errors.status("errors validating RouteConfiguration");
  }
  return config;
}

DecodeResult DecodeRouteConfigWithProtobuf(absl::string_view serialized) {
  DecodeResult result;
  absl::StatusOr<RouteConfig> config =
      DecodeRouteConfigProto(serialized, &result.name);
  if (config.ok()) {
    result.value = XdsResourceType<RouteConfig>::Wrap(*std::move(config));
  } else {
    result.value = config.status();
  }
  return result;
}

StringMatch ParseStringMatcherProto(
    const envoy::type::matcher::v3::StringMatcher& proto,
    ValidationErrors* errors) {
  return ParseStringMatcher(proto, errors);
}

HeaderMatch ParseHeaderMatcherProto(const route_pb::HeaderMatcher& proto,
                                    ValidationErrors* errors) {
  return ParseHeaderMatcher(proto, errors);
}

}  // namespace internal

template <>
const XdsResourceType<RouteConfig>& XdsResourceType<RouteConfig>::Get() {
  // The fast path's one-time descriptor check (it may build the messages'
  // descriptors: up to a few ms) runs here, when a client first registers
  // the type, rather than on its first response.
  static const RouteConfigType* const kType =
      (internal::RouteConfigFastPathAvailable(), new RouteConfigType());
  return *kType;
}

const XdsResourceType<RouteConfig>& RouteConfigResourceType() {
  return XdsResourceType<RouteConfig>::Get();
}

}  // namespace resources
}  // namespace xdsfed
