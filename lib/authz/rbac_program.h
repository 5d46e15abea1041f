// RbacEngine's compiled form (internal to lib/authz; rbac_engine.cc
// evaluates it). Built so that one RPC costs a handful of lookups however
// many policies name the same fields:
// - Leaves are deduplicated: a matcher that appears in several policies is
//   one Leaf, evaluated at most once per RPC.
// - Leaves that compare one request field with a constant are grouped per
//   field into an index: case-sensitive exact strings (headers, :path,
//   url_path, principal_name against the SANs) become a hash table from
//   value to a key, case-sensitive prefixes one table of prefix hashes
//   probed at each prefix length in one pass over the value, CIDR ranges a
//   table per prefix length from masked address to key. One RPC resolves
//   each index it needs once; a leaf then matches iff its key was found.
// - A policy side (its permissions, or its principals) made only of such
//   leaves is "pure": resolving an index marks every pure side holding a
//   found key, so the side costs a check of its few indexes.
// - safe_regex leaves on one field share an RE2::Set used as a filter: when
//   no regex of the set matches, every leaf of the group is false without
//   running them one by one; otherwise they run individually (RE2::Set
//   cannot say which matched without allocating).
// - The children of and / or nodes and a policy's two sides (permissions,
//   principals) are ordered cheapest first: matchers have no side effects,
//   so the order changes the cost, never the decision.
#ifndef XDSFED_LIB_AUTHZ_RBAC_PROGRAM_H_
#define XDSFED_LIB_AUTHZ_RBAC_PROGRAM_H_

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/numeric/int128.h"
#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "lib/resources/rbac.h"
#include "re2/re2.h"
#include "re2/set.h"

namespace xdsfed {
namespace authz {
namespace internal {

// What request field a leaf or group reads.
enum class Source : uint8_t {
  kNone,       // te (A41: never present), or no field (any, port, ...)
  kHeader,     // a metadata header by lower-case name (header_slot)
  kPath,       // ":path" header
  kAuthority,  // ":authority" / "host" header
  kMethod,     // ":method" header
  kUrlPath,    // url_path: the path, absent when empty (C-core)
  kSans,       // principal_name: URI SANs, DNS SANs, subject; TLS only
  kPeer,       // source_ip / direct_remote_ip / remote_ip
  kLocal,      // destination_ip
};

// Per-RPC memo sizes: the evaluation state lives on the stack. Past these
// caps leaves are evaluated directly (correct, only slower).
inline constexpr uint8_t kMaxHeaderSlots = 32;  // distinct header names
inline constexpr uint8_t kNoSlot = 255;
inline constexpr uint16_t kMaxGroups = 64;
inline constexpr uint16_t kNoGroup = 0xffff;
inline constexpr uint16_t kMaxMemoLeaves = 256;
inline constexpr uint16_t kNoMemo = 0xffff;
// A group's result holds up to this many keys (several SANs may match
// several principal names); more and its leaves are evaluated directly.
inline constexpr uint8_t kMaxKeys = 4;
// Policy sides whose every root is an indexed leaf ("pure" sides) get a bit
// that resolving an index sets for each side holding a found key, so that
// such a side costs a check of its few indexes, not a walk of its leaves.
inline constexpr uint16_t kMaxPureSides = 512;
inline constexpr uint16_t kNoSide = 0xffff;
inline constexpr uint16_t kTrueSide = 0xfffe;  // a side with an `any` root

struct Leaf {
  resources::RbacMatcher::Kind kind = resources::RbacMatcher::Kind::kAny;
  bool invert = false;  // header invert_match / metadata invert
  Source source = Source::kNone;
  uint8_t header_slot = kNoSlot;  // Source::kHeader, first kMaxHeaderSlots
  std::string header_name;        // lower case
  const resources::HeaderMatch* header = nullptr;
  const resources::StringMatch* string_match = nullptr;
  std::shared_ptr<const re2::RE2> regex;
  bool has_principal_name = false;
  bool ipv6 = false;
  absl::uint128 net = 0, mask = 0;
  uint32_t port = 0;
  uint16_t group = kNoGroup;  // its index, if any
  int32_t key = -1;           // its value's key in that index
  uint16_t memo = kNoMemo;    // its slot in the per-RPC result memo
};

// FNV-1a over bytes, extended a byte at a time: the prefix index hashes
// every prefix length of a value in one pass.
inline constexpr uint64_t kFnvOffset = 0xcbf29ce484222325ull;
inline uint64_t FnvExtend(uint64_t h, absl::string_view bytes) {
  for (char c : bytes) {
    h = (h ^ static_cast<unsigned char>(c)) * 0x100000001b3ull;
  }
  return h;
}

struct Group {
  enum class Type : uint8_t { kStrings, kPrefixes, kNets, kRegexes };
  Type type = Type::kStrings;
  Source source = Source::kNone;
  uint8_t header_slot = kNoSlot;
  std::string header_name;
  // kStrings: case-sensitive exact matchers; the value is looked up.
  absl::flat_hash_map<std::string, int32_t> strings;
  // kPrefixes: every case-sensitive prefix matcher of the source. A value's
  // prefixes of each length in `lengths` (ascending) are looked up by hash,
  // then compared with prefixes[key] (prefixes whose hashes collide are
  // left out of the index at compile time).
  std::vector<size_t> lengths;
  absl::flat_hash_map<uint64_t, int32_t> prefix_by_hash;
  std::vector<std::string> prefixes;
  // kNets: (address & mask) of the given family is looked up.
  bool ipv6 = false;
  absl::uint128 mask = 0;
  absl::flat_hash_map<std::pair<uint64_t, uint64_t>, int32_t> nets;
  // kStrings / kNets: by key, the pure sides holding that key's leaf.
  std::vector<std::vector<uint16_t>> sides_by_key;
  // kRegexes: null if RE2::Set refused the patterns (never filters then).
  std::unique_ptr<re2::RE2::Set> regex_set;
  bool case_sensitive = true;
};

// 16 bytes: the per-RPC walk reads nodes, and a leaf's index and key are
// copied here so that an indexed leaf costs no visit to its Leaf.
struct Node {
  // kConst: any (true) and metadata (false, true if inverted; A41).
  enum class Op : uint8_t { kAnd, kOr, kNot, kLeaf, kConst };
  Op op = Op::kLeaf;
  uint16_t group = kNoGroup;    // kLeaf: leaves[leaf].group
  int32_t key = -1;             // kLeaf: leaves[leaf].key; kConst: 0 or 1
  uint32_t first = 0, end = 0;  // children nodes[first, end), contiguous;
                                // kLeaf: first is the leaf's index
};

struct Policy {
  const std::string* name = nullptr;
  // Root nodes of the two sides (each matches if one root matches), the
  // cheaper side first.
  uint32_t first[2] = {0, 0}, end[2] = {0, 0};
  // A pure side's bit (kNoSide: walk the roots; kTrueSide: always matches)
  // and its distinct indexes,
  // side_groups[groups_first, groups_end).
  uint16_t pure[2] = {kNoSide, kNoSide};
  uint32_t groups_first[2] = {0, 0}, groups_end[2] = {0, 0};
};

struct Program {
  std::shared_ptr<const resources::RbacConfig> config;  // leaves point here
  bool enforcing = false;
  bool allow_action = true;
  std::vector<Leaf> leaves;
  std::vector<Group> groups;
  std::vector<Node> nodes;
  std::vector<Policy> policies;
  std::vector<uint16_t> side_groups;
  uint16_t num_pure_sides = 0;
};

// Error: InvalidArgument for a regex RE2 refuses or a malformed hand-built
// config (a not without one child, a CIDR of bad length).
absl::StatusOr<std::unique_ptr<const Program>> CompileProgram(
    std::shared_ptr<const resources::RbacConfig> config);

}  // namespace internal
}  // namespace authz
}  // namespace xdsfed

#endif  // XDSFED_LIB_AUTHZ_RBAC_PROGRAM_H_
