// Tests for lib/name/name_template.h: the A47 worked examples at the name
// level (template + target or listening address -> Listener name).
#include "lib/name/name_template.h"

#include "absl/strings/match.h"
#include "gtest/gtest.h"
#include "lib/name/resource_name.h"
#include "lib/name/xds_target.h"

namespace xdsfed {
namespace {

TEST(NameTemplateTest, ExpandPercentS) {
  struct Case {
    const char* tmpl;
    const char* replacement;
    const char* want;
  };
  const Case kCases[] = {
      // A47 §Bootstrap Config Changes: every "%s" is replaced, verbatim.
      {"%s", "server.example.com", "server.example.com"},
      {"a/%s/b/%s", "x", "a/x/b/x"},
      {"no-token", "x", "no-token"},
      {"%%s", "x", "%x"},
      {"%s", "%s", "%s"},  // no re-expansion
      {"", "x", ""},
  };
  for (const Case& c : kCases) {
    SCOPED_TRACE(c.tmpl);
    EXPECT_EQ(ExpandPercentS(c.tmpl, c.replacement), c.want);
  }
}

TEST(NameTemplateTest, IsXdstpName) {
  // A47: "starts with xdstp:".
  EXPECT_TRUE(IsXdstpName("xdstp://a/t/x"));
  EXPECT_TRUE(IsXdstpName("xdstp:"));
  EXPECT_FALSE(IsXdstpName("XDSTP://a/t/x"));
  EXPECT_FALSE(IsXdstpName("xdstp"));
  EXPECT_FALSE(IsXdstpName("server.example.com"));
}

// The A47 worked examples: a channel target or a server's listening address
// and the template the bootstrap gives -> the Listener resource name.
TEST(NameTemplateTest, A47WorkedExamples) {
  struct Case {
    const char* section;
    const char* tmpl;
    const char* input;  // xds: target, or ip:port for a server
    bool server;
    const char* want;
  };
  const Case kCases[] = {
      {"A47 §Example: Bootstrap Config Contains No New Fields (client)", "%s",
       "xds:server.example.com", false, "server.example.com"},
      {"A47 §Example: Bootstrap Config Contains No New Fields (server)",
       "grpc/server?xds.resource.listening_address=%s", "0.0.0.0:8080", true,
       "grpc/server?xds.resource.listening_address=0.0.0.0:8080"},
      {"A47 §Example: New-Style Names on gRPC Client (default template)",
       "xdstp://xds.authority.com/envoy.config.listener.v3.Listener/%s",
       "xds:server.example.com", false,
       "xdstp://xds.authority.com/envoy.config.listener.v3.Listener/"
       "server.example.com"},
      {"A47 §Example: New-Style Names on gRPC Client (authority default)",
       "xdstp://xds.authority.com/envoy.config.listener.v3.Listener/%s",
       "xds://xds.authority.com/server.example.com", false,
       "xdstp://xds.authority.com/envoy.config.listener.v3.Listener/"
       "server.example.com"},
      {"A47 §Example: New-Style Names on gRPC Server",
       "xdstp://xds.authority.com/envoy.config.listener.v3.Listener/grpc/"
       "server/%s",
       "0.0.0.0:8080", true,
       "xdstp://xds.authority.com/envoy.config.listener.v3.Listener/grpc/"
       "server/0.0.0.0:8080"},
      {"A47 §Example: Multiple Authorities (xds:server.example.com)",
       "xdstp://xds.authority.com/envoy.config.listener.v3.Listener/grpc/"
       "client/%s?project_id=1234",
       "xds:server.example.com", false,
       "xdstp://xds.authority.com/envoy.config.listener.v3.Listener/grpc/"
       "client/server.example.com?project_id=1234"},
      {"A47 §Example: Multiple Authorities (xds://xds.authority.com/...)",
       "xdstp://xds.authority.com/envoy.config.listener.v3.Listener/grpc/"
       "client/%s?project_id=1234",
       "xds://xds.authority.com/server.example.com", false,
       "xdstp://xds.authority.com/envoy.config.listener.v3.Listener/grpc/"
       "client/server.example.com?project_id=1234"},
      {"A47 §Example: Multiple Authorities (xds://xds.other.com/...)",
       "xdstp://xds.other.com/envoy.config.listener.v3.Listener/%s",
       "xds://xds.other.com/server.other.com", false,
       "xdstp://xds.other.com/envoy.config.listener.v3.Listener/"
       "server.other.com"},
      {"A47 §Example: Multiple Authorities (server)",
       "xdstp://xds.authority.com/envoy.config.listener.v3.Listener/grpc/"
       "server/%s?project_id=1234",
       "0.0.0.0:8080", true,
       "xdstp://xds.authority.com/envoy.config.listener.v3.Listener/grpc/"
       "server/0.0.0.0:8080?project_id=1234"},
      // A47 §xds Resolver Changes: the replacement is percent-encoded only
      // for xdstp: templates; '/' stays (path class).
      {"A47 §xds Resolver Changes (xdstp, encoded)",
       "xdstp://a.com/envoy.config.listener.v3.Listener/%s",
       "xds:///my%20svc/v1", false,
       "xdstp://a.com/envoy.config.listener.v3.Listener/my%20svc/v1"},
      {"A47 §xds Resolver Changes (old-style, verbatim)", "%s",
       "xds:///my%20svc/v1", false, "my svc/v1"},
      // A47 §xDS-Enabled gRPC Server Changes: IPv6 brackets are encoded.
      {"A47 §xDS-Enabled gRPC Server Changes (IPv6)",
       "xdstp://a.com/envoy.config.listener.v3.Listener/grpc/server/%s",
       "[::]:8080", true,
       "xdstp://a.com/envoy.config.listener.v3.Listener/grpc/server/"
       "%5B::%5D:8080"},
      {"A36 (IPv6, old-style)", "grpc/server?xds.resource.listening_address=%s",
       "[::]:8080", true,
       "grpc/server?xds.resource.listening_address=[::]:8080"},
  };
  for (const Case& c : kCases) {
    SCOPED_TRACE(c.section);
    std::string replacement;
    if (c.server) {
      replacement = FormatListeningAddress(c.input).value();
    } else {
      replacement = ParseXdsTarget(c.input).value().hostname;
    }
    const std::string name = ExpandListenerTemplate(c.tmpl, replacement);
    EXPECT_EQ(name, c.want);
    // Issue 3 §5: expanded names parse back, already canonical.
    auto normalized = NormalizeResourceName(name, /*federation=*/true);
    ASSERT_TRUE(normalized.ok()) << normalized.status();
    EXPECT_EQ(*normalized, c.want);
    if (IsXdstpName(name)) {
      auto parsed = ResourceName::Parse(name, true);
      EXPECT_EQ(parsed->type, "envoy.config.listener.v3.Listener");
      EXPECT_TRUE(absl::EndsWith(parsed->id, replacement) ||
                  parsed->id == replacement);
    }
  }
}

}  // namespace
}  // namespace xdsfed
