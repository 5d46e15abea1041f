// Rules: gRFC A29 §CommonTlsContext Processing and §Server Authorization;
// where A29 says "ignored" for a field that would change how a peer is
// verified (trusted_ca, allow_expired_certificate, system_root_certs), we
// reject it instead: a setting we do not implement fails closed. Field
// paths and the deprecated-field fallbacks follow gRPC C-core's
// CommonTlsContext::Parse (xds_common_types.cc).
#include "lib/resources/internal/common_tls_context.h"

#include "absl/strings/str_cat.h"
#include "envoy/extensions/transport_sockets/tls/v3/tls.pb.h"
#include "lib/base/validation_errors.h"
#include "lib/resources/internal/route_config_util.h"

namespace xdsfed::resources {

Json::Value CertificateProviderInstance::ToJson() const {
  Json::Value out(Json::objectValue);
  out["instance_name"] = instance_name;
  out["certificate_name"] = certificate_name;
  return out;
}

namespace internal {
namespace {

namespace tls_pb = envoy::extensions::transport_sockets::tls::v3;
using Field = ValidationErrors::ScopedField;

template <typename P>
CertificateProviderInstance Instance(const P& proto, ValidationErrors* errors,
                                     const KnownInstances* known) {
  CertificateProviderInstance out;
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

// A29: the CA provider instance gives the roots; on a client,
// match_subject_alt_names check the server's SANs. Everything else that
// would change how the peer is verified is rejected.
std::optional<CertificateProviderInstance> ParseValidationContext(
    const tls_pb::CertificateValidationContext& v, TlsSide side,
    ValidationErrors* errors, const KnownInstances* known,
    std::vector<StringMatch>* sans) {
  if (v.has_trusted_ca()) AddUnsupported(errors, ".trusted_ca");
  if (v.verify_certificate_hash_size() > 0) {
    AddUnsupported(errors, ".verify_certificate_hash");
  }
  if (v.verify_certificate_spki_size() > 0) {
    AddUnsupported(errors, ".verify_certificate_spki");
  }
  if (v.has_require_signed_certificate_timestamp()) {
    AddUnsupported(errors, ".require_signed_certificate_timestamp");
  }
  if (v.has_crl()) AddUnsupported(errors, ".crl");
  if (v.allow_expired_certificate()) {
    AddUnsupported(errors, ".allow_expired_certificate");
  }
  if (v.has_custom_validator_config()) {
    AddUnsupported(errors, ".custom_validator_config");
  }
  if (v.has_system_root_certs()) AddUnsupported(errors, ".system_root_certs");
  if (side == TlsSide::kServer) {
    if (v.match_subject_alt_names_size() > 0) {
      Field f(errors, ".match_subject_alt_names");
      errors->AddError("not supported on servers");
    }
    if (v.match_typed_subject_alt_names_size() > 0) {
      Field f(errors, ".match_typed_subject_alt_names");
      errors->AddError("not supported on servers");
    }
  } else {
    // A29 §Server Authorization; C-core CertificateValidationContextParse.
    for (int i = 0; i < v.match_subject_alt_names_size(); ++i) {
      Field f(errors, absl::StrCat(".match_subject_alt_names[", i, "]"));
      const auto& proto = v.match_subject_alt_names(i);
      StringMatch m = ParseStringMatcherProto(proto, errors);
      if (m.type == StringMatch::Type::kSafeRegex && proto.ignore_case()) {
        Field g(errors, ".ignore_case");
        errors->AddError("not supported for regex matcher");
      }
      sans->push_back(std::move(m));
    }
    // The typed form (SAN type + matcher) is not implemented.
    if (v.match_typed_subject_alt_names_size() > 0) {
      AddUnsupported(errors, ".match_typed_subject_alt_names");
    }
  }
  if (!v.has_ca_certificate_provider_instance()) return std::nullopt;
  Field f(errors, ".ca_certificate_provider_instance");
  return Instance(v.ca_certificate_provider_instance(), errors, known);
}

}  // namespace

void AddUnsupported(ValidationErrors* errors, absl::string_view field) {
  Field f(errors, field);
  errors->AddError("field unsupported");
}

CommonTlsParts ParseCommonTlsContext(const tls_pb::CommonTlsContext& c,
                                     TlsSide side, ValidationErrors* errors,
                                     const KnownInstances* known) {
  CommonTlsParts out;
  if (c.has_tls_params()) AddUnsupported(errors, ".tls_params");
  if (c.tls_certificates_size() > 0) {
    AddUnsupported(errors, ".tls_certificates");
  }
  if (c.tls_certificate_sds_secret_configs_size() > 0) {
    AddUnsupported(errors, ".tls_certificate_sds_secret_configs");
  }
  if (c.has_custom_handshaker()) AddUnsupported(errors, ".custom_handshaker");
  if (c.has_tls_certificate_provider_instance()) {
    Field f(errors, ".tls_certificate_provider_instance");
    out.identity =
        Instance(c.tls_certificate_provider_instance(), errors, known);
  } else if (c.has_tls_certificate_certificate_provider_instance()) {
    Field f(errors, ".tls_certificate_certificate_provider_instance");
    out.identity = Instance(c.tls_certificate_certificate_provider_instance(),
                            errors, known);
  }
  switch (c.validation_context_type_case()) {
    case tls_pb::CommonTlsContext::kValidationContext: {
      Field f(errors, ".validation_context");
      out.root = ParseValidationContext(c.validation_context(), side, errors,
                                        known, &out.match_subject_alt_names);
      break;
    }
    case tls_pb::CommonTlsContext::kCombinedValidationContext: {
      Field f(errors, ".combined_validation_context");
      const auto& combined = c.combined_validation_context();
      if (combined.has_validation_context_sds_secret_config()) {
        AddUnsupported(errors, ".validation_context_sds_secret_config");
      }
      {
        Field d(errors, ".default_validation_context");
        out.root =
            ParseValidationContext(combined.default_validation_context(), side,
                                   errors, known, &out.match_subject_alt_names);
      }
      // C-core: the deprecated field is only a fallback for the default
      // context's CA.
      if (!out.root.has_value() &&
          combined.has_validation_context_certificate_provider_instance()) {
        Field p(errors, ".validation_context_certificate_provider_instance");
        out.root = Instance(
            combined.validation_context_certificate_provider_instance(), errors,
            known);
      }
      break;
    }
    case tls_pb::CommonTlsContext::kValidationContextSdsSecretConfig:
      AddUnsupported(errors, ".validation_context_sds_secret_config");
      break;
    case tls_pb::CommonTlsContext::
        kValidationContextCertificateProviderInstance: {
      Field f(errors, ".validation_context_certificate_provider_instance");
      out.root = Instance(c.validation_context_certificate_provider_instance(),
                          errors, known);
      break;
    }
    case tls_pb::CommonTlsContext::VALIDATION_CONTEXT_TYPE_NOT_SET:
      break;
  }
  return out;
}

}  // namespace internal
}  // namespace xdsfed::resources
