// SAN checks of endpoint connections (gRFC A29 §Server Authorization), a
// table; each row names the rule it comes from. C-core references:
// xds_credentials.cc XdsVerifySubjectAlternativeNames and tls_utils.cc
// VerifySubjectAlternativeName (DNS rules of `exact`).
#include "lib/channel/san_matcher.h"

#include <string>
#include <vector>

#include "gtest/gtest.h"
#include "lib/resources/safe_regex.h"

namespace xdsfed::channel {
namespace {

using resources::StringMatch;
using Type = StringMatch::Type;

StringMatch M(Type type, std::string value, bool ignore_case = false) {
  StringMatch m;
  m.type = type;
  m.value = std::move(value);
  m.case_sensitive = !ignore_case;
  if (type == Type::kSafeRegex) {
    auto re = resources::CompileSafeRegex(m.value, true);
    EXPECT_TRUE(re.ok());
    if (re.ok()) m.regex = *re;
  }
  return m;
}

TEST(SanMatcher, Table) {
  struct Case {
    const char* source;
    std::vector<StringMatch> matchers;
    PeerSans sans;
    bool want;
  };
  const Case cases[] = {
      {"A29: no matcher: any certificate passes", {}, {}, true},
      {"A29: matchers but no SAN: fails",
       {M(Type::kExact, "a.test")},
       {},
       false},
      {"A29: exact DNS", {M(Type::kExact, "a.test")}, {{"a.test"}}, true},
      {"C-core VerifySubjectAlternativeName: DNS exact is case-insensitive",
       {M(Type::kExact, "A.Test")},
       {{"a.test"}},
       true},
      {"C-core: trailing dots are ignored on both sides",
       {M(Type::kExact, "a.test.")},
       {{"a.test"}},
       true},
      {"A29 / Envoy StringMatcher.exact: a DNS wildcard covers one label",
       {M(Type::kExact, "x.a.test")},
       {{"*.a.test"}},
       true},
      {"C-core: the wildcard never spans labels",
       {M(Type::kExact, "y.x.a.test")},
       {{"*.a.test"}},
       false},
      {"C-core: the wildcard must be the whole left-most label",
       {M(Type::kExact, "xy.a.test")},
       {{"x*.a.test"}},
       false},
      {"C-core: no wildcard for a single-label name",
       {M(Type::kExact, "test")},
       {{"*."}},
       false},
      {"C-core: a SAN starting with a dot is illegal",
       {M(Type::kExact, "a.test")},
       {{".a.test"}},
       false},
      {"A29: an empty SAN matches nothing",
       {M(Type::kPrefix, "")},
       {{""}},
       false},
      {"A29: URI SAN by prefix",
       {M(Type::kPrefix, "spiffe://mesh/")},
       {{}, {"spiffe://mesh/ns/a/sa/b"}},
       true},
      {"xdsfed: exact on a URI is a plain, case-sensitive comparison",
       {M(Type::kExact, "spiffe://Mesh/x")},
       {{}, {"spiffe://mesh/x"}},
       false},
      {"StringMatcher ignore_case on a URI prefix",
       {M(Type::kPrefix, "SPIFFE://", /*ignore_case=*/true)},
       {{}, {"spiffe://mesh/x"}},
       true},
      {"A29: suffix on an email SAN",
       {M(Type::kSuffix, "@example.com")},
       {{}, {}, {"ops@example.com"}},
       true},
      {"A29: contains",
       {M(Type::kContains, "/ns/prod/")},
       {{}, {"spiffe://mesh/ns/prod/sa/x"}},
       true},
      {"A29: safe_regex is a full match",
       {M(Type::kSafeRegex, "spiffe://mesh/ns/[a-z]+/sa/x")},
       {{}, {"spiffe://mesh/ns/prod/sa/x"}},
       true},
      {"A29: safe_regex partial match fails",
       {M(Type::kSafeRegex, "ns/prod")},
       {{}, {"spiffe://mesh/ns/prod/sa/x"}},
       false},
      {"A29: IPv6 SAN in canonical form (RFC 5952)",
       {M(Type::kExact, "2001:db8::1")},
       {{}, {}, {}, {"2001:DB8:0::01"}},
       true},
      {"A29: IPv4 SAN",
       {M(Type::kExact, "127.0.0.1")},
       {{}, {}, {}, {"127.0.0.1"}},
       true},
      {"A29: one match among several SANs and matchers is enough",
       {M(Type::kExact, "b.test"), M(Type::kSuffix, ".svc")},
       {{"a.test", "x.svc"}},
       true},
      {"A29: none of several matches",
       {M(Type::kExact, "b.test"), M(Type::kSuffix, ".svc")},
       {{"a.test"}, {"spiffe://x"}},
       false},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.source);
    EXPECT_EQ(SansMatch(c.matchers, c.sans), c.want);
  }
}

TEST(SanMatcher, MismatchNamesTheSansAndTheMatchers) {
  PeerSans sans;
  sans.dns = {"a.test"};
  sans.uri = {"spiffe://mesh/x"};
  EXPECT_EQ(DescribeSanMismatch({M(Type::kExact, "b.test"),
                                 M(Type::kPrefix, "spiffe://other/", true)},
                                sans),
            "the server's certificate presents [URI:\"spiffe://mesh/x\", "
            "DNS:\"a.test\"], none matches match_subject_alt_names "
            "[exact:\"b.test\", prefix(ignore_case):\"spiffe://other/\"]");
  EXPECT_EQ(DescribeSans(PeerSans()), "no SAN");
}

}  // namespace
}  // namespace xdsfed::channel
