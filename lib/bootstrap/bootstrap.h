// Bootstrap: the validated gRPC xDS bootstrap config (gRFC A27 format with the
// A47 federation fields and A36's server template), ready for the resolver,
// the XdsClient and xDS-enabled servers.
//
// Parsing is two steps: the generated schema loader (schema/bootstrap.proto)
// checks JSON types, required fields and defaults; this module adds the rules
// the schema cannot state (servers non-empty, supported creds, authority
// templates, server de-duplication). Every problem of both steps is reported
// in one status with its field path:
//
// clang-format off
//   absl::StatusOr<std::shared_ptr<const Bootstrap>> bootstrap =
//       Bootstrap::FromEnv(FederationEnabledFromEnv());
//   if (!bootstrap.ok()) return bootstrap.status();
//   // errors validating bootstrap: [field:authorities["a.com"]
//   //   .client_listener_resource_name_template error:field must begin
//   //   with "xdstp://a.com/"]
//   const Bootstrap::Authority* a = (*bootstrap)->LookupAuthority("a.com");
// clang-format on
//
// Federation gate (A47 §Temporary environment variable protection): when off,
// `authorities` and `client_default_listener_resource_name_template` are
// ignored as if absent, errors in them included.
#ifndef XDSFED_LIB_BOOTSTRAP_BOOTSTRAP_H_
#define XDSFED_LIB_BOOTSTRAP_BOOTSTRAP_H_

#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "json/json.h"
#include "lib/bootstrap/xds_server_config.h"
#include "lib/json/json_reader.h"
#include "schema/bootstrap.xds.h"

namespace xdsfed {

class Bootstrap {
 public:
  using ServerList = std::vector<std::shared_ptr<const XdsServerConfig>>;

  struct Authority {
    std::string name;
    // After defaulting to
    // "xdstp://<name>/envoy.config.listener.v3.Listener/%s".
    std::string client_listener_resource_name_template;
    // The authority's own servers, or the top-level list when it has none.
    ServerList xds_servers;
    bool has_own_servers = false;
  };

  static constexpr absl::string_view kErrorPrefix =
      "errors validating bootstrap";
  static constexpr absl::string_view kListenerType =
      "envoy.config.listener.v3.Listener";

  // From JSON text (strict reader: malformed JSON is reported as such).
  static absl::StatusOr<std::shared_ptr<const Bootstrap>> Parse(
      absl::string_view json_text, bool federation);
  static absl::StatusOr<std::shared_ptr<const Bootstrap>> FromJson(
      const Json::Value& json, bool federation);
  // The file named by GRPC_XDS_BOOTSTRAP, else the text of
  // GRPC_XDS_BOOTSTRAP_CONFIG, as gRPC looks them up.
  static absl::StatusOr<std::shared_ptr<const Bootstrap>> FromEnv(
      bool federation);

  bool federation() const { return federation_; }
  // The top-level xds_servers (non-empty).
  const ServerList& servers() const { return servers_; }
  const std::optional<schema::Bootstrap::Node>& node() const { return node_; }
  const std::map<std::string, Authority>& authorities() const {
    return authorities_;
  }
  const Authority* LookupAuthority(absl::string_view name) const;
  // With the federation gate off: the names under "authorities", which the
  // gate made this bootstrap ignore, so that an error can say why such an
  // authority is unknown. Empty with the gate on.
  const std::vector<std::string>& authorities_ignored() const {
    return authorities_ignored_;
  }
  // The template for xds: targets without an authority; "%s" when unset.
  const std::string& client_default_listener_resource_name_template() const {
    return client_default_template_;
  }
  const std::optional<std::string>& server_listener_resource_name_template()
      const {
    return server_template_;
  }
  const std::map<std::string, schema::Bootstrap::CertificateProviderInstance>&
  certificate_providers() const {
    return certificate_providers_;
  }

  // The server a resource of this name is fetched from (A47 §XdsClient
  // Changes): an xdstp: name's authority's first server (its own, or the
  // top-level list's), else the first top-level server. nullptr when the
  // name does not parse or names an authority not in the bootstrap. It is
  // also what a Cluster's `lrs_server: self` means (A47 §LRS Server
  // Representation).
  std::shared_ptr<const XdsServerConfig> ServerForResourceName(
      absl::string_view name) const;

  // True if `server` equals one of the bootstrap's servers (uri, creds,
  // features): the A47 rule for accepting an LRS server.
  bool HasServer(const XdsServerConfig& server) const;

  // Legal but suspicious settings, each naming its field (e.g. a template
  // without %s maps every target to one Listener).
  const std::vector<std::string>& warnings() const { return warnings_; }

  // The resolved configuration as `xdsfed bootstrap` prints it.
  Json::Value ToJson() const;
  // ToJson() without "authorities", and one authority's entry of it: for
  // writers that stream a bootstrap with many authorities, whose whole
  // Json::Value tree would be many times the size of its text.
  Json::Value ToJsonWithoutAuthorities() const;
  static Json::Value AuthorityToJson(const Authority& authority);
  // Bootstrap input JSON that parses back to an equal Bootstrap.
  Json::Value ToBootstrapJson() const;

  bool operator==(const Bootstrap& other) const;
  bool operator!=(const Bootstrap& other) const { return !(*this == other); }

 private:
  // FromJson, with "authorities" given as the raw JSON text of each entry
  // (and absent from `input`) when `authority_texts` is set: each is loaded
  // and validated in turn, so no tree of all of them is ever built.
  static absl::StatusOr<std::shared_ptr<const Bootstrap>> FromJsonParts(
      const Json::Value& input, bool federation,
      const std::vector<JsonMemberSpan>* authority_texts);

  Bootstrap() = default;

  bool federation_ = false;
  ServerList servers_;
  std::optional<schema::Bootstrap::Node> node_;
  std::map<std::string, Authority> authorities_;
  std::vector<std::string> authorities_ignored_;
  bool has_client_default_template_ = false;
  std::string client_default_template_ = "%s";
  std::optional<std::string> server_template_;
  std::map<std::string, schema::Bootstrap::CertificateProviderInstance>
      certificate_providers_;
  std::vector<std::string> warnings_;
};

}  // namespace xdsfed

#endif  // XDSFED_LIB_BOOTSTRAP_BOOTSTRAP_H_
