#include "lib/resources/downstream_tls_context.h"

#include <set>
#include <string>

#include "absl/strings/str_cat.h"
#include "envoy/extensions/transport_sockets/tls/v3/tls.pb.h"
#include "lib/base/validation_errors.h"
#include "lib/resources/internal/common_tls_context.h"

namespace xdsfed {
namespace resources {
namespace {

namespace tls_pb = envoy::extensions::transport_sockets::tls::v3;
using Field = ValidationErrors::ScopedField;
using internal::AddUnsupported;

}  // namespace

Json::Value DownstreamTlsContext::ToJson() const {
  Json::Value out(Json::objectValue);
  out["identity"] = identity.ToJson();
  out["root"] = root.has_value() ? root->ToJson() : Json::Value();
  out["require_client_certificate"] = require_client_certificate;
  return out;
}

std::optional<DownstreamTlsContext> ParseDownstreamTlsContext(
    absl::string_view serialized, ValidationErrors* errors,
    const internal::KnownInstances* known) {
  const size_t before = errors->size();
  tls_pb::DownstreamTlsContext proto;
  if (!proto.ParseFromArray(serialized.data(),
                            static_cast<int>(serialized.size()))) {
    errors->AddError("cannot decode DownstreamTlsContext");
    return std::nullopt;
  }
  DownstreamTlsContext out;
  out.require_client_certificate = proto.require_client_certificate().value();
  if (proto.require_sni().value()) AddUnsupported(errors, ".require_sni");
  if (proto.ocsp_staple_policy() !=
      tls_pb::DownstreamTlsContext::LENIENT_STAPLING) {
    Field f(errors, ".ocsp_staple_policy");
    errors->AddError("value must be LENIENT_STAPLING");
  }
  {
    Field common_field(errors, ".common_tls_context");
    internal::CommonTlsParts parts = internal::ParseCommonTlsContext(
        proto.common_tls_context(), internal::TlsSide::kServer, errors, known);
    out.root = std::move(parts.root);
    if (parts.identity.has_value()) {
      out.identity = *std::move(parts.identity);
    } else {
      Field f(errors, ".tls_certificate_provider_instance");
      errors->AddError(
          "field not present: a server's TLS needs an identity certificate "
          "provider instance");
    }
  }
  if (out.require_client_certificate && !out.root.has_value()) {
    Field f(errors, ".require_client_certificate");
    errors->AddError(
        "client certificates are required but no CA certificate provider "
        "instance is given to verify them");
  }
  if (errors->size() != before) return std::nullopt;
  return out;
}

}  // namespace resources
}  // namespace xdsfed
