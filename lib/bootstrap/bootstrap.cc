#include "lib/bootstrap/bootstrap.h"

#include <cstdlib>
#include <utility>

#include "absl/container/flat_hash_map.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/strip.h"
#include "lib/base/file_reader.h"
#include "lib/base/validation_errors.h"
#include "lib/json/json_reader.h"
#include "lib/name/percent_encoding.h"
#include "lib/name/resource_name.h"

namespace xdsfed {
namespace {

// Identical servers named in several places become one shared object, so
// that the XdsClient's channel map sees them as one (A47 §Server Channel Map).
class ServerInterner {
 public:
  std::shared_ptr<const XdsServerConfig> Intern(XdsServerConfig server) {
    auto [it, inserted] = servers_.try_emplace(server, nullptr);
    if (inserted) {
      it->second = std::make_shared<const XdsServerConfig>(std::move(server));
    }
    return it->second;
  }

 private:
  absl::flat_hash_map<XdsServerConfig, std::shared_ptr<const XdsServerConfig>>
      servers_;
};

Bootstrap::ServerList ValidateServers(const std::vector<schema::XdsServer>& raw,
                                      ServerInterner* interner,
                                      ValidationErrors* errors) {
  Bootstrap::ServerList servers;
  for (size_t i = 0; i < raw.size(); ++i) {
    ValidationErrors::ScopedField field(errors, absl::StrCat("[", i, "]"));
    std::optional<XdsServerConfig> server =
        XdsServerConfig::FromSchema(raw[i], errors);
    if (server.has_value()) servers.push_back(interner->Intern(*server));
  }
  return servers;
}

void WarnIfNoPercentS(absl::string_view tmpl, ValidationErrors* errors,
                      std::vector<std::string>* warnings) {
  if (absl::StrContains(tmpl, "%s")) return;
  warnings->push_back(absl::StrCat(
      errors->CurrentPath(),
      ": template has no %s, so every target maps to the same Listener"));
}

// "xdstp://<authority, percent-encoded>/": what an authority's template must
// start with, and the start of its default.
std::string AuthorityNamePrefix(absl::string_view authority) {
  return absl::StrCat("xdstp://", PercentEncodeAuthority(authority), "/");
}

}  // namespace

namespace {

// A bootstrap object with its "authorities" member cut out: the rest as a
// tree, the authorities as raw text per name. nullopt if the text is not
// such an object or a part does not parse (the caller then parses the whole
// text, for the usual error message).
struct SplitBootstrap {
  Json::Value root;
  std::vector<JsonMemberSpan> authorities;
};
std::optional<SplitBootstrap> SplitAuthorities(absl::string_view text) {
  if (!CheckJsonText(text).ok()) return std::nullopt;
  absl::StatusOr<std::vector<JsonMemberSpan>> members = SplitJsonObject(text);
  if (!members.ok()) return std::nullopt;
  SplitBootstrap split;
  std::string rest;
  bool has_authorities = false;
  for (const JsonMemberSpan& member : *members) {
    if (member.key == "authorities" && !member.value.empty() &&
        member.value[0] == '{') {
      absl::StatusOr<std::vector<JsonMemberSpan>> authorities =
          SplitJsonObject(member.value);
      if (!authorities.ok()) return std::nullopt;
      split.authorities = *std::move(authorities);
      has_authorities = true;
      continue;
    }
    absl::StrAppend(&rest, rest.empty() ? "{" : ",",
                    JsonToString(Json::Value(member.key)), ":", member.value);
  }
  if (!has_authorities) return std::nullopt;
  rest += rest.empty() ? "{}" : "}";
  absl::StatusOr<Json::Value> root = ParseJsonText(rest);
  if (!root.ok()) return std::nullopt;
  split.root = *std::move(root);
  return split;
}

}  // namespace

absl::StatusOr<std::shared_ptr<const Bootstrap>> Bootstrap::Parse(
    absl::string_view json_text, bool federation) {
  // A federation bootstrap may list many authorities; their tree would be
  // ~10x the text (issue 16 item 5), so they are loaded one at a time.
  // (With the gate off they are ignored, but must still be JSON: the whole
  // text is parsed.)
  std::optional<SplitBootstrap> split;
  if (federation) split = SplitAuthorities(json_text);
  if (split.has_value()) {
    absl::StatusOr<std::shared_ptr<const Bootstrap>> bootstrap =
        FromJsonParts(split->root, federation, &split->authorities);
    // An authority that is not JSON: the whole text is parsed again below,
    // for the error with its place in the file.
    if (bootstrap.ok() ||
        !absl::StrContains(bootstrap.status().message(), "malformed JSON")) {
      return bootstrap;
    }
  }
  absl::StatusOr<Json::Value> json = ParseJsonText(json_text);
  if (!json.ok()) {
    return absl::InvalidArgumentError(
        absl::StrCat(kErrorPrefix, ": ", json.status().message()));
  }
  return FromJson(*json, federation);
}

absl::StatusOr<std::shared_ptr<const Bootstrap>> Bootstrap::FromJson(
    const Json::Value& input, bool federation) {
  return FromJsonParts(input, federation, nullptr);
}

absl::StatusOr<std::shared_ptr<const Bootstrap>> Bootstrap::FromJsonParts(
    const Json::Value& input, bool federation,
    const std::vector<JsonMemberSpan>* authority_texts) {
  // A47: with the gate off the new fields behave as if they were not set.
  // Only then is the input copied, to strip them. This is the one place the
  // bootstrap is touched as raw JSON, on purpose: the fields must go before
  // the generated loader sees them, so that their errors are ignored too.
  std::optional<Json::Value> stripped;
  if (!federation && input.isObject() &&
      (input.isMember("authorities") ||
       input.isMember("client_default_listener_resource_name_template"))) {
    stripped = input;
    stripped->removeMember("authorities");
    stripped->removeMember("client_default_listener_resource_name_template");
  }
  const Json::Value& json = stripped.has_value() ? *stripped : input;
  ValidationErrors errors;
  schema::Bootstrap raw;
  raw.LoadFrom(json, &errors);

  std::shared_ptr<Bootstrap> bootstrap(new Bootstrap());
  bootstrap->federation_ = federation;
  if (!federation && input.isObject() && input["authorities"].isObject()) {
    bootstrap->authorities_ignored_ = input["authorities"].getMemberNames();
  }
  ServerInterner interner;
  {
    ValidationErrors::ScopedField field(&errors, ".xds_servers");
    if (raw.xds_servers.empty() && !errors.FieldHasErrors() &&
        json.isObject()) {
      errors.AddError("must be non-empty");
    }
    bootstrap->servers_ = ValidateServers(raw.xds_servers, &interner, &errors);
  }
  bootstrap->node_ = raw.node;
  auto add_authority = [&](const std::string& name,
                           const schema::Authority& raw_authority) {
    ValidationErrors::ScopedField field(&errors, ".authorities");
    ValidationErrors::ScopedField key(&errors, ValidationErrors::MapKey(name));
    Authority authority;
    authority.name = name;
    if (raw_authority.client_listener_resource_name_template.has_value()) {
      ValidationErrors::ScopedField tmpl(
          &errors, ".client_listener_resource_name_template");
      const std::string& value =
          *raw_authority.client_listener_resource_name_template;
      const std::string prefix = AuthorityNamePrefix(name);
      if (!absl::StartsWith(value, prefix)) {
        errors.AddError(absl::StrCat("field must begin with \"", prefix, "\""));
      } else {
        WarnIfNoPercentS(value, &errors, &bootstrap->warnings_);
      }
      authority.client_listener_resource_name_template = value;
    } else {
      authority.client_listener_resource_name_template = absl::StrCat(
          AuthorityNamePrefix(name), Bootstrap::kListenerType, "/%s");
    }
    // An authority without servers (absent or empty list) uses the top-level
    // list, as gRPC does.
    if (raw_authority.xds_servers.has_value() &&
        !raw_authority.xds_servers->empty()) {
      ValidationErrors::ScopedField servers(&errors, ".xds_servers");
      authority.xds_servers =
          ValidateServers(*raw_authority.xds_servers, &interner, &errors);
      authority.has_own_servers = true;
    } else {
      authority.xds_servers = bootstrap->servers_;
    }
    bootstrap->authorities_.emplace(name, std::move(authority));
  };
  for (const auto& [name, raw_authority] : raw.authorities) {
    add_authority(name, raw_authority);
  }
  if (authority_texts != nullptr && federation) {
    for (const JsonMemberSpan& text : *authority_texts) {
      // Duplicate names were rejected by the split.
      schema::Authority raw_authority;
      {
        ValidationErrors::ScopedField field(&errors, ".authorities");
        ValidationErrors::ScopedField key(&errors,
                                          ValidationErrors::MapKey(text.key));
        absl::StatusOr<Json::Value> json = ParseJsonText(text.value);
        if (!json.ok()) {
          errors.AddError(json.status().message());
          continue;
        }
        raw_authority.LoadFrom(*json, &errors);
      }
      add_authority(text.key, raw_authority);
    }
  }
  if (raw.client_default_listener_resource_name_template.has_value()) {
    ValidationErrors::ScopedField field(
        &errors, ".client_default_listener_resource_name_template");
    bootstrap->has_client_default_template_ = true;
    bootstrap->client_default_template_ =
        *raw.client_default_listener_resource_name_template;
    WarnIfNoPercentS(bootstrap->client_default_template_, &errors,
                     &bootstrap->warnings_);
  }
  if (raw.server_listener_resource_name_template.has_value()) {
    ValidationErrors::ScopedField field(
        &errors, ".server_listener_resource_name_template");
    bootstrap->server_template_ = raw.server_listener_resource_name_template;
    WarnIfNoPercentS(*bootstrap->server_template_, &errors,
                     &bootstrap->warnings_);
  }
  for (const auto& [name, provider] : raw.certificate_providers) {
    ValidationErrors::ScopedField field(&errors, ".certificate_providers");
    ValidationErrors::ScopedField key(&errors, ValidationErrors::MapKey(name));
    ValidationErrors::ScopedField plugin(&errors, ".plugin_name");
    // file_watcher is the one provider plugin gRPC ships (gRFC A29).
    if (!errors.FieldHasErrors() && provider.plugin_name != "file_watcher") {
      errors.AddError(
          absl::StrCat("unrecognized plugin name: ", provider.plugin_name));
    }
  }
  bootstrap->certificate_providers_ = raw.certificate_providers;
  if (!errors.ok()) return errors.status(kErrorPrefix);
  return std::shared_ptr<const Bootstrap>(std::move(bootstrap));
}

absl::StatusOr<std::shared_ptr<const Bootstrap>> Bootstrap::FromEnv(
    bool federation) {
  const char* path = std::getenv("GRPC_XDS_BOOTSTRAP");
  if (path != nullptr && *path != '\0') {
    const std::string file(path);
    absl::StatusOr<std::string> text =
        ReadFileCapped(file, kMaxBootstrapFileBytes);
    if (!text.ok()) {
      // The reader's message is "cannot read <path>: <reason>".
      return absl::FailedPreconditionError(absl::StrCat(
          "cannot read bootstrap file ", file, " (from GRPC_XDS_BOOTSTRAP): ",
          absl::StripPrefix(text.status().message(),
                            absl::StrCat("cannot read ", file, ": "))));
    }
    return Parse(*text, federation);
  }
  const char* text = std::getenv("GRPC_XDS_BOOTSTRAP_CONFIG");
  if (text != nullptr && *text != '\0') return Parse(text, federation);
  return absl::FailedPreconditionError(
      "no bootstrap: neither GRPC_XDS_BOOTSTRAP nor GRPC_XDS_BOOTSTRAP_CONFIG "
      "is set");
}

const Bootstrap::Authority* Bootstrap::LookupAuthority(
    absl::string_view name) const {
  auto it = authorities_.find(std::string(name));
  return it == authorities_.end() ? nullptr : &it->second;
}

std::shared_ptr<const XdsServerConfig> Bootstrap::ServerForResourceName(
    absl::string_view name) const {
  absl::StatusOr<ResourceName> parsed = ResourceName::Parse(name, federation_);
  if (!parsed.ok()) return nullptr;
  if (parsed->old_style) return servers_.front();
  const Authority* authority = LookupAuthority(parsed->authority);
  if (authority == nullptr || authority->xds_servers.empty()) return nullptr;
  return authority->xds_servers.front();
}

bool Bootstrap::HasServer(const XdsServerConfig& server) const {
  for (const auto& s : servers_) {
    if (*s == server) return true;
  }
  for (const auto& [name, authority] : authorities_) {
    for (const auto& s : authority.xds_servers) {
      if (*s == server) return true;
    }
  }
  return false;
}

namespace {

Json::Value ServersToJson(const Bootstrap::ServerList& servers) {
  Json::Value out(Json::arrayValue);
  for (const auto& server : servers) out.append(server->ToJson());
  return out;
}

bool SameServers(const Bootstrap::ServerList& a,
                 const Bootstrap::ServerList& b) {
  if (a.size() != b.size()) return false;
  for (size_t i = 0; i < a.size(); ++i) {
    if (*a[i] != *b[i]) return false;
  }
  return true;
}

}  // namespace

Json::Value Bootstrap::AuthorityToJson(const Authority& authority) {
  Json::Value entry(Json::objectValue);
  entry["client_listener_resource_name_template"] =
      authority.client_listener_resource_name_template;
  entry["xds_servers"] = authority.has_own_servers
                             ? ServersToJson(authority.xds_servers)
                             : Json::Value();
  return entry;
}

Json::Value Bootstrap::ToJson() const {
  Json::Value out = ToJsonWithoutAuthorities();
  Json::Value authorities(Json::objectValue);
  for (const auto& [name, authority] : authorities_) {
    authorities[name] = AuthorityToJson(authority);
  }
  out["authorities"] = std::move(authorities);
  return out;
}

Json::Value Bootstrap::ToJsonWithoutAuthorities() const {
  Json::Value out(Json::objectValue);
  out["xds_servers"] = ServersToJson(servers_);
  out["node"] = node_.has_value() ? node_->ToJson() : Json::Value();
  out["client_default_listener_resource_name_template"] =
      client_default_template_;
  out["server_listener_resource_name_template"] =
      server_template_.has_value() ? Json::Value(*server_template_)
                                   : Json::Value();
  Json::Value providers(Json::objectValue);
  for (const auto& [name, provider] : certificate_providers_) {
    providers[name] = provider.ToJson();
  }
  out["certificate_providers"] = std::move(providers);
  return out;
}

Json::Value Bootstrap::ToBootstrapJson() const {
  schema::Bootstrap raw;
  for (const auto& server : servers_) {
    raw.xds_servers.push_back(server->ToSchema());
  }
  raw.node = node_;
  for (const auto& [name, authority] : authorities_) {
    schema::Authority entry;
    entry.client_listener_resource_name_template =
        authority.client_listener_resource_name_template;
    if (authority.has_own_servers) {
      std::vector<schema::XdsServer>& servers = entry.xds_servers.emplace();
      for (const auto& server : authority.xds_servers) {
        servers.push_back(server->ToSchema());
      }
    }
    raw.authorities.emplace(name, std::move(entry));
  }
  if (has_client_default_template_) {
    raw.client_default_listener_resource_name_template =
        client_default_template_;
  }
  raw.server_listener_resource_name_template = server_template_;
  raw.certificate_providers = certificate_providers_;
  return raw.ToJson();
}

bool Bootstrap::operator==(const Bootstrap& other) const {
  if (federation_ != other.federation_ ||
      !SameServers(servers_, other.servers_) || node_ != other.node_ ||
      client_default_template_ != other.client_default_template_ ||
      server_template_ != other.server_template_ ||
      certificate_providers_ != other.certificate_providers_ ||
      authorities_.size() != other.authorities_.size()) {
    return false;
  }
  for (const auto& [name, authority] : authorities_) {
    const Authority* theirs = other.LookupAuthority(name);
    if (theirs == nullptr ||
        authority.client_listener_resource_name_template !=
            theirs->client_listener_resource_name_template ||
        authority.has_own_servers != theirs->has_own_servers ||
        !SameServers(authority.xds_servers, theirs->xds_servers)) {
      return false;
    }
  }
  return true;
}

}  // namespace xdsfed
