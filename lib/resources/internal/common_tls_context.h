// The CommonTlsContext rules both sides of A29 share (internal): which
// provider instances give the identity and the roots, the
// CertificateValidationContext checks, and every setting gRPC does not
// implement rejected with its field path ("field unsupported"), never
// ignored. The client keeps match_subject_alt_names; a server rejects them.
//
//   CommonTlsParts parts = ParseCommonTlsContext(proto.common_tls_context(),
//                                                TlsSide::kClient, errors,
//                                                known_instances);
#ifndef XDSFED_LIB_RESOURCES_INTERNAL_COMMON_TLS_CONTEXT_H_
#define XDSFED_LIB_RESOURCES_INTERNAL_COMMON_TLS_CONTEXT_H_

#include <functional>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "lib/resources/certificate_provider_instance.h"
#include "lib/resources/route_config.h"

namespace envoy::extensions::transport_sockets::tls::v3 {
class CommonTlsContext;
}  // namespace envoy::extensions::transport_sockets::tls::v3

namespace xdsfed {

class ValidationErrors;

namespace resources::internal {

using KnownInstances = std::set<std::string, std::less<>>;

enum class TlsSide { kServer, kClient };

struct CommonTlsParts {
  // tls_certificate_provider_instance (or its deprecated form).
  std::optional<CertificateProviderInstance> identity;
  // The validation context's ca_certificate_provider_instance (or the
  // combined context's deprecated fallback).
  std::optional<CertificateProviderInstance> root;
  // kClient only: the validation context's match_subject_alt_names, regexes
  // compiled.
  std::vector<StringMatch> match_subject_alt_names;
};

// Errors go under the current path (the caller's ".common_tls_context").
// `known` (null: not checked): the bootstrap's provider instance names.
CommonTlsParts ParseCommonTlsContext(
    const envoy::extensions::transport_sockets::tls::v3::CommonTlsContext& c,
    TlsSide side, ValidationErrors* errors, const KnownInstances* known);

// Adds "field unsupported" at the current path + `field`.
void AddUnsupported(ValidationErrors* errors, absl::string_view field);

}  // namespace resources::internal
}  // namespace xdsfed

#endif  // XDSFED_LIB_RESOURCES_INTERNAL_COMMON_TLS_CONTEXT_H_
