// Tests for lib/name/percent_encoding.h: every RFC 3986 character class, for
// every byte value.
#include "lib/name/percent_encoding.h"

#include <string>

#include "absl/strings/str_format.h"
#include "gtest/gtest.h"

namespace xdsfed {
namespace {

// RFC 3986 §2.3 unreserved, §2.2 sub-delims, §3.2 authority, §3.3 path
// (as A47 §Bootstrap Config Changes requires), §3.4 query, as sets of bytes.
constexpr char kUnreserved[] =
    "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-._~";
constexpr char kSubDelims[] = "!$&'()*+,;=";

struct ClassCase {
  const char* name;
  std::string allowed;  // bytes kept as they are
  std::string (*encode)(absl::string_view);
};

TEST(PercentEncodingTest, EveryByteOfEveryClass) {
  const std::string unreserved_sub = std::string(kUnreserved) + kSubDelims;
  const ClassCase kCases[] = {
      // RFC 3986 §3.3 / A47 pseudocode PercentEncodePath: pchar + '/'.
      {"path", unreserved_sub + ":@/", PercentEncodePath},
      // RFC 3986 §3.2 / A47 pseudocode PercentEncodeAuthority.
      {"authority", unreserved_sub + ":@[]", PercentEncodeAuthority},
      // RFC 3986 §3.4 minus the param separators '&' '=' (gRPC C-core).
      {"query", std::string(kUnreserved) + "!$'()*+,;" + ":@/?",
       PercentEncodeQuery},
  };
  for (const ClassCase& c : kCases) {
    for (int b = 0; b < 256; ++b) {
      SCOPED_TRACE(absl::StrFormat("%s byte 0x%02x", c.name, b));
      const std::string in(1, static_cast<char>(b));
      const bool kept =
          c.allowed.find(static_cast<char>(b)) != std::string::npos;
      const std::string want =
          kept ? in : absl::StrFormat("%%%02X", b);  // upper-case hex
      EXPECT_EQ(c.encode(in), want);
      EXPECT_EQ(PercentDecode(want).value(), in);
    }
  }
}

TEST(PercentEncodingTest, Predicates) {
  for (int b = 0; b < 256; ++b) {
    const char c = static_cast<char>(b);
    SCOPED_TRACE(b);
    const bool unreserved =
        b != 0 && std::string(kUnreserved).find(c) != std::string::npos;
    const bool sub =
        b != 0 && std::string(kSubDelims).find(c) != std::string::npos;
    EXPECT_EQ(IsUnreservedChar(c), unreserved);
    EXPECT_EQ(IsSubDelimChar(c), sub);
    EXPECT_EQ(IsPathChar(c),
              unreserved || sub || c == ':' || c == '@' || c == '/');
    EXPECT_EQ(IsAuthorityChar(c), unreserved || sub || c == ':' || c == '@' ||
                                      c == '[' || c == ']');
    EXPECT_EQ(IsQueryChar(c), unreserved || sub || c == ':' || c == '@' ||
                                  c == '/' || c == '?');
  }
}

TEST(PercentEncodingTest, Examples) {
  // A47 §Example: New-Style Names on gRPC Server (':' stays in a path).
  EXPECT_EQ(PercentEncodePath("0.0.0.0:8080"), "0.0.0.0:8080");
  EXPECT_EQ(PercentEncodePath("[::1]:8080"), "%5B::1%5D:8080");
  EXPECT_EQ(PercentEncodePath("grpc/server?x y#"), "grpc/server%3Fx%20y%23");
  EXPECT_EQ(PercentEncodeAuthority("a b/c"), "a%20b%2Fc");
  EXPECT_EQ(PercentEncodeQuery("a=b&c d"), "a%3Db%26c%20d");
  EXPECT_EQ(PercentEncodePath(""), "");
}

TEST(PercentEncodingTest, Decode) {
  struct Case {
    std::string in, want;  // want: decoded, or the full error
    bool ok;
  };
  const Case kCases[] = {
      // RFC 3986 §2.1: hex digits in either case.
      {"a%2fb%2F", "a/b/", true},
      {"%00%ff", std::string("\0\xff", 2), true},
      {"%41%7e", "A~", true},
      {"100%25", "100%", true},
      {"", "", true},
      {"plain+text", "plain+text", true},  // '+' is not a space
      // Issue 3 §Bad input.
      {"%zz",
       "invalid percent-encoding at offset 0: expected two hex digits "
       "after '%'",
       false},
      {"ab%",
       "invalid percent-encoding at offset 2: expected two hex digits "
       "after '%'",
       false},
      {"ab%4",
       "invalid percent-encoding at offset 2: expected two hex "
       "digits after '%'",
       false},
      {"%4g",
       "invalid percent-encoding at offset 0: expected two hex digits "
       "after '%'",
       false},
  };
  for (const Case& c : kCases) {
    SCOPED_TRACE(c.in);
    auto got = PercentDecode(c.in);
    if (c.ok) {
      EXPECT_EQ(got.value(), c.want);
    } else {
      EXPECT_EQ(got.status().message(), c.want);
    }
  }
}

// gRPC C-core's URI::PercentDecode (issue 14 §1): valid triplets decoded,
// anything else kept verbatim, never an error.
TEST(PercentEncodingTest, DecodeLenient) {
  struct Case {
    const char* in;
    const char* want;
  };
  const Case kCases[] = {
      {"", ""},
      {"a%2fb%2F", "a/b/"},
      {"%5Bfe80::1%5d:443", "[fe80::1]:443"},
      {"50%off", "50%off"},
      {"%zz", "%zz"},
      {"ab%", "ab%"},
      {"ab%4", "ab%4"},
      {"%4g%41", "%4gA"},
      {"%%41", "%A"},
      {"100%", "100%"},
  };
  for (const Case& c : kCases) {
    SCOPED_TRACE(c.in);
    EXPECT_EQ(PercentDecodeLenient(c.in), c.want);
  }
}

}  // namespace
}  // namespace xdsfed
