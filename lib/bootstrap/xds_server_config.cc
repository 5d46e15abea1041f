#include "lib/bootstrap/xds_server_config.h"

#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"

namespace xdsfed {
namespace {

// Channel credential types this library can build (first one listed wins).
bool IsSupportedCredsType(absl::string_view type) {
  return type == "insecure" || type == "google_default" || type == "tls";
}

// Loads a "tls" creds config (schema/channel_creds.proto) under the current
// path, plus the rule the schema cannot say: a certificate needs its private
// key and vice versa (C-core's TlsConfig::JsonPostLoad).
std::optional<schema::TlsChannelCredsConfig> LoadTlsConfig(
    const Json::Value& config, ValidationErrors* errors) {
  const size_t errors_before = errors->size();
  schema::TlsChannelCredsConfig tls;
  tls.LoadFrom(config, errors);
  if (config.isObject() && config.isMember("certificate_file") !=
                               config.isMember("private_key_file")) {
    errors->AddError(
        "certificate_file and private_key_file must be set together");
  }
  if (errors->size() != errors_before) return std::nullopt;
  return tls;
}

std::string CanonicalJson(const Json::Value& value) {
  // Most servers have no creds config; skip building a writer for them.
  if (value.isObject() && value.empty()) return "{}";
  Json::StreamWriterBuilder builder;
  builder["indentation"] = "";
  return Json::writeString(builder, value);
}

}  // namespace

std::optional<XdsServerConfig> XdsServerConfig::FromSchema(
    const schema::XdsServer& raw, ValidationErrors* errors) {
  const size_t errors_before = errors->size();
  {
    ValidationErrors::ScopedField field(errors, ".server_uri");
    if (raw.server_uri.empty() && !errors->FieldHasErrors()) {
      errors->AddError("must be non-empty");
    } else if (raw.server_uri.find('\0') != std::string::npos) {
      // JSON may carry one as "\u0000"; no URI holds one, and a C API
      // would cut the target short there.
      errors->AddError("must not contain a NUL character");
    }
  }
  std::string creds_type;
  Json::Value creds_config(Json::objectValue);
  {
    ValidationErrors::ScopedField field(errors, ".channel_creds");
    for (size_t i = 0; i < raw.channel_creds.size(); ++i) {
      const auto& creds = raw.channel_creds[i];
      if (!IsSupportedCredsType(creds.type)) continue;
      ValidationErrors::ScopedField index(errors, absl::StrCat("[", i, "]"));
      creds_type = creds.type;
      if (creds.config.has_value()) creds_config = *creds.config;
      if (creds_type == "tls") {
        ValidationErrors::ScopedField config(errors, ".config");
        LoadTlsConfig(creds_config, errors);
      }
      break;
    }
    if (creds_type.empty() && !errors->FieldHasErrors()) {
      errors->AddError("no known creds type found");
    }
  }
  // Unknown features are dropped (A47 §Server Channel Map: "unknown features
  // can be removed"), so they do not split otherwise identical servers.
  std::set<std::string> features;
  for (const Json::Value& feature : raw.server_features) {
    if (feature.isString() && feature.asString() == kIgnoreResourceDeletion) {
      features.insert(feature.asString());
    }
  }
  if (errors->size() != errors_before) return std::nullopt;
  return XdsServerConfig(raw.server_uri, std::move(creds_type),
                         std::move(creds_config), std::move(features));
}

XdsServerConfig::XdsServerConfig(std::string server_uri,
                                 std::string channel_creds_type,
                                 Json::Value channel_creds_config,
                                 std::set<std::string> server_features)
    : server_uri_(std::move(server_uri)),
      channel_creds_type_(std::move(channel_creds_type)),
      channel_creds_config_(std::move(channel_creds_config)),
      server_features_(std::move(server_features)) {
  std::string canonical_config;
  if (channel_creds_type_ == "tls") {
    ValidationErrors errors;
    tls_config_ = LoadTlsConfig(channel_creds_config_, &errors);
    if (tls_config_.has_value()) {
      canonical_config = CanonicalJson(tls_config_->ToJson());
    } else {
      channel_creds_status_ = errors.status("invalid tls channel creds config");
    }
  }
  if (canonical_config.empty()) {
    canonical_config = CanonicalJson(channel_creds_config_);
  }
  identity_ =
      absl::StrCat(server_uri_, std::string(1, '\0'), channel_creds_type_,
                   std::string(1, '\0'), canonical_config, std::string(1, '\0'),
                   absl::StrJoin(server_features_, ","));
}

Json::Value XdsServerConfig::ToJson() const {
  Json::Value out(Json::objectValue);
  out["server_uri"] = server_uri_;
  out["channel_creds_type"] = channel_creds_type_;
  out["channel_creds_config"] = channel_creds_config_;
  Json::Value features(Json::arrayValue);
  for (const std::string& feature : server_features_) features.append(feature);
  out["server_features"] = std::move(features);
  return out;
}

schema::XdsServer XdsServerConfig::ToSchema() const {
  schema::XdsServer raw;
  raw.server_uri = server_uri_;
  schema::XdsServer::ChannelCredentials creds;
  creds.type = channel_creds_type_;
  if (!channel_creds_config_.empty()) creds.config = channel_creds_config_;
  raw.channel_creds.push_back(std::move(creds));
  for (const std::string& feature : server_features_) {
    raw.server_features.emplace_back(feature);
  }
  return raw;
}

}  // namespace xdsfed
