#include "lib/authz/rbac_program.h"

#include <algorithm>
#include <map>
#include <numeric>
#include <utility>

#include "absl/status/status.h"
#include "absl/strings/ascii.h"
#include "absl/strings/str_cat.h"
#include "absl/types/span.h"
#include "lib/resources/safe_regex.h"

namespace xdsfed {
namespace authz {
namespace internal {

namespace {

using resources::HeaderMatch;
using resources::RbacMatcher;
using resources::StringMatch;
using Kind = RbacMatcher::Kind;

absl::StatusOr<std::shared_ptr<const re2::RE2>> RegexFor(const StringMatch& m) {
  if (m.type != StringMatch::Type::kSafeRegex) return nullptr;
  if (m.regex != nullptr) return m.regex;
  return resources::CompileSafeRegex(m.value, m.case_sensitive);
}

// A rough per-RPC cost, to run cheap matchers before expensive ones:
// constant checks, then indexed lookups, then scans, then regexes.
uint64_t StringCost(const StringMatch& m) {
  switch (m.type) {
    case StringMatch::Type::kExact:
    case StringMatch::Type::kPrefix:
      return m.case_sensitive ? 2 : 6;
    case StringMatch::Type::kSafeRegex:
      return 40;
    default:
      return 6;
  }
}

// Recursion depth is the config's nesting, which protobuf's parse limit
// bounds (< 100); sums saturate so that a huge config cannot wrap.
uint64_t Cost(const RbacMatcher& m) {
  constexpr uint64_t kCap = uint64_t{1} << 40;
  switch (m.kind) {
    case Kind::kAnd:
    case Kind::kOr: {
      uint64_t sum = 0;
      for (const RbacMatcher& c : m.children) {
        sum = std::min(kCap, sum + Cost(c));
      }
      return sum;
    }
    case Kind::kNot:
      return m.children.empty() ? 1 : Cost(m.children[0]);
    case Kind::kAny:
    case Kind::kMetadata:
    case Kind::kDestinationPort:
      return 1;
    case Kind::kRequestedServerName:
      return StringCost(m.string_match);
    case Kind::kHeader:
      // A metadata lookup, then the comparison.
      return 3 + (m.header.type == HeaderMatch::Type::kString
                      ? StringCost(m.header.string_match)
                      : 2);
    case Kind::kUrlPath:
      return StringCost(m.string_match);
    case Kind::kAuthenticated:
      return m.has_principal_name ? 1 + 2 * StringCost(m.string_match) : 1;
    case Kind::kDestinationIp:
    case Kind::kSourceIp:
    case Kind::kDirectRemoteIp:
    case Kind::kRemoteIp:
      return 2;
  }
  return 1;
}

// Length-prefixed so that no two different leaves share a key.
void AppendField(std::string* key, absl::string_view field) {
  absl::StrAppend(key, field.size(), ":", field, "|");
}

void AppendStringMatch(std::string* key, const StringMatch& m) {
  absl::StrAppend(key, static_cast<int>(m.type), m.case_sensitive ? "c" : "i");
  AppendField(key, m.value);
}

class Compiler {
 public:
  explicit Compiler(Program* program) : p_(program) {}

  // Appends `n` empty nodes; returns the first index.
  uint32_t Reserve(size_t n) {
    const uint32_t first = static_cast<uint32_t>(p_->nodes.size());
    p_->nodes.resize(p_->nodes.size() + n);
    return first;
  }

  // Reserves nodes for `matchers` and fills them cheapest first; returns
  // the first index and adds their total cost to *cost.
  absl::StatusOr<uint32_t> FillList(const std::vector<RbacMatcher>& matchers,
                                    uint64_t* cost) {
    std::vector<uint64_t> costs(matchers.size());
    for (size_t i = 0; i < matchers.size(); ++i) costs[i] = Cost(matchers[i]);
    std::vector<size_t> order(matchers.size());
    std::iota(order.begin(), order.end(), size_t{0});
    std::stable_sort(order.begin(), order.end(),
                     [&](size_t a, size_t b) { return costs[a] < costs[b]; });
    const uint32_t first = Reserve(matchers.size());
    for (size_t i = 0; i < order.size(); ++i) {
      *cost += costs[order[i]];
      absl::Status s =
          Fill(first + static_cast<uint32_t>(i), matchers[order[i]]);
      if (!s.ok()) return s;
    }
    return first;
  }

  // Makes the side nodes[first, end) of `policy` pure if every root is a
  // leaf of a string / CIDR index (and there is a bit left for it).
  void MakePure(uint32_t first, uint32_t end, int side, Policy* policy) {
    for (uint32_t i = first; i < end; ++i) {
      const Node& n = p_->nodes[i];
      if (n.op == Node::Op::kConst) {
        if (n.key != 0) {
          policy->pure[side] = kTrueSide;
          return;
        }
        continue;  // false: no effect on the side's "any root matches"
      }
      if (n.op != Node::Op::kLeaf || n.group == kNoGroup ||
          p_->groups[n.group].type == Group::Type::kRegexes) {
        return;
      }
    }
    if (p_->num_pure_sides >= kMaxPureSides) return;
    const uint16_t bit = p_->num_pure_sides++;
    policy->pure[side] = bit;
    policy->groups_first[side] = static_cast<uint32_t>(p_->side_groups.size());
    for (uint32_t i = first; i < end; ++i) {
      const Node& n = p_->nodes[i];
      if (n.op == Node::Op::kConst) continue;
      Group& g = p_->groups[n.group];
      if (g.sides_by_key.size() <= static_cast<size_t>(n.key)) {
        g.sides_by_key.resize(n.key + 1);
      }
      std::vector<uint16_t>& sides = g.sides_by_key[n.key];
      if (sides.empty() || sides.back() != bit) sides.push_back(bit);
      const auto begin = p_->side_groups.begin() + policy->groups_first[side];
      if (std::find(begin, p_->side_groups.end(), n.group) ==
          p_->side_groups.end()) {
        p_->side_groups.push_back(n.group);
      }
    }
    policy->groups_end[side] = static_cast<uint32_t>(p_->side_groups.size());
  }

  // Compiles the regex sets and hands out memo slots, once every leaf is
  // known.
  void Finish() {
    for (Group& g : p_->groups) {
      if (g.regex_set != nullptr && !g.regex_set->Compile()) {
        g.regex_set = nullptr;  // never filters: leaves run one by one
      }
    }
    uint16_t next = 0;
    for (Leaf& leaf : p_->leaves) {
      if (next == kMaxMemoLeaves) break;
      // Leaves of a string / CIDR index are resolved by it (but for an
      // overflow of matching SANs); the others are worth remembering.
      if (leaf.group != kNoGroup &&
          p_->groups[leaf.group].type != Group::Type::kRegexes) {
        continue;
      }
      leaf.memo = next++;
    }
  }

 private:
  absl::Status Fill(uint32_t slot, const RbacMatcher& m) {
    Node node;
    switch (m.kind) {
      case Kind::kAnd:
      case Kind::kOr:
      case Kind::kNot: {
        if (m.kind == Kind::kNot && m.children.size() != 1) {
          return absl::InvalidArgumentError("not must have one child");
        }
        node.op = m.kind == Kind::kAnd  ? Node::Op::kAnd
                  : m.kind == Kind::kOr ? Node::Op::kOr
                                        : Node::Op::kNot;
        uint64_t unused = 0;
        absl::StatusOr<uint32_t> first = FillList(m.children, &unused);
        if (!first.ok()) return first.status();
        node.first = *first;
        node.end = node.first + static_cast<uint32_t>(m.children.size());
        break;
      }
      case Kind::kAny:
        node.op = Node::Op::kConst;
        node.key = 1;
        break;
      case Kind::kMetadata:
        node.op = Node::Op::kConst;
        node.key = m.invert ? 1 : 0;
        break;
      default: {
        absl::StatusOr<uint32_t> leaf = LeafFor(m);
        if (!leaf.ok()) return leaf.status();
        node.op = Node::Op::kLeaf;
        node.first = *leaf;
        node.group = p_->leaves[*leaf].group;
        node.key = p_->leaves[*leaf].key;
        break;
      }
    }
    p_->nodes[slot] = node;
    return absl::OkStatus();
  }

  // The distinct leaf for `m`, made on first sight.
  absl::StatusOr<uint32_t> LeafFor(const RbacMatcher& m) {
    absl::StatusOr<Leaf> made = MakeLeaf(m);
    if (!made.ok()) return made.status();
    std::string key = LeafKey(*made, m);
    auto it = leaf_ids_.find(key);
    if (it != leaf_ids_.end()) return it->second;
    const uint32_t id = static_cast<uint32_t>(p_->leaves.size());
    Index(&*made);
    p_->leaves.push_back(*std::move(made));
    leaf_ids_.emplace(std::move(key), id);
    return id;
  }

  absl::StatusOr<Leaf> MakeLeaf(const RbacMatcher& m) {
    Leaf leaf;
    leaf.kind = m.kind;
    switch (m.kind) {
      case Kind::kHeader: {
        leaf.header = &m.header;
        leaf.invert = m.header.invert_match;
        leaf.header_name = absl::AsciiStrToLower(m.header.name);
        if (leaf.header_name == ":path") {
          leaf.source = Source::kPath;
        } else if (leaf.header_name == ":authority" ||
                   leaf.header_name == "host") {
          leaf.source = Source::kAuthority;  // A41: Host and :authority
        } else if (leaf.header_name == ":method") {
          leaf.source = Source::kMethod;
        } else if (leaf.header_name == "te") {
          leaf.source = Source::kNone;  // A41: hop-by-hop, never present
        } else {
          leaf.source = Source::kHeader;
          leaf.header_slot = SlotFor(leaf.header_name);
        }
        if (m.header.type == HeaderMatch::Type::kString) {
          leaf.string_match = &m.header.string_match;
          auto re = RegexFor(m.header.string_match);
          if (!re.ok()) return re.status();
          leaf.regex = *std::move(re);
        }
        break;
      }
      case Kind::kUrlPath:
      case Kind::kRequestedServerName:
      case Kind::kAuthenticated: {
        leaf.string_match = &m.string_match;
        leaf.has_principal_name = m.has_principal_name;
        leaf.source = m.kind == Kind::kUrlPath ? Source::kUrlPath
                      : m.kind == Kind::kAuthenticated && m.has_principal_name
                          ? Source::kSans
                          : Source::kNone;
        if (m.kind != Kind::kAuthenticated || m.has_principal_name) {
          auto re = RegexFor(m.string_match);
          if (!re.ok()) return re.status();
          leaf.regex = *std::move(re);
        }
        break;
      }
      case Kind::kDestinationIp:
      case Kind::kSourceIp:
      case Kind::kDirectRemoteIp:
      case Kind::kRemoteIp: {
        const std::string& bytes = m.cidr.address;
        if (bytes.size() != 4 && bytes.size() != 16) {
          return absl::InvalidArgumentError("CIDR address of bad length");
        }
        leaf.source =
            m.kind == Kind::kDestinationIp ? Source::kLocal : Source::kPeer;
        leaf.ipv6 = bytes.size() == 16;
        const uint32_t bits = leaf.ipv6 ? 128 : 32;
        absl::uint128 ip = 0;
        for (char c : bytes) ip = (ip << 8) | static_cast<unsigned char>(c);
        const absl::uint128 full =
            leaf.ipv6 ? ~absl::uint128(0) : absl::uint128(0xffffffffu);
        const uint32_t len =
            m.cidr.prefix_len < bits ? m.cidr.prefix_len : bits;
        leaf.mask = len == 0 ? absl::uint128(0) : (full << (bits - len)) & full;
        leaf.net = ip & leaf.mask;
        break;
      }
      case Kind::kDestinationPort:
        leaf.port = m.port;
        break;
      case Kind::kMetadata:
        leaf.invert = m.invert;
        break;
      default:  // kAny (and / or / not never reach here)
        break;
    }
    return leaf;
  }

  // Everything the leaf's evaluation reads.
  static std::string LeafKey(const Leaf& leaf, const RbacMatcher& m) {
    std::string key;
    switch (leaf.source) {
      case Source::kPeer:
      case Source::kLocal:
        // source_ip, direct_remote_ip and remote_ip read the same address.
        absl::StrAppend(&key, "ip", static_cast<int>(leaf.source), "|",
                        leaf.ipv6 ? 6 : 4, "|", absl::Uint128High64(leaf.net),
                        ",", absl::Uint128Low64(leaf.net), "|",
                        absl::Uint128High64(leaf.mask), ",",
                        absl::Uint128Low64(leaf.mask));
        return key;
      default:
        break;
    }
    absl::StrAppend(&key, static_cast<int>(m.kind), "|",
                    static_cast<int>(leaf.source), "|");
    switch (m.kind) {
      case Kind::kHeader:
        AppendField(&key, leaf.header_name);
        absl::StrAppend(&key, static_cast<int>(m.header.type), "|",
                        m.header.range_start, "|", m.header.range_end, "|",
                        m.header.present_match ? 1 : 0,
                        m.header.invert_match ? 1 : 0, "|");
        AppendStringMatch(&key, m.header.string_match);
        break;
      case Kind::kUrlPath:
      case Kind::kRequestedServerName:
      case Kind::kAuthenticated:
        absl::StrAppend(&key, m.has_principal_name ? 1 : 0, "|");
        AppendStringMatch(&key, m.string_match);
        break;
      case Kind::kDestinationPort:
        absl::StrAppend(&key, m.port);
        break;
      case Kind::kMetadata:
        absl::StrAppend(&key, m.invert ? 1 : 0);
        break;
      default:
        break;
    }
    return key;
  }

  // Puts a new leaf into its field's index, if it has one.
  void Index(Leaf* leaf) {
    std::string group_key;
    Group::Type type;
    const StringMatch* sm = leaf->string_match;
    switch (leaf->source) {
      case Source::kPeer:
      case Source::kLocal: {
        type = Group::Type::kNets;
        group_key = absl::StrCat("n|", static_cast<int>(leaf->source), "|",
                                 leaf->ipv6 ? 6 : 4, "|",
                                 absl::Uint128High64(leaf->mask), ",",
                                 absl::Uint128Low64(leaf->mask));
        break;
      }
      case Source::kHeader:
      case Source::kPath:
      case Source::kAuthority:
      case Source::kMethod:
      case Source::kUrlPath:
      case Source::kSans: {
        // An inverted header matcher is true on a present, different value:
        // not a lookup.
        if (sm == nullptr || leaf->invert) return;
        const absl::string_view field =
            leaf->source == Source::kHeader
                ? absl::string_view(leaf->header_name)
                : absl::string_view();
        if (sm->type == StringMatch::Type::kSafeRegex) {
          type = Group::Type::kRegexes;
          group_key = absl::StrCat("r|", static_cast<int>(leaf->source), "|",
                                   sm->case_sensitive ? "c" : "i", "|", field);
        } else if (sm->case_sensitive &&
                   sm->type == StringMatch::Type::kExact) {
          type = Group::Type::kStrings;
          group_key =
              absl::StrCat("s|", static_cast<int>(leaf->source), "|", field);
        } else if (sm->case_sensitive &&
                   sm->type == StringMatch::Type::kPrefix) {
          type = Group::Type::kPrefixes;
          group_key =
              absl::StrCat("p|", static_cast<int>(leaf->source), "|", field);
        } else {
          return;
        }
        break;
      }
      default:
        return;
    }
    auto it = group_ids_.find(group_key);
    if (it == group_ids_.end()) {
      if (p_->groups.size() >= kMaxGroups) return;
      Group g;
      g.type = type;
      g.source = leaf->source;
      g.header_slot = leaf->header_slot;
      g.header_name = leaf->header_name;
      if (type == Group::Type::kNets) {
        g.ipv6 = leaf->ipv6;
        g.mask = leaf->mask;
      } else if (type == Group::Type::kStrings ||
                 type == Group::Type::kPrefixes) {
      } else {
        g.case_sensitive = sm->case_sensitive;
        re2::RE2::Options options;
        options.set_case_sensitive(sm->case_sensitive);
        options.set_log_errors(false);
        g.regex_set =
            std::make_unique<re2::RE2::Set>(options, re2::RE2::ANCHOR_BOTH);
      }
      it = group_ids_
               .emplace(std::move(group_key),
                        static_cast<uint16_t>(p_->groups.size()))
               .first;
      p_->groups.push_back(std::move(g));
    }
    Group& g = p_->groups[it->second];
    switch (type) {
      case Group::Type::kPrefixes: {
        const uint64_t h = FnvExtend(kFnvOffset, sm->value);
        auto found = g.prefix_by_hash.find(h);
        if (found != g.prefix_by_hash.end()) {
          // Another prefix with this hash: this leaf stays out.
          if (g.prefixes[found->second] != sm->value) return;
          leaf->key = found->second;
          break;
        }
        leaf->key = static_cast<int32_t>(g.prefixes.size());
        g.prefix_by_hash.emplace(h, leaf->key);
        g.prefixes.push_back(sm->value);
        auto at = std::lower_bound(g.lengths.begin(), g.lengths.end(),
                                   sm->value.size());
        if (at == g.lengths.end() || *at != sm->value.size()) {
          g.lengths.insert(at, sm->value.size());
        }
        break;
      }
      default:
        break;
    }
    leaf->group = it->second;
    switch (type) {
      case Group::Type::kPrefixes:
        break;
      case Group::Type::kNets: {
        const std::pair<uint64_t, uint64_t> net(absl::Uint128High64(leaf->net),
                                                absl::Uint128Low64(leaf->net));
        leaf->key = g.nets.emplace(net, static_cast<int32_t>(g.nets.size()))
                        .first->second;
        break;
      }
      case Group::Type::kStrings:
        leaf->key =
            g.strings.emplace(sm->value, static_cast<int32_t>(g.strings.size()))
                .first->second;
        break;
      case Group::Type::kRegexes:
        if (g.regex_set != nullptr &&
            g.regex_set->Add(sm->value, /*error=*/nullptr) < 0) {
          g.regex_set = nullptr;  // never filters: leaves run one by one
        }
        break;
    }
  }

  // The memo slot of a metadata header name (lower case).
  uint8_t SlotFor(const std::string& name) {
    auto it = slots_.find(name);
    if (it != slots_.end()) return it->second;
    if (slots_.size() >= kMaxHeaderSlots) return kNoSlot;
    const uint8_t slot = static_cast<uint8_t>(slots_.size());
    slots_.emplace(name, slot);
    return slot;
  }

  Program* p_;
  std::map<std::string, uint8_t> slots_;
  absl::flat_hash_map<std::string, uint32_t> leaf_ids_;
  absl::flat_hash_map<std::string, uint16_t> group_ids_;
};

}  // namespace

absl::StatusOr<std::unique_ptr<const Program>> CompileProgram(
    std::shared_ptr<const resources::RbacConfig> config) {
  auto program = std::make_unique<Program>();
  program->config = std::move(config);
  const resources::RbacConfig& own = *program->config;
  if (!own.rules.has_value()) return program;
  program->enforcing = true;
  program->allow_action =
      own.rules->action == resources::RbacRules::Action::kAllow;
  Compiler compiler(program.get());
  for (const resources::RbacPolicy& p : own.rules->policies) {
    Policy policy;
    policy.name = &p.name;
    uint64_t costs[2] = {0, 0};
    const std::vector<RbacMatcher>* sides[2] = {&p.permissions, &p.principals};
    for (int s = 0; s < 2; ++s) {
      absl::StatusOr<uint32_t> first = compiler.FillList(*sides[s], &costs[s]);
      if (!first.ok()) return first.status();
      policy.first[s] = *first;
      policy.end[s] = *first + static_cast<uint32_t>(sides[s]->size());
    }
    if (costs[1] < costs[0]) {
      std::swap(policy.first[0], policy.first[1]);
      std::swap(policy.end[0], policy.end[1]);
    }
    for (int s = 0; s < 2; ++s) {
      compiler.MakePure(policy.first[s], policy.end[s], s, &policy);
    }
    program->policies.push_back(policy);
  }
  compiler.Finish();
  return program;
}

}  // namespace internal
}  // namespace authz
}  // namespace xdsfed
