// Tests for lib/name/xds_target.h: xds: targets (A47 §gRPC Client Target URI
// Syntax) and listening addresses (A47 §xDS-Enabled gRPC Server Changes).
#include "lib/name/xds_target.h"

#include <optional>
#include <string>

#include "gtest/gtest.h"

namespace xdsfed {
namespace {

TEST(XdsTargetTest, Parse) {
  struct Case {
    const char* in;
    std::optional<std::string> authority;
    const char* hostname;
    const char* data_plane_authority;
  };
  const Case kCases[] = {
      // A47 worked examples.
      {"xds:server.example.com", std::nullopt, "server.example.com",
       "server.example.com"},
      {"xds://xds.authority.com/server.example.com", "xds.authority.com",
       "server.example.com", "server.example.com"},
      {"xds://xds.other.com/server.other.com", "xds.other.com",
       "server.other.com", "server.other.com"},
      // gRPC C-core: an empty authority is no authority.
      {"xds:///server.example.com", std::nullopt, "server.example.com",
       "server.example.com"},
      // A47 §gRPC Client Target URI Syntax (latest revision): the data-plane
      // authority is the path minus its leading '/', other '/' encoded.
      {"xds://a.com/grpc/client/svc", "a.com", "grpc/client/svc",
       "grpc%2Fclient%2Fsvc"},
      {"xds:a/b", std::nullopt, "a/b", "a%2Fb"},
      // Components are decoded; the data-plane authority is re-encoded.
      {"xds://a%2Eb/my%20svc", "a.b", "my svc", "my%20svc"},
      {"XDS:svc:443", std::nullopt, "svc:443", "svc:443"},
      // Issue 14 §1: what gRPC C-core accepts. Authority and path are not
      // policed; a '%' without two hex digits is a literal '%'.
      {"xds:///[fe80::1]:443", std::nullopt, "[fe80::1]:443", "[fe80::1]:443"},
      {"xds:///[::1]:8080", std::nullopt, "[::1]:8080", "[::1]:8080"},
      {"xds:///svc name", std::nullopt, "svc name", "svc%20name"},
      {"xds:///50%off", std::nullopt, "50%off", "50%25off"},
      {"xds:///a%zz", std::nullopt, "a%zz", "a%25zz"},
      {"xds:///a%", std::nullopt, "a%", "a%25"},
      {"xds://a b/c", "a b", "c", "c"},
      {"xds://x%2Fy/svc", "x/y", "svc", "svc"},
      {"xds:///%5B::1%5D:80", std::nullopt, "[::1]:80", "[::1]:80"},
      {"xds:///svc?x=1#f", std::nullopt, "svc", "svc"},
  };
  for (const Case& c : kCases) {
    SCOPED_TRACE(c.in);
    auto t = ParseXdsTarget(c.in);
    ASSERT_TRUE(t.ok()) << t.status();
    EXPECT_EQ(t->authority, c.authority);
    EXPECT_EQ(t->hostname, c.hostname);
    EXPECT_EQ(t->data_plane_authority, c.data_plane_authority);
  }
}

TEST(XdsTargetTest, Errors) {
  struct Case {
    const char* in;
    const char* error;
  };
  const Case kCases[] = {
      {"dns:///server.example.com",
       "invalid xds target: scheme is \"dns\"; expected \"xds\""},
      {"server.example.com",
       "invalid xds target: invalid uri: missing scheme; expected scheme "
       "\":\" ..."},
      // Issue 3 §1 / gRPC C-core IsValidUri: empty data-plane authority.
      {"xds://a.com/",
       "invalid xds target: empty data-plane authority; expected a "
       "non-empty path, e.g. xds:///server.example.com"},
      {"xds:",
       "invalid xds target: empty data-plane authority; expected a "
       "non-empty path, e.g. xds:///server.example.com"},
      {"xds://a.com",
       "invalid xds target: empty data-plane authority; expected a "
       "non-empty path, e.g. xds:///server.example.com"},
      // gRPC C-core's IsValidUri: a path ending in '/' (also once decoded).
      {"xds:///svc/",
       "invalid xds target: path ends with '/', which leaves no data-plane "
       "authority (gRPC refuses it too); expected e.g. "
       "xds:///server.example.com"},
      {"xds:///svc%2f",
       "invalid xds target: path ends with '/', which leaves no data-plane "
       "authority (gRPC refuses it too); expected e.g. "
       "xds:///server.example.com"},
      // gRPC C-core's URI parser checks the query and the fragment.
      {"xds:///svc?",
       "invalid xds target: invalid uri: empty query at offset 11; expected "
       "text after '?'"},
      {"xds:///svc?a b",
       "invalid xds target: invalid uri: byte 0x20 at offset 12 not allowed "
       "in query; expected RFC 3986 query characters or '%'"},
  };
  for (const Case& c : kCases) {
    SCOPED_TRACE(c.in);
    EXPECT_EQ(ParseXdsTarget(c.in).status().message(), c.error);
  }
}

TEST(XdsTargetTest, ListeningAddress) {
  struct Case {
    const char* in;
    const char* want;  // canonical, or the full error
    bool ok;
  };
  constexpr char kV4[] =
      "invalid listening address: expected an IPv4 dotted quad (or IPv6 in "
      "brackets), e.g. 0.0.0.0:8080";
  constexpr char kV6[] =
      "invalid listening address: expected an IPv6 address inside [], e.g. "
      "[::1]:8080";
  constexpr char kPort[] =
      "invalid listening address: port must be a decimal number from 0 to "
      "65535";
  const Case kCases[] = {
      // A47 §Example: New-Style Names on gRPC Server.
      {"0.0.0.0:8080", "0.0.0.0:8080", true},
      {"127.0.0.1:0", "127.0.0.1:0", true},
      {"255.255.255.255:65535", "255.255.255.255:65535", true},
      {"10.0.0.1:00080", "10.0.0.1:80", true},
      // IPv6 (RFC 4291 §2.2 in, RFC 5952 out).
      {"[::]:8080", "[::]:8080", true},
      {"[::1]:443", "[::1]:443", true},
      {"[2001:DB8:0:0:0:0:0:1]:80", "[2001:db8::1]:80", true},
      {"[2001:db8:0:0:1:0:0:1]:80", "[2001:db8::1:0:0:1]:80", true},
      {"[2001:0db8:0000:0001:0001:0001:0001:0001]:1",
       "[2001:db8:0:1:1:1:1:1]:1", true},
      {"[fe80::]:1", "[fe80::]:1", true},
      {"[::ffff:10.0.0.1]:80", "[::ffff:10.0.0.1]:80", true},
      {"[::ffff:a00:1]:80", "[::ffff:10.0.0.1]:80", true},
      {"[1:2:3:4:5:6:7::]:80", "[1:2:3:4:5:6:7:0]:80", true},
      // Errors.
      {"0.0.0.0", "invalid listening address: expected ip:port", false},
      {"0.0.0.0:", kPort, false},
      {"0.0.0.0:65536", kPort, false},
      {"0.0.0.0:-1", kPort, false},
      {"0.0.0.0:123456", kPort, false},
      {"0.0.0.256:80", kV4, false},
      {"01.0.0.1:80", kV4, false},
      {"1.2.3:80", kV4, false},
      {"localhost:80", kV4, false},
      {"::1:80", kV4, false},
      {":80", kV4, false},
      {"[::1]", "invalid listening address: expected \":port\" after \"]\"",
       false},
      {"[::1:80", "invalid listening address: missing ']' after IPv6 address",
       false},
      {"[1:2:3:4:5:6:7:8:9]:80", kV6, false},
      {"[1::2::3]:80", kV6, false},
      {"[12345::]:80", kV6, false},
      {"[:1]:80", kV6, false},
      {"[1:]:80", kV6, false},
      {"[fe80::1%eth0]:80", kV6, false},
      {"[1:2:3:4:5:6:7:8::]:80", kV6, false},
      {"[]:80", kV6, false},
  };
  for (const Case& c : kCases) {
    SCOPED_TRACE(c.in);
    auto got = FormatListeningAddress(c.in);
    if (c.ok) {
      EXPECT_EQ(got.value(), c.want);
    } else {
      EXPECT_EQ(got.status().message(), c.want);
    }
  }
}

}  // namespace
}  // namespace xdsfed
