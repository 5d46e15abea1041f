// Tests for lib/name/uri.h: RFC 3986 component split and validation.
#include "lib/name/uri.h"

#include <string>

#include "gtest/gtest.h"

namespace xdsfed {
namespace {

TEST(UriTest, Components) {
  struct Case {
    const char* in;
    Uri want;
  };
  const Case kCases[] = {
      // A47 §gRPC Client Target URI Syntax: targets with and without an
      // authority.
      {"xds:server.example.com",
       {"xds", false, "", "server.example.com", false, "", false, ""}},
      {"xds:///server.example.com",
       {"xds", true, "", "/server.example.com", false, "", false, ""}},
      {"xds://xds.authority.com/server.example.com",
       {"xds", true, "xds.authority.com", "/server.example.com", false, "",
        false, ""}},
      // TP1 §URI-based xDS resource names: all five components.
      {"xdstp://a/t/x?k=v&b#alt",
       {"xdstp", true, "a", "/t/x", true, "k=v&b", true, "alt"}},
      {"XdS://A/%7e?#", {"xds", true, "A", "/%7e", true, "", true, ""}},
      {"a+b-c.d:", {"a+b-c.d", false, "", "", false, "", false, ""}},
      {"s://u@[::1]:80", {"s", true, "u@[::1]:80", "", false, "", false, ""}},
      {"s:a?b?c/d#e?f/", {"s", false, "", "a", true, "b?c/d", true, "e?f/"}},
  };
  for (const Case& c : kCases) {
    SCOPED_TRACE(c.in);
    auto uri = ParseUri(c.in);
    ASSERT_TRUE(uri.ok()) << uri.status();
    EXPECT_EQ(*uri, c.want);
    EXPECT_EQ(ParseUri(uri->ToString()).value(), *uri);
  }
}

TEST(UriTest, Errors) {
  struct Case {
    std::string in;
    const char* error;
  };
  const Case kCases[] = {
      // RFC 3986 §3.1 scheme.
      {"server.example.com",
       "invalid uri: missing scheme; expected scheme "
       "\":\" ..."},
      {":x", "invalid uri: missing scheme; expected scheme \":\" ..."},
      {"1x:y", "invalid uri: scheme must start with a letter"},
      {"x_y:z",
       "invalid uri: byte 0x5f at offset 1 not allowed in scheme; "
       "expected letters, digits, '+', '-', '.'"},
      // RFC 3986 §3.2-3.5 component classes; issue 3 §Bad input.
      {"xds://a b/c",
       "invalid uri: byte 0x20 at offset 7 not allowed in "
       "authority; expected RFC 3986 authority characters or "
       "%XX"},
      {"xds:/a\"b",
       "invalid uri: byte 0x22 at offset 6 not allowed in path; "
       "expected RFC 3986 path characters or %XX"},
      {std::string("xds:a\0", 6),
       "invalid uri: byte 0x00 at offset 5 not "
       "allowed in path; expected RFC 3986 path "
       "characters or %XX"},
      {"xds:a?\xff",
       "invalid uri: byte 0xff at offset 6 not allowed in "
       "query; expected RFC 3986 query characters or %XX"},
      {"xds:a#b#",
       "invalid uri: byte 0x23 at offset 7 not allowed in "
       "fragment; expected RFC 3986 fragment characters or %XX"},
      {"xds:a%zz",
       "invalid uri: invalid percent-encoding at offset 5: "
       "expected two hex digits after '%'"},
      {"xds:a%",
       "invalid uri: invalid percent-encoding at offset 5: "
       "expected two hex digits after '%'"},
  };
  for (const Case& c : kCases) {
    SCOPED_TRACE(c.in);
    EXPECT_EQ(ParseUri(c.in).status().message(), c.error);
  }
}

// Issue 14 §1: channel targets parse as gRPC C-core's URI::Parse takes them:
// authority and path unchecked, query non-empty, query and fragment of query
// characters and '%'.
TEST(UriTest, TargetUriComponents) {
  struct Case {
    std::string in;
    Uri want;
  };
  const Case kCases[] = {
      {"xds:///[fe80::1]:443",
       {"xds", true, "", "/[fe80::1]:443", false, "", false, ""}},
      {"xds:///svc name", {"xds", true, "", "/svc name", false, "", false, ""}},
      {"xds:///50%off", {"xds", true, "", "/50%off", false, "", false, ""}},
      {"xds://a b/c\"d", {"xds", true, "a b", "/c\"d", false, "", false, ""}},
      {std::string("xds:a\0\xff", 7),
       {"xds", false, "", std::string("a\0\xff", 3), false, "", false, ""}},
      {"xds:a?b%zz#c%", {"xds", false, "", "a", true, "b%zz", true, "c%"}},
      {"xds:a#", {"xds", false, "", "a", false, "", true, ""}},
  };
  for (const Case& c : kCases) {
    SCOPED_TRACE(c.in);
    auto uri = ParseTargetUri(c.in);
    ASSERT_TRUE(uri.ok()) << uri.status();
    EXPECT_EQ(*uri, c.want);
    EXPECT_EQ(ParseTargetUri(uri->ToString()).value(), *uri);
  }
}

TEST(UriTest, TargetUriErrors) {
  struct Case {
    const char* in;
    const char* error;
  };
  const Case kCases[] = {
      {"svc", "invalid uri: missing scheme; expected scheme \":\" ..."},
      {"1x:y", "invalid uri: scheme must start with a letter"},
      {"xds:a?",
       "invalid uri: empty query at offset 6; expected text after '?'"},
      {"xds:a?b c",
       "invalid uri: byte 0x20 at offset 7 not allowed in query; expected "
       "RFC 3986 query characters or '%'"},
      {"xds:a#b#",
       "invalid uri: byte 0x23 at offset 7 not allowed in fragment; expected "
       "RFC 3986 fragment characters or '%'"},
  };
  for (const Case& c : kCases) {
    SCOPED_TRACE(c.in);
    EXPECT_EQ(ParseTargetUri(c.in).status().message(), c.error);
  }
}

}  // namespace
}  // namespace xdsfed
