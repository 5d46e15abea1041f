#include "lib/bootstrap/bootstrap.h"

#include <cstdlib>
#include <fstream>
#include <string>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "gtest/gtest.h"
#include "lib/json/json_reader.h"

namespace xdsfed {
namespace {

constexpr absl::string_view kServer =
    R"({"server_uri":"xds.example.com:443","channel_creds":[{"type":"insecure"}]})";

std::string WithServers(absl::string_view rest) {
  return absl::StrCat(R"({"xds_servers":[)", kServer, "]",
                      rest.empty() ? "" : ",", rest, "}");
}

std::string ReadExample(absl::string_view name) {
  const char* dir = std::getenv("XDSFED_SOURCE_DIR");
  std::ifstream in(absl::StrCat(dir ? dir : ".", "/examples/", name));
  return std::string((std::istreambuf_iterator<char>(in)),
                     std::istreambuf_iterator<char>());
}

// Every error path, with its exact message and field path.
TEST(BootstrapTest, ErrorsNameTheirFieldPath) {
  struct Case {
    const char* section;
    std::string json;
    std::string want;  // the list after "errors validating bootstrap: "
  };
  const Case kCases[] = {
      {"A27 xds_servers required", "{}",
       "[field:xds_servers error:field not present]"},
      {"A27 xds_servers non-empty", R"({"xds_servers":[]})",
       "[field:xds_servers error:must be non-empty]"},
      {"A27 xds_servers type", R"({"xds_servers":{}})",
       "[field:xds_servers error:is not an array]"},
      {"A47 XdsServer.server_uri required",
       R"({"xds_servers":[{"channel_creds":[{"type":"insecure"}]}]})",
       "[field:xds_servers[0].server_uri error:field not present]"},
      {"A47 XdsServer.server_uri type",
       R"({"xds_servers":[{"server_uri":7,"channel_creds":[{"type":"insecure"}]}]})",
       "[field:xds_servers[0].server_uri error:is not a string]"},
      {"A47 XdsServer.server_uri non-empty",
       R"({"xds_servers":[{"server_uri":"","channel_creds":[{"type":"insecure"}]}]})",
       "[field:xds_servers[0].server_uri error:must be non-empty]"},
      // Issue 16 item 7: an escaped NUL is valid JSON but no server URI.
      {"A47 XdsServer.server_uri without NUL",
       R"({"xds_servers":[{"server_uri":"a\u0000b","channel_creds":[{"type":"insecure"}]}]})",
       "[field:xds_servers[0].server_uri error:must not contain a NUL "
       "character]"},
      {"A47 XdsServer: first supported creds type wins, none is an error",
       R"({"xds_servers":[{"server_uri":"a","channel_creds":[{"type":"fancy"}]}]})",
       "[field:xds_servers[0].channel_creds error:no known creds type found]"},
      {"A47 XdsServer: empty channel_creds",
       R"({"xds_servers":[{"server_uri":"a","channel_creds":[]}]})",
       "[field:xds_servers[0].channel_creds error:no known creds type found]"},
      {"A47 ChannelCredentials.type required",
       R"({"xds_servers":[{"server_uri":"a","channel_creds":[{"config":{}}]}]})",
       "[field:xds_servers[0].channel_creds[0].type error:field not present]"},
      {"A47 ChannelCredentials.config is a Struct",
       R"({"xds_servers":[{"server_uri":"a","channel_creds":[{"type":"insecure","config":[]}]}]})",
       "[field:xds_servers[0].channel_creds[0].config error:is not an object]"},
      {"tls creds: certificate and key together",
       R"({"xds_servers":[{"server_uri":"a","channel_creds":[{"type":"tls","config":{"certificate_file":"c.pem"}}]}]})",
       "[field:xds_servers[0].channel_creds[0].config error:certificate_file "
       "and private_key_file must be set together]"},
      {"tls creds: file paths are strings",
       R"({"xds_servers":[{"server_uri":"a","channel_creds":[{"type":"tls","config":{"ca_certificate_file":1}}]}]})",
       "[field:xds_servers[0].channel_creds[0].config.ca_certificate_file "
       "error:is not a string]"},
      // Issue 14 §2: the tls config is a typed schema
      // (schema/channel_creds.proto), checked here, not first in
      // lib/transport.
      {"tls creds: refresh_interval is a proto3 JSON Duration",
       R"({"xds_servers":[{"server_uri":"a","channel_creds":[{"type":"tls","config":{"refresh_interval":"soon"}}]}]})",
       "[field:xds_servers[0].channel_creds[0].config.refresh_interval "
       "error:is not a duration (decimal seconds with an \"s\" suffix, e.g. "
       "\"600s\" or \"1.5s\")]"},
      {"tls creds: refresh_interval is a string",
       R"({"xds_servers":[{"server_uri":"a","channel_creds":[{"type":"tls","config":{"refresh_interval":600}}]}]})",
       "[field:xds_servers[0].channel_creds[0].config.refresh_interval "
       "error:is not a string]"},
      {"tls creds: refresh_interval is not negative",
       R"({"xds_servers":[{"server_uri":"a","channel_creds":[{"type":"tls","config":{"refresh_interval":"-1s"}}]}]})",
       "[field:xds_servers[0].channel_creds[0].config.refresh_interval "
       "error:must be >= 0s]"},
      {"tls creds: every bad field at once, with its path",
       R"({"xds_servers":[{"server_uri":"a","channel_creds":[{"type":"tls","config":{"ca_certificate_file":"","certificate_file":["c"],"private_key_file":"k","refresh_interval":"1.0000000001s"}}]}]})",
       "[field:xds_servers[0].channel_creds[0].config.ca_certificate_file "
       "error:must be non-empty; "
       "field:xds_servers[0].channel_creds[0].config.certificate_file "
       "error:is not a string; "
       "field:xds_servers[0].channel_creds[0].config.refresh_interval "
       "error:is not a duration (decimal seconds with an \"s\" suffix, e.g. "
       "\"600s\" or \"1.5s\")]"},

      {"A47 XdsServer.server_features is a list",
       R"({"xds_servers":[{"server_uri":"a","channel_creds":[{"type":"insecure"}],"server_features":"x"}]})",
       "[field:xds_servers[0].server_features error:is not an array]"},
      {"A27 node is an object", WithServers(R"("node":[])"),
       "[field:node error:is not an object]"},
      {"A27 node.id is a string", WithServers(R"("node":{"id":1})"),
       "[field:node.id error:is not a string]"},
      {"A47 authorities is a map", WithServers(R"("authorities":[])"),
       "[field:authorities error:is not an object]"},
      {"A47 authority template must start with xdstp://<authority>/",
       WithServers(
           R"("authorities":{"a.com":{"client_listener_resource_name_template":"xdstp://b.com/%s"}})"),
       "[field:authorities[\"a.com\"].client_listener_resource_name_template "
       "error:field must begin with \"xdstp://a.com/\"]"},
      {"A47 authority template: non-xdstp",
       WithServers(
           R"("authorities":{"a.com":{"client_listener_resource_name_template":"%s"}})"),
       "[field:authorities[\"a.com\"].client_listener_resource_name_template "
       "error:field must begin with \"xdstp://a.com/\"]"},
      {"A47 authority template: authority percent-encoded in the prefix",
       WithServers(
           R"("authorities":{"a b":{"client_listener_resource_name_template":"xdstp://a b/%s"}})"),
       "[field:authorities[\"a b\"].client_listener_resource_name_template "
       "error:field must begin with \"xdstp://a%20b/\"]"},
      {"A47 authority xds_servers: same format as the top level",
       WithServers(
           R"("authorities":{"a":{"xds_servers":[{"channel_creds":[{"type":"insecure"}]}]}})"),
       "[field:authorities[\"a\"].xds_servers[0].server_uri error:field not "
       "present]"},
      {"A47 client_default template is a string",
       WithServers(R"("client_default_listener_resource_name_template":5)"),
       "[field:client_default_listener_resource_name_template error:is not a "
       "string]"},
      {"A36 server template is a string",
       WithServers(R"("server_listener_resource_name_template":true)"),
       "[field:server_listener_resource_name_template error:is not a string]"},
      {"A29 certificate provider plugin",
       WithServers(
           R"("certificate_providers":{"p":{"plugin_name":"magic","config":{}}})"),
       "[field:certificate_providers[\"p\"].plugin_name error:unrecognized "
       "plugin name: magic]"},
      {"every problem is listed at once",
       R"({"xds_servers":[{"channel_creds":[{"type":"x"}]}],"node":{"cluster":2}})",
       "[field:node.cluster error:is not a string; "
       "field:xds_servers[0].channel_creds error:no known creds type found; "
       "field:xds_servers[0].server_uri error:field not present]"},
  };
  for (const Case& c : kCases) {
    SCOPED_TRACE(absl::StrCat(c.section, ": ", c.json));
    auto bootstrap = Bootstrap::Parse(c.json, /*federation=*/true);
    ASSERT_FALSE(bootstrap.ok());
    EXPECT_EQ(bootstrap.status().code(), absl::StatusCode::kInvalidArgument);
    EXPECT_EQ(bootstrap.status().message(),
              absl::StrCat("errors validating bootstrap: ", c.want));
  }
}

// The tls config typed (schema/channel_creds.proto): what lib/transport
// builds the credentials from; only the selected creds entry is loaded, as
// in C-core.
TEST(BootstrapTest, TlsCredsConfigIsTyped) {
  auto full = Bootstrap::Parse(
      R"({"xds_servers":[{"server_uri":"a","channel_creds":[{"type":"tls","config":{"ca_certificate_file":"ca.pem","certificate_file":"c.pem","private_key_file":"k.pem","refresh_interval":"1.5s"}}]}]})",
      true);
  ASSERT_TRUE(full.ok()) << full.status();
  const schema::TlsChannelCredsConfig* tls =
      (*full)->servers()[0]->tls_config();
  ASSERT_NE(tls, nullptr);
  EXPECT_EQ(tls->ca_certificate_file, "ca.pem");
  EXPECT_EQ(tls->certificate_file, "c.pem");
  EXPECT_EQ(tls->private_key_file, "k.pem");
  EXPECT_EQ(tls->refresh_interval, absl::Milliseconds(1500));
  auto defaults = Bootstrap::Parse(
      R"({"xds_servers":[{"server_uri":"a","channel_creds":[{"type":"tls"}]}]})",
      true);
  ASSERT_TRUE(defaults.ok()) << defaults.status();
  ASSERT_NE((*defaults)->servers()[0]->tls_config(), nullptr);
  EXPECT_EQ((*defaults)->servers()[0]->tls_config()->refresh_interval,
            absl::Minutes(10));  // C-core's default
  auto insecure_first = Bootstrap::Parse(
      R"({"xds_servers":[{"server_uri":"a","channel_creds":[{"type":"insecure"},{"type":"tls","config":{"refresh_interval":"soon"}}]}]})",
      true);
  ASSERT_TRUE(insecure_first.ok()) << insecure_first.status();
  EXPECT_EQ((*insecure_first)->servers()[0]->tls_config(), nullptr);
}

TEST(BootstrapTest, MalformedJsonIsReportedAsSuch) {
  const char* kCases[] = {"", "{", "[1,]", "{\"a\":1} x", "\"\xff\"", "nul"};
  for (const char* text : kCases) {
    SCOPED_TRACE(text);
    auto bootstrap = Bootstrap::Parse(text, true);
    ASSERT_FALSE(bootstrap.ok());
    EXPECT_TRUE(absl::StartsWith(bootstrap.status().message(),
                                 "errors validating bootstrap: malformed JSON"))
        << bootstrap.status();
  }
}

TEST(BootstrapTest, HostileInputIsAnErrorNotACrash) {
  std::string deep(100000, '[');
  deep += std::string(100000, ']');
  EXPECT_FALSE(Bootstrap::Parse(deep, true).ok());
  std::string huge =
      absl::StrCat(R"({"xds_servers":[)", kServer, "],\"node\":{\"id\":\"",
                   std::string(10 << 20, 'x'), "\"}}");
  auto big = Bootstrap::Parse(huge, true);
  ASSERT_TRUE(big.ok()) << big.status();
  EXPECT_EQ((*big)->node()->id.size(), 10u << 20);
  std::string many = R"({"xds_servers":[)";
  for (int i = 0; i < 10000; ++i) many += "{},";
  many += "{}]}";
  auto errors = Bootstrap::Parse(many, true);
  ASSERT_FALSE(errors.ok());
  EXPECT_LT(errors.status().message().size(), 20000u);
}

// Issue 16 item 5: Parse loads "authorities" one entry at a time (their tree
// was ~10x the text); it must give what FromJson gives for the whole tree,
// values and errors alike.
TEST(BootstrapTest, AuthoritiesLoadedInPartsMatchTheWholeTree) {
  const std::string kTexts[] = {
      absl::StrCat(R"({"xds_servers":[)", kServer, R"(],"authorities":{
          "a.com":{},"b.com":{"xds_servers":[)",
                   kServer, R"(]},
          "c d":{"client_listener_resource_name_template":"xdstp://c%20d/x/%s"}}})"),
      absl::StrCat(R"({"authorities":{"a.com":{"xds_servers":[{}]},
          "b.com":{"client_listener_resource_name_template":"bad"}},
          "xds_servers":[)",
                   kServer, "]}"),
      absl::StrCat(R"({"xds_servers":[)", kServer,
                   R"(],"authorities":{"a":{"xds_servers":[1 2]}}})"),
      absl::StrCat(R"({"xds_servers":[)", kServer,
                   R"(],"authorities":{"a":{},"a":{}}})"),
      absl::StrCat(R"({"xds_servers":[)", kServer, R"(],"authorities":[]})"),
      absl::StrCat(R"({"xds_servers":[)", kServer,
                   R"(],"authorities":{"\u0061":{}}})"),
  };
  for (const std::string& text : kTexts) {
    for (bool federation : {true, false}) {
      SCOPED_TRACE(absl::StrCat(text, federation ? " (on)" : " (off)"));
      auto parts = Bootstrap::Parse(text, federation);
      absl::StatusOr<Json::Value> json = ParseJsonText(text);
      auto whole =
          json.ok()
              ? Bootstrap::FromJson(*json, federation)
              : absl::InvalidArgumentError(absl::StrCat(
                    "errors validating bootstrap: ", json.status().message()));
      ASSERT_EQ(parts.ok(), whole.ok()) << parts.status() << whole.status();
      if (parts.ok()) {
        EXPECT_EQ(**parts, **whole);
        EXPECT_EQ((*parts)->warnings(), (*whole)->warnings());
      } else {
        EXPECT_EQ(parts.status(), whole.status());
      }
    }
  }
}

// A47 §Bootstrap Config Changes: defaults and server selection.
TEST(BootstrapTest, A47MultipleAuthoritiesExample) {
  auto bootstrap =
      Bootstrap::Parse(ReadExample("multiple_authorities.json"), true);
  ASSERT_TRUE(bootstrap.ok()) << bootstrap.status();
  const Bootstrap& b = **bootstrap;
  ASSERT_EQ(b.servers().size(), 1u);
  EXPECT_EQ(b.servers()[0]->server_uri(), "xds-server.authority.com");
  EXPECT_EQ(b.servers()[0]->channel_creds_type(), "google_default");
  EXPECT_EQ(b.client_default_listener_resource_name_template(),
            "xdstp://xds.authority.com/envoy.config.listener.v3.Listener/grpc/"
            "client/%s?project_id=1234");
  const Bootstrap::Authority* authority =
      b.LookupAuthority("xds.authority.com");
  ASSERT_NE(authority, nullptr);
  EXPECT_FALSE(authority->has_own_servers);
  EXPECT_EQ(authority->xds_servers, b.servers());
  const Bootstrap::Authority* other = b.LookupAuthority("xds.other.com");
  ASSERT_NE(other, nullptr);
  EXPECT_TRUE(other->has_own_servers);
  ASSERT_EQ(other->xds_servers.size(), 1u);
  EXPECT_EQ(other->xds_servers[0]->server_uri(), "xds-server.other.com");
  // Defaulted per A47:
  // xdstp://<authority_name>/envoy.config.listener.v3.Listener/%s
  EXPECT_EQ(other->client_listener_resource_name_template,
            "xdstp://xds.other.com/envoy.config.listener.v3.Listener/%s");
  EXPECT_EQ(b.LookupAuthority("xds.missing.com"), nullptr);
}

TEST(BootstrapTest, A47NoNewFieldsExample) {
  auto bootstrap = Bootstrap::Parse(WithServers(""), true);
  ASSERT_TRUE(bootstrap.ok()) << bootstrap.status();
  EXPECT_EQ((*bootstrap)->client_default_listener_resource_name_template(),
            "%s");
  EXPECT_TRUE((*bootstrap)->authorities().empty());
  EXPECT_FALSE((*bootstrap)->server_listener_resource_name_template());
}

// A47 §Temporary environment variable protection: with the gate off the new
// fields are ignored as if absent, invalid ones included.
TEST(BootstrapTest, GateOffIgnoresNewFields) {
  const std::string json = WithServers(
      R"("client_default_listener_resource_name_template":"xdstp://a/x/%s",)"
      R"("authorities":{"a":{"client_listener_resource_name_template":"bad"}},)"
      R"("server_listener_resource_name_template":"grpc/server?addr=%s")");
  auto off = Bootstrap::Parse(json, /*federation=*/false);
  ASSERT_TRUE(off.ok()) << off.status();
  EXPECT_FALSE((*off)->federation());
  EXPECT_TRUE((*off)->authorities().empty());
  EXPECT_EQ((*off)->client_default_listener_resource_name_template(), "%s");
  EXPECT_EQ((*off)->server_listener_resource_name_template(),
            "grpc/server?addr=%s");
  auto on = Bootstrap::Parse(json, /*federation=*/true);
  EXPECT_FALSE(on.ok());
}

// A47 §Server Channel Map: a server is uri + creds + known features; the same
// server in several authorities is one object; unknown features are dropped.
TEST(BootstrapTest, IdenticalServersAreOneObject) {
  auto bootstrap = Bootstrap::Parse(
      R"({"xds_servers":[{"server_uri":"s:1","channel_creds":[{"type":"fancy"},{"type":"insecure"}],"server_features":["ignore_resource_deletion","xds_v9",3]}],
          "authorities":{
            "a":{"xds_servers":[{"server_uri":"s:1","channel_creds":[{"type":"insecure"}],"server_features":["ignore_resource_deletion"]}]},
            "b":{"xds_servers":[{"server_uri":"s:1","channel_creds":[{"type":"insecure"}]}]},
            "c":{"xds_servers":[{"server_uri":"s:1","channel_creds":[{"type":"google_default"}],"server_features":["ignore_resource_deletion"]}]},
            "d":{}}})",
      true);
  ASSERT_TRUE(bootstrap.ok()) << bootstrap.status();
  const Bootstrap& b = **bootstrap;
  const auto& top = b.servers()[0];
  EXPECT_EQ(top->channel_creds_type(), "insecure");
  EXPECT_TRUE(top->IgnoreResourceDeletion());
  EXPECT_EQ(top->server_features().size(), 1u);
  EXPECT_EQ(b.LookupAuthority("a")->xds_servers[0], top);    // same object
  EXPECT_NE(*b.LookupAuthority("b")->xds_servers[0], *top);  // features
  EXPECT_NE(*b.LookupAuthority("c")->xds_servers[0], *top);  // creds
  EXPECT_EQ(b.LookupAuthority("d")->xds_servers[0], top);    // top-level
  EXPECT_TRUE(b.HasServer(*b.LookupAuthority("c")->xds_servers[0]));
  EXPECT_FALSE(b.HasServer(XdsServerConfig(
      "evil:1", "google_default", Json::Value(Json::objectValue), {})));
}

TEST(BootstrapTest, TemplatesWithoutPercentSAreKeptWithAWarning) {
  auto bootstrap = Bootstrap::Parse(
      WithServers(R"("server_listener_resource_name_template":"fixed")"), true);
  ASSERT_TRUE(bootstrap.ok()) << bootstrap.status();
  ASSERT_EQ((*bootstrap)->warnings().size(), 1u);
  EXPECT_EQ((*bootstrap)->warnings()[0],
            "server_listener_resource_name_template: template has no %s, so "
            "every target maps to the same Listener");
}

// Round trip: the bootstrap JSON a Bootstrap writes parses back to it.
TEST(BootstrapTest, RoundTripsThroughJson) {
  const std::string kInputs[] = {
      ReadExample("multiple_authorities.json"),
      WithServers(""),
      WithServers(
          R"("node":{"id":"n","cluster":"c","locality":{"region":"r","zone":"z","sub_zone":"s"},"metadata":{"k":[1,"v"]}},)"
          R"("server_listener_resource_name_template":"xdstp://a/envoy.config.listener.v3.Listener/%s",)"
          R"("authorities":{"a":{},"b":{"xds_servers":[{"server_uri":"t","channel_creds":[{"type":"tls","config":{"ca_certificate_file":"ca.pem"}}]}]}},)"
          R"("certificate_providers":{"p":{"plugin_name":"file_watcher","config":{"certificate_file":"c"}}})"),
  };
  for (const std::string& input : kInputs) {
    SCOPED_TRACE(input);
    for (bool federation : {true, false}) {
      auto first = Bootstrap::Parse(input, federation);
      ASSERT_TRUE(first.ok()) << first.status();
      auto second =
          Bootstrap::FromJson((*first)->ToBootstrapJson(), federation);
      ASSERT_TRUE(second.ok()) << second.status();
      EXPECT_EQ(**first, **second);
    }
  }
}

class BootstrapEnvTest : public ::testing::Test {
 protected:
  void SetUp() override { Clear(); }
  void TearDown() override { Clear(); }
  static void Clear() {
    unsetenv("GRPC_XDS_BOOTSTRAP");
    unsetenv("GRPC_XDS_BOOTSTRAP_CONFIG");
  }
};

TEST_F(BootstrapEnvTest, FileWinsOverConfigText) {
  const std::string path = ::testing::TempDir() + "/bootstrap.json";
  std::ofstream(path) << WithServers(R"("node":{"id":"from-file"})");
  setenv("GRPC_XDS_BOOTSTRAP", path.c_str(), 1);
  setenv("GRPC_XDS_BOOTSTRAP_CONFIG",
         WithServers(R"("node":{"id":"from-text"})").c_str(), 1);
  auto bootstrap = Bootstrap::FromEnv(true);
  ASSERT_TRUE(bootstrap.ok()) << bootstrap.status();
  EXPECT_EQ((*bootstrap)->node()->id, "from-file");
}

TEST_F(BootstrapEnvTest, ConfigTextWhenNoFile) {
  setenv("GRPC_XDS_BOOTSTRAP_CONFIG",
         WithServers(R"("node":{"id":"from-text"})").c_str(), 1);
  auto bootstrap = Bootstrap::FromEnv(true);
  ASSERT_TRUE(bootstrap.ok()) << bootstrap.status();
  EXPECT_EQ((*bootstrap)->node()->id, "from-text");
}

TEST_F(BootstrapEnvTest, MissingFileAndNeither) {
  setenv("GRPC_XDS_BOOTSTRAP", "/nonexistent/bootstrap.json", 1);
  auto missing = Bootstrap::FromEnv(true);
  EXPECT_EQ(missing.status().code(), absl::StatusCode::kFailedPrecondition);
  EXPECT_EQ(missing.status().message(),
            "cannot read bootstrap file /nonexistent/bootstrap.json (from "
            "GRPC_XDS_BOOTSTRAP): No such file or directory");
  Clear();
  auto neither = Bootstrap::FromEnv(true);
  EXPECT_EQ(neither.status().message(),
            "no bootstrap: neither GRPC_XDS_BOOTSTRAP nor "
            "GRPC_XDS_BOOTSTRAP_CONFIG is set");
}

// Issue 16 item 1: paths that are not bootstrap files give a status naming
// the path, never an exception (a directory threw std::ios_failure) or an
// unbounded read (/dev/zero grew to ~2 GB, then bad_alloc).
TEST_F(BootstrapEnvTest, UnreadablePathsAreErrorsNamingThePath) {
  struct Case {
    std::string path, want;
  };
  const Case kCases[] = {
      {"/tmp",
       "cannot read bootstrap file /tmp (from GRPC_XDS_BOOTSTRAP): is a "
       "directory"},
      {"/dev/zero",
       "cannot read bootstrap file /dev/zero (from GRPC_XDS_BOOTSTRAP): "
       "larger than the limit of 134217728 bytes"},
  };
  for (const Case& c : kCases) {
    SCOPED_TRACE(c.path);
    setenv("GRPC_XDS_BOOTSTRAP", c.path.c_str(), 1);
    auto bootstrap = Bootstrap::FromEnv(true);
    EXPECT_EQ(bootstrap.status().code(), absl::StatusCode::kFailedPrecondition);
    EXPECT_EQ(bootstrap.status().message(), c.want);
  }
  setenv("GRPC_XDS_BOOTSTRAP", "/dev/null", 1);
  auto empty = Bootstrap::FromEnv(true);
  EXPECT_TRUE(absl::StartsWith(empty.status().message(),
                               "errors validating bootstrap: malformed JSON"))
      << empty.status();
}

TEST_F(BootstrapEnvTest, EmptyFileIsMalformedJson) {
  const std::string path = ::testing::TempDir() + "/empty.json";
  std::ofstream(path).flush();
  setenv("GRPC_XDS_BOOTSTRAP", path.c_str(), 1);
  auto bootstrap = Bootstrap::FromEnv(true);
  ASSERT_FALSE(bootstrap.ok());
  EXPECT_TRUE(absl::StartsWith(bootstrap.status().message(),
                               "errors validating bootstrap: malformed JSON"));
}

}  // namespace
}  // namespace xdsfed
