#include "lib/bootstrap/target_resolver.h"

#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "gtest/gtest.h"

namespace xdsfed {
namespace {

constexpr char kTopServer[] =
    R"({"server_uri":"xds-server.authority.com","channel_creds":[{"type":"google_default"}]})";

// The four bootstrap configs of A47 §Bootstrap Config Changes.
std::string NoNewFields() {
  return absl::StrCat(
      R"({"xds_servers":[)", kTopServer,
      R"(],"server_listener_resource_name_template":"grpc/server?xds.resource.listening_address=%s"})");
}
std::string NewStyleClient() {
  return absl::StrCat(
      R"({"xds_servers":[)", kTopServer, "],",
      R"("client_default_listener_resource_name_template":"xdstp://xds.authority.com/envoy.config.listener.v3.Listener/%s",)",
      R"("authorities":{"xds.authority.com":{}}})");
}
std::string NewStyleServer() {
  return absl::StrCat(
      R"({"xds_servers":[)", kTopServer, "],",
      R"("server_listener_resource_name_template":"xdstp://xds.authority.com/envoy.config.listener.v3.Listener/grpc/server/%s",)",
      R"("authorities":{"xds.authority.com":{}}})");
}
std::string MultipleAuthorities() {
  return absl::StrCat(
      R"({"xds_servers":[)", kTopServer, "],",
      R"("client_default_listener_resource_name_template":"xdstp://xds.authority.com/envoy.config.listener.v3.Listener/grpc/client/%s?project_id=1234",)",
      R"("server_listener_resource_name_template":"xdstp://xds.authority.com/envoy.config.listener.v3.Listener/grpc/server/%s?project_id=1234",)",
      R"("authorities":{"xds.authority.com":{"client_listener_resource_name_template":"xdstp://xds.authority.com/envoy.config.listener.v3.Listener/grpc/client/%s?project_id=1234"},)",
      R"("xds.other.com":{"xds_servers":[{"server_uri":"xds-server.other.com","channel_creds":[{"type":"google_default"}]}]}}})");
}

struct Case {
  const char* section;
  std::string bootstrap;
  bool federation;
  std::string input;  // target, or listening address when server is set
  bool server;
  // Expected; error non-empty = an error with exactly that message.
  std::string name;
  std::string authority;  // "" = none (old-style)
  std::string server_uri;
  std::string data_plane_authority;
  std::string error;
};

void Check(const Case& c) {
  SCOPED_TRACE(absl::StrCat(c.section, ": ", c.input,
                            c.federation ? " (federation on)" : " (off)"));
  auto bootstrap = Bootstrap::Parse(c.bootstrap, c.federation);
  ASSERT_TRUE(bootstrap.ok()) << bootstrap.status();
  auto resolved = c.server ? ResolveServerListener(**bootstrap, c.input)
                           : ResolveXdsTarget(**bootstrap, c.input);
  if (!c.error.empty()) {
    ASSERT_FALSE(resolved.ok());
    EXPECT_EQ(resolved.status().message(), c.error);
    return;
  }
  ASSERT_TRUE(resolved.ok()) << resolved.status();
  EXPECT_EQ(resolved->listener_resource_name, c.name);
  EXPECT_EQ(resolved->authority.value_or(""), c.authority);
  EXPECT_EQ(resolved->authority.has_value(), !c.authority.empty());
  ASSERT_EQ(resolved->xds_servers.size(), 1u);
  EXPECT_EQ(resolved->xds_servers[0]->server_uri(), c.server_uri);
  EXPECT_EQ(resolved->data_plane_authority, c.data_plane_authority);
}

constexpr char kTop[] = "xds-server.authority.com";
constexpr char kListener[] =
    "xdstp://xds.authority.com/envoy.config.listener.v3.Listener/";

TEST(TargetResolverTest, A47WorkedExamples) {
  const Case kCases[] = {
      {"A47 Example: Bootstrap Config Contains No New Fields", NoNewFields(),
       true, "xds:server.example.com", false, "server.example.com", "", kTop,
       "server.example.com"},
      {"A47 Example: No New Fields, unknown authority", NoNewFields(), true,
       "xds://xds.authority.com/server.example.com", false, "", "", "", "",
       "invalid target \"xds://xds.authority.com/server.example.com\": "
       "authority \"xds.authority.com\" is not in the bootstrap's authorities"},
      {"A47 Example: No New Fields, server", NoNewFields(), true,
       "0.0.0.0:8080", true,
       "grpc/server?xds.resource.listening_address=0.0.0.0:8080", "", kTop, ""},
      {"A47 Example: New-Style Names on gRPC Client", NewStyleClient(), true,
       "xds:server.example.com", false,
       absl::StrCat(kListener, "server.example.com"), "xds.authority.com", kTop,
       "server.example.com"},
      {"A47 Example: New-Style Names on gRPC Client, with authority",
       NewStyleClient(), true, "xds://xds.authority.com/server.example.com",
       false, absl::StrCat(kListener, "server.example.com"),
       "xds.authority.com", kTop, "server.example.com"},
      {"A47 Example: New-Style Names on gRPC Server", NewStyleServer(), true,
       "0.0.0.0:8080", true,
       absl::StrCat(kListener, "grpc/server/0.0.0.0:8080"), "xds.authority.com",
       kTop, ""},
      {"A47 Example: Multiple Authorities, no authority", MultipleAuthorities(),
       true, "xds:server.example.com", false,
       absl::StrCat(kListener,
                    "grpc/client/server.example.com?project_id=1234"),
       "xds.authority.com", kTop, "server.example.com"},
      {"A47 Example: Multiple Authorities, xds.authority.com",
       MultipleAuthorities(), true,
       "xds://xds.authority.com/server.example.com", false,
       absl::StrCat(kListener,
                    "grpc/client/server.example.com?project_id=1234"),
       "xds.authority.com", kTop, "server.example.com"},
      {"A47 Example: Multiple Authorities, xds.other.com",
       MultipleAuthorities(), true, "xds://xds.other.com/server.other.com",
       false,
       "xdstp://xds.other.com/envoy.config.listener.v3.Listener/"
       "server.other.com",
       "xds.other.com", "xds-server.other.com", "server.other.com"},
      {"A47 Example: Multiple Authorities, server", MultipleAuthorities(), true,
       "0.0.0.0:8080", true,
       absl::StrCat(kListener, "grpc/server/0.0.0.0:8080?project_id=1234"),
       "xds.authority.com", kTop, ""},
  };
  for (const Case& c : kCases) Check(c);
}

TEST(TargetResolverTest, EncodingAndEdgeCases) {
  const Case kCases[] = {
      {"A47 §xds Resolver Changes: path percent-encoded into xdstp templates",
       NewStyleClient(), true, "xds:svc%20x%5b1%5D%41", false,
       absl::StrCat(kListener, "svc%20x%5B1%5DA"), "xds.authority.com", kTop,
       "svc%20x[1]A"},
      {"A47 §xds Resolver Changes: '/' is a path char and stays; the "
       "data-plane authority encodes it (latest A47 revision)",
       MultipleAuthorities(), true, "xds://xds.other.com/a/b/c", false,
       "xdstp://xds.other.com/envoy.config.listener.v3.Listener/a/b/c",
       "xds.other.com", "xds-server.other.com", "a%2Fb%2Fc"},
      {"A47 §xds Resolver Changes: old-style template, no encoding",
       NoNewFields(), true, "xds:///svc%20x", false, "svc x", "", kTop,
       "svc%20x"},
      {"A47 §gRPC Client Target URI Syntax: empty data-plane authority",
       NoNewFields(), true, "xds:///", false, "", "", "", "",
       "invalid xds target: empty data-plane authority; expected a "
       "non-empty path, e.g. xds:///server.example.com"},
      {"A47 §xDS-Enabled gRPC Server Changes: IPv6 encoded for xdstp",
       NewStyleServer(), true, "[::]:80", true,
       absl::StrCat(kListener, "grpc/server/%5B::%5D:80"), "xds.authority.com",
       kTop, ""},
      {"A36 §Listener Resource Handling: no special character handling",
       NoNewFields(), true, "[::]:80", true,
       "grpc/server?xds.resource.listening_address=[::]:80", "", kTop, ""},
      {"A36: no server template, no xDS server", NewStyleClient(), true,
       "0.0.0.0:8080", true, "", "", "", "",
       "bootstrap has no server_listener_resource_name_template, so an "
       "xDS-enabled server cannot start"},
      {"A47 gate off: authorities ignored, so an authority is unknown, and "
       "the error says the gate is why (issue 29 item 5)",
       MultipleAuthorities(), false, "xds://xds.other.com/server.other.com",
       false, "", "", "", "",
       "invalid target \"xds://xds.other.com/server.other.com\": authority "
       "\"xds.other.com\" is in the bootstrap's authorities, but federation "
       "is off, which ignores them (gRFC A47: "
       "GRPC_EXPERIMENTAL_XDS_FEDERATION=true turns it on)"},
      {"A47 gate off: an authority the bootstrap does not list",
       MultipleAuthorities(), false, "xds://xds.nowhere.com/server.other.com",
       false, "", "", "", "",
       "invalid target \"xds://xds.nowhere.com/server.other.com\": authority "
       "\"xds.nowhere.com\" is not in the bootstrap's authorities"},
      {"A47 gate off: default template ignored", MultipleAuthorities(), false,
       "xds:server.example.com", false, "server.example.com", "", kTop,
       "server.example.com"},
      {"A47 gate off: xdstp server name is opaque, top-level servers",
       MultipleAuthorities(), false, "0.0.0.0:8080", true,
       absl::StrCat(kListener, "grpc/server/0.0.0.0:8080?project_id=1234"), "",
       kTop, ""},
      {"A47 §Bootstrap: server template authority must be in authorities",
       absl::StrCat(
           R"({"xds_servers":[)", kTopServer,
           R"(],"server_listener_resource_name_template":"xdstp://nowhere.com/envoy.config.listener.v3.Listener/%s"})"),
       true, "1.2.3.4:5", true, "", "", "", "",
       "authority \"nowhere.com\" of Listener resource name "
       "\"xdstp://nowhere.com/envoy.config.listener.v3.Listener/1.2.3.4:5\" "
       "is not in the bootstrap's authorities"},
  };
  for (const Case& c : kCases) Check(c);
}

// Issue 14 §1: targets gRPC C-core accepts give C-core's Listener names: the
// path percent-encoded into an xdstp: template, verbatim into an old-style
// one; the data-plane authority is the path encoded as an authority.
TEST(TargetResolverTest, TargetsGrpcAccepts) {
  struct Target {
    const char* target;
    const char* encoded;   // what %s becomes in an xdstp: template
    const char* verbatim;  // ... in an old-style template
    const char* data_plane_authority;
  };
  const Target kTargets[] = {
      {"xds:///[fe80::1]:443", "%5Bfe80::1%5D:443", "[fe80::1]:443",
       "[fe80::1]:443"},
      {"xds:///svc name", "svc%20name", "svc name", "svc%20name"},
      {"xds:///50%off", "50%25off", "50%off", "50%25off"},
      {"xds:///[::1]:8080", "%5B::1%5D:8080", "[::1]:8080", "[::1]:8080"},
  };
  for (const Target& t : kTargets) {
    const std::string xdstp_id = t.encoded;
    const std::string target = t.target;
    const std::string with_authority =
        absl::StrCat("xds://xds.other.com/", target.substr(7));
    const Case kCases[] = {
        {"A47 §xds Resolver Changes: xdstp: default template, encoded",
         NewStyleClient(), true, target, false,
         absl::StrCat(kListener, xdstp_id), "xds.authority.com", kTop,
         t.data_plane_authority},
        {"A47 §xds Resolver Changes: old-style template, verbatim",
         NoNewFields(), true, target, false, t.verbatim, "", kTop,
         t.data_plane_authority},
        {"A47 §xds Resolver Changes: gate off, verbatim", MultipleAuthorities(),
         false, target, false, t.verbatim, "", kTop, t.data_plane_authority},
        {"A47 §xds Resolver Changes: authority's default template, encoded",
         MultipleAuthorities(), true, with_authority, false,
         absl::StrCat(
             "xdstp://xds.other.com/envoy.config.listener.v3.Listener/",
             xdstp_id),
         "xds.other.com", "xds-server.other.com", t.data_plane_authority},
    };
    for (const Case& c : kCases) Check(c);
  }
}

// Issue 14 §2: bootstrap rules that no other row guards (each row fails when
// its line of Bootstrap::FromJson is broken).
TEST(TargetResolverTest, BootstrapRules) {
  const std::string default_template_only = absl::StrCat(
      R"({"xds_servers":[)", kTopServer, "],",
      R"("client_default_listener_resource_name_template":"xdstp://xds.authority.com/envoy.config.listener.v3.Listener/%s"})");
  const std::string authorities_only =
      absl::StrCat(R"({"xds_servers":[)", kTopServer, "],",
                   R"("authorities":{"xds.other.com":{}}})");
  const std::string escaped_authorities =
      absl::StrCat(R"({"xds_servers":[)", kTopServer, "],",
                   R"("authorities":{"a b":{},"x/y":{}}})");
  const Case kCases[] = {
      {"A47 §Temporary environment variable protection: gate off, "
       "client_default_listener_resource_name_template without authorities "
       "is ignored",
       default_template_only, false, "xds:///foo", false, "foo", "", kTop,
       "foo"},
      {"A47 §Temporary environment variable protection: gate off, only "
       "authorities: they are ignored",
       authorities_only, false, "xds://xds.other.com/foo", false, "", "", "",
       "",
       "invalid target \"xds://xds.other.com/foo\": authority "
       "\"xds.other.com\" is in the bootstrap's authorities, but federation "
       "is off, which ignores them (gRFC A47: "
       "GRPC_EXPERIMENTAL_XDS_FEDERATION=true turns it on)"},
      {"A47 §Temporary environment variable protection: gate off, only "
       "authorities: xds:///foo is old-style",
       authorities_only, false, "xds:///foo", false, "foo", "", kTop, "foo"},
      {"A47 pseudocode: default template percent-encodes the authority "
       "(\"a b\")",
       escaped_authorities, true, "xds://a%20b/svc", false,
       "xdstp://a%20b/envoy.config.listener.v3.Listener/svc", "a b", kTop,
       "svc"},
      {"A47 pseudocode: default template percent-encodes the authority "
       "(\"x/y\")",
       escaped_authorities, true, "xds://x%2Fy/svc", false,
       "xdstp://x%2Fy/envoy.config.listener.v3.Listener/svc", "x/y", kTop,
       "svc"},
  };
  for (const Case& c : kCases) Check(c);
}

}  // namespace
}  // namespace xdsfed
