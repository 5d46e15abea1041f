#include "lib/resources/internal/route_config_util.h"

#include <algorithm>
#include <cstdint>
#include <memory>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "envoy/config/route/v3/route_components.pb.h"
#include "google/protobuf/io/coded_stream.h"
#include "google/protobuf/wire_format_lite.h"
#include "lib/resources/rbac.h"

namespace xdsfed {
namespace resources {

Json::Value ProtoDuration::ToJson() const {
  // proto3 JSON mapping: 0, 3, 6 or 9 fractional digits, then "s".
  if (nanos == 0) return absl::StrCat(seconds, "s");
  if (nanos % 1000000 == 0) {
    return absl::StrFormat("%d.%03ds", seconds, nanos / 1000000);
  }
  if (nanos % 1000 == 0) {
    return absl::StrFormat("%d.%06ds", seconds, nanos / 1000);
  }
  return absl::StrFormat("%d.%09ds", seconds, nanos);
}

namespace internal {

namespace {

constexpr int64_t kMaxDurationSeconds = 315576000000;

// Reads field 1 (type_url) of a TypedStruct without its generated class
// (our protos do not include udpa/xds type protos). nullopt if the bytes are
// not a well-formed message.
std::optional<std::string> TypedStructTypeUrl(const std::string& bytes) {
  namespace wire = google::protobuf::internal;
  google::protobuf::io::CodedInputStream in(
      reinterpret_cast<const uint8_t*>(bytes.data()),
      static_cast<int>(bytes.size()));
  std::string type_url;
  while (true) {
    uint32_t tag = in.ReadTag();
    if (tag == 0) break;
    if (tag == wire::WireFormatLite::MakeTag(
                   1, wire::WireFormatLite::WIRETYPE_LENGTH_DELIMITED)) {
      if (!wire::WireFormatLite::ReadString(&in, &type_url)) {
        return std::nullopt;
      }
    } else if (!wire::WireFormatLite::SkipField(&in, tag)) {
      return std::nullopt;
    }
  }
  if (!in.ConsumedEntireMessage()) return std::nullopt;
  return type_url;
}

// The type name after the last '/' of a type URL, or nullopt.
std::optional<std::string> TypeNameFromUrl(absl::string_view url) {
  size_t pos = url.rfind('/');
  if (pos == absl::string_view::npos || pos == url.size() - 1) {
    return std::nullopt;
  }
  return std::string(url.substr(pos + 1));
}

}  // namespace

ProtoDuration ParseDuration(const google::protobuf::Duration& proto,
                            ValidationErrors* errors) {
  ProtoDuration out;
  if (proto.seconds() < 0 || proto.seconds() > kMaxDurationSeconds) {
    ValidationErrors::ScopedField field(errors, ".seconds");
    errors->AddError("value must be in the range [0, 315576000000]");
  }
  if (proto.nanos() < 0 || proto.nanos() > 999999999) {
    ValidationErrors::ScopedField field(errors, ".nanos");
    errors->AddError("value must be in the range [0, 999999999]");
  }
  out.seconds = proto.seconds();
  out.nanos = proto.nanos();
  return out;
}

std::optional<std::string> ExtensionTypeName(const google::protobuf::Any& any,
                                             ValidationErrors* errors) {
  std::optional<std::string> type = TypeNameFromUrl(any.type_url());
  if (!type.has_value()) {
    ValidationErrors::ScopedField field(errors, ".type_url");
    errors->AddError(
        absl::StrCat("invalid value \"", any.type_url(),
                     "\": expected \"type.googleapis.com/<message type>\""));
    return std::nullopt;
  }
  if (*type != "udpa.type.v1.TypedStruct" &&
      *type != "xds.type.v3.TypedStruct") {
    return type;
  }
  // A36/A39: for a TypedStruct, its own type_url names the filter.
  ValidationErrors::ScopedField field(errors,
                                      absl::StrCat(".value[", *type, "]"));
  std::optional<std::string> inner_url = TypedStructTypeUrl(any.value());
  if (!inner_url.has_value()) {
    errors->AddError("cannot decode TypedStruct");
    return std::nullopt;
  }
  std::optional<std::string> inner = TypeNameFromUrl(*inner_url);
  if (!inner.has_value()) {
    ValidationErrors::ScopedField type_url_field(errors, ".type_url");
    errors->AddError(
        absl::StrCat("invalid value \"", *inner_url,
                     "\": expected \"type.googleapis.com/<message type>\""));
  }
  return inner;
}

void ValidateTypedPerFilterConfig(
    const google::protobuf::Map<std::string, google::protobuf::Any>& map,
    ValidationErrors* errors, RbacOverrides* rbac) {
  // Visited in key order: a protobuf Map's iteration order is unspecified
  // (it differs between two parses of the same bytes), and once the errors
  // pass ValidationErrors::kMaxErrors the order decides which are shown, so
  // the same bytes would give different NACK messages.
  std::vector<const google::protobuf::Map<std::string,
                                          google::protobuf::Any>::value_type*>
      entries;
  entries.reserve(map.size());
  for (const auto& entry : map) entries.push_back(&entry);
  std::sort(entries.begin(), entries.end(),
            [](const auto* a, const auto* b) { return a->first < b->first; });
  for (const auto* entry : entries) {
    const std::string& key = entry->first;
    const google::protobuf::Any& value = entry->second;
    ValidationErrors::ScopedField field(errors, ValidationErrors::MapKey(key));
    if (key.empty()) {
      errors->AddError("filter name must be non-empty");
      continue;
    }
    const google::protobuf::Any* any = &value;
    bool is_optional = false;
    envoy::config::route::v3::FilterConfig wrapper;
    std::optional<ValidationErrors::ScopedField> wrapper_field;
    std::optional<ValidationErrors::ScopedField> config_field;
    if (any->type_url() ==
        "type.googleapis.com/envoy.config.route.v3.FilterConfig") {
      wrapper_field.emplace(errors,
                            ".value[envoy.config.route.v3.FilterConfig]");
      if (!wrapper.ParseFromString(any->value())) {
        errors->AddError("cannot decode FilterConfig");
        continue;
      }
      is_optional = wrapper.is_optional();
      if (!wrapper.has_config()) {
        if (!is_optional) {
          ValidationErrors::ScopedField config_field(errors, ".config");
          errors->AddError("field not present");
        }
        continue;
      }
      any = &wrapper.config();
      config_field.emplace(errors, ".config");
    }
    std::optional<std::string> type = ExtensionTypeName(*any, errors);
    if (!type.has_value()) continue;
    if (*type == kRouterFilterType) {
      // gRPC's router filter accepts no per-route override.
      errors->AddError(
          absl::StrCat("filter config override not supported for ", *type));
      continue;
    }
    if (*type == kRbacPerRouteType || *type == kRbacFilterType) {
      ValidationErrors::ScopedField value_field(
          errors, absl::StrCat(".value[", *type, "]"));
      if (*type == kRbacFilterType) {
        // gRPC would read these bytes as an RBACPerRoute (whose field 2 is
        // the RBAC filter's shadow_rules): refused instead.
        errors->AddError("expected RBACPerRoute, not the filter's RBAC");
        continue;
      }
      if (any->type_url().find("TypedStruct") != std::string::npos) {
        // C-core GenerateFilterConfigOverride: "could not parse RBACPerRoute".
        errors->AddError("cannot decode RBACPerRoute from a TypedStruct");
        continue;
      }
      auto config = std::make_shared<const RbacConfig>(
          ParseRbacPerRoute(any->value(), errors));
      if (rbac != nullptr) rbac->by_filter.emplace_back(key, config);
      continue;
    }
    // The router and RBAC are the only filters we know; others are errors
    // unless marked optional.
    if (!is_optional) {
      errors->AddError(absl::StrCat("unsupported filter type ", *type));
    }
  }
}

}  // namespace internal
}  // namespace resources
}  // namespace xdsfed
