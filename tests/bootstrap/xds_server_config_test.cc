#include "lib/bootstrap/xds_server_config.h"

#include "absl/container/flat_hash_set.h"
#include "gtest/gtest.h"

namespace xdsfed {
namespace {

Json::Value Object() { return Json::Value(Json::objectValue); }

// A47 §Server Channel Map: the key is target URI, channel creds and the known
// server features.
TEST(XdsServerConfigTest, IdentityIsUriCredsAndKnownFeatures) {
  Json::Value config = Object();
  config["ca_certificate_file"] = "ca.pem";
  const XdsServerConfig base("s:1", "insecure", Object(), {});
  struct Case {
    const char* what;
    XdsServerConfig other;
    bool equal;
  };
  const Case kCases[] = {
      {"same", XdsServerConfig("s:1", "insecure", Object(), {}), true},
      {"uri", XdsServerConfig("s:2", "insecure", Object(), {}), false},
      {"creds type", XdsServerConfig("s:1", "google_default", Object(), {}),
       false},
      {"creds config", XdsServerConfig("s:1", "insecure", config, {}), false},
      {"features",
       XdsServerConfig("s:1", "insecure", Object(),
                       {"ignore_resource_deletion"}),
       false},
  };
  absl::flat_hash_set<XdsServerConfig> set;
  set.insert(base);
  for (const Case& c : kCases) {
    SCOPED_TRACE(c.what);
    EXPECT_EQ(c.other == base, c.equal);
    EXPECT_EQ(set.contains(c.other), c.equal);
  }
}

// A "tls" config is compared by its typed value (C-core's
// TlsConfig::Equals): spellings of one config are one server.
TEST(XdsServerConfigTest, TlsIdentityIsTheTypedConfig) {
  auto tls = [](const char* refresh, const char* extra_key) {
    Json::Value config = Object();
    config["ca_certificate_file"] = "ca.pem";
    if (refresh != nullptr) config["refresh_interval"] = refresh;
    if (extra_key != nullptr) config[extra_key] = true;
    return XdsServerConfig("s:1", "tls", config, {});
  };
  EXPECT_EQ(tls(nullptr, nullptr), tls("600s", nullptr));
  EXPECT_EQ(tls("600s", nullptr), tls("600.000s", nullptr));
  EXPECT_EQ(tls(nullptr, nullptr), tls(nullptr, "unknown_key"));
  EXPECT_NE(tls("1s", nullptr), tls("2s", nullptr));
  EXPECT_TRUE(tls("1s", nullptr).channel_creds_status().ok());
  // Built by hand (FromSchema would reject it): the error is kept for
  // lib/transport to report.
  const XdsServerConfig bad = tls("soon", nullptr);
  EXPECT_EQ(bad.tls_config(), nullptr);
  EXPECT_EQ(bad.channel_creds_status().code(),
            absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(XdsServerConfig("s:1", "insecure", Object(), {}).tls_config(),
            nullptr);
}

TEST(XdsServerConfigTest, FirstSupportedCredsWinsAndSchemaRoundTrips) {
  schema::XdsServer raw;
  raw.server_uri = "s:1";
  raw.channel_creds.resize(3);
  raw.channel_creds[0].type = "alts";
  raw.channel_creds[1].type = "tls";
  raw.channel_creds[1].config = Object();
  (*raw.channel_creds[1].config)["ca_certificate_file"] = "ca.pem";
  raw.channel_creds[2].type = "insecure";
  raw.server_features.emplace_back("ignore_resource_deletion");
  raw.server_features.emplace_back("unknown_feature");
  ValidationErrors errors;
  auto server = XdsServerConfig::FromSchema(raw, &errors);
  ASSERT_TRUE(server.has_value()) << errors.Message();
  EXPECT_EQ(server->channel_creds_type(), "tls");
  EXPECT_EQ(server->channel_creds_config()["ca_certificate_file"], "ca.pem");
  EXPECT_TRUE(server->IgnoreResourceDeletion());
  auto again = XdsServerConfig::FromSchema(server->ToSchema(), &errors);
  ASSERT_TRUE(again.has_value());
  EXPECT_EQ(*again, *server);
  Json::Value json = server->ToJson();
  EXPECT_EQ(json["server_uri"], "s:1");
  EXPECT_EQ(json["channel_creds_type"], "tls");
  EXPECT_EQ(json["server_features"][0], "ignore_resource_deletion");
}

}  // namespace
}  // namespace xdsfed
