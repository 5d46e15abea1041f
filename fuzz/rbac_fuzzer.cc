// Fuzzes RBAC (issue 25 item 4): random RBAC filter configs and random
// requests, decided by lib/authz's RbacEngine and by a reference evaluator
// written here from gRFC A41 (a recursive walk over the validated
// resources::RbacConfig), which must agree on every decision and on the
// policy reported.
//
// Input: byte 0 picks the mode.
// - Odd: the rest is given as raw bytes to ParseRbacFilterConfig and
//   ParseRbacPerRoute (no crash; what passes validation compiles).
// - Even: the bytes drive a generator: an action (ALLOW / DENY / LOG), up to
//   4 policies of up to 3 permissions and 3 principals, each a tree of depth
//   <= 4 over every kind gRPC supports, with names, values, regexes and
//   addresses from small pools so that matches are common; the config is
//   serialized and goes through the production validator (which must accept
//   it: the pools hold only valid values), then up to 4 requests are drawn
//   (path, authority, headers with repeated names, peer / local address,
//   TLS, URI / DNS SANs, subject) and decided both ways.
// The reference shares no matching code with the engine: its own string
// and CIDR matching, header lookup (lower-case names, Host = :authority,
// te absent, values joined with ','), and the A41 rule for absent headers.
// Where A41 leaves a choice (principal_name order, TLS requirement) it
// follows C-core 1.51's matchers.cc as the engine documents.
#include <arpa/inet.h>

#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <map>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/string_view.h"
#include "envoy/extensions/filters/http/rbac/v3/rbac.pb.h"
#include "fuzz/default_flags.h"
#include "lib/authz/rbac_engine.h"
#include "lib/base/check.h"
#include "lib/base/validation_errors.h"
#include "lib/resources/rbac.h"
#include "re2/re2.h"

namespace {

namespace rbac_pb = envoy::config::rbac::v3;
namespace route_pb = envoy::config::route::v3;
using xdsfed::resources::HeaderMatch;
using xdsfed::resources::RbacConfig;
using xdsfed::resources::RbacMatcher;
using xdsfed::resources::StringMatch;

class Reader {
 public:
  Reader(const uint8_t* data, size_t size) : data_(data), size_(size) {}
  uint8_t Next() { return pos_ < size_ ? data_[pos_++] : 0; }
  template <size_t N>
  const char* Pick(const char* const (&pool)[N]) {
    return pool[Next() % N];
  }

 private:
  const uint8_t* data_;
  size_t size_;
  size_t pos_ = 0;
};

constexpr const char* kHeaderNames[] = {"x-a",     "x-b",        "X-A",
                                        ":path",   ":authority", "host",
                                        ":method", "te",         "x-id-bin"};
constexpr const char* kValues[] = {"",       "a",    "ab", "b",  "/svc/",
                                   "/svc/a", "POST", "1",  "10", "A"};
constexpr const char* kRegexes[] = {"a.*", "[ab]+",   "(a|b)b",
                                    ".*",  "/svc/.*", ""};
constexpr const char* kCidrs[] = {"127.0.0.1", "127.0.0.0", "10.0.0.0",
                                  "::1",       "::",        "0.0.0.0"};
constexpr uint32_t kPrefixLens[] = {0, 8, 24, 31, 32, 64, 127, 128, 40};
constexpr uint32_t kPorts[] = {0, 8080, 50051};
constexpr const char* kPaths[] = {"/svc/a", "/svc/ab", "", "/b", "/svc/"};
constexpr const char* kAuthorities[] = {"a", "ab", "svc"};
constexpr const char* kPeers[] = {"127.0.0.1:1", "127.0.0.2:2", "[::1]:3",
                                  "10.0.0.5:4", "0.0.0.0:5"};
constexpr const char* kLocals[] = {"127.0.0.1:8080", "[::1]:50051",
                                   "10.0.0.1:8080"};
// Enough values that more than RbacEngine's kMaxKeys (4) distinct
// principal_name exact or prefix keys can match one request's SANs.
constexpr const char* kSans[] = {
    "a", "ab", "spiffe://td/a", "b.example", "/svc/a", "10", "1", "/svc/"};
constexpr const char* kSubjects[] = {"", "CN=a", "CN=ab,O=x"};

void FillString(Reader& r, envoy::type::matcher::v3::StringMatcher* m) {
  const char* v = r.Pick(kValues);
  switch (r.Next() % 5) {
    case 0:
      m->set_exact(v);
      break;
    case 1:
      m->set_prefix(v);
      break;
    case 2:
      m->set_suffix(v);
      break;
    case 3:
      m->set_contains(v);
      break;
    default:
      m->mutable_safe_regex()->set_regex(r.Pick(kRegexes));
      break;
  }
  m->set_ignore_case(r.Next() & 1);
}

void FillHeader(Reader& r, route_pb::HeaderMatcher* h) {
  h->set_name(r.Pick(kHeaderNames));
  const char* v = r.Pick(kValues);
  switch (r.Next() % 7) {
    case 0:
      h->set_exact_match(v);
      break;
    case 1:
      h->set_prefix_match(v);
      break;
    case 2:
      h->set_suffix_match(v);
      break;
    case 3:
      h->set_contains_match(v);
      break;
    case 4:
      h->mutable_safe_regex_match()->set_regex(r.Pick(kRegexes));
      break;
    case 5: {
      const int64_t a = r.Next() % 12, b = r.Next() % 12;
      h->mutable_range_match()->set_start(a < b ? a : b);
      h->mutable_range_match()->set_end(a < b ? b : a);
      break;
    }
    default:
      h->set_present_match(r.Next() & 1);
      break;
  }
  h->set_invert_match(r.Next() & 1);
}

void FillCidr(Reader& r, envoy::config::core::v3::CidrRange* c) {
  c->set_address_prefix(r.Pick(kCidrs));
  const uint8_t len = r.Next();
  if (len != 0xff) c->mutable_prefix_len()->set_value(kPrefixLens[len % 9]);
}

void FillPermission(Reader& r, int depth, rbac_pb::Permission* p) {
  const int kind = r.Next() % (depth >= 4 ? 7 : 10);
  switch (kind) {
    case 0:
      p->set_any(true);
      break;
    case 1:
      FillHeader(r, p->mutable_header());
      break;
    case 2:
      FillString(r, p->mutable_url_path()->mutable_path());
      break;
    case 3:
      FillCidr(r, p->mutable_destination_ip());
      break;
    case 4:
      p->set_destination_port(kPorts[r.Next() % 3]);
      break;
    case 5:
      FillString(r, p->mutable_requested_server_name());
      break;
    case 6:
      p->mutable_metadata()->set_invert(r.Next() & 1);
      break;
    case 7:
      FillPermission(r, depth + 1, p->mutable_not_rule());
      break;
    default: {
      auto* set = kind == 8 ? p->mutable_and_rules() : p->mutable_or_rules();
      const int n = r.Next() % 4;
      for (int i = 0; i < n; ++i) {
        FillPermission(r, depth + 1, set->add_rules());
      }
      break;
    }
  }
}

void FillPrincipal(Reader& r, int depth, rbac_pb::Principal* p) {
  const int kind = r.Next() % (depth >= 4 ? 8 : 11);
  switch (kind) {
    case 0:
      p->set_any(true);
      break;
    case 1:
      p->mutable_authenticated();
      if (r.Next() & 1) {
        FillString(r, p->mutable_authenticated()->mutable_principal_name());
      }
      break;
    case 2:
      FillCidr(r, p->mutable_source_ip());
      break;
    case 3:
      FillCidr(r, p->mutable_direct_remote_ip());
      break;
    case 4:
      FillCidr(r, p->mutable_remote_ip());
      break;
    case 5:
      FillHeader(r, p->mutable_header());
      break;
    case 6:
      FillString(r, p->mutable_url_path()->mutable_path());
      break;
    case 7:
      p->mutable_metadata()->set_invert(r.Next() & 1);
      break;
    case 8:
      FillPrincipal(r, depth + 1, p->mutable_not_id());
      break;
    default: {
      auto* set = kind == 9 ? p->mutable_and_ids() : p->mutable_or_ids();
      const int n = r.Next() % 4;
      for (int i = 0; i < n; ++i) FillPrincipal(r, depth + 1, set->add_ids());
      break;
    }
  }
}

// ------------------------------------------------------------ reference

struct Request {
  std::string path, authority;
  std::vector<std::pair<std::string, std::string>> headers;  // lower case
  std::string peer, local;  // "ip:port" / "[ip]:port"
  bool tls = false;
  std::vector<std::string> uri_sans, dns_sans;
  std::string subject;
};

// "ip:port" -> family bytes (4 or 16) and port.
struct RefAddr {
  std::string bytes;
  uint32_t port = 0;
};
RefAddr ParseRefAddr(const std::string& hp) {
  RefAddr out;
  const size_t colon = hp.rfind(':');
  std::string host = hp.substr(0, colon);
  if (!host.empty() && host.front() == '[')
    host = host.substr(1, host.size() - 2);
  XDSFED_CHECK(absl::SimpleAtoi(hp.substr(colon + 1), &out.port));
  unsigned char buf[16];
  if (inet_pton(AF_INET, host.c_str(), buf) == 1) {
    out.bytes.assign(reinterpret_cast<char*>(buf), 4);
  } else {
    XDSFED_CHECK(inet_pton(AF_INET6, host.c_str(), buf) == 1);
    out.bytes.assign(reinterpret_cast<char*>(buf), 16);
  }
  return out;
}

bool RefCidr(const xdsfed::resources::RbacCidr& c, const RefAddr& a) {
  if (c.address.size() != a.bytes.size()) return false;
  for (uint32_t bit = 0; bit < c.prefix_len; ++bit) {
    const int mask = 0x80 >> (bit % 8);
    if ((c.address[bit / 8] & mask) != (a.bytes[bit / 8] & mask)) return false;
  }
  return true;
}

bool RefString(const StringMatch& m, absl::string_view value) {
  if (m.type == StringMatch::Type::kSafeRegex) {
    XDSFED_CHECK(m.regex != nullptr);
    return re2::RE2::FullMatch(re2::StringPiece(value.data(), value.size()),
                               *m.regex);
  }
  std::string v(value), want = m.value;
  if (!m.case_sensitive) {
    v = absl::AsciiStrToLower(v);
    want = absl::AsciiStrToLower(want);
  }
  switch (m.type) {
    case StringMatch::Type::kExact:
      return v == want;
    case StringMatch::Type::kPrefix:
      return v.compare(0, want.size(), want) == 0 && v.size() >= want.size();
    case StringMatch::Type::kSuffix:
      return v.size() >= want.size() &&
             v.compare(v.size() - want.size(), want.size(), want) == 0;
    case StringMatch::Type::kContains:
      return v.find(want) != std::string::npos;
    default:
      return false;
  }
}

std::optional<std::string> RefHeaderValue(const Request& req,
                                          std::string name) {
  name = absl::AsciiStrToLower(name);
  if (name == "host" || name == ":authority") return req.authority;
  if (name == ":path") return req.path;
  if (name == ":method") return std::string("POST");
  if (name == "te") return std::nullopt;  // A41: hop-by-hop
  std::optional<std::string> out;
  for (const auto& [k, v] : req.headers) {
    if (k != name) continue;
    if (out.has_value()) {
      *out += ",";
      *out += v;
    } else {
      out = v;
    }
  }
  return out;
}

bool RefHeader(const HeaderMatch& h, const Request& req) {
  const std::optional<std::string> v = RefHeaderValue(req, h.name);
  if (h.type == HeaderMatch::Type::kPresent) {
    // A41: present_match on an absent header matches iff present_match ==
    // invert_match; on a present one, the usual inversion.
    return (v.has_value() == h.present_match) != h.invert_match;
  }
  if (!v.has_value()) return false;  // A41: absent fails, inverted or not
  bool matched;
  if (h.type == HeaderMatch::Type::kRange) {
    int64_t n;
    matched = absl::SimpleAtoi(*v, &n) && n >= h.range_start && n < h.range_end;
  } else {
    matched = RefString(h.string_match, *v);
  }
  return matched != h.invert_match;
}

bool RefMatch(const RbacMatcher& m, const Request& req) {
  using K = RbacMatcher::Kind;
  switch (m.kind) {
    case K::kAnd:
      for (const RbacMatcher& c : m.children) {
        if (!RefMatch(c, req)) return false;
      }
      return true;
    case K::kOr:
      for (const RbacMatcher& c : m.children) {
        if (RefMatch(c, req)) return true;
      }
      return false;
    case K::kNot:
      return !RefMatch(m.children.at(0), req);
    case K::kAny:
      return true;
    case K::kHeader:
      return RefHeader(m.header, req);
    case K::kUrlPath:
      return !req.path.empty() && RefString(m.string_match, req.path);
    case K::kDestinationIp:
      return RefCidr(m.cidr, ParseRefAddr(req.local));
    case K::kDestinationPort:
      return ParseRefAddr(req.local).port == m.port;
    case K::kRequestedServerName:
      return RefString(m.string_match, "");  // A41: hard-coded ""
    case K::kMetadata:
      return m.invert;  // A41: never matches
    case K::kAuthenticated:
      if (!req.tls) return false;
      if (!m.has_principal_name) return true;
      for (const std::string& s : req.uri_sans) {
        if (RefString(m.string_match, s)) return true;
      }
      for (const std::string& s : req.dns_sans) {
        if (RefString(m.string_match, s)) return true;
      }
      return RefString(m.string_match, req.subject);
    case K::kSourceIp:
    case K::kDirectRemoteIp:
    case K::kRemoteIp:
      return RefCidr(m.cidr, ParseRefAddr(req.peer));
  }
  return false;
}

// allowed, policy name
std::pair<bool, std::string> RefDecide(const RbacConfig& config,
                                       const Request& req) {
  if (!config.rules.has_value()) return {true, ""};
  // Envoy rbac.proto: policies in lexicographic name order; the first that
  // matches (one permission and one principal) is the one reported.
  for (const auto& p : config.rules->policies) {
    bool perm = false, id = false;
    for (const RbacMatcher& m : p.permissions) perm = perm || RefMatch(m, req);
    for (const RbacMatcher& m : p.principals) id = id || RefMatch(m, req);
    if (perm && id) {
      return {
          config.rules->action == xdsfed::resources::RbacRules::Action::kAllow,
          p.name};
    }
  }
  return {config.rules->action == xdsfed::resources::RbacRules::Action::kDeny,
          ""};
}

Request DrawRequest(Reader& r) {
  Request req;
  req.path = r.Pick(kPaths);
  req.authority = r.Pick(kAuthorities);
  const int n = r.Next() % 5;
  for (int i = 0; i < n; ++i) {
    std::string name = absl::AsciiStrToLower(r.Pick(kHeaderNames));
    if (name.front() == ':' || name == "host") continue;  // not metadata
    req.headers.emplace_back(name, r.Pick(kValues));
  }
  req.peer = r.Pick(kPeers);
  req.local = r.Pick(kLocals);
  req.tls = r.Next() & 1;
  const uint8_t uri = r.Next(), dns = r.Next();
  for (int i = 0; i < 8; ++i) {
    if (uri & (1 << i)) req.uri_sans.push_back(kSans[i]);
    if (dns & (1 << i)) req.dns_sans.push_back(kSans[i]);
  }
  req.subject = r.Pick(kSubjects);
  return req;
}

}  // namespace

extern "C" int LLVMFuzzerInitialize(int* argc, char*** argv) {
  xdsfed::fuzz::AddDefaultFlag(argc, argv, "-entropic=", "0");
  return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size == 0) return 0;
  if (data[0] & 1) {
    const absl::string_view bytes(reinterpret_cast<const char*>(data + 1),
                                  size - 1);
    for (int per_route = 0; per_route < 2; ++per_route) {
      xdsfed::ValidationErrors errors;
      RbacConfig config =
          per_route ? xdsfed::resources::ParseRbacPerRoute(bytes, &errors)
                    : xdsfed::resources::ParseRbacFilterConfig(bytes, &errors);
      if (errors.ok()) {
        XDSFED_CHECK(xdsfed::authz::RbacEngine::Compile(config).ok());
      }
    }
    return 0;
  }
  Reader r(data + 1, size - 1);
  envoy::extensions::filters::http::rbac::v3::RBAC proto;
  if (r.Next() % 8 != 0) {  // 1 in 8: no rules at all
    auto* rules = proto.mutable_rules();
    rules->set_action(static_cast<rbac_pb::RBAC::Action>(r.Next() % 3));
    const int policies = r.Next() % 5;
    for (int p = 0; p < policies; ++p) {
      rbac_pb::Policy& policy =
          (*rules->mutable_policies())[absl::StrCat("p", r.Next() % 6)];
      const int perms = r.Next() % 4, ids = r.Next() % 4;
      for (int i = 0; i < perms; ++i) {
        FillPermission(r, 0, policy.add_permissions());
      }
      for (int i = 0; i < ids; ++i)
        FillPrincipal(r, 0, policy.add_principals());
    }
  }
  xdsfed::ValidationErrors errors;
  RbacConfig config = xdsfed::resources::ParseRbacFilterConfig(
      proto.SerializeAsString(), &errors);
  if (!errors.ok()) {
    // Every pool value is valid (names, regexes, addresses), so the
    // validator must accept what the generator builds.
    std::fprintf(stderr, "%s\n", errors.Message().c_str());
    XDSFED_CHECK(errors.ok());
  }
  auto engine = xdsfed::authz::RbacEngine::Compile(config);
  XDSFED_CHECK(engine.ok());
  const int requests = 1 + r.Next() % 4;
  std::string scratch;
  for (int i = 0; i < requests; ++i) {
    const Request req = DrawRequest(r);
    std::vector<absl::string_view> uri(req.uri_sans.begin(),
                                       req.uri_sans.end());
    std::vector<absl::string_view> dns(req.dns_sans.begin(),
                                       req.dns_sans.end());
    xdsfed::authz::RequestView view;
    view.path = req.path;
    view.authority = req.authority;
    std::multimap<std::string, std::string> metadata(req.headers.begin(),
                                                     req.headers.end());
    auto lookup = [&metadata](absl::string_view name, std::string* s) {
      return xdsfed::routing::JoinedHeaderValue(metadata, name, s);
    };
    view.headers.emplace(lookup);
    view.peer = *xdsfed::routing::SocketAddress::Parse(req.peer);
    view.local = *xdsfed::routing::SocketAddress::Parse(req.local);
    view.tls = req.tls;
    view.uri_sans = uri;
    view.dns_sans = dns;
    view.subject = req.subject;
    const xdsfed::authz::Decision got = (*engine)->Evaluate(view, &scratch);
    const auto want = RefDecide(config, req);
    if (got.allowed != want.first || got.policy != want.second) {
      std::fprintf(stderr, "config: %s\nengine: %d %s, reference: %d %s\n",
                   proto.DebugString().c_str(), got.allowed,
                   std::string(got.policy).c_str(), want.first,
                   want.second.c_str());
    }
    XDSFED_CHECK(got.allowed == want.first);
    XDSFED_CHECK(got.policy == want.second);
  }
  return 0;
}
