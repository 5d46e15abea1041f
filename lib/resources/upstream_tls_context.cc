// Rules: gRFC A29 §CDS for Client Side Security and §CommonTlsContext
// Processing (shared with the server side in internal/common_tls_context.h);
// field paths and wording as gRPC C-core's UpstreamTlsContextParse
// (xds_cluster.cc). sni, allow_renegotiation and max_session_keys are
// ignored, as A29 §CDS lists them: ignoring them never weakens the check
// (no SNI is sent, renegotiation stays off, sessions keep gRPC's cache), and
// Istio sets sni on every mTLS cluster. The newer fields (auto_host_sni,
// auto_sni_san_validation of A101, enforce_rsa_key_usage) change what is
// verified, so they are rejected: we do not implement them.
#include "lib/resources/upstream_tls_context.h"

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

Json::Value UpstreamTlsContext::ToJson() const {
  Json::Value out(Json::objectValue);
  out["root"] = root.ToJson();
  out["identity"] = identity.has_value() ? identity->ToJson() : Json::Value();
  Json::Value sans(Json::arrayValue);
  for (const StringMatch& m : match_subject_alt_names) sans.append(m.ToJson());
  out["match_subject_alt_names"] = std::move(sans);
  return out;
}

std::string UpstreamTlsContext::Key() const {
  // Lengths first, so that no choice of names can make two values collide.
  std::string out;
  auto add = [&out](absl::string_view s) {
    absl::StrAppend(&out, s.size(), ":", s, ";");
  };
  add(root.instance_name);
  add(root.certificate_name);
  add(identity.has_value() ? "1" : "0");
  if (identity.has_value()) {
    add(identity->instance_name);
    add(identity->certificate_name);
  }
  for (const StringMatch& m : match_subject_alt_names) {
    add(StringMatchTypeName(m.type));
    add(m.case_sensitive ? "cs" : "ci");
    add(m.value);
  }
  return out;
}

std::optional<UpstreamTlsContext> ParseUpstreamTlsContext(
    absl::string_view serialized, ValidationErrors* errors,
    const internal::KnownInstances* known) {
  const size_t before = errors->size();
  tls_pb::UpstreamTlsContext proto;
  if (serialized.size() > (size_t{1} << 30) ||
      !proto.ParseFromArray(serialized.data(),
                            static_cast<int>(serialized.size()))) {
    errors->AddError("can't decode UpstreamTlsContext");
    return std::nullopt;
  }
  if (proto.has_enforce_rsa_key_usage()) {
    AddUnsupported(errors, ".enforce_rsa_key_usage");
  }
  if (proto.auto_host_sni()) AddUnsupported(errors, ".auto_host_sni");
  if (proto.auto_sni_san_validation()) {
    AddUnsupported(errors, ".auto_sni_san_validation");
  }
  UpstreamTlsContext out;
  {
    Field common_field(errors, ".common_tls_context");
    internal::CommonTlsParts parts = internal::ParseCommonTlsContext(
        proto.common_tls_context(), internal::TlsSide::kClient, errors, known);
    out.identity = std::move(parts.identity);
    out.match_subject_alt_names = std::move(parts.match_subject_alt_names);
    if (parts.root.has_value()) {
      out.root = *std::move(parts.root);
    } else {
      // A29: "If this field is not present, ... gRPC will NACK"; C-core's
      // wording, at .common_tls_context.
      errors->AddError("no CA certificate provider instance configured");
    }
  }
  if (errors->size() != before) return std::nullopt;
  return out;
}

}  // namespace resources
}  // namespace xdsfed
