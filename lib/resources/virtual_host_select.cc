#include "lib/resources/virtual_host_select.h"

#include <cstddef>
#include <variant>

#include "absl/container/flat_hash_set.h"
#include "absl/strings/match.h"

namespace xdsfed {
namespace resources {

namespace {

// Lower ranks win.
enum class MatchKind { kExact = 0, kSuffix = 1, kPrefix = 2, kUniverse = 3 };

// The kind of match `pattern` makes with `domain`, or false if none.
bool Matches(absl::string_view pattern, absl::string_view domain,
             MatchKind* kind) {
  // gRPC's INVALID_MATCH: an empty pattern, or a '*' inside one, never
  // matches (validation rejects both; values built by hand may hold them).
  if (pattern.empty()) return false;
  if (pattern.size() > 2 && pattern.substr(1, pattern.size() - 2).find('*') !=
                                absl::string_view::npos) {
    return false;
  }
  if (pattern == "*") {
    *kind = MatchKind::kUniverse;
    return true;
  }
  if (absl::StartsWith(pattern, "*")) {
    *kind = MatchKind::kSuffix;
    // The wildcard stands for at least one character, as in gRPC.
    absl::string_view suffix = pattern.substr(1);
    return domain.size() > suffix.size() &&
           absl::EndsWithIgnoreCase(domain, suffix);
  }
  if (absl::EndsWith(pattern, "*")) {
    *kind = MatchKind::kPrefix;
    absl::string_view prefix = pattern.substr(0, pattern.size() - 1);
    return domain.size() > prefix.size() &&
           absl::StartsWithIgnoreCase(domain, prefix);
  }
  *kind = MatchKind::kExact;
  return absl::EqualsIgnoreCase(pattern, domain);
}

}  // namespace

const VirtualHost* FindVirtualHost(
    const std::vector<VirtualHost>& virtual_hosts, absl::string_view domain) {
  const VirtualHost* best = nullptr;
  MatchKind best_kind = MatchKind::kUniverse;
  size_t best_size = 0;
  for (const VirtualHost& vh : virtual_hosts) {
    for (const std::string& pattern : vh.domains) {
      MatchKind kind;
      if (!Matches(pattern, domain, &kind)) continue;
      const bool better = best == nullptr || kind < best_kind ||
                          (kind == best_kind && pattern.size() > best_size);
      if (better) {
        best = &vh;
        best_kind = kind;
        best_size = pattern.size();
      }
    }
  }
  return best;
}

std::vector<std::string> ClusterNamesOf(const VirtualHost& virtual_host) {
  std::vector<std::string> names;
  absl::flat_hash_set<absl::string_view> seen;
  auto add = [&](const std::string& name) {
    if (!name.empty() && seen.insert(name).second) names.push_back(name);
  };
  for (const Route& route : virtual_host.routes) {
    const auto* action = std::get_if<RouteAction>(&route.action);
    if (action == nullptr) continue;
    add(action->cluster);
    for (const ClusterWeight& weighted : action->weighted_clusters) {
      add(weighted.name);
    }
  }
  return names;
}

}  // namespace resources
}  // namespace xdsfed
