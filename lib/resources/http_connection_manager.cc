#include "lib/resources/http_connection_manager.h"

#include <memory>
#include <set>
#include <utility>

#include "absl/strings/str_cat.h"
#include "envoy/extensions/filters/http/router/v3/router.pb.h"
#include "envoy/extensions/filters/network/http_connection_manager/v3/http_connection_manager.pb.h"
#include "lib/base/validation_errors.h"
#include "lib/resources/internal/route_config_util.h"
#include "lib/resources/rbac.h"

namespace xdsfed {
namespace resources {

namespace {

namespace hcm_pb =
    envoy::extensions::filters::network::http_connection_manager::v3;
using Field = ValidationErrors::ScopedField;

void ParseHttpFilters(const hcm_pb::HttpConnectionManager& proto,
                      bool is_client, ValidationErrors* errors,
                      HttpConnectionManager* out) {
  Field filters_field(errors, ".http_filters");
  std::set<std::string> names_seen;
  // Indices into proto.http_filters() of the filters kept in out.
  std::vector<int> kept;
  for (int i = 0; i < proto.http_filters_size(); ++i) {
    const hcm_pb::HttpFilter& filter = proto.http_filters(i);
    Field index(errors, absl::StrCat("[", i, "]"));
    if (filter.name().empty()) {
      Field name(errors, ".name");
      errors->AddError("must be non-empty");
      continue;
    }
    if (!names_seen.insert(filter.name()).second) {
      Field name(errors, ".name");
      errors->AddError(
          absl::StrCat("duplicate HTTP filter name: ", filter.name()));
      continue;
    }
    Field config_field(errors, ".typed_config");
    if (!filter.has_typed_config()) {
      if (!filter.is_optional()) errors->AddError("field not present");
      continue;
    }
    std::optional<std::string> type =
        internal::ExtensionTypeName(filter.typed_config(), errors);
    if (!type.has_value()) continue;
    if (*type == kRbacFilterType) {
      if (is_client) {
        // gRPC: "Filter %s is not supported on clients" (A41: server only).
        if (!filter.is_optional()) {
          errors->AddError(
              absl::StrCat("filter ", *type, " is not supported on clients"));
        }
        continue;
      }
      Field value(errors, absl::StrCat(".value[", *type, "]"));
      if (filter.typed_config().type_url().find("TypedStruct") !=
          std::string::npos) {
        // C-core: "could not parse HTTP RBAC filter config".
        errors->AddError("cannot decode RBAC from a TypedStruct");
        continue;
      }
      auto config = std::make_shared<const RbacConfig>(
          ParseRbacFilterConfig(filter.typed_config().value(), errors));
      out->http_filters.push_back({filter.name(), *type, std::move(config)});
      kept.push_back(i);
      continue;
    }
    if (*type != internal::kRouterFilterType) {
      // gRPC: "no filter registered for config type"; an optional filter we
      // do not know is skipped.
      if (!filter.is_optional()) {
        errors->AddError(absl::StrCat("unsupported filter type ", *type));
      }
      continue;
    }
    // A router wrapped in a TypedStruct carries a Struct, not a Router;
    // there is nothing in it that we use.
    if (filter.typed_config().type_url().find("TypedStruct") ==
        std::string::npos) {
      envoy::extensions::filters::http::router::v3::Router router;
      if (!router.ParseFromString(filter.typed_config().value())) {
        Field value(errors, absl::StrCat(".value[", *type, "]"));
        errors->AddError("cannot decode Router");
        continue;
      }
    }
    out->http_filters.push_back({filter.name(), *type});
    kept.push_back(i);
  }
  if (out->http_filters.empty()) {
    errors->AddError("expected at least one HTTP filter");
    return;
  }
  // The router is terminal: it must be last, and the last filter must be
  // terminal (A39; gRPC's two messages). So RBAC runs before the router.
  for (size_t k = 0; k + 1 < out->http_filters.size(); ++k) {
    if (out->http_filters[k].config_type != internal::kRouterFilterType) {
      continue;
    }
    Field index(errors, absl::StrCat("[", kept[k], "]"));
    errors->AddError(absl::StrCat("terminal filter for config type ",
                                  out->http_filters[k].config_type,
                                  " must be the last filter in the chain"));
  }
  if (out->http_filters.back().config_type != internal::kRouterFilterType) {
    Field index(errors, absl::StrCat("[", kept.back(), "]"));
    errors->AddError(absl::StrCat("non-terminal filter for config type ",
                                  out->http_filters.back().config_type,
                                  " is the last filter in the chain"));
  }
}

}  // namespace

bool HttpConnectionManager::HttpFilter::operator==(const HttpFilter& o) const {
  if (name != o.name || config_type != o.config_type) return false;
  if (rbac == nullptr || o.rbac == nullptr) return rbac == o.rbac;
  return *rbac == *o.rbac;
}

HttpConnectionManager ParseHttpConnectionManager(
    const hcm_pb::HttpConnectionManager& proto, bool is_client,
    ValidationErrors* errors) {
  HttpConnectionManager out;
  if (proto.has_common_http_protocol_options() &&
      proto.common_http_protocol_options().has_max_stream_duration()) {
    Field field(errors, ".common_http_protocol_options.max_stream_duration");
    out.http_max_stream_duration = internal::ParseDuration(
        proto.common_http_protocol_options().max_stream_duration(), errors);
  }
  // A41 §Proposal: RBAC's remote_ip is the peer address only without these
  // (gRPC 1.51 xds_listener.cc, for client and server Listeners alike).
  if (proto.xff_num_trusted_hops() != 0) {
    Field field(errors, ".xff_num_trusted_hops");
    errors->AddError("must be zero");
  }
  if (proto.original_ip_detection_extensions_size() != 0) {
    Field field(errors, ".original_ip_detection_extensions");
    errors->AddError("must be empty");
  }
  ParseHttpFilters(proto, is_client, errors, &out);
  switch (proto.route_specifier_case()) {
    case hcm_pb::HttpConnectionManager::kRouteConfig: {
      Field field(errors, ".route_config");
      out.route_config = ParseRouteConfig(proto.route_config(), errors);
      break;
    }
    case hcm_pb::HttpConnectionManager::kRds: {
      Field field(errors, ".rds");
      const hcm_pb::Rds& rds = proto.rds();
      if (!rds.has_config_source()) {
        Field source(errors, ".config_source");
        errors->AddError("field not present");
      } else if (!rds.config_source().has_ads() &&
                 !rds.config_source().has_self()) {
        // A47 §xDS API changes: `self` means the server that sent this
        // resource, which for us is the same ADS stream.
        Field source(errors, ".config_source");
        errors->AddError("ConfigSource does not specify ads or self");
      }
      out.route_config = HttpConnectionManager::Rds{rds.route_config_name()};
      break;
    }
    default:
      // scoped_routes or nothing.
      errors->AddError("neither route_config nor rds is set");
      break;
  }
  return out;
}

Json::Value HttpConnectionManager::ToJson() const {
  Json::Value out(Json::objectValue);
  if (const auto* rds = std::get_if<Rds>(&route_config)) {
    out["rds"]["route_config_name"] = rds->route_config_name;
  } else {
    out["route_config"] = std::get<RouteConfig>(route_config).ToJson();
  }
  Json::Value filters(Json::arrayValue);
  for (const HttpFilter& f : http_filters) {
    Json::Value filter(Json::objectValue);
    filter["name"] = f.name;
    filter["config_type"] = f.config_type;
    if (f.rbac != nullptr) filter["rbac"] = f.rbac->ToJson();
    filters.append(filter);
  }
  out["http_filters"] = filters;
  if (http_max_stream_duration.has_value()) {
    out["http_max_stream_duration"] = http_max_stream_duration->ToJson();
  }
  return out;
}

}  // namespace resources
}  // namespace xdsfed
