#include "lib/cache/resource_cache.h"

#include <algorithm>
#include <iterator>
#include <memory>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/time/time.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace xdsfed {
namespace cache {
namespace {

// A cached value for these tests: the cache only stores it.
struct IntData final : ResourceData {
  explicit IntData(int v) : value(v) {}
  const int value;
};
int IntOf(const Entry& e) {
  const auto* data = dynamic_cast<const IntData*>(e.value().get());
  return data == nullptr ? -1 : data->value;
}

using ::testing::UnorderedElementsAreArray;

constexpr absl::string_view kLds = "envoy.config.listener.v3.Listener";
constexpr absl::string_view kCds = "envoy.config.cluster.v3.Cluster";

// A cache set up like the A47 "Multiple Authorities" bootstrap: the old-style
// authority on server 0, "xds.example.com" and "" sharing server 1,
// "other.example.com" on server 2.
struct Fixture {
  explicit Fixture(bool federation = true) : cache(federation) {
    lds = cache.RegisterType(kLds);
    cds = cache.RegisterType(kCds);
    cache.SetOldStyleServer(0);
    example = cache.AddAuthority("xds.example.com", 1);
    empty = cache.AddAuthority("", 1);
    other = cache.AddAuthority("other.example.com", 2);
  }
  Entry* MustInsert(TypeId type, absl::string_view name) {
    auto r = cache.Insert(type, name);
    EXPECT_TRUE(r.ok()) << r.status();
    return r.ok() ? r->entry : nullptr;
  }
  ResourceCache cache;
  TypeId lds, cds;
  AuthorityId example, empty, other;
};

std::vector<std::string> NamesOfServer(const ResourceCache& cache,
                                       ServerId server, TypeId type) {
  std::vector<std::string> names;
  cache.ForEachOfServer(server, type,
                        [&](const Entry& e) { names.emplace_back(e.name()); });
  std::sort(names.begin(), names.end());
  return names;
}

// A47 §Resource Cache: "There should be a separate entry for old-style
// resource names ... being careful to avoid collisions"; new-style names
// without an authority use "".
TEST(ResourceCacheTest, OldStyleAndEmptyAuthorityNeverCollide) {
  struct Case {
    absl::string_view name;
    bool old_style;
    absl::string_view authority;  // AuthorityName()
    absl::string_view key;
  };
  const Case kCases[] = {
      {"x", true, "", "x"},
      {"xdstp:///envoy.config.listener.v3.Listener/x", false, "", "x"},
      {"xds.example.com", true, "", "xds.example.com"},
      {"xdstp://xds.example.com/envoy.config.listener.v3.Listener/x", false,
       "xds.example.com", "x"},
      {"old:", true, "", "old:"},
      {"old:x", true, "", "old:x"},
      {"xdstp:", true, "", "xdstp:"},  // not a URI: no "//"? see below
  };
  Fixture f;
  std::vector<Entry*> entries;
  for (const Case& c : kCases) {
    SCOPED_TRACE(c.name);
    auto r = f.cache.Insert(f.lds, c.name);
    if (c.name == "xdstp:") {
      // Gate on, "xdstp:" starts a new-style name, which needs a type: never
      // silently an old-style entry.
      EXPECT_FALSE(r.ok());
      continue;
    }
    ASSERT_TRUE(r.ok()) << r.status();
    EXPECT_TRUE(r->inserted);
    EXPECT_EQ(r->entry->old_style(), c.old_style);
    EXPECT_EQ(r->entry->authority() == kOldStyleAuthority, c.old_style);
    EXPECT_EQ(f.cache.AuthorityName(r->entry->authority()), c.authority);
    EXPECT_EQ(r->entry->key(), c.key);
    EXPECT_EQ(r->entry->name(), c.name);
    entries.push_back(r->entry);
  }
  EXPECT_EQ(f.cache.size(), entries.size());
  // Every name finds its own entry back.
  size_t i = 0;
  for (const Case& c : kCases) {
    if (c.name == "xdstp:") continue;
    EXPECT_EQ(f.cache.Find(f.lds, c.name), entries[i++]) << c.name;
  }
  EXPECT_EQ(f.cache.CountOf(kOldStyleAuthority, f.lds), 4u);
  EXPECT_EQ(f.cache.CountOf(f.empty, f.lds), 1u);
  EXPECT_EQ(f.cache.CountOf(f.example, f.lds), 1u);
  // The old-style authority is not reachable by any authority string.
  EXPECT_EQ(f.cache.FindAuthority("").value(), f.empty);
  EXPECT_NE(f.empty, kOldStyleAuthority);
  EXPECT_FALSE(f.cache.FindAuthority("old:").ok());
}

// A47 §Resource Cache: the second level is the resource type; one old-style
// name requested as two types is two resources.
TEST(ResourceCacheTest, TypesAreSeparateLevels) {
  Fixture f;
  Entry* l = f.MustInsert(f.lds, "server.example.com");
  Entry* c = f.MustInsert(f.cds, "server.example.com");
  ASSERT_NE(l, nullptr);
  ASSERT_NE(c, nullptr);
  EXPECT_NE(l, c);
  EXPECT_EQ(f.cache.Find(f.lds, "server.example.com"), l);
  EXPECT_EQ(f.cache.Find(f.cds, "server.example.com"), c);
  EXPECT_EQ(f.cache.TypeName(c->type()), kCds);
  // A new-style name whose type segment is not the requested type is an
  // error, not a lookup in another type.
  EXPECT_EQ(
      f.cache.Find(
          f.cds, "xdstp://xds.example.com/envoy.config.listener.v3.Listener/x"),
      nullptr);
  EXPECT_FALSE(
      f.cache
          .Insert(f.cds,
                  "xdstp://xds.example.com/envoy.config.listener.v3.Listener/x")
          .ok());
  EXPECT_EQ(f.cache.RegisterType(kLds), f.lds);  // interned
}

// A47 §Resource Cache: "New-style resource names used as cache keys must be
// normalized"; TP1 §Normalization: params sorted, unreserved escapes decoded,
// the fragment (directives) not part of the identity.
TEST(ResourceCacheTest, EquivalentSpellingsHitTheSameEntry) {
  struct Case {
    absl::string_view spelling;
  };
  constexpr absl::string_view kCanonical =
      "xdstp://xds.example.com/envoy.config.listener.v3.Listener/svc/x?a=1&b=2";
  const Case kCases[] = {
      {"xdstp://xds.example.com/envoy.config.listener.v3.Listener/svc/"
       "x?a=1&b=2"},
      {"xdstp://xds.example.com/envoy.config.listener.v3.Listener/svc/"
       "x?b=2&a=1"},
      {"xdstp://xds.example.com/envoy.config.listener.v3.Listener/svc/"
       "%78?a=1&b=2"},
      {"xdstp://xds.example.com/envoy.config.listener.v3.Listener/%73vc/"
       "x?%62=2&a=%31"},
      {"xdstp://xds.example.com/envoy.config.listener.v3.Listener/svc/"
       "x?a=1&b=2#entry"},
      // Duplicates: the last value wins (A47 §Resource Cache).
      {"xdstp://xds.example.com/envoy.config.listener.v3.Listener/svc/"
       "x?a=0&b=2&a=1"},
      // TP1 §Normalization: "k" is "k=", empty params are dropped.
      {"xdstp://xds.example.com/envoy.config.listener.v3.Listener/svc/"
       "x?b=2&&a=1&"},
  };
  Fixture f;
  Entry* e = f.MustInsert(f.lds, kCanonical);
  ASSERT_NE(e, nullptr);
  EXPECT_EQ(e->key(), "svc/x?a=1&b=2");
  for (const Case& c : kCases) {
    SCOPED_TRACE(c.spelling);
    EXPECT_EQ(f.cache.Find(f.lds, c.spelling), e);
    auto r = f.cache.Insert(f.lds, c.spelling);
    ASSERT_TRUE(r.ok()) << r.status();
    EXPECT_FALSE(r->inserted);
    EXPECT_EQ(r->entry, e);
  }
  // Inserting a non-canonical spelling first stores the canonical wire name.
  Fixture g;
  Entry* e2 = g.MustInsert(g.lds, kCases[3].spelling);
  ASSERT_NE(e2, nullptr);
  EXPECT_EQ(e2->name(), kCanonical);
  EXPECT_EQ(g.cache.size(), 1u);
}

// Issue 3 §2: a response's name is looked up by the canonical form it is
// guessed to have (params sorted, nothing decoded) before being normalized;
// every spelling still finds its entry, and only its entry, whichever way.
TEST(ResourceCacheTest, GuessedAndNormalizedLookupsAgree) {
  struct Case {
    absl::string_view stored;    // inserted (any spelling)
    absl::string_view response;  // looked up
  };
  const Case kCases[] = {
      // Canonical, params in order or not, keys one the prefix of another.
      {"xdstp://xds.example.com/envoy.config.listener.v3.Listener/svc?"
       "node=a&node.cluster=b&zone=z",
       "xdstp://xds.example.com/envoy.config.listener.v3.Listener/svc?"
       "zone=z&node.cluster=b&node=a"},
      // A raw '?' in a value (a query character, TP1 §Normalization).
      {"xdstp://xds.example.com/envoy.config.listener.v3.Listener/svc?"
       "b=x?y&a=1",
       "xdstp://xds.example.com/envoy.config.listener.v3.Listener/svc?"
       "a=1&b=x?y"},
      // '&' in the path is a path character, not a separator.
      {"xdstp://xds.example.com/envoy.config.listener.v3.Listener/a&b?k=v",
       "xdstp://xds.example.com/envoy.config.listener.v3.Listener/a&b?k=v"},
      // Escapes (kept and dropped), upper- and lower-case hex.
      {"xdstp://xds.example.com/envoy.config.listener.v3.Listener/a%20b?k=%5b",
       "xdstp://xds.example.com/envoy.config.listener.v3.Listener/a%20b?k=%5B"},
      {"xdstp://xds.example.com/envoy.config.listener.v3.Listener/a%20b?k=%5b",
       "xdstp://xds.example.com/envoy.config.listener.v3.Listener/"
       "%61%20b?k=%5b"},
      // No query; the empty authority (A47 §Resource Cache).
      {"xdstp:///envoy.config.listener.v3.Listener/projects/1/svc",
       "xdstp:///envoy.config.listener.v3.Listener/projects/1/svc"},
  };
  Fixture f;
  std::vector<Entry*> entries;
  for (const Case& c : kCases) entries.push_back(f.MustInsert(f.lds, c.stored));
  for (size_t i = 0; i < std::size(kCases); ++i) {
    SCOPED_TRACE(kCases[i].response);
    EXPECT_EQ(f.cache.Find(f.lds, kCases[i].response), entries[i]);
    EXPECT_EQ(f.cache.Find(f.lds, entries[i]->name()), entries[i]);
    // The other type's level stays separate (A47 §Resource Cache).
    EXPECT_EQ(f.cache.Find(f.cds, kCases[i].response), nullptr);
    auto key = f.cache.Parse(f.lds, kCases[i].response);
    ASSERT_TRUE(key.ok()) << key.status();
    EXPECT_EQ(f.cache.Find(*key), entries[i]);
  }
}

// A Key made by hand must name its type, as Parse() would have checked: the
// guessed lookup relies on every entry's type segment matching its TypeId.
TEST(ResourceCacheTest, InsertRejectsKeyOfAnotherType) {
  Fixture f;
  auto key = f.cache.Parse(
      f.lds, "xdstp://xds.example.com/envoy.config.listener.v3.Listener/x");
  ASSERT_TRUE(key.ok()) << key.status();
  ResourceCache::Key wrong = *key;
  wrong.type = f.cds;
  EXPECT_EQ(f.cache.Insert(wrong).status(),
            absl::InvalidArgumentError(
                "invalid xdstp name: resource type "
                "\"envoy.config.listener.v3.Listener\" does not match "
                "expected type \"envoy.config.cluster.v3.Cluster\""));
  EXPECT_EQ(f.cache.size(), 0u);
  EXPECT_TRUE(f.cache.Insert(*key).ok());
  EXPECT_EQ(f.cache.Find(f.cds, key->name.normalized), nullptr);
}

// A47 §Watcher Changes / issue 3 §2: a response's raw name that does not
// parse, or names another type, is a miss, never an error or a wrong entry
// (whichever normalization path it takes).
TEST(ResourceCacheTest, FindByRawNameMisses) {
  struct Case {
    absl::string_view raw;
  };
  const Case kCases[] = {
      {"xdstp://xds.example.com/envoy.config.cluster.v3.Cluster/svc/x?a=1"},
      {"xdstp://xds.example.com/envoy.config.listener.v3.Listenex/svc/x?a=1"},
      {"xdstp://xds.example.com/envoy.config.listener.v3.Listener/svc/x?a=2"},
      {"xdstp://xds.example.com/envoy.config.listener.v3.Listener/svc/x?a=1 "},
      {"xdstp://xds.example.com/envoy.config.listener.v3.Listener/svc/x?a=%z"},
      {"xdstp://xds.example.com/envoy.config.listener.v3.Listener/svc/x?"},
      {"xdstp://xds.example.com/envoy.config.listener.v3.Listener"},
      {"xdstp://other.example.com/envoy.config.listener.v3.Listener/svc/x?a=1"},
  };
  Fixture f;
  Entry* e = f.MustInsert(
      f.lds,
      "xdstp://xds.example.com/envoy.config.listener.v3.Listener/svc/x?a=1");
  ASSERT_NE(e, nullptr);
  for (const Case& c : kCases) {
    SCOPED_TRACE(c.raw);
    EXPECT_EQ(f.cache.Find(f.lds, c.raw), nullptr);
  }
  EXPECT_EQ(f.cache.Find(f.lds,
                         "xdstp://xds.example.com/"
                         "envoy.config.listener.v3.Listener/svc/x?a=1"),
            e);
}

// A47 §Temporary environment variable protection: gate off, "new-style
// resource names will be treated as old-style names (i.e., treated as a
// monolithic string)" — in responses and in watches.
TEST(ResourceCacheTest, GateOffXdstpNamesAreOpaqueOldStyleKeys) {
  struct Case {
    absl::string_view name;
  };
  const Case kCases[] = {
      {"xdstp://xds.example.com/envoy.config.listener.v3.Listener/x?b=2&a=1"},
      {"xdstp://xds.example.com/envoy.config.listener.v3.Listener/x?a=1&b=2"},
      {"xdstp://unknown.example.com/envoy.config.cluster.v3.Cluster/x"},
      {"xdstp:"},
      {"server.example.com"},
  };
  Fixture f(/*federation=*/false);
  for (const Case& c : kCases) {
    SCOPED_TRACE(c.name);
    auto r = f.cache.Insert(f.lds, c.name);
    ASSERT_TRUE(r.ok()) << r.status();
    EXPECT_TRUE(r->inserted);  // no two spellings merge
    EXPECT_TRUE(r->entry->old_style());
    EXPECT_EQ(r->entry->authority(), kOldStyleAuthority);
    EXPECT_EQ(r->entry->name(), c.name);
    EXPECT_EQ(r->entry->key(), c.name);
    EXPECT_EQ(f.cache.Find(f.lds, c.name), r->entry);
  }
  EXPECT_EQ(f.cache.size(), 5u);
  EXPECT_EQ(NamesOfServer(f.cache, 1, f.lds), std::vector<std::string>{});
  EXPECT_EQ(NamesOfServer(f.cache, 0, f.lds).size(), 5u);
}

// A47 §Watcher Changes: a new-style name's authority selects the servers; an
// authority that is not configured is an error and nothing is cached.
TEST(ResourceCacheTest, InsertErrors) {
  Fixture f;
  auto r = f.cache.Insert(
      f.lds, "xdstp://unknown.example.com/envoy.config.listener.v3.Listener/x");
  EXPECT_EQ(r.status(),
            absl::NotFoundError(
                "authority \"unknown.example.com\" of resource name "
                "\"xdstp://unknown.example.com/envoy.config.listener.v3."
                "Listener/x\" is not configured"));
  EXPECT_EQ(f.cache.size(), 0u);
  // An unparseable name: lib/name's error, unchanged.
  NameNormalizer n;
  const absl::string_view kBad = "xdstp://xds.example.com/";
  auto direct = n.Normalize(kBad, true, kLds);
  ASSERT_FALSE(direct.ok());
  EXPECT_EQ(f.cache.Insert(f.lds, kBad).status(), direct.status());
  EXPECT_EQ(f.cache.Parse(f.lds, kBad).status(), direct.status());
  EXPECT_EQ(f.cache.Find(f.lds, kBad), nullptr);
  EXPECT_EQ(f.cache.size(), 0u);
  EXPECT_EQ(f.cache.FindAuthority("nope").status(),
            absl::NotFoundError("authority \"nope\" is not configured"));
}

// Serialized bytes for a decoder running without the owner's lock
// (Entry::shared_serialized): large ones shared, never copied, and a reader's
// pointer keeps its bytes while later updates replace them.
TEST(ResourceCacheTest, SharedSerializedOutlivesUpdates) {
  Fixture f;
  Entry* e = f.MustInsert(f.lds, "listener");
  ASSERT_NE(e, nullptr);
  const absl::Time now = absl::FromUnixSeconds(1700000000);
  const std::string big(Entry::kSharedSerializedBytes, 'a');
  const std::string big2(Entry::kSharedSerializedBytes + 1, 'b');
  EXPECT_EQ(e->shared_serialized(), nullptr);
  f.cache.SetAcked(e, std::make_shared<const IntData>(1), big, "1", now);
  std::shared_ptr<const std::string> held = e->shared_serialized();
  ASSERT_NE(held, nullptr);
  EXPECT_EQ(*held, big);
  EXPECT_EQ(e->shared_serialized().get(), held.get());  // not a copy
  EXPECT_EQ(e->serialized(), big);
  f.cache.SetNacked(e, absl::InvalidArgumentError("bad"), "2", now);
  EXPECT_EQ(e->shared_serialized().get(), held.get());  // a NACK keeps them
  f.cache.SetAcked(e, std::make_shared<const IntData>(3), big2, "3", now);
  EXPECT_EQ(*held, big);  // the reader's bytes
  EXPECT_EQ(e->serialized(), big2);
  EXPECT_EQ(*e->shared_serialized(), big2);
  f.cache.SetAcked(e, std::make_shared<const IntData>(4), "small", "4", now);
  EXPECT_EQ(e->serialized(), "small");
  ASSERT_NE(e->shared_serialized(), nullptr);
  EXPECT_EQ(*e->shared_serialized(), "small");  // a copy of small bytes
  f.cache.SetAcked(e, std::make_shared<const IntData>(5), big, "5", now);
  f.cache.SetNacked(e, absl::InvalidArgumentError("bad"), "6", now);
  f.cache.SetDoesNotExist(e, now);  // drops the bytes, keeps the error
  EXPECT_EQ(e->serialized(), "");
  EXPECT_EQ(e->shared_serialized(), nullptr);
}

// CSDS-like per-resource state kept by A47 §Resource Cache entries.
TEST(ResourceCacheTest, StateTransitions) {
  enum Op { kAck, kNack, kDne, kReq };
  struct Step {
    Op op;
    absl::string_view version;  // of the update
    State want_state;
    bool want_value;
    absl::string_view want_version;
    absl::string_view want_bytes;
    bool want_error;
  };
  const Step kSteps[] = {
      {kAck, "1", State::kAcked, true, "1", "bytes-1", false},
      {kNack, "2", State::kNacked, true, "1", "bytes-1",
       true},  // keeps last good
      {kAck, "3", State::kAcked, true, "3", "bytes-3", false},  // clears error
      {kDne, "", State::kDoesNotExist, false, "3", "", false},
      {kNack, "4", State::kNacked, false, "3", "", true},
      {kDne, "", State::kDoesNotExist, false, "3", "", true},  // error kept
      {kReq, "", State::kRequested, false, "3", "", true},
      {kAck, "5", State::kAcked, true, "5", "bytes-5", false},
  };
  Fixture f;
  Entry* e = f.MustInsert(f.lds, "listener");
  ASSERT_NE(e, nullptr);
  EXPECT_EQ(e->state(), State::kRequested);
  EXPECT_EQ(e->update_time(), absl::InfinitePast());
  EXPECT_EQ(e->error_time(), absl::InfinitePast());
  EXPECT_TRUE(e->error().ok());
  absl::Time now = absl::FromUnixSeconds(1700000000);
  int step = 0;
  for (const Step& s : kSteps) {
    SCOPED_TRACE(absl::StrCat("step ", step++));
    now += absl::Seconds(1);
    switch (s.op) {
      case kAck:
        f.cache.SetAcked(e, std::make_shared<const IntData>(step),
                         absl::StrCat("bytes-", s.version), s.version, now);
        break;
      case kNack:
        f.cache.SetNacked(e, absl::InvalidArgumentError("bad"), s.version, now);
        break;
      case kDne:
        f.cache.SetDoesNotExist(e, now);
        break;
      case kReq:
        f.cache.SetRequested(e);
        break;
    }
    EXPECT_EQ(e->state(), s.want_state);
    EXPECT_EQ(e->value() != nullptr, s.want_value);
    EXPECT_EQ(e->version(), s.want_version);
    EXPECT_EQ(e->serialized(), s.want_bytes);
    EXPECT_EQ(!e->error().ok(), s.want_error);
    if (s.op == kAck || s.op == kDne) {
      EXPECT_EQ(e->update_time(), now);
    }
    if (s.op == kNack) {
      EXPECT_EQ(e->error(), absl::InvalidArgumentError("bad"));
      EXPECT_EQ(e->error_version(), s.version);
      EXPECT_EQ(e->error_time(), now);
    }
  }
  EXPECT_EQ(IntOf(*e), 8);
  EXPECT_EQ(StateName(State::kDoesNotExist), "DOES_NOT_EXIST");
}

// Versions are interned; entries updated by one response share it and
// releasing the last user frees it (observable only through version()).
TEST(ResourceCacheTest, VersionsSurviveSharingAndErase) {
  Fixture f;
  Entry* a = f.MustInsert(f.cds, "a");
  Entry* b = f.MustInsert(f.cds, "b");
  absl::Time now = absl::Now();
  f.cache.SetAcked(a, nullptr, "", "v1", now);
  f.cache.SetAcked(b, nullptr, "", "v1", now);
  f.cache.Erase(a);
  EXPECT_EQ(b->version(), "v1");
  f.cache.SetAcked(b, nullptr, "", "v2", now);
  EXPECT_EQ(b->version(), "v2");
  Entry* c = f.MustInsert(f.cds, "c");
  f.cache.SetAcked(c, nullptr, "", "v1", now);
  EXPECT_EQ(c->version(), "v1");
  f.cache.SetAcked(c, nullptr, "", "", now);
  EXPECT_EQ(c->version(), "");
}

// A47 §Watcher Changes: many watchers of one resource are one subscription;
// the last one leaving lets the client unsubscribe and erase.
TEST(ResourceCacheTest, WatchersAddAndRemove) {
  struct Step {
    bool add;
    WatcherId id;
    bool want_return;  // AddWatcher: first; RemoveWatcher: found
    std::vector<WatcherId> want;
  };
  const Step kSteps[] = {
      {true, 7, true, {7}},        {true, 9, false, {7, 9}},
      {true, 7, false, {7, 9, 7}}, {false, 7, true, {9, 7}},
      {false, 8, false, {9, 7}},   {false, 9, true, {7}},
      {false, 7, true, {}},        {false, 7, false, {}},
      {true, 1, true, {1}},
  };
  Fixture f;
  Entry* e =
      f.MustInsert(f.lds, "xdstp:///envoy.config.listener.v3.Listener/w");
  ASSERT_NE(e, nullptr);
  int i = 0;
  for (const Step& s : kSteps) {
    SCOPED_TRACE(i++);
    bool got =
        s.add ? f.cache.AddWatcher(e, s.id) : f.cache.RemoveWatcher(e, s.id);
    EXPECT_EQ(got, s.want_return);
    EXPECT_EQ(
        std::vector<WatcherId>(e->watchers().begin(), e->watchers().end()),
        s.want);
  }
  ASSERT_TRUE(f.cache.RemoveWatcher(e, 1));
  EXPECT_TRUE(e->watchers().empty());
  f.cache.Erase(e);
  EXPECT_EQ(f.cache.size(), 0u);
  EXPECT_EQ(f.cache.Find(f.lds, "xdstp:///envoy.config.listener.v3.Listener/w"),
            nullptr);
}

// A47 §Server Channel Map + §Resource Cache: two authorities share one server
// channel; a request to that server carries the names of both, canonical.
TEST(ResourceCacheTest, ServerHandleSharedByTwoAuthorities) {
  Fixture f;
  EXPECT_EQ(f.cache.server(f.example), 1u);
  EXPECT_EQ(f.cache.server(f.empty), 1u);
  EXPECT_EQ(f.cache.server(f.other), 2u);
  EXPECT_EQ(f.cache.server(kOldStyleAuthority), 0u);
  f.MustInsert(
      f.lds,
      "xdstp://xds.example.com/envoy.config.listener.v3.Listener/a?z=1&y=2");
  f.MustInsert(f.lds, "xdstp:///envoy.config.listener.v3.Listener/b");
  f.MustInsert(f.lds,
               "xdstp://other.example.com/envoy.config.listener.v3.Listener/c");
  f.MustInsert(f.lds, "d");
  f.MustInsert(f.cds,
               "xdstp://xds.example.com/envoy.config.cluster.v3.Cluster/e");
  struct Case {
    ServerId server;
    TypeId type;
    std::vector<std::string> want;
  };
  const Case kCases[] = {
      {1,
       f.lds,
       {"xdstp:///envoy.config.listener.v3.Listener/b",
        "xdstp://xds.example.com/envoy.config.listener.v3.Listener/a?y=2&z=1"}},
      {2,
       f.lds,
       {"xdstp://other.example.com/envoy.config.listener.v3.Listener/c"}},
      {0, f.lds, {"d"}},
      {1, f.cds, {"xdstp://xds.example.com/envoy.config.cluster.v3.Cluster/e"}},
      {2, f.cds, {}},
      {5, f.lds, {}},
  };
  for (const Case& c : kCases) {
    SCOPED_TRACE(absl::StrCat(c.server, "/", c.type));
    EXPECT_EQ(NamesOfServer(f.cache, c.server, c.type), c.want);
  }
  // Re-pointing an authority (future fallback) moves its names.
  f.cache.SetServer(f.other, 1);
  EXPECT_EQ(NamesOfServer(f.cache, 1, f.lds).size(), 3u);
  EXPECT_EQ(f.cache.AddAuthority("other.example.com", 2), f.other);
  EXPECT_EQ(f.cache.server(f.other), 2u);
}

// Config dump: every entry, each with its three levels.
TEST(ResourceCacheTest, ForEachVisitsEveryEntryOnce) {
  Fixture f;
  const std::vector<std::string> kNames = {
      "xdstp://xds.example.com/envoy.config.listener.v3.Listener/a",
      "xdstp:///envoy.config.listener.v3.Listener/b", "c",
      "xdstp://other.example.com/envoy.config.listener.v3.Listener/d"};
  for (const std::string& n : kNames) f.MustInsert(f.lds, n);
  f.MustInsert(f.cds, "c");
  std::vector<std::string> seen;
  f.cache.ForEach([&](const Entry& e) {
    seen.push_back(absl::StrCat(e.authority(), "|", f.cache.TypeName(e.type()),
                                "|", e.key()));
  });
  EXPECT_THAT(seen, UnorderedElementsAreArray(std::vector<std::string>{
                        absl::StrCat(f.example, "|", kLds, "|a"),
                        absl::StrCat(f.empty, "|", kLds, "|b"),
                        "0|" + std::string(kLds) + "|c",
                        absl::StrCat(f.other, "|", kLds, "|d"),
                        "0|" + std::string(kCds) + "|c"}));
}

// A47 §Server Channel Map: one state-of-the-world response per (server,
// type) lists every resource that exists; the client marks those it did not
// list as does-not-exist in one pass (client_data holds its generation).
TEST(ResourceCacheTest, MutableIterationForDeletionSweep) {
  struct Case {
    absl::string_view name;
    bool listed;
    State want;
  };
  const Case kCases[] = {
      {"xdstp://xds.example.com/envoy.config.listener.v3.Listener/a", true,
       State::kAcked},
      {"xdstp:///envoy.config.listener.v3.Listener/b", false,
       State::kDoesNotExist},
      // Another server: not part of this response.
      {"xdstp://other.example.com/envoy.config.listener.v3.Listener/c", false,
       State::kRequested},
  };
  Fixture f;
  const absl::Time now = absl::FromUnixSeconds(1700000000);
  const uint32_t kGeneration = 7;
  for (const Case& c : kCases) {
    Entry* e = f.MustInsert(f.lds, c.name);
    ASSERT_NE(e, nullptr);
    EXPECT_EQ(e->client_data(), 0u);
  }
  for (const Case& c : kCases) {
    if (!c.listed) continue;
    Entry* e = f.cache.Find(f.lds, c.name);
    f.cache.SetAcked(e, std::make_shared<const IntData>(1), "", "v1", now);
    e->set_client_data(kGeneration);
  }
  f.cache.ForEachOfServer(1, f.lds, [&](Entry& e) {
    if (e.client_data() != kGeneration) f.cache.SetDoesNotExist(&e, now);
  });
  for (const Case& c : kCases) {
    SCOPED_TRACE(c.name);
    EXPECT_EQ(f.cache.Find(f.lds, c.name)->state(), c.want);
  }
}

// Erase keeps every other entry findable and the groups consistent.
TEST(ResourceCacheTest, EraseAndReinsert) {
  Fixture f;
  std::vector<Entry*> es;
  for (int i = 0; i < 5; ++i)
    es.push_back(f.MustInsert(f.cds, absl::StrCat("c", i)));
  f.cache.Erase(es[1]);
  f.cache.Erase(es[4]);
  f.cache.Erase(es[0]);
  EXPECT_EQ(f.cache.size(), 2u);
  EXPECT_EQ(f.cache.CountOf(kOldStyleAuthority, f.cds), 2u);
  EXPECT_EQ(f.cache.Find(f.cds, "c2"), es[2]);
  EXPECT_EQ(f.cache.Find(f.cds, "c3"), es[3]);
  EXPECT_EQ(f.cache.Find(f.cds, "c1"), nullptr);
  EXPECT_EQ(NamesOfServer(f.cache, 0, f.cds),
            (std::vector<std::string>{"c2", "c3"}));
  auto r = f.cache.Insert(f.cds, "c1");
  ASSERT_TRUE(r.ok());
  EXPECT_TRUE(r->inserted);
  EXPECT_EQ(r->entry->state(), State::kRequested);
  EXPECT_EQ(f.cache.CountOf(kOldStyleAuthority, f.cds), 3u);
}

// Many entries over 3 authorities x 2 types and the old-style authority.
TEST(ResourceCacheTest, ManyEntries) {
  Fixture f;
  const absl::string_view kAuthorities[] = {"xds.example.com", "",
                                            "other.example.com"};
  std::vector<std::pair<TypeId, std::string>> names;
  for (int i = 0; i < 20000; ++i) {
    TypeId t = i % 2 == 0 ? f.lds : f.cds;
    absl::string_view a = kAuthorities[i % 3];
    if (i % 7 == 0) {
      names.emplace_back(t, absl::StrCat("old-", i));
    } else {
      names.emplace_back(
          t, absl::StrCat("xdstp://", a, "/", f.cache.TypeName(t), "/svc/", i,
                          "?b=", i % 5, "&a=1"));
    }
  }
  std::vector<Entry*> entries;
  for (const auto& [t, n] : names) entries.push_back(f.MustInsert(t, n));
  EXPECT_EQ(f.cache.size(), names.size());
  for (size_t i = 0; i < names.size(); ++i) {
    ASSERT_EQ(f.cache.Find(names[i].first, names[i].second), entries[i]) << i;
  }
  for (size_t i = 0; i < names.size(); i += 2) f.cache.Erase(entries[i]);
  size_t counted = 0;
  f.cache.ForEach([&](const Entry&) { ++counted; });
  EXPECT_EQ(counted, names.size() / 2);
  for (size_t i = 0; i < names.size(); ++i) {
    Entry* want = i % 2 == 0 ? nullptr : entries[i];
    ASSERT_EQ(f.cache.Find(names[i].first, names[i].second), want) << i;
  }
}

}  // namespace
}  // namespace cache
}  // namespace xdsfed
