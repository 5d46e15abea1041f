// Tests for lib/name/canonical_guess.h: a response's name is looked up
// among canonical names without being normalized. The guess must be sound
// (a match means Normalize() gives that very name) and, for the spellings a
// control plane sends (canonical, params in any order), complete, with the
// hash Normalize() computes.
#include "lib/name/canonical_guess.h"

#include <algorithm>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"
#include "gtest/gtest.h"
#include "lib/name/resource_name.h"

namespace xdsfed {
namespace {

// Normalize(raw) with the gate on; "" if it fails.
std::string Canonical(absl::string_view raw) {
  NameNormalizer normalizer;
  auto v = normalizer.Normalize(raw, /*federation=*/true);
  return v.ok() ? std::string(v->normalized) : std::string();
}

// The invariants, for raw against a set of canonical names: a match only
// with Normalize(raw), then with Normalize's hash.
void ExpectSound(absl::string_view raw,
                 const std::vector<std::string>& canonicals) {
  CanonicalGuess guess;
  if (!guess.Guess(raw, /*federation=*/true)) return;
  NameNormalizer normalizer;
  auto want = normalizer.Normalize(raw, true);
  for (const std::string& c : canonicals) {
    if (!guess.Matches(c)) continue;
    SCOPED_TRACE(c);
    ASSERT_TRUE(want.ok()) << want.status();
    EXPECT_EQ(want->normalized, c);
    EXPECT_EQ(guess.hash(), want->hash);
  }
}

// raw must be guessed, match its canonical form and hash like Normalize.
void ExpectHit(absl::string_view raw) {
  NameNormalizer normalizer;
  auto want = normalizer.Normalize(raw, true);
  ASSERT_TRUE(want.ok()) << want.status();
  CanonicalGuess guess;
  ASSERT_TRUE(guess.Guess(raw, true));
  EXPECT_EQ(guess.size(), raw.size());
  EXPECT_TRUE(guess.Matches(want->normalized));
  EXPECT_EQ(guess.hash(), want->hash);
  EXPECT_EQ(guess.hash(),
            HashNameParts(false, want->authority, want->type, want->key));
}

// raw is canonical c with its params in some order (the spellings a guess
// must hit).
bool CanonicalButForOrder(absl::string_view raw, absl::string_view c) {
  auto split = [](absl::string_view name) {
    const size_t q = std::min(name.find('?'), name.size());
    std::vector<std::string> parts = {std::string(name.substr(0, q))};
    if (q < name.size()) {
      std::vector<std::string> params = absl::StrSplit(name.substr(q + 1), '&');
      std::sort(params.begin(), params.end());
      parts.insert(parts.end(), params.begin(), params.end());
    }
    return parts;
  };
  return split(raw) == split(c);
}

// Where a guess is made, what it matches, against the name's canonical form.
struct Case {
  absl::string_view raw;
  bool guessed;  // Guess() returns true
  bool hit;      // ... and matches Normalize(raw)
};
const Case kCases[] = {
    // A47 §Resource Cache: the name a client subscribed with, echoed back.
    {"xdstp://xds.example.com/envoy.config.listener.v3.Listener/grpc/server/"
     "svc?project_id=1234&zone=us-east1-b",
     true, true},
    // Same, params in another order ("sorted lexicographically" by key).
    {"xdstp://xds.example.com/envoy.config.listener.v3.Listener/grpc/server/"
     "svc?zone=us-east1-b&project_id=1234",
     true, true},
    {"xdstp://a.com/t/x?c=3&b=2&a=1", true, true},
    // One key a prefix of another: "node" sorts before "node.cluster",
    // although '.' < '='.
    {"xdstp://a.com/t/x?node.cluster=a&node=b", true, true},
    {"xdstp://a.com/t/x?node=b&node.cluster=a", true, true},
    // Keys sort by their decoded bytes: 'B' (0x42) before '[' (%5B).
    {"xdstp://a.com/t/x?B=1&%5B=2", true, true},
    {"xdstp://a.com/t/x?%5B=2&B=1", true, true},
    // TP1 §Normalization: a raw '?' in a value is a query character.
    {"xdstp://a.com/t/x?b=2&a=x?y", true, true},
    // No query, empty authority (TP1's form), canonical escapes kept.
    {"xdstp:///envoy.config.cluster.v3.Cluster/projects/1/backend", true, true},
    {"xdstp://a.com/t/grpc/server/route%20config?k=%5B", true, true},
    // Not canonical: the guess is made but misses, so a lookup normalizes.
    {"xdstp://a.com/t/%78?a=1", true, false},     // escape of 'x'
    {"xdstp://a.com/t/x%2f?a=1", true, false},    // lower-case hex
    {"xdstp://a.com/t/x?a=1#frag", true, false},  // fragment
    {"xdstp://a.com/t/x?k", true, false},         // "k" means "k="
    {"xdstp://a.com/t/x?a=b=c", true, false},     // second '=' is "%3D"
    {"xdstp://a.com/envoy.config.listener.v3.Listener", true, false},  // id
    // No guess: duplicate keys (last wins), empty pieces, not "xdstp://".
    {"xdstp://a.com/t/x?a=1&b=2&a=3", false, false},
    {"xdstp://a.com/t/x?a=1&&b=2", false, false},
    {"xdstp://a.com/t/x?a=1&", false, false},
    {"xdstp://a.com/t/x?", false, false},
    {"xdstp:a.com/t/x?a=1&b=2", false, false},
    {"server.example.com/listener", false, false},
    {"xdstp://a/t/x?b", false, false},  // shorter than 16 bytes
};

TEST(CanonicalGuessTest, Cases) {
  std::vector<std::string> canonicals;
  for (const Case& c : kCases) {
    const std::string canonical = Canonical(c.raw);
    if (!canonical.empty()) canonicals.push_back(canonical);
  }
  for (const Case& c : kCases) {
    SCOPED_TRACE(c.raw);
    CanonicalGuess guess;
    ASSERT_EQ(guess.Guess(c.raw, /*federation=*/true), c.guessed);
    if (c.guessed) {
      const std::string canonical = Canonical(c.raw);
      EXPECT_EQ(guess.Matches(canonical), c.hit);
      if (c.hit) ExpectHit(c.raw);
    }
    ExpectSound(c.raw, canonicals);
    // A47 §Temporary environment variable protection: gate off, no name is
    // new-style, so there is nothing to guess.
    EXPECT_FALSE(guess.Guess(c.raw, /*federation=*/false));
  }
}

// Every order of up to 4 params, including keys with a common prefix.
TEST(CanonicalGuessTest, EveryParamOrder) {
  std::vector<std::string> params = {"a=1", "node=x", "node.cluster=prod%20c",
                                     "zone=us-east1-b"};
  std::sort(params.begin(), params.end());
  do {
    const std::string raw = absl::StrCat(
        "xdstp://xds.example.com/envoy.config.cluster.v3.Cluster/svc?",
        absl::StrJoin(params, "&"));
    SCOPED_TRACE(raw);
    ExpectHit(raw);
  } while (std::next_permutation(params.begin(), params.end()));
}

// The scan reads 16-byte blocks (two at a time, the last one overlapping)
// and the last 64 bytes for the query: put the separators on and around
// every block boundary, and names spelled in every way around them.
TEST(CanonicalGuessTest, EveryLength) {
  for (size_t len = 0; len < 150; ++len) {
    const std::string pad(len, 'x');
    const std::vector<std::string> names = {
        absl::StrCat("xdstp://", pad, "/t/x?b=1&a=2"),
        absl::StrCat("xdstp://a/t/", pad, "?zone=b&a=1"),
        absl::StrCat("xdstp://a/t/", pad, "?a=1&zone=b"),
        absl::StrCat("xdstp://a/t/x?k=", pad, "&b=", pad, "&a=1"),
        absl::StrCat("xdstp://a/t/x?a=", pad, "?&b=?", pad),
        absl::StrCat("xdstp://a/t/", pad, "&y?b=1&a=2"),
        absl::StrCat("xdstp://a/t/", pad),
        absl::StrCat("xdstp://a/t/", pad, "?b=1&a=2&", pad, "=3"),
        absl::StrCat("xdstp://a/t/", pad, "?k=", pad, "%2F"),
        absl::StrCat("xdstp://a/t/", pad, "?k=", pad, "%2f"),
        absl::StrCat("xdstp://a/t/x?b=1&a=2#", pad),
    };
    std::vector<std::string> canonicals;
    for (const std::string& name : names) {
      const std::string c = Canonical(name);
      if (!c.empty()) canonicals.push_back(c);
    }
    for (const std::string& name : names) {
      SCOPED_TRACE(name);
      ExpectSound(name, canonicals);
      const std::string c = Canonical(name);
      if (!c.empty() && name.size() >= 16 && CanonicalButForOrder(name, c)) {
        ExpectHit(name);
      }
    }
  }
}

// More params than a guess takes: no guess (the caller normalizes).
TEST(CanonicalGuessTest, ManyParams) {
  for (int count : {15, 16, 17}) {
    std::string raw = "xdstp://a/t/x?";
    for (int i = 0; i < count; ++i) absl::StrAppend(&raw, "k", 10 + i, "=v&");
    raw.pop_back();
    SCOPED_TRACE(count);
    CanonicalGuess guess;
    EXPECT_EQ(guess.Guess(raw, true), count <= 16);
    if (count <= 16) ExpectHit(raw);
  }
}

}  // namespace
}  // namespace xdsfed
