// A36 FilterChainMatch handling for xDS-enabled servers: CIDR normalization,
// the duplicate-matcher check over normalized (Cartesian product) matchers,
// and the lookup map a server uses to pick a filter chain for a connection.
//
//   ValidationErrors errors;
//   std::vector<std::optional<FilterChainMatch>> matches;  // one per chain
//   matches.push_back(ParseFilterChainMatch(proto.filter_chain_match(),
//                                           &errors));
//   FilterChainMap map = BuildFilterChainMap(matches, &errors);
//   // map.destination_ips[d].source_types[t][s].ports.at(port) == chain index
//
// The map mirrors gRPC C-core's XdsListenerResource::FilterChainMap and is
// searched in the same order: most specific destination prefix, then source
// type (a specific type beats kAny), then most specific source prefix, then
// the exact source port before port 0 ("any").
#ifndef XDSFED_LIB_RESOURCES_FILTER_CHAIN_MATCH_H_
#define XDSFED_LIB_RESOURCES_FILTER_CHAIN_MATCH_H_

#include <array>
#include <cstddef>
#include <cstdint>
#include <map>
#include <memory_resource>
#include <optional>
#include <string>
#include <vector>

#include "absl/types/span.h"
#include "json/json.h"

namespace envoy {
namespace config {
namespace listener {
namespace v3 {
class FilterChainMatch;
}  // namespace v3
}  // namespace listener
}  // namespace config
}  // namespace envoy

namespace xdsfed {

class ValidationErrors;

namespace resources {

// A normalized CIDR range (A36 §FilterChainMatch): prefix_len clamped to 32
// (IPv4) or 128 (IPv6), absent = 0, and the address masked to prefix_len.
struct CidrRange {
  bool ipv6 = false;
  std::string address_prefix;  // canonical text, e.g. "10.1.0.0", "fd00::"
  uint32_t prefix_len = 0;
  bool operator==(const CidrRange& o) const {
    return ipv6 == o.ipv6 && address_prefix == o.address_prefix &&
           prefix_len == o.prefix_len;
  }
  bool operator<(const CidrRange& o) const;
  std::string ToString() const;  // "10.1.0.0/16"
  Json::Value ToJson() const;
};

enum class ConnectionSourceType {
  kAny = 0,
  kSameIpOrLoopback = 1,
  kExternal = 2
};

// One FilterChainMatch, validated, CIDRs normalized, otherwise as given.
struct FilterChainMatch {
  std::optional<uint32_t> destination_port;
  std::vector<CidrRange> prefix_ranges;
  ConnectionSourceType source_type = ConnectionSourceType::kAny;
  std::vector<CidrRange> source_prefix_ranges;
  std::vector<uint32_t> source_ports;
  std::vector<std::string> server_names;
  std::string transport_protocol;
  std::vector<std::string> application_protocols;

  // A36: fields that depend on features gRPC lacks (use_original_dst,
  // listener filters) can never match a connection.
  bool CanMatch() const;
  // C-core's wording, e.g. "{prefix_ranges={10.0.0.0/8},
  // source_type=EXTERNAL}".
  std::string ToString() const;
};

// Parses and normalizes; errors under the current path (".prefix_ranges[0]
// .address_prefix", ...). nullopt if any error was found.
std::optional<FilterChainMatch> ParseFilterChainMatch(
    const envoy::config::listener::v3::FilterChainMatch& proto,
    ValidationErrors* errors);

// Connection lookup: destination prefix -> source type -> source prefix ->
// source port -> index of the filter chain (into the Listener's chain list).
struct FilterChainMap {
  struct SourceIp {
    std::optional<CidrRange> prefix_range;  // nullopt = any source address
    std::map<uint32_t, size_t> ports;       // port 0 = any source port
    bool operator==(const SourceIp& o) const {
      return prefix_range == o.prefix_range && ports == o.ports;
    }
  };
  struct DestinationIp {
    std::optional<CidrRange> prefix_range;  // nullopt = any destination
    // Indexed by ConnectionSourceType.
    std::array<std::vector<SourceIp>, 3> source_types;
    bool operator==(const DestinationIp& o) const {
      return prefix_range == o.prefix_range && source_types == o.source_types;
    }
  };
  std::vector<DestinationIp> destination_ips;  // sorted by prefix text
  bool operator==(const FilterChainMap& o) const {
    return destination_ips == o.destination_ips;
  }
  // Calls f(chain_index) for every leaf, e.g. to renumber chains.
  template <typename F>
  void ForEachChainIndex(F f) {
    for (auto& d : destination_ips) {
      for (auto& type : d.source_types) {
        for (auto& s : type) {
          for (auto& p : s.ports) f(p.second);
        }
      }
    }
  }
  Json::Value ToJson() const;
};

// Checks A36's uniqueness rule over every chain's normalized matchers (also
// chains that can never match) and builds the map from the chains that can
// match. matches[i] is chain i's match (nullopt: invalid, skipped); errors go
// under ".filter_chains[i].filter_chain_match" below the current path (the
// Listener). At most kMaxNormalizedMatchers normalized matchers are checked;
// a Listener with more is rejected (the product can grow exponentially).
// Its working memory (not the map's) comes from `scratch` (the Listener
// decode passes a kept, pre-touched block: listener.cc).
inline constexpr size_t kMaxNormalizedMatchers = 100000;
FilterChainMap BuildFilterChainMap(
    absl::Span<const std::optional<FilterChainMatch>> matches,
    ValidationErrors* errors,
    std::pmr::memory_resource* scratch = std::pmr::new_delete_resource());

}  // namespace resources
}  // namespace xdsfed

#endif  // XDSFED_LIB_RESOURCES_FILTER_CHAIN_MATCH_H_
