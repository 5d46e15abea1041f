#include "lib/authz/rbac_engine.h"

#include <algorithm>
#include <utility>

#include "absl/base/attributes.h"
#include "absl/base/optimization.h"
#include "absl/numeric/int128.h"
#include "absl/strings/numbers.h"
#include "lib/authz/rbac_program.h"

namespace xdsfed {
namespace authz {

namespace {

using internal::Group;
using internal::kMaxGroups;
using internal::kMaxHeaderSlots;
using internal::kMaxKeys;
using internal::kMaxMemoLeaves;
using internal::kNoGroup;
using internal::kNoMemo;
using internal::kNoSlot;
using internal::Leaf;
using internal::Node;
using internal::Program;
using internal::Source;
using resources::HeaderMatch;
using Kind = resources::RbacMatcher::Kind;

// Per-Evaluate memo of metadata lookups by slot. A value joined into
// *scratch is not kept: the next join overwrites it. Plain arrays, left
// uninitialized: only the bits of known_ say what is valid.
class HeaderMemo {
 public:
  std::optional<absl::string_view> Get(uint8_t slot, const std::string& name,
                                       const RequestView& r,
                                       std::string* scratch) {
    if (!r.headers.has_value()) return std::nullopt;
    if (slot != kNoSlot && (known_ >> slot & 1) != 0) {
      if ((present_ >> slot & 1) == 0) return std::nullopt;
      return absl::string_view(data_[slot], size_[slot]);
    }
    std::optional<absl::string_view> value = (*r.headers)(name, scratch);
    if (slot != kNoSlot &&
        (!value.has_value() || scratch == nullptr ||
         value->data() < scratch->data() ||
         value->data() > scratch->data() + scratch->size())) {
      known_ |= uint32_t{1} << slot;
      if (value.has_value()) {
        present_ |= uint32_t{1} << slot;
        data_[slot] = value->data();
        size_[slot] = value->size();
      }
    }
    return value;
  }

 private:
  uint32_t known_ = 0, present_ = 0;
  const char* data_[kMaxHeaderSlots];
  size_t size_[kMaxHeaderSlots];
};

// What one index found for this RPC: the keys of the values that matched,
// or `unresolved` (its leaves are evaluated one by one).
struct GroupResult {
  int32_t keys[kMaxKeys];
  uint8_t n;
  bool unresolved;
};

bool IpMatches(const Leaf& l, const routing::SocketAddress& a) {
  return a.ipv6 == l.ipv6 && (a.ip & l.mask) == l.net;
}

class Evaluation {
 public:
  Evaluation(const Program& p, const RequestView& r, std::string* scratch)
      : p_(p), r_(r), scratch_(scratch) {
    std::fill_n(hits_, (p.num_pure_sides + 63) / 64, uint64_t{0});
  }

  // Whether side `s` of `policy` matches.
  bool SideMatches(const internal::Policy& policy, int s) {
    const uint16_t bit = policy.pure[s];
    if (bit == internal::kNoSide) {
      return AnyOf(policy.first[s], policy.end[s]);
    }
    if (bit == internal::kTrueSide) return true;
    for (uint32_t i = policy.groups_first[s]; i < policy.groups_end[s]; ++i) {
      Lookup(p_.side_groups[i]);
    }
    return (hits_[bit / 64] >> (bit % 64) & 1) != 0;
  }

  // The loops test indexed leaves inline (most leaves of a large policy
  // set): a call per leaf costs more than the test.
  bool AnyOf(uint32_t first, uint32_t end) {
    for (uint32_t i = first; i < end; ++i) {
      const Node& n = p_.nodes[i];
      const int indexed = IndexedLeaf(n);
      if (indexed >= 0) {
        if (indexed != 0) return true;
      } else if (Match(n)) {
        return true;
      }
    }
    return false;
  }

 private:
  // 1 / 0: an indexed leaf that matches / does not; -1: anything else.
  int IndexedLeaf(const Node& n) {
    if (n.op == Node::Op::kConst) return n.key;
    if (n.op != Node::Op::kLeaf || n.group == kNoGroup) return -1;
    const GroupResult& g = Lookup(n.group);
    if (g.unresolved) return -1;
    for (uint8_t k = 0; k < g.n; ++k) {
      if (g.keys[k] == n.key) return 1;
    }
    return 0;
  }

  // Recursion depth is the config's nesting (< 100, protobuf's limit).
  ABSL_ATTRIBUTE_NOINLINE bool Match(const Node& n) {
    switch (n.op) {
      case Node::Op::kAnd:
        for (uint32_t c = n.first; c < n.end; ++c) {
          const Node& child = p_.nodes[c];
          const int indexed = IndexedLeaf(child);
          if (indexed == 0 || (indexed < 0 && !Match(child))) return false;
        }
        return true;
      case Node::Op::kOr:
        return AnyOf(n.first, n.end);
      case Node::Op::kNot:
        return !Match(p_.nodes[n.first]);
      case Node::Op::kLeaf:
        return LeafMatches(n.first);
      case Node::Op::kConst:
        return n.key != 0;
    }
    return false;
  }

  // A leaf without an index, or whose index could not decide.
  ABSL_ATTRIBUTE_NOINLINE bool LeafMatches(uint32_t id) {
    const Leaf& l = p_.leaves[id];
    if (l.memo == kNoMemo) return Direct(l);
    const uint64_t bit = uint64_t{1} << (l.memo % 64);
    if ((memo_known_[l.memo / 64] & bit) != 0) {
      return (memo_true_[l.memo / 64] & bit) != 0;
    }
    const bool matched = Direct(l);
    memo_known_[l.memo / 64] |= bit;
    if (matched) memo_true_[l.memo / 64] |= bit;
    return matched;
  }

  const GroupResult& Lookup(uint16_t index) {
    GroupResult& out = groups_[index];
    const uint64_t bit = uint64_t{1} << index;
    if (ABSL_PREDICT_FALSE((groups_done_ & bit) == 0)) {
      Resolve(p_.groups[index], &out);
      groups_done_ |= bit;
    }
    return out;
  }

  // Calls fn(value) for each value the group's source has (none when
  // absent); stops when fn returns false.
  template <typename Fn>
  void ForEachValue(const Group& g, Fn fn) {
    std::optional<absl::string_view> one;
    switch (g.source) {
      case Source::kHeader:
        one = headers_.Get(g.header_slot, g.header_name, r_, scratch_);
        break;
      case Source::kPath:
        one = r_.path;
        break;
      case Source::kAuthority:
        one = r_.authority;
        break;
      case Source::kMethod:
        one = r_.method;
        break;
      case Source::kUrlPath:
        if (!r_.path.empty()) one = r_.path;
        break;
      case Source::kSans:
        if (!r_.tls) return;
        for (absl::string_view san : r_.uri_sans) {
          if (!fn(san)) return;
        }
        for (absl::string_view san : r_.dns_sans) {
          if (!fn(san)) return;
        }
        fn(r_.subject);
        return;
      default:
        return;
    }
    if (one.has_value()) fn(*one);
  }

  ABSL_ATTRIBUTE_NOINLINE void Resolve(const Group& g, GroupResult* out) {
    out->n = 0;
    out->unresolved = false;
    switch (g.type) {
      case Group::Type::kNets: {
        const routing::SocketAddress& a =
            g.source == Source::kPeer ? r_.peer : r_.local;
        if (a.ipv6 != g.ipv6) return;
        const absl::uint128 net = a.ip & g.mask;
        auto it = g.nets.find(
            std::make_pair(absl::Uint128High64(net), absl::Uint128Low64(net)));
        if (it != g.nets.end()) {
          out->keys[out->n++] = it->second;
          MarkSides(g, it->second);
        }
        return;
      }
      case Group::Type::kStrings:
        ForEachValue(g, [&](absl::string_view v) {
          auto it = g.strings.find(v);
          if (it != g.strings.end()) Found(g, it->second, out);
          return true;
        });
        return;
      case Group::Type::kPrefixes:
        ForEachValue(g, [&](absl::string_view v) {
          uint64_t h = internal::kFnvOffset;
          size_t hashed = 0;
          for (size_t len : g.lengths) {
            if (len > v.size()) break;
            h = internal::FnvExtend(h, v.substr(hashed, len - hashed));
            hashed = len;
            auto it = g.prefix_by_hash.find(h);
            if (it != g.prefix_by_hash.end() &&
                g.prefixes[it->second] == v.substr(0, len)) {
              Found(g, it->second, out);
            }
          }
          return true;
        });
        return;
      case Group::Type::kRegexes:
        if (g.regex_set == nullptr) {
          out->unresolved = true;
          return;
        }
        // No regex of the set matching any value: every leaf is false.
        // A match, or an RE2 error, sends the leaves to their own regex.
        ForEachValue(g, [&](absl::string_view v) {
          // Anything but a clean "no match" counts as a match.
          re2::RE2::Set::ErrorInfo error{re2::RE2::Set::kInconsistent};
          if (g.regex_set->Match(re2::StringPiece(v.data(), v.size()),
                                 /*v=*/nullptr, &error) ||
              error.kind != re2::RE2::Set::kNoError) {
            out->unresolved = true;
            return false;
          }
          return true;
        });
        return;
    }
  }

  // Records that `key` of `g` matched a value of this RPC.
  void Found(const Group& g, int32_t key, GroupResult* out) {
    for (uint8_t k = 0; k < out->n; ++k) {
      if (out->keys[k] == key) return;
    }
    // Past kMaxKeys the walk evaluates the leaves directly; pure sides
    // still hear of every key.
    MarkSides(g, key);
    if (out->n == kMaxKeys) {
      out->unresolved = true;
    } else {
      out->keys[out->n++] = key;
    }
  }

  void MarkSides(const Group& g, int32_t key) {
    if (static_cast<size_t>(key) >= g.sides_by_key.size()) return;
    for (uint16_t side : g.sides_by_key[key]) {
      hits_[side / 64] |= uint64_t{1} << (side % 64);
    }
  }

  bool StringMatches(const Leaf& l, absl::string_view value) {
    return routing::StringMatches(*l.string_match, l.regex.get(), value);
  }

  bool HeaderMatches(const Leaf& l) {
    std::optional<absl::string_view> value;
    switch (l.source) {
      case Source::kPath:
        value = r_.path;
        break;
      case Source::kAuthority:
        value = r_.authority;
        break;
      case Source::kMethod:
        value = r_.method;
        break;
      case Source::kHeader:
        value = headers_.Get(l.header_slot, l.header_name, r_, scratch_);
        break;
      default:  // te: never present
        break;
    }
    const HeaderMatch& m = *l.header;
    if (m.type == HeaderMatch::Type::kPresent) {
      return (value.has_value() == m.present_match) != m.invert_match;
    }
    // A41: an absent header fails the matcher, inverted or not.
    if (!value.has_value()) return false;
    bool matched;
    if (m.type == HeaderMatch::Type::kRange) {
      int64_t v;
      matched =
          absl::SimpleAtoi(*value, &v) && v >= m.range_start && v < m.range_end;
    } else {
      matched = StringMatches(l, *value);
    }
    return matched != m.invert_match;
  }

  // The leaf evaluated on its own.
  bool Direct(const Leaf& l) {
    switch (l.kind) {
      case Kind::kHeader:
        return HeaderMatches(l);
      case Kind::kUrlPath:
        return !r_.path.empty() && StringMatches(l, r_.path);
      case Kind::kDestinationIp:
        return IpMatches(l, r_.local);
      case Kind::kDestinationPort:
        return r_.local.port == l.port;
      case Kind::kRequestedServerName:
        return StringMatches(l, "");
      case Kind::kAuthenticated:
        if (!r_.tls) return false;
        if (!l.has_principal_name) return true;
        for (absl::string_view san : r_.uri_sans) {
          if (StringMatches(l, san)) return true;
        }
        for (absl::string_view san : r_.dns_sans) {
          if (StringMatches(l, san)) return true;
        }
        return StringMatches(l, r_.subject);
      case Kind::kSourceIp:
      case Kind::kDirectRemoteIp:
      case Kind::kRemoteIp:
        return IpMatches(l, r_.peer);
      default:  // and / or / not / any / metadata are nodes, never leaves
        return false;
    }
  }

  static_assert(kMaxGroups <= 64, "groups_done_ is one word");
  static_assert(kMaxMemoLeaves % 64 == 0, "memo words");

  const Program& p_;
  const RequestView& r_;
  std::string* scratch_;
  uint64_t groups_done_ = 0;
  GroupResult groups_[kMaxGroups];  // valid where groups_done_ says
  uint64_t memo_known_[kMaxMemoLeaves / 64] = {};
  uint64_t memo_true_[kMaxMemoLeaves / 64] = {};
  HeaderMemo headers_;
  uint64_t hits_[internal::kMaxPureSides / 64];  // words in use are zeroed
};

}  // namespace

RbacEngine::RbacEngine(std::unique_ptr<const internal::Program> program)
    : program_(std::move(program)) {}

RbacEngine::~RbacEngine() = default;

bool RbacEngine::enforcing() const { return program_->enforcing; }

size_t RbacEngine::num_policies() const { return program_->policies.size(); }

absl::StatusOr<std::shared_ptr<const RbacEngine>> RbacEngine::Compile(
    const resources::RbacConfig& config) {
  absl::StatusOr<std::unique_ptr<const Program>> program =
      internal::CompileProgram(
          std::make_shared<const resources::RbacConfig>(config));
  if (!program.ok()) return program.status();
  return std::shared_ptr<const RbacEngine>(new RbacEngine(*std::move(program)));
}

Decision RbacEngine::Evaluate(const RequestView& request,
                              std::string* scratch) const {
  Decision d;
  const Program& p = *program_;
  if (!p.enforcing) return d;
  Evaluation eval(p, request, scratch);
  bool matched = false;
  for (const internal::Policy& policy : p.policies) {
    if (eval.SideMatches(policy, 0) && eval.SideMatches(policy, 1)) {
      matched = true;
      d.policy = *policy.name;
      break;
    }
  }
  d.allowed = p.allow_action ? matched : !matched;
  return d;
}

}  // namespace authz
}  // namespace xdsfed
