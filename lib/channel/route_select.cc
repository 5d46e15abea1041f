#include "lib/channel/route_select.h"

#include <string>
#include <variant>

#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
#include "absl/strings/numbers.h"

namespace xdsfed {
namespace channel {
namespace {

bool MatchString(const resources::StringMatch& m, absl::string_view value) {
  using Type = resources::StringMatch::Type;
  if (!m.case_sensitive) {
    switch (m.type) {
      case Type::kExact:
        return absl::EqualsIgnoreCase(value, m.value);
      case Type::kPrefix:
        return absl::StartsWithIgnoreCase(value, m.value);
      case Type::kSuffix:
        return absl::EndsWithIgnoreCase(value, m.value);
      case Type::kContains:
        return absl::StrContains(absl::AsciiStrToLower(value),
                                 absl::AsciiStrToLower(m.value));
      case Type::kSafeRegex:
        return false;
    }
  }
  switch (m.type) {
    case Type::kExact:
      return value == m.value;
    case Type::kPrefix:
      return absl::StartsWith(value, m.value);
    case Type::kSuffix:
      return absl::EndsWith(value, m.value);
    case Type::kContains:
      return absl::StrContains(value, m.value);
    case Type::kSafeRegex:
      return false;  // the local stub has no RE2
  }
  return false;
}

// The header's value (first occurrence); content-type reads as gRPC sends
// it.
bool FindHeader(absl::Span<const MetadataEntry> metadata,
                absl::string_view name, absl::string_view* value) {
  if (name == "content-type") {
    *value = "application/grpc";
    return true;
  }
  for (const auto& [k, v] : metadata) {
    if (k == name) {
      *value = v;
      return true;
    }
  }
  return false;
}

bool MatchHeader(const resources::HeaderMatch& h,
                 absl::Span<const MetadataEntry> metadata) {
  absl::string_view value;
  bool found = FindHeader(metadata, h.name, &value);
  bool match = false;
  switch (h.type) {
    case resources::HeaderMatch::Type::kPresent:
      match = found == h.present_match;
      break;
    case resources::HeaderMatch::Type::kRange: {
      int64_t n = 0;
      match = found && absl::SimpleAtoi(value, &n) && n >= h.range_start &&
              n < h.range_end;
      break;
    }
    case resources::HeaderMatch::Type::kString:
      match = found && !absl::EndsWith(h.name, "-bin") &&
              MatchString(h.string_match, value);
      break;
  }
  return match != h.invert_match;
}

}  // namespace

const resources::Route* SelectRoute(const resources::VirtualHost& vhost,
                                    absl::string_view path,
                                    absl::Span<const MetadataEntry> metadata,
                                    uint64_t random) {
  for (const resources::Route& route : vhost.routes) {
    if (!MatchString(route.match.path, path)) continue;
    bool headers_ok = true;
    for (const auto& h : route.match.headers) {
      if (!MatchHeader(h, metadata)) {
        headers_ok = false;
        break;
      }
    }
    if (!headers_ok) continue;
    if (route.match.fraction_per_million.has_value() &&
        random % 1000000 >= *route.match.fraction_per_million) {
      continue;
    }
    return &route;
  }
  return nullptr;
}

absl::string_view SelectCluster(const resources::RouteAction& action,
                                uint64_t random) {
  if (action.weighted_clusters.empty()) return action.cluster;
  uint64_t total = 0;
  for (const auto& c : action.weighted_clusters) total += c.weight;
  if (total == 0) return action.weighted_clusters.front().name;
  uint64_t point = random % total;
  for (const auto& c : action.weighted_clusters) {
    if (point < c.weight) return c.name;
    point -= c.weight;
  }
  return action.weighted_clusters.back().name;
}

}  // namespace channel
}  // namespace xdsfed
