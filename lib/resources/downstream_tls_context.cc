#include "lib/resources/downstream_tls_context.h"

#include <set>
#include <string>

#include "absl/strings/str_cat.h"
#include "envoy/extensions/transport_sockets/tls/v3/tls.pb.h"
#include "lib/base/validation_errors.h"

namespace xdsfed {
namespace resources {
namespace {

namespace tls_pb = envoy::extensions::transport_sockets::tls::v3;
using Field = ValidationErrors::ScopedField;

void Unsupported(ValidationErrors* errors, absl::string_view field) {
  Field f(errors, field);
  errors->AddError("field unsupported");
}

using KnownInstances = std::set<std::string, std::less<>>;

template <typename P>
DownstreamTlsContext::ProviderInstance Instance(const P& proto,
                                                ValidationErrors* errors,
                                                const KnownInstances* known) {
  DownstreamTlsContext::ProviderInstance out;
  out.instance_name = proto.instance_name();
  out.certificate_name = proto.certificate_name();
  if (out.instance_name.empty()) {
    Field f(errors, ".instance_name");
    errors->AddError("field not present");
  } else if (known != nullptr && known->count(out.instance_name) == 0) {
    Field f(errors, ".instance_name");
    errors->AddError(absl::StrCat(
        "unrecognized certificate provider instance name \"", out.instance_name,
        "\": not in the bootstrap's certificate_providers"));
  }
  return out;
}

// A29 on a server: only a CA provider instance; everything else that would
// change how clients are verified is rejected.
std::optional<DownstreamTlsContext::ProviderInstance> ParseValidationContext(
    const tls_pb::CertificateValidationContext& v, ValidationErrors* errors,
    const KnownInstances* known) {
  if (v.has_trusted_ca()) Unsupported(errors, ".trusted_ca");
  if (v.verify_certificate_hash_size() > 0) {
    Unsupported(errors, ".verify_certificate_hash");
  }
  if (v.verify_certificate_spki_size() > 0) {
    Unsupported(errors, ".verify_certificate_spki");
  }
  if (v.has_require_signed_certificate_timestamp()) {
    Unsupported(errors, ".require_signed_certificate_timestamp");
  }
  if (v.has_crl()) Unsupported(errors, ".crl");
  if (v.allow_expired_certificate()) {
    Unsupported(errors, ".allow_expired_certificate");
  }
  if (v.has_custom_validator_config()) {
    Unsupported(errors, ".custom_validator_config");
  }
  if (v.has_system_root_certs()) Unsupported(errors, ".system_root_certs");
  if (v.match_subject_alt_names_size() > 0) {
    Field f(errors, ".match_subject_alt_names");
    errors->AddError("not supported on servers");
  }
  if (v.match_typed_subject_alt_names_size() > 0) {
    Field f(errors, ".match_typed_subject_alt_names");
    errors->AddError("not supported on servers");
  }
  if (!v.has_ca_certificate_provider_instance()) return std::nullopt;
  Field f(errors, ".ca_certificate_provider_instance");
  return Instance(v.ca_certificate_provider_instance(), errors, known);
}

}  // namespace

Json::Value DownstreamTlsContext::ProviderInstance::ToJson() const {
  Json::Value out(Json::objectValue);
  out["instance_name"] = instance_name;
  out["certificate_name"] = certificate_name;
  return out;
}

Json::Value DownstreamTlsContext::ToJson() const {
  Json::Value out(Json::objectValue);
  out["identity"] = identity.ToJson();
  out["root"] = root.has_value() ? root->ToJson() : Json::Value();
  out["require_client_certificate"] = require_client_certificate;
  return out;
}

std::optional<DownstreamTlsContext> ParseDownstreamTlsContext(
    absl::string_view serialized, ValidationErrors* errors,
    const KnownInstances* known) {
  const size_t before = errors->size();
  tls_pb::DownstreamTlsContext proto;
  if (!proto.ParseFromArray(serialized.data(),
                            static_cast<int>(serialized.size()))) {
    errors->AddError("cannot decode DownstreamTlsContext");
    return std::nullopt;
  }
  DownstreamTlsContext out;
  out.require_client_certificate = proto.require_client_certificate().value();
  if (proto.require_sni().value()) Unsupported(errors, ".require_sni");
  if (proto.ocsp_staple_policy() !=
      tls_pb::DownstreamTlsContext::LENIENT_STAPLING) {
    Field f(errors, ".ocsp_staple_policy");
    errors->AddError("value must be LENIENT_STAPLING");
  }
  {
    Field common_field(errors, ".common_tls_context");
    const tls_pb::CommonTlsContext& c = proto.common_tls_context();
    if (c.has_tls_params()) Unsupported(errors, ".tls_params");
    if (c.tls_certificates_size() > 0) {
      Unsupported(errors, ".tls_certificates");
    }
    if (c.tls_certificate_sds_secret_configs_size() > 0) {
      Unsupported(errors, ".tls_certificate_sds_secret_configs");
    }
    if (c.has_custom_handshaker()) Unsupported(errors, ".custom_handshaker");
    bool has_identity = false;
    if (c.has_tls_certificate_provider_instance()) {
      Field f(errors, ".tls_certificate_provider_instance");
      out.identity =
          Instance(c.tls_certificate_provider_instance(), errors, known);
      has_identity = true;
    } else if (c.has_tls_certificate_certificate_provider_instance()) {
      Field f(errors, ".tls_certificate_certificate_provider_instance");
      out.identity = Instance(c.tls_certificate_certificate_provider_instance(),
                              errors, known);
      has_identity = true;
    }
    switch (c.validation_context_type_case()) {
      case tls_pb::CommonTlsContext::kValidationContext: {
        Field f(errors, ".validation_context");
        out.root =
            ParseValidationContext(c.validation_context(), errors, known);
        break;
      }
      case tls_pb::CommonTlsContext::kCombinedValidationContext: {
        Field f(errors, ".combined_validation_context");
        const auto& combined = c.combined_validation_context();
        if (combined.has_validation_context_sds_secret_config()) {
          Unsupported(errors, ".validation_context_sds_secret_config");
        }
        {
          Field d(errors, ".default_validation_context");
          out.root = ParseValidationContext(
              combined.default_validation_context(), errors, known);
        }
        if (!out.root.has_value() &&
            combined.has_validation_context_certificate_provider_instance()) {
          Field p(errors, ".validation_context_certificate_provider_instance");
          out.root = Instance(
              combined.validation_context_certificate_provider_instance(),
              errors, known);
        }
        break;
      }
      case tls_pb::CommonTlsContext::kValidationContextSdsSecretConfig:
        Unsupported(errors, ".validation_context_sds_secret_config");
        break;
      case tls_pb::CommonTlsContext::
          kValidationContextCertificateProviderInstance: {
        Field f(errors, ".validation_context_certificate_provider_instance");
        out.root =
            Instance(c.validation_context_certificate_provider_instance(),
                     errors, known);
        break;
      }
      case tls_pb::CommonTlsContext::VALIDATION_CONTEXT_TYPE_NOT_SET:
        break;
    }
    if (!has_identity) {
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
