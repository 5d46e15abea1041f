// A certificate provider instance as an xDS TLS context names it (gRFC A29
// §CommonTlsContext Processing): a key of the bootstrap's
// certificate_providers, and an opaque certificate name passed to it. Shared
// by the server's DownstreamTlsContext and the client's UpstreamTlsContext.
#ifndef XDSFED_LIB_RESOURCES_CERTIFICATE_PROVIDER_INSTANCE_H_
#define XDSFED_LIB_RESOURCES_CERTIFICATE_PROVIDER_INSTANCE_H_

#include <string>

#include "json/json.h"

namespace xdsfed::resources {

struct CertificateProviderInstance {
  std::string instance_name;     // a key of the bootstrap's providers
  std::string certificate_name;  // passed to the provider ("" = default)
  bool operator==(const CertificateProviderInstance& o) const {
    return instance_name == o.instance_name &&
           certificate_name == o.certificate_name;
  }
  bool operator!=(const CertificateProviderInstance& o) const {
    return !(*this == o);
  }
  // {"instance_name":..., "certificate_name":...}
  Json::Value ToJson() const;
};

}  // namespace xdsfed::resources

#endif  // XDSFED_LIB_RESOURCES_CERTIFICATE_PROVIDER_INSTANCE_H_
