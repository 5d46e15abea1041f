// A Cluster's UpstreamTlsContext (gRFC A29 §CDS for Client Side Security):
// the certificate provider instances (from the bootstrap's
// certificate_providers) that give the client its roots and, optionally, its
// identity, and the matchers the server certificate's SANs are checked
// against. Every setting gRPC does not implement is rejected with its field
// path (the Cluster is NACKed), never ignored: a client that asked for TLS
// never falls back to plaintext.
//
//   ValidationErrors errors;
//   std::optional<UpstreamTlsContext> tls =
//       ParseUpstreamTlsContext(any.value(), &errors, &known_instances);
#ifndef XDSFED_LIB_RESOURCES_UPSTREAM_TLS_CONTEXT_H_
#define XDSFED_LIB_RESOURCES_UPSTREAM_TLS_CONTEXT_H_

#include <functional>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "absl/strings/string_view.h"
#include "json/json.h"
#include "lib/resources/certificate_provider_instance.h"
#include "lib/resources/route_config.h"

namespace xdsfed {

class ValidationErrors;

namespace resources {

struct UpstreamTlsContext {
  // The server's certificate is verified against these roots (required).
  CertificateProviderInstance root;
  // Sent when the server asks for a client certificate (mTLS); none: the
  // client has no certificate to send.
  std::optional<CertificateProviderInstance> identity;
  // A29 §Server Authorization: after the CA check, one SAN of the server's
  // certificate must match one of these; empty: any SAN is fine. kSafeRegex
  // entries hold their compiled regex.
  std::vector<StringMatch> match_subject_alt_names;

  bool operator==(const UpstreamTlsContext& o) const {
    return root == o.root && identity == o.identity &&
           match_subject_alt_names == o.match_subject_alt_names;
  }
  bool operator!=(const UpstreamTlsContext& o) const { return !(*this == o); }
  // {"root":{...},"identity":{...}|null,"match_subject_alt_names":[...]}
  Json::Value ToJson() const;
  // One line naming everything above; equal values, equal keys. Used as
  // part of an endpoint connection's identity (lib/channel).
  std::string Key() const;
};

// `serialized` is the transport socket's Any value; errors go under the
// current path. nullopt if anything was wrong. `known_instances` (null: not
// checked): the bootstrap's certificate provider instance names; any other
// name is an error (DecodeContext::certificate_provider_instances).
std::optional<UpstreamTlsContext> ParseUpstreamTlsContext(
    absl::string_view serialized, ValidationErrors* errors,
    const std::set<std::string, std::less<>>* known_instances = nullptr);

}  // namespace resources
}  // namespace xdsfed

#endif  // XDSFED_LIB_RESOURCES_UPSTREAM_TLS_CONTEXT_H_
