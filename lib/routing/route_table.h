// Per-RPC route selection for xDS clients and servers: a RouteConfiguration
// compiled once per update (RE2 objects built once, the table immutable and
// shared), then matched for each RPC by its authority, path and headers
// following gRPC's rules (A28 §Route Matching, A36 §Routing on servers).
//
//   // Once per RDS update (or inline route_config):
//   absl::StatusOr<std::shared_ptr<const routing::RouteConfigTable>> table =
//       routing::RouteConfigTable::Build(route_config);  // shared_ptr<const>
//   // Per RPC:
//   const routing::RouteTable* vhost = (*table)->FindVirtualHost(authority);
//   if (vhost == nullptr) { /* UNAVAILABLE: no virtual host */ }
//   std::string scratch;  // reused: steady-state matching allocates nothing
//   const resources::Route* route = vhost->Match(
//       "/pkg.Service/Method",
//       [&](absl::string_view name, std::string* s) {
//         return routing::JoinedHeaderValue(ctx.client_metadata(), name, s);
//       },
//       routing::ThreadLocalRandom, &scratch);
//   if (route == nullptr) { /* UNAVAILABLE: no route */ }
//   if (const auto* a = std::get_if<resources::RouteAction>(&route->action)) {
//     const std::string& cluster =
//         routing::PickCluster(*a, routing::ThreadLocalRandom);
//   }
//
// Matching rules (gRPC C-core xds_routing / matchers, A28):
// - Routes are tried in order; the first whose path matcher, every header
//   matcher, and runtime_fraction all pass is returned.
// - Path: prefix, exact (`path`) or safe_regex (RE2 full match), each
//   honouring the route's case_sensitive (ASCII case folding).
// - Headers: exact / prefix / suffix / contains / safe_regex (full match) on
//   the value, range [start, end) on a value that parses as int64, present;
//   invert_match negates the result. A header that is absent fails every
//   matcher but `present: false`. Names are compared in lower case.
// - A header name ending in "-bin" is treated as absent (binary values are
//   never matched); "content-type" is always seen as "application/grpc".
// - A header sent several times is seen as its values joined with ",".
// - runtime_fraction: passes with probability per_million / 1,000,000
//   (one draw in [0, 1,000,000) for each route that reaches that check).
// Everything here is thread-compatible: tables are immutable, Match is const.
#ifndef XDSFED_LIB_ROUTING_ROUTE_TABLE_H_
#define XDSFED_LIB_ROUTING_ROUTE_TABLE_H_

#include <cstddef>
#include <cstdint>
#include <iterator>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/functional/function_ref.h"
#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "lib/resources/route_config.h"

namespace re2 {
class RE2;
}  // namespace re2

namespace xdsfed {
namespace routing {

// The RPC's value for request header `name` (lower case), or nullopt if the
// RPC does not carry it. A header sent several times must be given as its
// values joined with "," (A28); an implementation that has to build that
// string stores it in *scratch, which the caller reuses across RPCs.
using HeaderLookup = absl::FunctionRef<std::optional<absl::string_view>(
    absl::string_view name, std::string* scratch)>;

// A uniformly distributed integer in [0, bound); bound >= 1.
using Random = absl::FunctionRef<uint64_t(uint64_t bound)>;

// A Random backed by a per-thread generator (absl::InsecureBitGen).
uint64_t ThreadLocalRandom(uint64_t bound);

// A HeaderLookup over a multimap of name -> value (std::multimap<std::string,
// std::string>, grpc++'s ServerContext::client_metadata() /
// ClientContext::GetServerInitialMetadata(), ...): the single value, or the
// values joined with "," in *scratch (the multimap's order, which for
// grpc++ is the order they arrived in). With std::string keys the lookup
// builds a key string (an allocation past 15 characters); grpc::string_ref
// keys cost none.
template <typename Multimap>
std::optional<absl::string_view> JoinedHeaderValue(const Multimap& headers,
                                                   absl::string_view name,
                                                   std::string* scratch) {
  auto range = headers.equal_range(
      typename Multimap::key_type(name.data(), name.size()));
  if (range.first == range.second) return std::nullopt;
  auto view = [](const auto& v) {
    return absl::string_view(v.data(), v.size());
  };
  auto it = range.first;
  if (std::next(it) == range.second) return view(it->second);
  scratch->clear();
  for (; it != range.second; ++it) {
    if (it != range.first) scratch->push_back(',');
    const absl::string_view value = view(it->second);
    scratch->append(value.data(), value.size());
  }
  return absl::string_view(*scratch);
}

// True if `value` passes string matcher `m` by the rules above (ASCII case
// folding when !m.case_sensitive; kSafeRegex is a full match of `regex`,
// m's compiled pattern, which must be non-null for that type). Shared with
// lib/authz, whose RBAC matchers use the same StringMatcher semantics.
bool StringMatches(const resources::StringMatch& m, const re2::RE2* regex,
                   absl::string_view value);

// One virtual host's routes, compiled. Holds a reference on the
// configuration its Route pointers point into.
class RouteTable {
 public:
  // The first route that matches the RPC, or nullptr (the RPC fails
  // UNAVAILABLE on a client and a server alike). `scratch` is passed to
  // `headers` (may be null if the lookup never joins values).
  const resources::Route* Match(absl::string_view path, HeaderLookup headers,
                                Random random,
                                std::string* scratch = nullptr) const;

  const resources::VirtualHost& virtual_host() const { return *vhost_; }

  // Compiles one virtual host (safe_regex matchers without a compiled regex
  // are compiled here). Error: a regex RE2 rejects, with its route index.
  static absl::StatusOr<RouteTable> Build(
      std::shared_ptr<const resources::VirtualHost> virtual_host);

  // Internal representation, public for the .cc's helpers only.
  struct CompiledHeader {
    std::string name;  // lower case
    const resources::HeaderMatch* match;
    std::shared_ptr<const re2::RE2> regex;  // kString + kSafeRegex
    bool never_visible;                     // "-bin": always absent
  };
  struct CompiledRoute {
    const resources::Route* route;
    std::shared_ptr<const re2::RE2> path_regex;  // kSafeRegex paths
    size_t headers_begin, headers_end;           // into headers_
  };

 private:
  std::shared_ptr<const resources::VirtualHost> vhost_;
  std::vector<CompiledRoute> routes_;
  std::vector<CompiledHeader> headers_;
};

// A whole RouteConfiguration, compiled: one RouteTable per virtual host.
class RouteConfigTable {
 public:
  static absl::StatusOr<std::shared_ptr<const RouteConfigTable>> Build(
      std::shared_ptr<const resources::RouteConfig> config);

  // The virtual host for an RPC's authority (client: the data-plane target's
  // authority; server: the :authority header), ranked as
  // resources::FindVirtualHost does; nullptr if none matches. An exact
  // domain is one hash probe (ASCII case folded), whatever the number of
  // virtual hosts; wildcard patterns are tried longest first.
  const RouteTable* FindVirtualHost(absl::string_view authority) const;

  const resources::RouteConfig& config() const { return *config_; }

  // ASCII-case-insensitive hashing for the exact-domain index.
  struct FoldedHash {
    using is_transparent = void;
    size_t operator()(absl::string_view s) const;
  };
  struct FoldedEq {
    using is_transparent = void;
    bool operator()(absl::string_view a, absl::string_view b) const;
  };

 private:
  struct Wildcard {
    std::string text;  // the pattern without its '*'
    uint32_t vhost;
  };
  std::shared_ptr<const resources::RouteConfig> config_;
  std::vector<RouteTable> tables_;  // parallel to config_->virtual_hosts
  // Exact domains -> first virtual host listing it.
  absl::flat_hash_map<std::string, uint32_t, FoldedHash, FoldedEq> exact_;
  // "*suffix" and "prefix*" patterns, longest first, listing order kept
  // among equal lengths; then the first "*".
  std::vector<Wildcard> suffixes_, prefixes_;
  std::optional<uint32_t> universe_;
};

// The cluster an RPC routed by `action` goes to: `cluster`, or one of
// `weighted_clusters` drawn with probability weight / total weight (one
// draw in [0, total)). An empty string if the action names none (only a
// hand-built value can).
const std::string& PickCluster(const resources::RouteAction& action,
                               Random random);

}  // namespace routing
}  // namespace xdsfed

#endif  // XDSFED_LIB_ROUTING_ROUTE_TABLE_H_
