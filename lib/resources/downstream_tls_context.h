// A server filter chain's DownstreamTlsContext (gRFC A29 as A36 applies it):
// the certificate provider instances (from the bootstrap's
// certificate_providers) that give the server its identity and, optionally,
// the roots to verify clients with. Every setting gRPC does not implement is
// rejected with its field path (the Listener is NACKed), never ignored.
#ifndef XDSFED_LIB_RESOURCES_DOWNSTREAM_TLS_CONTEXT_H_
#define XDSFED_LIB_RESOURCES_DOWNSTREAM_TLS_CONTEXT_H_

#include <functional>
#include <optional>
#include <set>
#include <string>

#include "absl/strings/string_view.h"
#include "json/json.h"
#include "lib/resources/certificate_provider_instance.h"

namespace xdsfed {

class ValidationErrors;

namespace resources {

struct DownstreamTlsContext {
  using ProviderInstance = CertificateProviderInstance;
  ProviderInstance identity;
  std::optional<ProviderInstance> root;  // verify client certificates
  bool require_client_certificate = false;

  bool operator==(const DownstreamTlsContext& o) const {
    return identity == o.identity && root == o.root &&
           require_client_certificate == o.require_client_certificate;
  }
  Json::Value ToJson() const;
};

// `serialized` is the transport socket's Any value; errors go under the
// current path. nullopt if anything was wrong. `known_instances` (null: not
// checked): the bootstrap's certificate provider instance names; any other
// name is an error (DecodeContext::certificate_provider_instances).
std::optional<DownstreamTlsContext> ParseDownstreamTlsContext(
    absl::string_view serialized, ValidationErrors* errors,
    const std::set<std::string, std::less<>>* known_instances = nullptr);

}  // namespace resources
}  // namespace xdsfed

#endif  // XDSFED_LIB_RESOURCES_DOWNSTREAM_TLS_CONTEXT_H_
