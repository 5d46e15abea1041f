// The XdsClient's resource cache (gRFC A47 §Resource Cache): authority ->
// resource type -> key -> resource state, with a separate authority for
// old-style names that no authority name (not even "") can collide with, and
// per authority a handle to its (shared, de-duplicated) server channel.
//
//   cache::ResourceCache cache(/*federation=*/true);
//   cache::TypeId lds = cache.RegisterType(kListenerType);
//   cache.AddAuthority("xds.example.com", /*server=*/1);
//   cache.SetOldStyleServer(0);  // the top-level xds_servers channel
//   // A watch starts (any equivalent spelling; stored canonical):
//   auto ins = cache.Insert(lds, "xdstp://xds.example.com/"
//                                "envoy.config.listener.v3.Listener/x?b=2&a=1");
//   if (cache.AddWatcher(ins->entry, /*watcher=*/42)) { /* subscribe */ }
//   // A response arrives (raw name bytes; no allocation):
//   cache::Entry* e = cache.Find(lds, name_in_response);
//   if (e != nullptr) cache.SetAcked(e, value, std::move(bytes), "v1", now);
//   // Building the ADS request for server 1:
//   cache.ForEachOfServer(1, lds, [&](const cache::Entry& e) {
//     request.add_resource_names(std::string(e.name()));  // canonical, as is
//   });
//
// Layout, and why it is flattened: A47 describes three nested maps. A map of
// maps costs a hash probe and a pointer chase per level and a node per entry
// (a tree-of-maps design measured 3.5 us per lookup at 1e6 entries and 444
// bytes per entry here). Instead every entry lives in ONE flat hash set keyed
// by the hash that NameNormalizer already computed over (old_style,
// authority, type, key), mixed with the interned resource type id. The three
// levels remain in the API and in the data: authorities are interned to an
// AuthorityId (id 0 is the old-style authority, which is not in the name
// index at all, so no authority string can reach it), resource types to a
// TypeId, and each entry records both ids plus the offset of its third-level
// key inside its canonical name. Per (authority, type) a vector of entries
// serves the iteration a subscription request needs.
//
// Looking a response's name up: responses usually spell a name as it was
// subscribed, i.e. canonically (or with its params in another order), so
// Find(type, raw) first probes with the canonical form that the raw bytes
// would have if they were such a spelling (lib/name/canonical_guess.h: one
// pass over the bytes, no parsing, no copy; a new-style name's hash sums its
// params' hashes, so their order does not matter). A stored name that
// matches is then exactly raw's canonical form; if none matches, the name is
// normalized and probed again.
//
// An Entry is one block: the fixed fields followed by the canonical wire
// name, so a hit is three dependent memory accesses: the hash set's control
// bytes, its slot, then one block. Blocks come from an arena of 2 MiB regions
// advised for transparent huge pages, and so does the set's table (see
// internal/block_arena.h: at 1e6 entries TLB misses cost as much as the cache
// misses themselves). Rarely set fields (last error, serialized bytes) sit
// behind one pointer allocated only when set; version strings are interned
// and shared by the entries of a response.
//
// Thread-safety: none. The cache (and the NameNormalizer it owns) must be
// guarded by the owner's mutex. Entry pointers stay valid until that entry is
// erased (or the cache destroyed): the client may copy an entry's value and
// watchers under its lock and notify after releasing it.
#ifndef XDSFED_LIB_CACHE_RESOURCE_CACHE_H_
#define XDSFED_LIB_CACHE_RESOURCE_CACHE_H_

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <utility>
#include <variant>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/container/flat_hash_set.h"
#include "absl/container/inlined_vector.h"
#include "absl/container/node_hash_map.h"
#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "absl/time/time.h"
#include "absl/types/span.h"
#include "lib/cache/internal/block_arena.h"
#include "lib/cache/resource_data.h"
#include "lib/name/canonical_guess.h"
#include "lib/name/resource_name.h"

namespace xdsfed {
namespace cache {

// First level: an interned authority. kOldStyleAuthority holds every
// old-style name; new-style authorities (including "") get ids from 1 on.
using AuthorityId = uint32_t;
inline constexpr AuthorityId kOldStyleAuthority = 0;

// Second level: an interned resource type, e.g.
// "envoy.config.listener.v3.Listener" (the xdstp type segment, i.e. the type
// URL without "type.googleapis.com/").
using TypeId = uint16_t;

// Opaque to the cache: the XdsClient's handle to an entry of its server
// channel map (e.g. an index). Several authorities may share one.
using ServerId = uint32_t;
inline constexpr ServerId kNoServer = ~ServerId{0};

// Opaque to the cache: whatever identifies a watcher to the client (an id, or
// a pointer via reinterpret_cast<uintptr_t>).
using WatcherId = uint64_t;

// Times are stored as Unix nanoseconds; this one means "never".
inline constexpr int64_t kNever = INT64_MIN;

// CSDS-like client status of one resource.
enum class State : uint8_t {
  kRequested,     // subscribed, nothing received yet
  kAcked,         // value() is the latest accepted resource
  kNacked,        // the latest update was rejected; value() is the last good
  kDoesNotExist,  // the server says it does not exist; value() is null
};
absl::string_view StateName(State state);  // "REQUESTED", "ACKED", ...

class ResourceCache;

// One cached resource. Created and mutated only through ResourceCache; the
// address is stable until the entry is erased.
class Entry {
 public:
  Entry(const Entry&) = delete;
  Entry& operator=(const Entry&) = delete;

  // The canonical wire name: what a request sends, never re-encoded.
  // Old-style: the name as given.
  absl::string_view name() const {
    return absl::string_view(reinterpret_cast<const char*>(this + 1),
                             name_len_);
  }
  // Third-level key: old-style: the whole name; new-style: canonical
  // "id?k=v&..." (the name minus "xdstp://authority/type/").
  absl::string_view key() const { return name().substr(key_offset_); }
  bool old_style() const { return old_style_; }
  AuthorityId authority() const { return authority_; }
  TypeId type() const { return type_; }

  State state() const { return state_; }
  // Version of the last accepted update ("" before any).
  absl::string_view version() const;
  // When the last accepted update (or does-not-exist) was applied;
  // absl::InfinitePast() before any.
  absl::Time update_time() const;
  // The decoded resource (opaque here: see resource_data.h). Null unless a
  // value was accepted (kept across a NACK, dropped on does-not-exist).
  const std::shared_ptr<const ResourceData>& value() const { return value_; }
  // Serialized bytes of value() ("" if none).
  absl::string_view serialized() const;
  // The same bytes as a shared string (null if none), which a decoder may
  // read after the owner's lock is released while a later update replaces
  // them here (resources::ResourceType::DecodeUpdate). Bytes of at least
  // kSharedSerializedBytes are stored shared and returned without a copy;
  // smaller ones are copied (sharing them all cost every cached resource an
  // allocation per update: 10,000 clusters, +4% instructions).
  std::shared_ptr<const std::string> shared_serialized() const;
  static constexpr size_t kSharedSerializedBytes = 4096;
  // The last NACK's error, version and time (OK / "" / InfinitePast if none;
  // cleared by the next accepted update).
  absl::Status error() const;
  absl::string_view error_version() const;
  absl::Time error_time() const;

  // In the order they were added; an id added twice appears twice.
  absl::Span<const WatcherId> watchers() const { return watchers_; }

  // 32 bits the client may use freely (0 on insert; the cache never reads
  // them), e.g. the generation of the last response that listed the resource
  // for a state-of-the-world deletion sweep, or a does-not-exist timer id.
  uint32_t client_data() const { return client_data_; }
  void set_client_data(uint32_t data) { client_data_ = data; }

 private:
  friend class ResourceCache;
  struct Extra {
    absl::Status error;
    std::string error_version;
    int64_t error_unix_nanos = kNever;
    // Shared when at least kSharedSerializedBytes. One member, not two: the
    // block stays in malloc's 96-byte bin (a larger one cost 10,000-cluster
    // CDS ingestion 1.8% more instructions in malloc).
    std::variant<std::string, std::shared_ptr<const std::string>> serialized;
  };
  // Interned version string with its reference count.
  using VersionNode = std::pair<const std::string, uint32_t>;

  Entry() = default;
  ~Entry() = default;

  // Fields a lookup compares come last, next to the name that follows, so a
  // hit reads one contiguous stretch of the block.
  std::shared_ptr<const ResourceData> value_;
  absl::InlinedVector<WatcherId, 1> watchers_;
  VersionNode* version_ = nullptr;
  int64_t update_unix_nanos_ = kNever;
  std::unique_ptr<Extra> extra_;
  AuthorityId authority_ = kOldStyleAuthority;
  uint32_t group_pos_ = 0;  // index in its (authority, type) group
  uint32_t key_offset_ = 0;
  uint32_t client_data_ = 0;  // fills what would be padding
  size_t hash_ = 0;
  uint32_t name_len_ = 0;
  TypeId type_ = 0;
  State state_ = State::kRequested;
  bool old_style_ = true;
  // The name's bytes follow the object in the same allocation.
};
static_assert(sizeof(Entry) <= 96, "Entry grew: check bytes_per_entry");

class ResourceCache {
 public:
  // federation: the A47 gate. Off: every name, xdstp:// or not, is an opaque
  // old-style name.
  explicit ResourceCache(bool federation);
  ~ResourceCache();
  ResourceCache(const ResourceCache&) = delete;
  ResourceCache& operator=(const ResourceCache&) = delete;

  bool federation() const { return federation_; }

  // --- Types and authorities (set up from the bootstrap) ---

  // Interns a resource type; the same name returns the same id.
  TypeId RegisterType(absl::string_view resource_type);
  absl::string_view TypeName(TypeId type) const { return types_[type]; }
  size_t type_count() const { return types_.size(); }

  // Interns a new-style authority (as it appears in canonical names; "" for
  // xdstp:///...) and sets its server; adding it again only updates the
  // server. Never returns kOldStyleAuthority.
  AuthorityId AddAuthority(absl::string_view authority, ServerId server);
  // The old-style authority's server (the top-level xds_servers).
  void SetOldStyleServer(ServerId server) {
    SetServer(kOldStyleAuthority, server);
  }
  // Points an authority at another server channel (future fallback).
  void SetServer(AuthorityId authority, ServerId server) {
    authorities_[authority].server = server;
  }
  ServerId server(AuthorityId authority) const {
    return authorities_[authority].server;
  }
  // kNotFound if the authority was never added.
  absl::StatusOr<AuthorityId> FindAuthority(absl::string_view authority) const;
  // "" for both kOldStyleAuthority and the empty authority: tell them apart by
  // id.
  absl::string_view AuthorityName(AuthorityId authority) const {
    return authorities_[authority].name;
  }
  size_t authority_count() const { return authorities_.size(); }

  // --- Lookup (hot path) ---

  // A parsed name plus the hash the set uses; views borrow the cache's
  // normalizer (or, for a name already canonical, the raw name itself) and
  // stay valid until its next Parse/Find/Insert and while the raw name does.
  struct Key {
    NormalizedNameView name;
    TypeId type = 0;
    size_t hash = 0;
  };
  // One normalization (under the gate, with the type's expected segment).
  // Errors are lib/name's kInvalidArgument.
  absl::StatusOr<Key> Parse(TypeId type, absl::string_view raw_name);

  // The entry for key, or null. One probe, no allocation.
  Entry* Find(const Key& key);
  // Parse + Find: null if absent or unparseable. No heap allocation once the
  // normalizer is warm (on a miss of an unparseable name the error Status
  // may allocate). A name spelled canonically but for the order of its
  // params (the usual response) is found without parsing: it is probed as
  // CanonicalGuess guesses it, and normalized only if that misses, so a
  // miss costs a guessed probe more than Parse + Find.
  Entry* Find(TypeId type, absl::string_view raw_name);

  struct InsertResult {
    Entry* entry;
    bool inserted;  // false: it was already cached
  };
  // Finds or creates (State::kRequested) the entry of a name. Errors: an
  // unparseable name (lib/name's message), or a new-style authority never
  // added: kNotFound `authority "x" of resource name "..." is not configured`.
  // A Key not made by Parse() whose type segment does not name its type is
  // kInvalidArgument, as Parse() would have said.
  absl::StatusOr<InsertResult> Insert(TypeId type, absl::string_view raw_name);
  absl::StatusOr<InsertResult> Insert(const Key& key);

  // --- Updates ---

  // An update was accepted: state kAcked, clears any NACK error.
  void SetAcked(Entry* entry, std::shared_ptr<const ResourceData> value,
                std::string serialized, absl::string_view version,
                absl::Time now);
  // An update was rejected: state kNacked, keeps the last good value and
  // version, records error / version / time of the rejected update.
  void SetNacked(Entry* entry, absl::Status error, absl::string_view version,
                 absl::Time now);
  // The server said the resource does not exist: drops value and bytes.
  void SetDoesNotExist(Entry* entry, absl::Time now);
  // Back to kRequested without touching the rest (e.g. re-subscribed).
  void SetRequested(Entry* entry) { entry->state_ = State::kRequested; }

  // --- Watchers ---

  // Returns true if it is the entry's first watcher (subscribe).
  bool AddWatcher(Entry* entry, WatcherId watcher);
  // Removes one occurrence; false if it was not there. When
  // entry->watchers() becomes empty the client usually calls Erase().
  bool RemoveWatcher(Entry* entry, WatcherId watcher);

  // Removes and frees the entry; pointers to it dangle afterwards.
  void Erase(Entry* entry);

  // --- Iteration (fn must not insert or erase; it may update entries) ---
  //
  // On a const cache fn gets const Entry&, otherwise Entry& (so that e.g. a
  // state-of-the-world response can mark every resource it did not list as
  // does-not-exist in one pass).

  // Entries of one (authority, type), in no particular order.
  template <typename Fn>
  void ForEachOf(AuthorityId authority, TypeId type, Fn&& fn) const {
    const auto& groups = authorities_[authority].groups;
    if (type >= groups.size()) return;
    for (const Entry* e : groups[type]) fn(*e);
  }
  template <typename Fn>
  void ForEachOf(AuthorityId authority, TypeId type, Fn&& fn) {
    auto& groups = authorities_[authority].groups;
    if (type >= groups.size()) return;
    for (Entry* e : groups[type]) fn(*e);
  }
  // Entries of every authority using server, of one type: the resource
  // names of one ADS request.
  template <typename Fn>
  void ForEachOfServer(ServerId server, TypeId type, Fn&& fn) const {
    for (AuthorityId a = 0; a < authorities_.size(); ++a) {
      if (authorities_[a].server == server) ForEachOf(a, type, fn);
    }
  }
  template <typename Fn>
  void ForEachOfServer(ServerId server, TypeId type, Fn&& fn) {
    for (AuthorityId a = 0; a < authorities_.size(); ++a) {
      if (authorities_[a].server == server) ForEachOf(a, type, fn);
    }
  }
  // Every entry, grouped by authority then type (a config dump).
  template <typename Fn>
  void ForEach(Fn&& fn) const {
    for (AuthorityId a = 0; a < authorities_.size(); ++a) {
      for (size_t t = 0; t < authorities_[a].groups.size(); ++t) {
        ForEachOf(a, static_cast<TypeId>(t), fn);
      }
    }
  }
  template <typename Fn>
  void ForEach(Fn&& fn) {
    for (AuthorityId a = 0; a < authorities_.size(); ++a) {
      for (size_t t = 0; t < authorities_[a].groups.size(); ++t) {
        ForEachOf(a, static_cast<TypeId>(t), fn);
      }
    }
  }
  size_t size() const { return index_.size(); }
  size_t CountOf(AuthorityId authority, TypeId type) const {
    const auto& groups = authorities_[authority].groups;
    return type < groups.size() ? groups[type].size() : 0;
  }

 private:
  struct Authority {
    std::string name;
    ServerId server = kNoServer;
    std::vector<std::vector<Entry*>> groups;  // by TypeId
  };
  // What a lookup probes the index with: a canonical name, or a guess at
  // one (Find(type, raw)), with its slot hash and type.
  struct Probe {
    absl::string_view name;
    size_t hash;
    TypeId type;
    bool old_style;
  };
  struct GuessProbe {
    const CanonicalGuess* guess;
    size_t hash;
    TypeId type;
  };
  struct EntryHash {
    using is_transparent = void;
    size_t operator()(const Entry* e) const { return e->hash_; }
    size_t operator()(const Probe& p) const { return p.hash; }
    size_t operator()(const GuessProbe& p) const { return p.hash; }
  };
  struct EntryEq {
    using is_transparent = void;
    bool operator()(const Entry* a, const Entry* b) const;
    bool operator()(const Entry* a, const Probe& b) const;
    bool operator()(const Probe& a, const Entry* b) const {
      return (*this)(b, a);
    }
    bool operator()(const Entry* a, const GuessProbe& b) const;
    bool operator()(const GuessProbe& a, const Entry* b) const {
      return (*this)(b, a);
    }
  };
  template <typename P>
  Entry* FindProbe(const P& probe) {
    auto it = index_.find(probe);
    return it == index_.end() ? nullptr : *it;
  }

  void SetVersion(Entry* entry, absl::string_view version);
  void ReleaseVersion(Entry::VersionNode* node);
  void DestroyEntry(Entry* entry);

  const bool federation_;
  NameNormalizer normalizer_;
  std::vector<std::string> types_;
  absl::flat_hash_map<std::string, TypeId> type_index_;
  std::vector<Authority> authorities_;  // [0] is the old-style authority
  absl::flat_hash_map<std::string, AuthorityId> authority_index_;
  internal::BlockArena arena_;  // the entries' blocks
  absl::flat_hash_set<Entry*, EntryHash, EntryEq,
                      internal::HugePageAllocator<Entry*>>
      index_;
  // Interned versions: node addresses are stable; last_version_ short-cuts
  // the many consecutive updates of one response.
  absl::node_hash_map<std::string, uint32_t> versions_;
  Entry::VersionNode* last_version_ = nullptr;
};

}  // namespace cache
}  // namespace xdsfed

#endif  // XDSFED_LIB_CACHE_RESOURCE_CACHE_H_
