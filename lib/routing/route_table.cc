#include "lib/routing/route_table.h"

#include <algorithm>
#include <utility>
#include <variant>

#include "absl/hash/hash.h"
#include "absl/random/random.h"
#include "absl/status/status.h"
#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "lib/resources/safe_regex.h"
#include "re2/re2.h"

namespace xdsfed {
namespace routing {

namespace {

using resources::HeaderMatch;
using resources::StringMatch;

// The value's compiled regex, or a new one if a hand-built value has none.
absl::StatusOr<std::shared_ptr<const re2::RE2>> RegexOf(const StringMatch& m) {
  if (m.regex != nullptr) return m.regex;
  return resources::CompileSafeRegex(m.value, m.case_sensitive);
}

bool ContainsIgnoreCase(absl::string_view haystack, absl::string_view needle) {
  if (needle.size() > haystack.size()) return false;
  for (size_t i = 0; i + needle.size() <= haystack.size(); ++i) {
    if (absl::EqualsIgnoreCase(haystack.substr(i, needle.size()), needle)) {
      return true;
    }
  }
  return false;
}

bool HeaderMatches(const RouteTable::CompiledHeader& h, HeaderLookup headers,
                   std::string* scratch) {
  const HeaderMatch& m = *h.match;
  std::optional<absl::string_view> value;
  if (h.never_visible) {
    // A28: binary headers are never matched; seen as absent, as in C-core.
  } else if (h.name == "content-type") {
    // The RPC's own content-type may carry a suffix (application/grpc+proto);
    // gRPC matches as if it were exactly this.
    value = "application/grpc";
  } else {
    value = headers(h.name, scratch);
  }
  bool matched;
  if (m.type == HeaderMatch::Type::kPresent) {
    matched = value.has_value() == m.present_match;
  } else if (!value.has_value()) {
    matched = false;
  } else if (m.type == HeaderMatch::Type::kRange) {
    int64_t n;
    matched =
        absl::SimpleAtoi(*value, &n) && n >= m.range_start && n < m.range_end;
  } else {
    matched = StringMatches(m.string_match, h.regex.get(), *value);
  }
  return matched != m.invert_match;
}

}  // namespace

bool StringMatches(const StringMatch& m, const re2::RE2* regex,
                   absl::string_view value) {
  const absl::string_view want = m.value;
  switch (m.type) {
    case StringMatch::Type::kExact:
      return m.case_sensitive ? value == want
                              : absl::EqualsIgnoreCase(value, want);
    case StringMatch::Type::kPrefix:
      return m.case_sensitive ? absl::StartsWith(value, want)
                              : absl::StartsWithIgnoreCase(value, want);
    case StringMatch::Type::kSuffix:
      return m.case_sensitive ? absl::EndsWith(value, want)
                              : absl::EndsWithIgnoreCase(value, want);
    case StringMatch::Type::kContains:
      return m.case_sensitive ? absl::StrContains(value, want)
                              : ContainsIgnoreCase(value, want);
    case StringMatch::Type::kSafeRegex:
      return re2::RE2::FullMatch(re2::StringPiece(value.data(), value.size()),
                                 *regex);
  }
  return false;
}

uint64_t ThreadLocalRandom(uint64_t bound) {
  thread_local absl::InsecureBitGen gen;
  return absl::Uniform<uint64_t>(gen, 0, bound);
}

absl::StatusOr<RouteTable> RouteTable::Build(
    std::shared_ptr<const resources::VirtualHost> virtual_host) {
  RouteTable table;
  const auto& routes = virtual_host->routes;
  table.routes_.reserve(routes.size());
  for (size_t i = 0; i < routes.size(); ++i) {
    const resources::RouteMatch& match = routes[i].match;
    CompiledRoute compiled{&routes[i], nullptr, table.headers_.size(), 0};
    if (match.path.type == StringMatch::Type::kSafeRegex) {
      auto re = RegexOf(match.path);
      if (!re.ok()) {
        return absl::InvalidArgumentError(absl::StrCat(
            "routes[", i, "].match.safe_regex: ", re.status().message()));
      }
      compiled.path_regex = *std::move(re);
    }
    for (size_t j = 0; j < match.headers.size(); ++j) {
      const HeaderMatch& h = match.headers[j];
      CompiledHeader header{absl::AsciiStrToLower(h.name), &h, nullptr, false};
      header.never_visible = absl::EndsWith(header.name, "-bin");
      if (h.type == HeaderMatch::Type::kString &&
          h.string_match.type == StringMatch::Type::kSafeRegex) {
        auto re = RegexOf(h.string_match);
        if (!re.ok()) {
          return absl::InvalidArgumentError(
              absl::StrCat("routes[", i, "].match.headers[", j,
                           "]: ", re.status().message()));
        }
        header.regex = *std::move(re);
      }
      table.headers_.push_back(std::move(header));
    }
    compiled.headers_end = table.headers_.size();
    table.routes_.push_back(compiled);
  }
  table.vhost_ = std::move(virtual_host);
  return table;
}

const resources::Route* RouteTable::Match(absl::string_view path,
                                          HeaderLookup headers, Random random,
                                          std::string* scratch) const {
  for (const CompiledRoute& r : routes_) {
    const resources::RouteMatch& match = r.route->match;
    if (!StringMatches(match.path, r.path_regex.get(), path)) continue;
    bool all = true;
    for (size_t i = r.headers_begin; all && i < r.headers_end; ++i) {
      all = HeaderMatches(headers_[i], headers, scratch);
    }
    if (!all) continue;
    if (match.fraction_per_million.has_value() &&
        random(1000000) >= *match.fraction_per_million) {
      continue;
    }
    return r.route;
  }
  return nullptr;
}

absl::StatusOr<std::shared_ptr<const RouteConfigTable>> RouteConfigTable::Build(
    std::shared_ptr<const resources::RouteConfig> config) {
  auto table = std::make_shared<RouteConfigTable>();
  table->tables_.reserve(config->virtual_hosts.size());
  for (size_t i = 0; i < config->virtual_hosts.size(); ++i) {
    // Aliasing: each RouteTable keeps the whole configuration alive.
    std::shared_ptr<const resources::VirtualHost> vhost(
        config, &config->virtual_hosts[i]);
    absl::StatusOr<RouteTable> t = RouteTable::Build(std::move(vhost));
    if (!t.ok()) {
      return absl::InvalidArgumentError(
          absl::StrCat("route configuration \"", config->name,
                       "\": virtual_hosts[", i, "].", t.status().message()));
    }
    table->tables_.push_back(*std::move(t));
  }
  // The domain index: the same ranking as resources::FindVirtualHost
  // (exact > "*suffix" > "prefix*" > "*"; longer first; then listing order).
  for (size_t i = 0; i < config->virtual_hosts.size(); ++i) {
    const uint32_t index = static_cast<uint32_t>(i);
    for (const std::string& pattern : config->virtual_hosts[i].domains) {
      // gRPC's INVALID_MATCH patterns (empty, '*' inside) never match.
      if (pattern.empty() || (pattern.size() > 2 &&
                              pattern.substr(1, pattern.size() - 2).find('*') !=
                                  std::string::npos)) {
        continue;
      }
      if (pattern == "*") {
        if (!table->universe_.has_value()) table->universe_ = index;
      } else if (pattern.front() == '*') {
        table->suffixes_.push_back({pattern.substr(1), index});
      } else if (pattern.back() == '*') {
        table->prefixes_.push_back(
            {pattern.substr(0, pattern.size() - 1), index});
      } else {
        table->exact_.emplace(pattern, index);  // the first one stays
      }
    }
  }
  auto longest_first = [](const Wildcard& a, const Wildcard& b) {
    return a.text.size() > b.text.size();
  };
  std::stable_sort(table->suffixes_.begin(), table->suffixes_.end(),
                   longest_first);
  std::stable_sort(table->prefixes_.begin(), table->prefixes_.end(),
                   longest_first);
  table->config_ = std::move(config);
  return table;
}

size_t RouteConfigTable::FoldedHash::operator()(absl::string_view s) const {
  // FNV-1a over ASCII-lowercased bytes, then absl's mixing.
  uint64_t h = 14695981039346656037ull;
  for (char c : s) {
    h ^= static_cast<unsigned char>(absl::ascii_tolower(c));
    h *= 1099511628211ull;
  }
  return absl::Hash<uint64_t>()(h);
}

bool RouteConfigTable::FoldedEq::operator()(absl::string_view a,
                                            absl::string_view b) const {
  return absl::EqualsIgnoreCase(a, b);
}

const RouteTable* RouteConfigTable::FindVirtualHost(
    absl::string_view authority) const {
  auto exact = exact_.find(authority);
  if (exact != exact_.end()) return &tables_[exact->second];
  // The wildcard stands for at least one character, as in gRPC.
  for (const Wildcard& w : suffixes_) {
    if (authority.size() > w.text.size() &&
        absl::EndsWithIgnoreCase(authority, w.text)) {
      return &tables_[w.vhost];
    }
  }
  for (const Wildcard& w : prefixes_) {
    if (authority.size() > w.text.size() &&
        absl::StartsWithIgnoreCase(authority, w.text)) {
      return &tables_[w.vhost];
    }
  }
  if (universe_.has_value()) return &tables_[*universe_];
  return nullptr;
}

const std::string& PickCluster(const resources::RouteAction& action,
                               Random random) {
  static const std::string* const kNone = new std::string();
  if (!action.cluster.empty() || action.weighted_clusters.empty()) {
    return action.cluster.empty() ? *kNone : action.cluster;
  }
  uint64_t total = 0;
  for (const resources::ClusterWeight& w : action.weighted_clusters) {
    total += w.weight;
  }
  if (total == 0) return *kNone;
  uint64_t draw = random(total);
  for (const resources::ClusterWeight& w : action.weighted_clusters) {
    if (draw < w.weight) return w.name;
    draw -= w.weight;
  }
  return action.weighted_clusters.back().name;  // unreachable
}

}  // namespace routing
}  // namespace xdsfed
