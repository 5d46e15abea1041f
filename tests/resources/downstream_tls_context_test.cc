// DownstreamTlsContext validation (A29 as A36 applies it to a server's filter
// chains; issue 12 Behaviour 3: unsupported TLS settings are NACKed, not
// ignored). Cases built as proto3 JSON, each with the error path expected.
#include "lib/resources/downstream_tls_context.h"

#include <set>
#include <string>

#include "absl/strings/str_cat.h"
#include "envoy/extensions/transport_sockets/tls/v3/tls.pb.h"
#include "google/protobuf/util/json_util.h"
#include "gtest/gtest.h"
#include "lib/base/validation_errors.h"

namespace xdsfed::resources {
namespace {

std::string Bytes(const std::string& json) {
  envoy::extensions::transport_sockets::tls::v3::DownstreamTlsContext proto;
  EXPECT_TRUE(google::protobuf::util::JsonStringToMessage(json, &proto).ok())
      << json;
  return proto.SerializeAsString();
}

constexpr char kIdentity[] =
    R"("tls_certificate_provider_instance":{"instance_name":"id","certificate_name":"c"})";
constexpr char kRoot[] =
    R"("validation_context":{"ca_certificate_provider_instance":{"instance_name":"ca"}})";

TEST(DownstreamTlsContext, Accepted) {
  struct Case {
    std::string json;
    bool root;
    bool require;
  };
  const Case cases[] = {
      {absl::StrCat(R"({"common_tls_context":{)", kIdentity, "}}"), false,
       false},
      {absl::StrCat(R"({"common_tls_context":{)", kIdentity, ",", kRoot,
                    R"(},"require_client_certificate":true})"),
       true, true},
      // The deprecated provider-instance fields gRPC still accepts.
      {R"({"common_tls_context":{
        "tls_certificate_certificate_provider_instance":{"instance_name":"id"},
        "combined_validation_context":{
          "validation_context_certificate_provider_instance":{"instance_name":"ca"}}}})",
       true, false},
      // Both the default validation context's CA and the deprecated
      // validation_context_certificate_provider_instance, different
      // instances: the default context's wins, the deprecated field is only
      // a fallback (gRPC C-core xds_common_types.cc, CommonTlsContext parse:
      // "If after parsing default_validation_context, ...
      // ca_certificate_provider_instance is empty, fall back onto
      // 'validation_context_certificate_provider_instance'"; issue 29 B(c)).
      {absl::StrCat(R"({"common_tls_context":{)", kIdentity, R"(,
        "combined_validation_context":{
          "default_validation_context":{
            "ca_certificate_provider_instance":{"instance_name":"ca"}},
          "validation_context_certificate_provider_instance":{
            "instance_name":"deprecated-ca"}}}})"),
       true, false},
      // alpn_protocols is ignored, as gRPC does.
      {absl::StrCat(R"({"common_tls_context":{"alpn_protocols":["h2"],)",
                    kIdentity, "}}"),
       false, false},
  };
  for (const Case& c : cases) {
    ValidationErrors errors;
    auto tls = ParseDownstreamTlsContext(Bytes(c.json), &errors);
    ASSERT_TRUE(tls.has_value()) << c.json << ": " << errors.Message();
    EXPECT_EQ(tls->identity.instance_name, "id");
    EXPECT_EQ(tls->root.has_value(), c.root) << c.json;
    if (c.root) {
      EXPECT_EQ(tls->root->instance_name, "ca");
    }
    EXPECT_EQ(tls->require_client_certificate, c.require);
  }
}

TEST(DownstreamTlsContext, RejectedWithFieldPath) {
  struct Case {
    std::string json;
    const char* want;  // a substring of the error message
  };
  auto common = [](absl::string_view extra) {
    return absl::StrCat(R"({"common_tls_context":{)", kIdentity, ",", extra,
                        "}}");
  };
  const Case cases[] = {
      {R"({"common_tls_context":{}})",
       "common_tls_context.tls_certificate_provider_instance error:field not "
       "present"},
      {absl::StrCat(R"({"common_tls_context":{)", kIdentity,
                    R"(},"require_client_certificate":true})"),
       "require_client_certificate error:client certificates are required"},
      {absl::StrCat(R"({"common_tls_context":{)", kIdentity,
                    R"(},"require_sni":true})"),
       "require_sni error:field unsupported"},
      {absl::StrCat(R"({"common_tls_context":{)", kIdentity,
                    R"(},"ocsp_staple_policy":"MUST_STAPLE"})"),
       "ocsp_staple_policy error:value must be LENIENT_STAPLING"},
      {common(R"("tls_params":{})"),
       "common_tls_context.tls_params error:field unsupported"},
      {common(R"("tls_certificates":[{}])"),
       "common_tls_context.tls_certificates error:field unsupported"},
      {common(R"("tls_certificate_sds_secret_configs":[{"name":"s"}])"),
       "tls_certificate_sds_secret_configs error:field unsupported"},
      {common(R"("custom_handshaker":{"name":"h"})"),
       "custom_handshaker error:field unsupported"},
      {common(R"("validation_context_sds_secret_config":{"name":"s"})"),
       "validation_context_sds_secret_config error:field unsupported"},
      {common(R"("validation_context":{"trusted_ca":{"filename":"/ca.pem"}})"),
       "validation_context.trusted_ca error:field unsupported"},
      {common(
           R"("validation_context":{"match_subject_alt_names":[{"exact":"a"}]})"),
       "match_subject_alt_names error:not supported on servers"},
      {common(R"("validation_context":{"verify_certificate_spki":["x"]})"),
       "verify_certificate_spki error:field unsupported"},
      {common(R"("validation_context":{"verify_certificate_hash":["x"]})"),
       "verify_certificate_hash error:field unsupported"},
      {common(R"("validation_context":{"crl":{"filename":"/crl"}})"),
       "validation_context.crl error:field unsupported"},
      {common(R"("validation_context":{"allow_expired_certificate":true})"),
       "allow_expired_certificate error:field unsupported"},
      {common(
           R"("validation_context":{"ca_certificate_provider_instance":{"certificate_name":"x"}})"),
       "ca_certificate_provider_instance.instance_name error:field not "
       "present"},
  };
  for (const Case& c : cases) {
    ValidationErrors errors;
    EXPECT_FALSE(ParseDownstreamTlsContext(Bytes(c.json), &errors).has_value())
        << c.json;
    EXPECT_NE(errors.Message().find(c.want), std::string::npos)
        << c.json << "\n  got: " << errors.Message() << "\n want: " << c.want;
  }
}

// C-core's rule (its CommonTlsContext parse): a provider instance the
// bootstrap's certificate_providers lacks is an error, so the Listener is
// NACKed rather than failing when a server builds the chain's credentials.
// Without the bootstrap's names (null) nothing is checked.
TEST(DownstreamTlsContext, InstanceNamesAbsentFromTheBootstrapAreErrors) {
  const std::set<std::string, std::less<>> known = {"id", "ca"};
  const std::set<std::string, std::less<>> only_id = {"id"};
  const std::set<std::string, std::less<>> only_ca = {"ca"};
  struct Case {
    std::string json;
    const std::set<std::string, std::less<>>* known;
    const char* want;  // empty: accepted
  };
  const std::string identity_and_root =
      absl::StrCat(R"({"common_tls_context":{)", kIdentity, ",", kRoot,
                   R"(},"require_client_certificate":true})");
  const Case cases[] = {
      {identity_and_root, &known, ""},
      {identity_and_root, nullptr, ""},
      {identity_and_root, &only_id,
       "common_tls_context.validation_context.ca_certificate_provider_instance."
       "instance_name error:unrecognized certificate provider instance name "
       "\"ca\""},
      {absl::StrCat(R"({"common_tls_context":{)", kIdentity, "}}"), &only_ca,
       "common_tls_context.tls_certificate_provider_instance.instance_name "
       "error:unrecognized certificate provider instance name \"id\""},
      {R"({"common_tls_context":{
        "tls_certificate_certificate_provider_instance":{"instance_name":"id"},
        "combined_validation_context":{
          "validation_context_certificate_provider_instance":{"instance_name":"ca"}}}})",
       &only_id,
       "combined_validation_context.validation_context_certificate_provider_"
       "instance.instance_name error:unrecognized certificate provider "
       "instance name \"ca\""},
  };
  for (const Case& c : cases) {
    ValidationErrors errors;
    auto tls = ParseDownstreamTlsContext(Bytes(c.json), &errors, c.known);
    if (std::string(c.want).empty()) {
      EXPECT_TRUE(tls.has_value()) << c.json << ": " << errors.Message();
      continue;
    }
    EXPECT_FALSE(tls.has_value()) << c.json;
    EXPECT_NE(errors.Message().find(c.want), std::string::npos)
        << c.json << "\n  got: " << errors.Message() << "\n want: " << c.want;
  }
}

TEST(DownstreamTlsContext, GarbageBytesAreAnError) {
  ValidationErrors errors;
  EXPECT_FALSE(ParseDownstreamTlsContext("\x0a\xff", &errors).has_value());
  EXPECT_NE(errors.Message().find("cannot decode"), std::string::npos);
}

}  // namespace
}  // namespace xdsfed::resources
