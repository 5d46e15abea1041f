// UpstreamTlsContext validation (gRFC A29 §CDS for Client Side Security,
// §Server Authorization, §CommonTlsContext Processing; issue 24 item 1:
// settings gRPC does not implement are NACKed with their field path, never
// ignored). Cases built as proto3 JSON; each row names where its rule comes
// from and checks the full error message.
#include "lib/resources/upstream_tls_context.h"

#include <set>
#include <string>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "envoy/extensions/transport_sockets/tls/v3/tls.pb.h"
#include "google/protobuf/util/json_util.h"
#include "gtest/gtest.h"
#include "lib/base/validation_errors.h"

namespace xdsfed::resources {
namespace {

std::string Bytes(const std::string& json) {
  envoy::extensions::transport_sockets::tls::v3::UpstreamTlsContext proto;
  EXPECT_TRUE(google::protobuf::util::JsonStringToMessage(json, &proto).ok())
      << json;
  return proto.SerializeAsString();
}

std::string Compact(const Json::Value& value) {
  Json::StreamWriterBuilder builder;
  builder["indentation"] = "";
  return Json::writeString(builder, value);
}

constexpr char kCa[] =
    R"("ca_certificate_provider_instance":{"instance_name":"ca"})";

std::string WithValidation(absl::string_view extra) {
  return absl::StrCat(R"({"common_tls_context":{"validation_context":{)", kCa,
                      extra, "}}}");
}

const std::set<std::string, std::less<>> kKnown = {"ca", "id"};

TEST(UpstreamTlsContext, Table) {
  struct Case {
    const char* source;
    std::string json;
    // The accepted value's ToJson(), or the full error message.
    std::string want;
  };
  const std::string kRootOnly =
      R"({"identity":null,"match_subject_alt_names":[],)"
      R"("root":{"certificate_name":"","instance_name":"ca"}})";
  const Case cases[] = {
      // --- accepted ---
      {"A29: a CA provider instance alone (TLS, server verified)",
       WithValidation(""), kRootOnly},
      {"A29: tls_certificate_provider_instance gives the client identity",
       absl::StrCat(
           R"({"common_tls_context":{)",
           R"("tls_certificate_provider_instance":{"instance_name":"id","certificate_name":"x"},)",
           R"("validation_context":{)", kCa, "}}}"),
       R"({"identity":{"certificate_name":"x","instance_name":"id"},)"
       R"("match_subject_alt_names":[],)"
       R"("root":{"certificate_name":"","instance_name":"ca"}})"},
      {"A29: the CA via combined_validation_context.default_validation_context",
       absl::StrCat(
           R"({"common_tls_context":{"combined_validation_context":{"default_validation_context":{)",
           kCa, "}}}}"),
       kRootOnly},
      {"C-core CommonTlsContext::Parse: the deprecated combined CA instance "
       "as a fallback",
       R"({"common_tls_context":{"combined_validation_context":{"validation_context_certificate_provider_instance":{"instance_name":"ca"}}}})",
       kRootOnly},
      {"A29 §Server Authorization: every StringMatcher kind, ignore_case kept",
       WithValidation(
           R"(,"match_subject_alt_names":[{"exact":"a.example.com"},)"
           R"({"prefix":"spiffe://","ignore_case":true},{"suffix":".com"},)"
           R"({"contains":"mid"},{"safe_regex":{"regex":"x.*y"}}])"),
       R"({"identity":null,"match_subject_alt_names":[)"
       R"({"case_sensitive":true,"type":"exact","value":"a.example.com"},)"
       R"({"case_sensitive":false,"type":"prefix","value":"spiffe://"},)"
       R"({"case_sensitive":true,"type":"suffix","value":".com"},)"
       R"({"case_sensitive":true,"type":"contains","value":"mid"},)"
       R"({"case_sensitive":true,"type":"safe_regex","value":"x.*y"}],)"
       R"("root":{"certificate_name":"","instance_name":"ca"}})"},
      {"A29 §CommonTlsContext Processing: alpn_protocols is ignored",
       absl::StrCat(R"({"common_tls_context":{"alpn_protocols":["h2"],)",
                    R"("validation_context":{)", kCa, "}}}"),
       kRootOnly},
      {"A29 §CDS: sni is ignored (Istio sets it on its mTLS clusters)",
       absl::StrCat(R"({"sni":"a.example.com",)", WithValidation("").substr(1)),
       kRootOnly},
      {"A29 §CDS: allow_renegotiation is ignored",
       absl::StrCat(R"({"allow_renegotiation":true,)",
                    WithValidation("").substr(1)),
       kRootOnly},
      {"A29 §CDS: max_session_keys is ignored",
       absl::StrCat(R"({"max_session_keys":3,)", WithValidation("").substr(1)),
       kRootOnly},
      // --- rejected ---
      {"A29: no validation context at all is a NACK (C-core wording)",
       R"({"common_tls_context":{}})",
       "e: [field:common_tls_context error:no CA certificate provider "
       "instance configured]"},
      {"A29: a validation context without ca_certificate_provider_instance",
       R"({"common_tls_context":{"validation_context":{"match_subject_alt_names":[{"exact":"a"}]}}})",
       "e: [field:common_tls_context error:no CA certificate provider "
       "instance configured]"},
      {"A29: an instance missing from the bootstrap NACKs",
       R"({"common_tls_context":{"validation_context":{"ca_certificate_provider_instance":{"instance_name":"nope"}}}})",
       "e: [field:common_tls_context.validation_context.ca_certificate_"
       "provider_instance.instance_name error:unrecognized certificate "
       "provider instance name \"nope\": not in the bootstrap's "
       "certificate_providers]"},
      {"A29: an identity instance missing from the bootstrap NACKs",
       absl::StrCat(
           R"({"common_tls_context":{)",
           R"("tls_certificate_provider_instance":{"instance_name":"x"},)",
           R"("validation_context":{)", kCa, "}}}"),
       "e: [field:common_tls_context.tls_certificate_provider_instance."
       "instance_name error:unrecognized certificate provider instance name "
       "\"x\": not in the bootstrap's certificate_providers]"},
      {"A101 SNI fields (not implemented): auto_host_sni, "
       "auto_sni_san_validation",
       absl::StrCat(R"({"auto_host_sni":true,"auto_sni_san_validation":true,)",
                    WithValidation("").substr(1)),
       "e: [field:auto_host_sni error:field unsupported; "
       "field:auto_sni_san_validation error:field unsupported]"},
      {"A29 §CommonTlsContext Processing: tls_params NACKs",
       absl::StrCat(R"({"common_tls_context":{"tls_params":{},)",
                    R"("validation_context":{)", kCa, "}}}"),
       "e: [field:common_tls_context.tls_params error:field unsupported]"},
      {"A29 §CommonTlsContext Processing: custom_handshaker NACKs",
       absl::StrCat(
           R"({"common_tls_context":{"custom_handshaker":{"name":"h"},)",
           R"("validation_context":{)", kCa, "}}}"),
       "e: [field:common_tls_context.custom_handshaker error:field "
       "unsupported]"},
      {"A29 §CDS: tls_certificates without a provider instance NACKs",
       absl::StrCat(R"({"common_tls_context":{"tls_certificates":[{}],)",
                    R"("validation_context":{)", kCa, "}}}"),
       "e: [field:common_tls_context.tls_certificates error:field "
       "unsupported]"},
      {"A29 §CDS: tls_certificate_sds_secret_configs NACKs",
       absl::StrCat(
           R"({"common_tls_context":{"tls_certificate_sds_secret_configs":[{"name":"s"}],)",
           R"("validation_context":{)", kCa, "}}}"),
       "e: [field:common_tls_context.tls_certificate_sds_secret_configs "
       "error:field unsupported]"},
      {"C-core CommonTlsContext::Parse: validation_context_sds_secret_config",
       R"({"common_tls_context":{"validation_context_sds_secret_config":{"name":"s"}}})",
       "e: [field:common_tls_context error:no CA certificate provider "
       "instance configured; field:common_tls_context.validation_context_"
       "sds_secret_config error:field unsupported]"},
      {"A29: custom_validator_config NACKs",
       WithValidation(R"(,"custom_validator_config":{"name":"v"})"),
       "e: [field:common_tls_context.validation_context.custom_validator_"
       "config error:field unsupported]"},
      {"A29: verify_certificate_spki / _hash NACK",
       WithValidation(
           R"(,"verify_certificate_spki":["x"],"verify_certificate_hash":["y"])"),
       "e: [field:common_tls_context.validation_context.verify_certificate_"
       "hash error:field unsupported; field:common_tls_context.validation_"
       "context.verify_certificate_spki error:field unsupported]"},
      {"A29: require_signed_certificate_timestamp and crl NACK",
       WithValidation(
           R"(,"require_signed_certificate_timestamp":true,"crl":{"filename":"/c"})"),
       "e: [field:common_tls_context.validation_context.crl error:field "
       "unsupported; field:common_tls_context.validation_context.require_"
       "signed_certificate_timestamp error:field unsupported]"},
      {"xdsfed (fail closed where A29 ignores): trusted_ca, "
       "allow_expired_certificate",
       WithValidation(
           R"(,"trusted_ca":{"filename":"/ca"},"allow_expired_certificate":true)"),
       "e: [field:common_tls_context.validation_context.allow_expired_"
       "certificate error:field unsupported; field:common_tls_context."
       "validation_context.trusted_ca error:field unsupported]"},
      {"C-core CertificateValidationContextParse: ignore_case on a regex",
       WithValidation(
           R"(,"match_subject_alt_names":[{"safe_regex":{"regex":"a"},"ignore_case":true}])"),
       "e: [field:common_tls_context.validation_context.match_subject_alt_"
       "names[0].ignore_case error:not supported for regex matcher]"},
      {"C-core StringMatcher::Create: a regex RE2 rejects",
       WithValidation(
           R"(,"match_subject_alt_names":[{"exact":"a"},{"safe_regex":{"regex":"("}}])"),
       "e: [field:common_tls_context.validation_context.match_subject_alt_"
       "names[1].safe_regex.regex error:"},
      {"C-core: a StringMatcher with no pattern",
       WithValidation(R"(,"match_subject_alt_names":[{}])"),
       "e: [field:common_tls_context.validation_context.match_subject_alt_"
       "names[0] error:invalid string matcher: no match_pattern set]"},
      {"xdsfed: match_typed_subject_alt_names is not implemented",
       WithValidation(R"(,"match_typed_subject_alt_names":[{}])"),
       "e: [field:common_tls_context.validation_context.match_typed_subject_"
       "alt_names error:field unsupported]"},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.source);
    ValidationErrors errors;
    auto tls = ParseUpstreamTlsContext(Bytes(c.json), &errors, &kKnown);
    if (c.want.front() == '{') {
      ASSERT_TRUE(tls.has_value()) << errors.Message();
      EXPECT_EQ(Compact(tls->ToJson()), c.want);
      continue;
    }
    EXPECT_FALSE(tls.has_value());
    const std::string got(errors.status("e").message());
    if (absl::EndsWith(c.want, "error:")) {
      EXPECT_TRUE(absl::StartsWith(got, c.want)) << got;
    } else {
      EXPECT_EQ(got, c.want);
    }
  }
}

TEST(UpstreamTlsContext, GarbageBytesAreAnError) {
  ValidationErrors errors;
  EXPECT_FALSE(ParseUpstreamTlsContext("\x0a\xff", &errors).has_value());
  EXPECT_EQ(errors.Message(), "[field: error:can't decode UpstreamTlsContext]");
}

// The key names every setting: values that differ in anything differ in
// key (an endpoint's connection identity, lib/channel).
TEST(UpstreamTlsContext, KeyDiffersWhenAnySettingDiffers) {
  UpstreamTlsContext base;
  base.root.instance_name = "ca";
  UpstreamTlsContext with_identity = base;
  with_identity.identity = CertificateProviderInstance{"id", ""};
  UpstreamTlsContext with_san = base;
  StringMatch m;
  m.value = "a";
  with_san.match_subject_alt_names.push_back(m);
  UpstreamTlsContext with_san_ci = with_san;
  with_san_ci.match_subject_alt_names[0].case_sensitive = false;
  UpstreamTlsContext with_cert_name = base;
  with_cert_name.root.certificate_name = "x";
  const UpstreamTlsContext* all[] = {&base, &with_identity, &with_san,
                                     &with_san_ci, &with_cert_name};
  std::set<std::string> keys;
  for (const auto* v : all) keys.insert(v->Key());
  EXPECT_EQ(keys.size(), 5u);
  EXPECT_EQ(base.Key(), UpstreamTlsContext(base).Key());
}

}  // namespace
}  // namespace xdsfed::resources
