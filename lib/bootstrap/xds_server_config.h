// XdsServerConfig: one validated xDS server of the bootstrap (gRFC A47
// §LRS Server Representation): its URI, the channel credentials selected from
// `channel_creds` (the first supported type), and the known server features.
//
// It is also the identity of a server: two configs are == (and hash alike)
// exactly when uri, selected creds type and config, and known features match.
// The XdsClient keys its channel map on it, so authorities naming the same
// server share one ADS stream, and the load-reporting API accepts only an LRS
// server that equals a bootstrap server.
//
//   ValidationErrors errors;
//   std::optional<XdsServerConfig> server =
//       XdsServerConfig::FromSchema(raw_server, &errors);
//   server->server_uri();          // "xds.example.com:443"
//   server->channel_creds_type();  // "google_default"
//   server->tls_config();          // the typed "tls" config, else null
#ifndef XDSFED_LIB_BOOTSTRAP_XDS_SERVER_CONFIG_H_
#define XDSFED_LIB_BOOTSTRAP_XDS_SERVER_CONFIG_H_

#include <optional>
#include <set>
#include <string>
#include <utility>

#include "absl/status/status.h"
#include "absl/strings/string_view.h"
#include "json/json.h"
#include "lib/base/validation_errors.h"
#include "schema/channel_creds.xds.h"
#include "schema/xds_server.xds.h"

namespace xdsfed {

class XdsServerConfig {
 public:
  // Server features this library acts on; others are dropped when parsing.
  static constexpr absl::string_view kIgnoreResourceDeletion =
      "ignore_resource_deletion";

  // Validates a parsed XdsServer, recording problems in *errors under the
  // current field path. Returns nullopt if any were found.
  static std::optional<XdsServerConfig> FromSchema(const schema::XdsServer& raw,
                                                   ValidationErrors* errors);

  // FromSchema is the validating way in. A config built here directly whose
  // creds config does not load reports why in channel_creds_status().
  XdsServerConfig(std::string server_uri, std::string channel_creds_type,
                  Json::Value channel_creds_config,
                  std::set<std::string> server_features);

  const std::string& server_uri() const { return server_uri_; }
  const std::string& channel_creds_type() const { return channel_creds_type_; }
  // Always a JSON object ({} when the bootstrap gave no config).
  const Json::Value& channel_creds_config() const {
    return channel_creds_config_;
  }
  // The "tls" creds config, typed (schema/channel_creds.proto); null for the
  // other types, and for a "tls" config that did not load.
  const schema::TlsChannelCredsConfig* tls_config() const {
    return tls_config_.has_value() ? &*tls_config_ : nullptr;
  }
  // OK, or the errors of a creds config that does not load (kInvalidArgument
  // with field paths). Always OK for configs made by FromSchema.
  const absl::Status& channel_creds_status() const {
    return channel_creds_status_;
  }
  const std::set<std::string>& server_features() const {
    return server_features_;
  }
  bool IgnoreResourceDeletion() const {
    return server_features_.count(std::string(kIgnoreResourceDeletion)) > 0;
  }

  // The resolved form printed by `xdsfed bootstrap`: server_uri,
  // channel_creds_type, channel_creds_config, server_features.
  Json::Value ToJson() const;
  // The bootstrap input form (server_uri, channel_creds, server_features),
  // which parses back to an equal config.
  schema::XdsServer ToSchema() const;

  bool operator==(const XdsServerConfig& other) const {
    return identity_ == other.identity_;
  }
  bool operator!=(const XdsServerConfig& other) const {
    return !(*this == other);
  }
  template <typename H>
  friend H AbslHashValue(H h, const XdsServerConfig& server) {
    return H::combine(std::move(h), server.identity_);
  }

 private:
  std::string server_uri_;
  std::string channel_creds_type_;
  Json::Value channel_creds_config_;
  std::optional<schema::TlsChannelCredsConfig> tls_config_;
  absl::Status channel_creds_status_;
  std::set<std::string> server_features_;
  // uri, creds type, canonical creds config (for "tls" the typed value's, so
  // spellings of one config are one server) and features, NUL-separated:
  // computed once so that == and hashing are plain string operations.
  std::string identity_;
};

}  // namespace xdsfed

#endif  // XDSFED_LIB_BOOTSTRAP_XDS_SERVER_CONFIG_H_
