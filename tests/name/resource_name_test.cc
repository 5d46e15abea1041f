// Tests for lib/name/resource_name.h: old-style vs new-style names under the
// federation gate, canonical form, components, cache keys and bad input.
#include "lib/name/resource_name.h"

#include <string>

#include "absl/hash/hash_testing.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace xdsfed {
namespace {

constexpr char kLds2Param[] =
    "xdstp://xds.example.com/envoy.config.listener.v3.Listener/grpc/server/"
    "svc?zone=us-east1-b&project_id=1234";

struct NormalizeCase {
  std::string in;
  bool federation;
  std::string want;  // canonical form, or the full error message
  bool ok = true;
};

// Gate on, well-formed names: the canonical string.
const NormalizeCase kNormalizeCases[] = {
    // A47 §Resource Cache: old-style names are whole, opaque strings.
    {"server.example.com", true, "server.example.com"},
    {"", true, ""},
    // A47 §Temporary environment variable protection: gate off, every name
    // is old-style, even malformed xdstp ones.
    {kLds2Param, false, kLds2Param},
    {"xdstp://a/t/%zz?", false, "xdstp://a/t/%zz?"},
    // gRPC C-core: the "xdstp:" prefix is matched case-sensitively.
    {"XDSTP://a/t/x?b=1&a=2", true, "XDSTP://a/t/x?b=1&a=2"},
    // A47 §Resource Cache: context params sorted lexicographically.
    {kLds2Param, true,
     "xdstp://xds.example.com/envoy.config.listener.v3.Listener/grpc/server/"
     "svc?project_id=1234&zone=us-east1-b"},
    {"xdstp://a/t/x?c=3&b=2&a=1", true, "xdstp://a/t/x?a=1&b=2&c=3"},
    // A47 §Resource Cache: duplicate param, last value wins.
    {"xdstp://a/t/x?a=1&b=2&a=3", true, "xdstp://a/t/x?a=3&b=2"},
    // gRPC C-core URI::Parse: a piece without '=' has an empty value, one
    // with an empty key is dropped, a later '=' is part of the value.
    {"xdstp://a/t/x?b&a=", true, "xdstp://a/t/x?a=&b="},
    {"xdstp://a/t/x?=1&a=2", true, "xdstp://a/t/x?a=2"},
    {"xdstp://a/t/x?&&", true, "xdstp://a/t/x"},
    {"xdstp://a/t/x?a=b=c", true, "xdstp://a/t/x?a=b%3Dc"},
    // Sorting is by decoded key: 'A' (0x41) < '[' (0x5B).
    {"xdstp://a/t/x?%5b=1&A=2", true, "xdstp://a/t/x?A=2&%5B=1"},
    {"xdstp://a/t/x?a%20b=1&a+=2", true, "xdstp://a/t/x?a%20b=1&a+=2"},
    // Issue 3 §1 / RFC 3986 §6.2.2: unreserved escapes decoded, others
    // upper-case, in every component.
    {"xdstp://a%2eb/t/%7Efoo%2d?k%5f=v%7e", true, "xdstp://a.b/t/~foo-?k_=v~"},
    {"xdstp://a/t/x%5b%5D%2a%3a%40", true, "xdstp://a/t/x%5B%5D*:@"},
    {"xdstp://a%2fb%5b/t/x", true, "xdstp://a%2Fb[/t/x"},
    {"xdstp://a/t/x?k=a%26b%3dc%2F%3F", true, "xdstp://a/t/x?k=a%26b%3Dc/?"},
    {"xdstp://a/envoy%2Econfig.listener.v3.Listener/x", true,
     "xdstp://a/envoy.config.listener.v3.Listener/x"},
    // The issue's rds_3param_pct name: gRPC C-core decodes the whole path
    // before splitting, so "%2F" in the id is a '/'.
    {"xdstp://xds.authority.com/envoy.config.route.v3.RouteConfiguration/"
     "grpc%2Fserver/route%20config?zone=us-central1-a&project_id=1234&"
     "node.cluster=prod%2Fcell-7",
     true,
     "xdstp://xds.authority.com/envoy.config.route.v3.RouteConfiguration/"
     "grpc/server/route%20config?node.cluster=prod/cell-7&project_id=1234&"
     "zone=us-central1-a"},
    {"xdstp://a/t%2Fx/y", true, "xdstp://a/t/x/y"},
    // TP1 §URI-based xDS resource names: id may contain '/', also empty
    // segments.
    {"xdstp://a/t/x//y/", true, "xdstp://a/t/x//y/"},
    // A47 §Resource Cache: no authority = empty authority; C-core accepts
    // "xdstp:t/x" (no "//") as the same name.
    {"xdstp:///t/x", true, "xdstp:///t/x"},
    {"xdstp:/t/x", true, "xdstp:///t/x"},
    {"xdstp:t/x", true, "xdstp:///t/x"},
    // gRPC C-core: an empty id is allowed ("xdstp://a/t" == "xdstp://a/t/").
    {"xdstp://a/t", true, "xdstp://a/t/"},
    {"xdstp://a/t/", true, "xdstp://a/t/"},
    {"xdstp://a/t?k=v", true, "xdstp://a/t/?k=v"},
    // TP1: processing directives (fragment) are not part of identity.
    {"xdstp://a/t/x?b=1&a=2#alt=xdstp://b/t/x,entry=y", true,
     "xdstp://a/t/x?a=2&b=1"},
    {"xdstp://a/t/x#", true, "xdstp://a/t/x"},
    {"xdstp://user@a:8080/t/x", true, "xdstp://user@a:8080/t/x"},
};

// Gate on, malformed names: the full error.
const NormalizeCase kErrorCases[] = {
    // TP1 §URI-based xDS resource names: the resource type is required.
    {"xdstp://a", true,
     "invalid xdstp name: missing resource type; expected "
     "xdstp://[authority]/type/id",
     false},
    {"xdstp://a/", true,
     "invalid xdstp name: missing resource type; expected "
     "xdstp://[authority]/type/id",
     false},
    {"xdstp:", true,
     "invalid xdstp name: missing resource type; expected "
     "xdstp://[authority]/type/id",
     false},
    {"xdstp://a//x", true,
     "invalid xdstp name: missing resource type; expected "
     "xdstp://[authority]/type/id",
     false},
    // gRPC C-core URI::Parse: "?" with nothing after it is an invalid query.
    {"xdstp://a/t/x?", true,
     "invalid xdstp name: empty query; expected context params after '?'",
     false},
    {"xdstp://a/t/x?#f", true,
     "invalid xdstp name: empty query; expected context params after '?'",
     false},
    // Issue 3 §Bad input: invalid escapes.
    {"xdstp://a/t/%zz", true,
     "invalid xdstp name: invalid percent-encoding at offset 12: expected "
     "two hex digits after '%'",
     false},
    {"xdstp://a/t/x%", true,
     "invalid xdstp name: invalid percent-encoding at offset 13: expected "
     "two hex digits after '%'",
     false},
    {"xdstp://a/t/x%4", true,
     "invalid xdstp name: invalid percent-encoding at offset 13: expected "
     "two hex digits after '%'",
     false},
    {"xdstp://a%g0/t/x", true,
     "invalid xdstp name: invalid percent-encoding at offset 9: expected two "
     "hex digits after '%'",
     false},
    {"xdstp://a/t/x?k=%", true,
     "invalid xdstp name: invalid percent-encoding at offset 16: expected "
     "two hex digits after '%'",
     false},
    {"xdstp://a/t/x#%x1", true,
     "invalid xdstp name: invalid percent-encoding at offset 14: expected "
     "two hex digits after '%'",
     false},
    // Issue 3 §Bad input / RFC 3986: bytes outside a component's class.
    {"xdstp://a b/t/x", true,
     "invalid xdstp name: byte 0x20 at offset 9 not allowed in authority; "
     "expected RFC 3986 authority characters or %XX",
     false},
    {std::string("xdstp://a/t/x\0y", 15), true,
     "invalid xdstp name: byte 0x00 at offset 13 not allowed in path; "
     "expected RFC 3986 path characters or %XX",
     false},
    {"xdstp://a/t/caf\xc3\xa9", true,
     "invalid xdstp name: byte 0xc3 at offset 15 not allowed in path; "
     "expected RFC 3986 path characters or %XX",
     false},
    {"xdstp://a/t x/y", true,
     "invalid xdstp name: byte 0x20 at offset 11 not allowed in path; "
     "expected RFC 3986 path characters or %XX",
     false},
    {"xdstp://a/t/x?a=1[", true,
     "invalid xdstp name: byte 0x5b at offset 17 not allowed in query; "
     "expected RFC 3986 query characters or %XX",
     false},
    {"xdstp://a/t/x#a b", true,
     "invalid xdstp name: byte 0x20 at offset 15 not allowed in fragment; "
     "expected RFC 3986 fragment characters or %XX",
     false},
    {"xdstp://a/t/x#a#b", true,
     "invalid xdstp name: byte 0x23 at offset 15 not allowed in fragment; "
     "expected RFC 3986 fragment characters or %XX",
     false},
};

TEST(NameNormalizerTest, CanonicalForm) {
  NameNormalizer normalizer;
  for (const NormalizeCase& c : kNormalizeCases) {
    SCOPED_TRACE(c.in);
    auto v = normalizer.Normalize(c.in, c.federation);
    ASSERT_TRUE(v.ok()) << v.status();
    EXPECT_EQ(v->normalized, c.want);
    // Idempotent (issue 3 §1).
    const std::string once(v->normalized);
    auto again = normalizer.Normalize(once, c.federation);
    ASSERT_TRUE(again.ok()) << again.status();
    EXPECT_EQ(again->normalized, once);
    // The value type agrees (STYLE §4).
    auto name = ResourceName::Parse(c.in, c.federation);
    ASSERT_TRUE(name.ok()) << name.status();
    EXPECT_EQ(name->ToString(), c.want);
    EXPECT_EQ(NormalizeResourceName(c.in, c.federation).value(), c.want);
  }
}

TEST(NameNormalizerTest, Errors) {
  NameNormalizer normalizer;
  for (const NormalizeCase& c : kErrorCases) {
    SCOPED_TRACE(c.in);
    auto v = normalizer.Normalize(c.in, c.federation);
    ASSERT_FALSE(v.ok());
    EXPECT_EQ(v.status().code(), absl::StatusCode::kInvalidArgument);
    EXPECT_EQ(v.status().message(), c.want);
    EXPECT_EQ(ResourceName::Parse(c.in, c.federation).status(), v.status());
    // A47 §Temporary environment variable protection: gate off, the same
    // bytes are a valid opaque old-style name.
    auto off = normalizer.Normalize(c.in, /*federation=*/false);
    ASSERT_TRUE(off.ok());
    EXPECT_TRUE(off->old_style);
    EXPECT_EQ(off->normalized, c.in);
  }
}

// Issue 3 §1 / TP1 §Normalization: equivalent spellings, same name.
TEST(NameNormalizerTest, EquivalentSpellings) {
  struct Case {
    const char* a;
    const char* b;
  };
  const Case kCases[] = {
      {"xdstp://a/t/x?b=2&a=1", "xdstp://a/t/x?a=1&b=2"},
      {"xdstp://%61/t/x", "xdstp://a/t/x"},
      {"xdstp://a/t/%78", "xdstp://a/t/x"},
      {"xdstp://a/t/x%5b", "xdstp://a/t/x%5B"},
      {"xdstp://a/t/x?a=1&a=2", "xdstp://a/t/x?a=2"},
      {"xdstp://a/t/x#f", "xdstp://a/t/x"},
      {"xdstp:t/x", "xdstp:///t/x"},
      {"xdstp://a/t", "xdstp://a/t/"},
  };
  NameNormalizer n1, n2;
  for (const Case& c : kCases) {
    SCOPED_TRACE(c.a);
    auto a = n1.Normalize(c.a, true);
    auto b = n2.Normalize(c.b, true);
    ASSERT_TRUE(a.ok() && b.ok());
    EXPECT_EQ(a->normalized, b->normalized);
    EXPECT_EQ(a->key, b->key);
    EXPECT_EQ(a->hash, b->hash);
    EXPECT_EQ(ResourceName::Parse(c.a, true).value(),
              ResourceName::Parse(c.b, true).value());
  }
}

// A47 §Resource Cache: authority / type / key split for the cache.
TEST(NameNormalizerTest, ViewParts) {
  struct Case {
    const char* in;
    bool federation;
    bool old_style;
    const char* authority;
    const char* type;
    const char* id;
    const char* key;
  };
  const Case kCases[] = {
      // A47 §Resource Cache example, old-style.
      {"server.example.com", true, true, "", "", "server.example.com",
       "server.example.com"},
      // A47 §Resource Cache example, new-style.
      {"xdstp://xds.authority.com/envoy.config.listener.v3.Listener/"
       "server.example.com?foo=bar",
       true, false, "xds.authority.com", "envoy.config.listener.v3.Listener",
       "server.example.com", "server.example.com?foo=bar"},
      {kLds2Param, true, false, "xds.example.com",
       "envoy.config.listener.v3.Listener", "grpc/server/svc",
       "grpc/server/svc?project_id=1234&zone=us-east1-b"},
      {"xdstp:///t/a/b", true, false, "", "t", "a/b", "a/b"},
      {kLds2Param, false, true, "", "", kLds2Param, kLds2Param},
  };
  NameNormalizer normalizer;
  for (const Case& c : kCases) {
    SCOPED_TRACE(c.in);
    auto v = normalizer.Normalize(c.in, c.federation);
    ASSERT_TRUE(v.ok()) << v.status();
    EXPECT_EQ(v->old_style, c.old_style);
    EXPECT_EQ(v->authority, c.authority);
    EXPECT_EQ(v->type, c.type);
    EXPECT_EQ(v->id, c.id);
    EXPECT_EQ(v->key, c.key);
    EXPECT_EQ(v->hash,
              HashNameParts(v->old_style, v->authority, v->type, v->key));
    EXPECT_EQ(ResourceName::Parse(c.in, c.federation)->Key(), c.key);
  }
}

// A47 §Resource Cache: an old-style name can never collide with a new-style
// one with an empty authority.
TEST(NameNormalizerTest, OldStyleDoesNotCollide) {
  NameNormalizer normalizer;
  auto v1 = normalizer.Normalize("x", true);
  const size_t old_hash = v1->hash;
  auto v2 = normalizer.Normalize("xdstp:///t/x", true);
  EXPECT_NE(old_hash, v2->hash);
  EXPECT_NE(ResourceName::Parse("x", true).value(),
            ResourceName::Parse("xdstp:///t/x", true).value());
}

// A47 §Watcher Changes: a watch states its type; another type is an error.
TEST(NameNormalizerTest, ExpectedType) {
  struct Case {
    const char* in;
    const char* type;
    const char* error;  // "" = ok
  };
  const Case kCases[] = {
      {kLds2Param, "envoy.config.listener.v3.Listener", ""},
      {kLds2Param, "type.googleapis.com/envoy.config.listener.v3.Listener", ""},
      {"xdstp://a/envoy%2Econfig.listener.v3.Listener/x",
       "envoy.config.listener.v3.Listener", ""},
      {kLds2Param, "envoy.config.cluster.v3.Cluster",
       "invalid xdstp name: resource type "
       "\"envoy.config.listener.v3.Listener\" does not match expected type "
       "\"envoy.config.cluster.v3.Cluster\""},
      {"xdstp://a/Listener/x", "envoy.config.listener.v3.Listener",
       "invalid xdstp name: resource type \"Listener\" does not match "
       "expected type \"envoy.config.listener.v3.Listener\""},
      // Old-style names carry no type to check.
      {"server.example.com", "envoy.config.cluster.v3.Cluster", ""},
  };
  NameNormalizer normalizer;
  for (const Case& c : kCases) {
    SCOPED_TRACE(c.in);
    auto v = normalizer.Normalize(c.in, true, c.type);
    if (*c.error == '\0') {
      EXPECT_TRUE(v.ok()) << v.status();
    } else {
      EXPECT_EQ(v.status().message(), c.error);
    }
  }
}

// Issue 3 §4: names of 16 bytes or more without escapes take a fast path
// that must give exactly what the full parse gives (A47 §Resource Cache,
// TP1 normalization). Appending an empty fragment "#" sends a name down the
// full parse without changing its canonical form, so each row compares the
// two, hash and views included, and checks the canonical form.
struct FastCase {
  std::string in;
  std::string want;  // canonical form, or the full error message
  bool ok = true;
};

const FastCase kFastCases[] = {
    // Canonical already (what a control plane echoes back).
    {"xdstp://xds.example.com/envoy.config.listener.v3.Listener/grpc/server/"
     "svc?project_id=1234&zone=us-east1-b",
     "xdstp://xds.example.com/envoy.config.listener.v3.Listener/grpc/server/"
     "svc?project_id=1234&zone=us-east1-b"},
    // A47 §Resource Cache: params sorted.
    {kLds2Param,
     "xdstp://xds.example.com/envoy.config.listener.v3.Listener/grpc/server/"
     "svc?project_id=1234&zone=us-east1-b"},
    {"xdstp://xds.example.com/t/x?c=3&b=2&a=1",
     "xdstp://xds.example.com/t/x?a=1&b=2&c=3"},
    {"xdstp://xds.example.com/t/x?ab=1&a=2",
     "xdstp://xds.example.com/t/x?a=2&ab=1"},
    // RFC 3986 classes: userinfo and port in the authority, sub-delims ':'
    // '@' '~' in the id, '/' and '?' in a value.
    {"xdstp://user@xds.example.com:8080/t/x?b=1&a=2",
     "xdstp://user@xds.example.com:8080/t/x?a=2&b=1"},
    {"xdstp://xds.example.com/t/a:b@c!$'()*+,;=~/d",
     "xdstp://xds.example.com/t/a:b@c!$'()*+,;=~/d"},
    {"xdstp://xds.example.com/t/x?b=a/b?c&a=1",
     "xdstp://xds.example.com/t/x?a=1&b=a/b?c"},
    {"xdstp://XDS.Example.COM/T/X?B=1&A=2",
     "xdstp://XDS.Example.COM/T/X?A=2&B=1"},
    {"xdstp:///envoy.config.listener.v3.Listener/x",
     "xdstp:///envoy.config.listener.v3.Listener/x"},
    {"xdstp://a/t/x?k=", "xdstp://a/t/x?k="},  // 16 bytes
    // Left to the full parse: duplicates (last wins), "k" (means "k="), an
    // empty key (dropped), a second '=' (re-encoded), no id, escapes.
    {"xdstp://xds.example.com/t/x?a=1&b=2&a=3",
     "xdstp://xds.example.com/t/x?a=3&b=2"},
    {"xdstp://xds.example.com/t/x?b&a=1", "xdstp://xds.example.com/t/x?a=1&b="},
    {"xdstp://xds.example.com/t/x?=1&a=2", "xdstp://xds.example.com/t/x?a=2"},
    {"xdstp://xds.example.com/t/x?a=1&", "xdstp://xds.example.com/t/x?a=1"},
    {"xdstp://xds.example.com/t/x?a=b=c",
     "xdstp://xds.example.com/t/x?a=b%3Dc"},
    {"xdstp://xds.example.com/t", "xdstp://xds.example.com/t/"},
    {"xdstp://xds.example.com/t?k=v", "xdstp://xds.example.com/t/?k=v"},
    {"xdstp://xds.example.com/t/%7Ex?k=%41&%5b=1",
     "xdstp://xds.example.com/t/~x?%5B=1&k=A"},
    {"xdstp:xds.example.com/t/x", "xdstp:///xds.example.com/t/x"},
    // Errors: the full parse's message.
    {"xdstp://xds.example.com//x",
     "invalid xdstp name: missing resource type; expected "
     "xdstp://[authority]/type/id",
     false},
    {"xdstp://xds.example.com/t/x?", "", false},
    {"xdstp://xds.example.com/t/x?a=1 ",
     "invalid xdstp name: byte 0x20 at offset 31 not allowed in query; "
     "expected RFC 3986 query characters or %XX",
     false},
    {"xdstp://xds.example.com/t/caf\xc3\xa9",
     "invalid xdstp name: byte 0xc3 at offset 29 not allowed in path; "
     "expected RFC 3986 path characters or %XX",
     false},
    {"xdstp://xds.exa[mple.com/t/x", "", true},  // '[' is an authority char
    {"xdstp://xds.example.com/t[/x",
     "invalid xdstp name: byte 0x5b at offset 25 not allowed in path; "
     "expected RFC 3986 path characters or %XX",
     false},
};

void ExpectSameAsFullParse(absl::string_view in) {
  NameNormalizer fast, full, into;
  auto a = fast.Normalize(in, true);
  auto b = full.Normalize(absl::StrCat(in, "#"), true);
  NormalizedNameView c;
  ASSERT_EQ(into.NormalizeInto(in, true, "", &c), a.ok());
  if (!b.ok() && absl::StrContains(in, "#")) return;
  ASSERT_EQ(a.ok(), b.ok()) << a.status() << " / " << b.status();
  if (!a.ok()) {
    EXPECT_EQ(a.status(), b.status());
    return;
  }
  EXPECT_EQ(a->old_style, b->old_style);
  EXPECT_EQ(a->normalized, b->normalized);
  EXPECT_EQ(a->authority, b->authority);
  EXPECT_EQ(a->type, b->type);
  EXPECT_EQ(a->id, b->id);
  EXPECT_EQ(a->key, b->key);
  EXPECT_EQ(a->hash, b->hash);
  EXPECT_EQ(c.normalized, a->normalized);
  EXPECT_EQ(c.key, a->key);
  EXPECT_EQ(c.hash, a->hash);
  EXPECT_EQ(a->hash, HashNameParts(false, a->authority, a->type, a->key));
}

TEST(NameNormalizerTest, FastPathMatchesFullParse) {
  for (const FastCase& c : kFastCases) {
    SCOPED_TRACE(c.in);
    ExpectSameAsFullParse(c.in);
    NameNormalizer normalizer;
    auto v = normalizer.Normalize(c.in, true);
    ASSERT_EQ(v.ok(), c.ok) << v.status();
    if (!c.ok) {
      if (!c.want.empty()) {
        EXPECT_EQ(v.status().message(), c.want);
      }
      continue;
    }
    if (!c.want.empty()) {
      EXPECT_EQ(v->normalized, c.want);
    }
    // Idempotent (issue 3 §1).
    const std::string once(v->normalized);
    auto again = normalizer.Normalize(once, true);
    ASSERT_TRUE(again.ok());
    EXPECT_EQ(again->normalized, once);
  }
}

// Issue 3 §4: the fast path reads the name 64 bytes at a time; put every
// kind of separator on and around each block boundary, and cross the
// fast path's length limit (1024 bytes).
TEST(NameNormalizerTest, FastPathAgreesAtEveryLength) {
  for (size_t len = 0; len < 200; ++len) {
    const std::string pad(len, 'x');
    const std::string names[] = {
        absl::StrCat("xdstp://", pad, "/t/x?b=1&a=2"),
        absl::StrCat("xdstp://a/", pad, "/x?b=1&a=2"),
        absl::StrCat("xdstp://a/t/", pad, "?zone=b&a=1"),
        absl::StrCat("xdstp://a/t/", pad, "/y/z?a=1&b=2"),
        absl::StrCat("xdstp://a/t/x?k=", pad, "&b=", pad, "&a=1"),
        absl::StrCat("xdstp://a/t/x?k=", pad, "&b=", pad, "&k=1"),
        absl::StrCat("xdstp://a/t/x?k=", pad, "&b=", pad, "%20"),
        absl::StrCat("xdstp://a:1/t/", pad, "?c"),
        absl::StrCat("xdstp://a/t/", pad),
    };
    for (const std::string& name : names) {
      SCOPED_TRACE(name);
      ExpectSameAsFullParse(name);
    }
  }
  for (size_t len : {1000, 1008, 1009, 1016, 1017, 1024, 1025, 2000}) {
    const std::string name =
        absl::StrCat("xdstp://a/t/", std::string(len - 20, 'x'), "?b=1&a=2");
    SCOPED_TRACE(name.size());
    ExpectSameAsFullParse(name);
  }
  // Up to 16 params sort on the fast path; more go to the full parse.
  for (int count : {15, 16, 17, 40}) {
    std::string name = "xdstp://a/t/x?";
    for (int i = count; i > 0; --i) absl::StrAppend(&name, "k", i, "=v&");
    name.pop_back();
    SCOPED_TRACE(name);
    ExpectSameAsFullParse(name);
  }
}

// A47 §Watcher Changes through the fast path: the expected type is checked
// on the raw type segment; a mismatch has the full parse's message.
TEST(NameNormalizerTest, FastPathExpectedType) {
  NameNormalizer normalizer;
  for (absl::string_view type :
       {"envoy.config.listener.v3.Listener",
        "type.googleapis.com/envoy.config.listener.v3.Listener"}) {
    EXPECT_TRUE(normalizer.Normalize(kLds2Param, true, type).ok());
    NormalizedNameView v;
    EXPECT_TRUE(normalizer.NormalizeInto(kLds2Param, true, type, &v));
  }
  for (absl::string_view type :
       {"envoy.config.listener.v3.Listenex", "envoy.config.listener.v3.Listene",
        "xnvoy.config.listener.v3.Listener", "t", ""}) {
    SCOPED_TRACE(type);
    auto v = normalizer.Normalize(kLds2Param, true, type);
    if (type.empty()) {
      EXPECT_TRUE(v.ok());
      continue;
    }
    EXPECT_EQ(v.status().message(),
              absl::StrCat("invalid xdstp name: resource type "
                           "\"envoy.config.listener.v3.Listener\" does not "
                           "match expected type \"",
                           type, "\""));
    NormalizedNameView view;
    EXPECT_FALSE(normalizer.NormalizeInto(kLds2Param, true, type, &view));
  }
}

TEST(ResourceNameTest, DecodedComponents) {
  // Issue 3 §1: components and context params are percent-decoded.
  auto name = ResourceName::Parse(
      "xdstp://a%20b/t/x%2Fy%20z?k%3D=v%26&b=1&b=2&%E2%82%AC=%00", true);
  ASSERT_TRUE(name.ok()) << name.status();
  EXPECT_FALSE(name->old_style);
  EXPECT_EQ(name->authority, "a b");
  EXPECT_EQ(name->type, "t");
  EXPECT_EQ(name->id, "x/y z");
  using P = std::pair<std::string, std::string>;
  EXPECT_THAT(name->context_params,
              ::testing::ElementsAre(P("b", "2"), P("k=", "v&"),
                                     P("\xE2\x82\xAC", std::string(1, '\0'))));
  EXPECT_EQ(name->ToString(),
            "xdstp://a%20b/t/x/y%20z?b=2&k%3D=v%26&%E2%82%AC=%00");
  auto old = ResourceName::Parse("a b\xff", true);
  EXPECT_TRUE(old->old_style);
  EXPECT_EQ(old->id, "a b\xff");
  EXPECT_EQ(old->ToString(), "a b\xff");
}

TEST(ResourceNameTest, ValueSemantics) {
  // STYLE §4: copyable, ==, hashable.
  EXPECT_TRUE(absl::VerifyTypeImplementsAbslHashCorrectly({
      ResourceName::Parse("x", true).value(),
      ResourceName::Parse("xdstp:///t/x", true).value(),
      ResourceName::Parse("xdstp://a/t/x", true).value(),
      ResourceName::Parse("xdstp://a/t/x?k=v", true).value(),
      ResourceName::Parse("xdstp://a/u/x?k=v", true).value(),
  }));
  ResourceName a = ResourceName::Parse("xdstp://a/t/x?k=v", true).value();
  ResourceName b = a;
  EXPECT_EQ(a, b);
  b.context_params[0].second = "w";
  EXPECT_NE(a, b);
}

// Issue 3 §Bad input: bounded, clear errors.
TEST(NameNormalizerTest, BadInputLimits) {
  NameNormalizer normalizer;
  const std::string big_id = "xdstp://a/t/" + std::string(1 << 20, 'x');
  auto v = normalizer.Normalize(big_id, true);
  EXPECT_EQ(v.status().message(),
            "invalid xdstp name: longer than 65536 bytes");
  // Gate off: a 1 MB name is just an opaque old-style name.
  EXPECT_TRUE(normalizer.Normalize(big_id, false).ok());
  // Old-style, gate on: also opaque, no limit (the spec has none).
  EXPECT_TRUE(normalizer.Normalize(std::string(1 << 20, 'x'), true).ok());

  std::string many = "xdstp://a/t/x?";
  for (int i = 0; i < 100000; ++i) absl::StrAppend(&many, "k", i, "=v&");
  EXPECT_EQ(normalizer.Normalize(many, true).status().message(),
            "invalid xdstp name: longer than 65536 bytes");

  std::string params = "xdstp://a/t/x?";
  for (int i = 0; i < 1025; ++i) absl::StrAppend(&params, "k", i, "=&");
  EXPECT_EQ(normalizer.Normalize(params, true).status().message(),
            "invalid xdstp name: more than 1024 context params");
  params = "xdstp://a/t/x?";
  for (int i = 1023; i >= 0; --i) absl::StrAppend(&params, "k", i, "=&");
  auto sorted = normalizer.Normalize(params, true);
  ASSERT_TRUE(sorted.ok()) << sorted.status();
  EXPECT_TRUE(absl::StartsWith(sorted->key, "x?k0=&k1=&k10=&k100=&k1000="));

  // Just under the limit: accepted, and "=" growth in values fits.
  std::string eqs = "xdstp://a/t/x?k=" + std::string(65536 - 16, '=');
  auto grown = normalizer.Normalize(eqs, true);
  ASSERT_TRUE(grown.ok()) << grown.status();
  EXPECT_EQ(grown->normalized.size(), 16 + 3 * (65536 - 16));
}

}  // namespace
}  // namespace xdsfed
