// xDS resource names (gRFC A47 §Resource Cache, cncf/xds TP1 §Naming):
// old-style opaque names and new-style "xdstp://authority/type/id?params"
// names, their canonical (normalized) form, and the key under which a cache
// stores them.
//
//   NameNormalizer n;  // reuse it: no heap allocation once warm
//   auto v = n.Normalize("xdstp://a.com/envoy.config.listener.v3.Listener/"
//                        "x?b=2&a=1", /*federation=*/true);
//   // v->authority == "a.com", v->type == "envoy.config.listener.v3.Listener",
//   // v->key == "x?a=1&b=2", v->normalized ==
//   //   "xdstp://a.com/envoy.config.listener.v3.Listener/x?a=1&b=2"
//
//   auto name = ResourceName::Parse("server.example.com", /*federation=*/true);
//   // name->old_style, name->ToString() == "server.example.com"
#ifndef XDSFED_LIB_NAME_RESOURCE_NAME_H_
#define XDSFED_LIB_NAME_RESOURCE_NAME_H_

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"

namespace xdsfed {

// Longest xdstp: name accepted, in bytes, and most context params accepted:
// bounds the work and memory an untrusted name can cost; longer / more is an
// error. Old-style names are opaque (A47) and have no limit: they are not
// copied.
inline constexpr size_t kMaxResourceNameLength = 64 * 1024;
inline constexpr size_t kMaxContextParams = 1024;

// Canonical pieces of a name, borrowed from a NameNormalizer's buffers or from
// the input (old-style names, and new-style names that are canonical as
// given). Valid until the next Normalize() on that normalizer and while the
// input is alive.
struct NormalizedNameView {
  bool old_style = true;
  absl::string_view authority;  // new-style only; may be empty (canonical form)
  absl::string_view type;  // new-style: resource type segment; old-style: ""
  absl::string_view id;    // new-style: canonical id (after the type segment);
                           // old-style: whole name (as ResourceName::id)
  absl::string_view key;   // cache 3rd-level key: old-style: whole name;
                           // new-style: canonical "id" or "id?k=v&k2=v2"
  absl::string_view normalized;  // full canonical name; old-style: the input
  size_t hash = 0;  // HashNameParts(old_style, authority, type, key)
};

// Computes NormalizedNameView::hash from its parts (not on the hot path: it
// builds the canonical name). A 64-bit hash of (old_style, canonical name),
// seeded per process like absl::Hash; equal parts always hash equal, and
// old-style and new-style names are hashed in separate domains. A new-style
// name's params are hashed one by one and summed, so that a lookup can hash
// a name spelled with its params out of order (CanonicalGuess).
size_t HashNameParts(bool old_style, absl::string_view authority,
                     absl::string_view type, absl::string_view key);

// True if canonical_type (a NormalizedNameView::type) names expected_type (a
// type name, or a type URL "type.googleapis.com/..."): the check Normalize()
// makes of its expected_type.
bool TypeSegmentMatches(absl::string_view canonical_type,
                        absl::string_view expected_type);

// Reusable scratch for normalizing names on the hot path (a response's resource
// names). Not thread-safe; after its buffers have grown to the longest name
// seen, Normalize() allocates nothing.
class NameNormalizer {
 public:
  NameNormalizer();

  // federation=false, or a name not starting with "xdstp:" (case-sensitive):
  // an opaque old-style name, never an error (A47 gate). Otherwise the name
  // must be an RFC 3986 URI (a '%' not followed by two hex digits, or a byte
  // outside a component's class, is an error); every component is decoded
  // and re-encoded with its exact class, upper-case hex. As gRPC C-core does:
  // "xdstp:t/x" has an empty authority; the type/id split is made on the
  // decoded path ("%2F" splits like '/'); an empty id is allowed
  // ("xdstp://a/t" == "xdstp://a/t/"); "?" with nothing after it is an
  // error; a param with an empty key is dropped; "k" means "k=". The
  // fragment (processing directives) is checked, then dropped.
  // expected_type non-empty (a type name, or a type URL
  // "type.googleapis.com/..."): a new-style name with another type is an
  // error. Errors are kInvalidArgument, e.g.
  //   "invalid xdstp name: missing resource type; expected
  //    xdstp://[authority]/type/id".
  absl::StatusOr<NormalizedNameView> Normalize(
      absl::string_view raw, bool federation,
      absl::string_view expected_type = {});

  // Normalize() for a lookup, where an unparseable name is only a miss:
  // sets *out to what Normalize() returns and returns true, or returns false
  // where Normalize() fails. Skips the StatusOr on the common path.
  bool NormalizeInto(absl::string_view raw, bool federation,
                     absl::string_view expected_type, NormalizedNameView* out);

 private:
  struct Param {
    const char* key;   // decoded key: params sort by it
    const char* text;  // canonical "key=value"
    uint32_t key_len;
    uint32_t text_len;
    uint32_t order;  // position in the name: the last of equal keys wins
  };
  absl::StatusOr<NormalizedNameView> NormalizeXdstp(
      absl::string_view raw, absl::string_view expected_type);
  // The common case, without copying or re-encoding: a name whose bytes all
  // stand for themselves ("xdstp://a/t/x?k=v&...", no escapes, no fragment).
  // Returns false, having changed nothing visible, for any other name.
  bool NormalizeFast(absl::string_view raw, absl::string_view expected_type,
                     NormalizedNameView* v);
  // buf_, grown to the size NormalizeXdstp needs for an n-byte name (the
  // fast path uses its first n + 16 bytes). One formula for both paths, so
  // that either one warms the other.
  char* Scratch(size_t n) {
    const size_t need = 8 * n + 256 + 4 * (n / 16 + 5) + 8;
    if (cap_ < need) Grow(need);
    return buf_.get();
  }
  void Grow(size_t need);

  // One scratch block, grown (never shrunk) to fit the longest name seen:
  // [canonical name | canonical params | decoded keys].
  std::unique_ptr<char[]> buf_;
  size_t cap_ = 0;
  std::vector<Param> params_;
};

// Value type (STYLE §4): copyable, ==, hashable, ToString() = canonical form.
struct ResourceName {
  bool old_style = true;
  // Decoded components. Old-style: id holds the whole name, the rest empty.
  std::string authority, type, id;
  // Decoded, sorted by key; duplicates: last one in the name wins.
  std::vector<std::pair<std::string, std::string>> context_params;

  static absl::StatusOr<ResourceName> Parse(
      absl::string_view name, bool federation,
      absl::string_view expected_type = {});

  // Canonical form: the name itself for old-style; for new-style
  // "xdstp://" + enc(authority) + "/" + enc(type) + "/" + enc(id) +
  // ["?" k=v&... sorted by key].
  std::string ToString() const;

  // The cache key of NormalizedNameView::key: old-style: the name; new-style
  // canonical "id" or "id?k=v&...".
  std::string Key() const;

  bool operator==(const ResourceName& other) const {
    return old_style == other.old_style && authority == other.authority &&
           type == other.type && id == other.id &&
           context_params == other.context_params;
  }
  bool operator!=(const ResourceName& other) const { return !(*this == other); }

  template <typename H>
  friend H AbslHashValue(H h, const ResourceName& n) {
    return H::combine(std::move(h), n.old_style, n.authority, n.type, n.id,
                      n.context_params);
  }
};

// The canonical string of a name (see NameNormalizer::Normalize).
absl::StatusOr<std::string> NormalizeResourceName(absl::string_view name,
                                                  bool federation);

}  // namespace xdsfed

#endif  // XDSFED_LIB_NAME_RESOURCE_NAME_H_
