#include "lib/authz/rbac_engine.h"

#include <map>
#include <utility>

#include "absl/status/status.h"
#include "absl/strings/ascii.h"
#include "absl/strings/numbers.h"
#include "lib/resources/safe_regex.h"

namespace xdsfed {
namespace authz {

namespace {

using resources::HeaderMatch;
using resources::RbacMatcher;
using resources::StringMatch;
using Kind = RbacMatcher::Kind;
using Node = RbacEngine::Node;

enum Pseudo : uint8_t {
  kOther = 0,
  kPath = 1,
  kAuthority = 2,
  kMethod = 3,
  kNeverPresent = 4,
};

absl::StatusOr<std::shared_ptr<const re2::RE2>> RegexFor(const StringMatch& m) {
  if (m.type != StringMatch::Type::kSafeRegex) return nullptr;
  if (m.regex != nullptr) return m.regex;
  return resources::CompileSafeRegex(m.value, m.case_sensitive);
}

class Compiler {
 public:
  explicit Compiler(std::vector<Node>* nodes) : nodes_(nodes) {}

  // The memo slot of a metadata header name (lower case).
  uint8_t SlotFor(const std::string& name) {
    auto it = slots_.find(name);
    if (it != slots_.end()) return it->second;
    if (slots_.size() >= RbacEngine::kMaxHeaderSlots) {
      return RbacEngine::kNoSlot;
    }
    const uint8_t slot = static_cast<uint8_t>(slots_.size());
    slots_.emplace(name, slot);
    return slot;
  }

  // Appends `n` empty nodes; returns the first index.
  uint32_t Reserve(size_t n) {
    const uint32_t first = static_cast<uint32_t>(nodes_->size());
    nodes_->resize(nodes_->size() + n);
    return first;
  }

  // Fills the reserved slot `slot` with `m` (children reserved and filled
  // first, contiguously). Recursion depth is the config's nesting, which
  // protobuf's parse limit bounds (< 100).
  absl::Status Fill(uint32_t slot, const RbacMatcher& m) {
    Node node;
    node.kind = m.kind;
    switch (m.kind) {
      case Kind::kAnd:
      case Kind::kOr:
      case Kind::kNot: {
        if (m.kind == Kind::kNot && m.children.size() != 1) {
          return absl::InvalidArgumentError("not must have one child");
        }
        node.first = Reserve(m.children.size());
        node.end = node.first + static_cast<uint32_t>(m.children.size());
        for (size_t i = 0; i < m.children.size(); ++i) {
          absl::Status s =
              Fill(node.first + static_cast<uint32_t>(i), m.children[i]);
          if (!s.ok()) return s;
        }
        break;
      }
      case Kind::kHeader: {
        node.header = &m.header;
        node.invert = m.header.invert_match;
        node.header_name = absl::AsciiStrToLower(m.header.name);
        if (node.header_name == ":path") {
          node.pseudo = kPath;
        } else if (node.header_name == ":authority" ||
                   node.header_name == "host") {
          node.pseudo = kAuthority;  // A41: Host and :authority are one
        } else if (node.header_name == ":method") {
          node.pseudo = kMethod;
        } else if (node.header_name == "te") {
          node.pseudo = kNeverPresent;  // A41: hop-by-hop, never present
        } else {
          node.header_slot = SlotFor(node.header_name);
        }
        if (m.header.type == HeaderMatch::Type::kString) {
          node.string_match = &m.header.string_match;
          auto re = RegexFor(m.header.string_match);
          if (!re.ok()) return re.status();
          node.regex = *std::move(re);
        }
        break;
      }
      case Kind::kUrlPath:
      case Kind::kRequestedServerName:
      case Kind::kAuthenticated: {
        node.string_match = &m.string_match;
        node.has_principal_name = m.has_principal_name;
        if (m.kind != Kind::kAuthenticated || m.has_principal_name) {
          auto re = RegexFor(m.string_match);
          if (!re.ok()) return re.status();
          node.regex = *std::move(re);
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
        node.ipv6 = bytes.size() == 16;
        const uint32_t bits = node.ipv6 ? 128 : 32;
        absl::uint128 ip = 0;
        for (char c : bytes) ip = (ip << 8) | static_cast<unsigned char>(c);
        const absl::uint128 full =
            node.ipv6 ? ~absl::uint128(0) : absl::uint128(0xffffffffu);
        const uint32_t len =
            m.cidr.prefix_len < bits ? m.cidr.prefix_len : bits;
        node.mask = len == 0 ? absl::uint128(0) : (full << (bits - len)) & full;
        node.net = ip & node.mask;
        break;
      }
      case Kind::kDestinationPort:
        node.port = m.port;
        break;
      case Kind::kMetadata:
        node.invert = m.invert;
        break;
      case Kind::kAny:
        break;
    }
    (*nodes_)[slot] = std::move(node);
    return absl::OkStatus();
  }

 private:
  std::vector<Node>* nodes_;
  std::map<std::string, uint8_t> slots_;
};

bool IpMatches(const Node& n, const routing::SocketAddress& a) {
  return a.ipv6 == n.ipv6 && (a.ip & n.mask) == n.net;
}

bool StringMatches(const Node& n, absl::string_view value) {
  return routing::StringMatches(*n.string_match, n.regex.get(), value);
}

// Per-Evaluate memo of metadata lookups by slot. A value joined into
// *scratch is not kept: the next join overwrites it.
class HeaderMemo {
 public:
  std::optional<absl::string_view> Get(const Node& n, const RequestView& r,
                                       std::string* scratch) {
    if (!r.headers.has_value()) return std::nullopt;
    const uint8_t slot = n.header_slot;
    if (slot != RbacEngine::kNoSlot && (known_ >> slot & 1) != 0) {
      if ((present_ >> slot & 1) == 0) return std::nullopt;
      return values_[slot];
    }
    std::optional<absl::string_view> value =
        (*r.headers)(n.header_name, scratch);
    if (slot != RbacEngine::kNoSlot &&
        (!value.has_value() || scratch == nullptr ||
         value->data() < scratch->data() ||
         value->data() > scratch->data() + scratch->size())) {
      known_ |= uint32_t{1} << slot;
      if (value.has_value()) {
        present_ |= uint32_t{1} << slot;
        values_[slot] = *value;
      }
    }
    return value;
  }

 private:
  uint32_t known_ = 0, present_ = 0;
  absl::string_view values_[RbacEngine::kMaxHeaderSlots];
};

bool HeaderMatches(const Node& n, const RequestView& r, std::string* scratch,
                   HeaderMemo* memo) {
  std::optional<absl::string_view> value;
  switch (n.pseudo) {
    case kPath:
      value = r.path;
      break;
    case kAuthority:
      value = r.authority;
      break;
    case kMethod:
      value = r.method;
      break;
    case kNeverPresent:
      break;
    default:
      value = memo->Get(n, r, scratch);
      break;
  }
  const HeaderMatch& m = *n.header;
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
    matched = StringMatches(n, *value);
  }
  return matched != m.invert_match;
}

class Evaluator {
 public:
  Evaluator(const std::vector<Node>& nodes, const RequestView& r,
            std::string* scratch)
      : nodes_(nodes), r_(r), scratch_(scratch) {}

  bool AnyOf(uint32_t first, uint32_t end) const {
    for (uint32_t i = first; i < end; ++i) {
      if (Match(i)) return true;
    }
    return false;
  }

  bool Match(uint32_t i) const {
    const Node& n = nodes_[i];
    switch (n.kind) {
      case Kind::kAnd:
        for (uint32_t c = n.first; c < n.end; ++c) {
          if (!Match(c)) return false;
        }
        return true;
      case Kind::kOr:
        return AnyOf(n.first, n.end);
      case Kind::kNot:
        return !Match(n.first);
      case Kind::kAny:
        return true;
      case Kind::kHeader:
        return HeaderMatches(n, r_, scratch_, &memo_);
      case Kind::kUrlPath:
        return !r_.path.empty() && StringMatches(n, r_.path);
      case Kind::kDestinationIp:
        return IpMatches(n, r_.local);
      case Kind::kDestinationPort:
        return r_.local.port == n.port;
      case Kind::kRequestedServerName:
        return StringMatches(n, "");
      case Kind::kMetadata:
        return n.invert;
      case Kind::kAuthenticated:
        if (!r_.tls) return false;
        if (!n.has_principal_name) return true;
        for (absl::string_view san : r_.uri_sans) {
          if (StringMatches(n, san)) return true;
        }
        for (absl::string_view san : r_.dns_sans) {
          if (StringMatches(n, san)) return true;
        }
        return StringMatches(n, r_.subject);
      case Kind::kSourceIp:
      case Kind::kDirectRemoteIp:
      case Kind::kRemoteIp:
        return IpMatches(n, r_.peer);
    }
    return false;
  }

 private:
  const std::vector<Node>& nodes_;
  const RequestView& r_;
  std::string* scratch_;
  mutable HeaderMemo memo_;
};

}  // namespace

absl::StatusOr<std::shared_ptr<const RbacEngine>> RbacEngine::Compile(
    const resources::RbacConfig& config) {
  std::shared_ptr<RbacEngine> engine(new RbacEngine());
  engine->config_ = std::make_shared<const resources::RbacConfig>(config);
  const resources::RbacConfig& own = *engine->config_;
  if (!own.rules.has_value()) return engine;
  engine->enforcing_ = true;
  engine->allow_action_ =
      own.rules->action == resources::RbacRules::Action::kAllow;
  Compiler compiler(&engine->nodes_);
  for (const resources::RbacPolicy& p : own.rules->policies) {
    Policy policy;
    policy.name = &p.name;
    policy.permissions_first = compiler.Reserve(p.permissions.size());
    policy.permissions_end =
        policy.permissions_first + static_cast<uint32_t>(p.permissions.size());
    policy.principals_first = compiler.Reserve(p.principals.size());
    policy.principals_end =
        policy.principals_first + static_cast<uint32_t>(p.principals.size());
    for (size_t i = 0; i < p.permissions.size(); ++i) {
      absl::Status s =
          compiler.Fill(policy.permissions_first + static_cast<uint32_t>(i),
                        p.permissions[i]);
      if (!s.ok()) return s;
    }
    for (size_t i = 0; i < p.principals.size(); ++i) {
      absl::Status s = compiler.Fill(
          policy.principals_first + static_cast<uint32_t>(i), p.principals[i]);
      if (!s.ok()) return s;
    }
    engine->policies_.push_back(policy);
  }
  return engine;
}

Decision RbacEngine::Evaluate(const RequestView& request,
                              std::string* scratch) const {
  Decision d;
  if (!enforcing_) return d;
  const Evaluator eval(nodes_, request, scratch);
  bool matched = false;
  for (const Policy& p : policies_) {
    if (eval.AnyOf(p.permissions_first, p.permissions_end) &&
        eval.AnyOf(p.principals_first, p.principals_end)) {
      matched = true;
      d.policy = *p.name;
      break;
    }
  }
  d.allowed = allow_action_ ? matched : !matched;
  return d;
}

}  // namespace authz
}  // namespace xdsfed
