// Which filter chain of a server Listener a connection uses (A36
// §FilterChainMatch): the Listener's FilterChainMap, compiled once per
// generation into binary prefixes, walked in C-core's order — most specific
// destination prefix, then source type (SAME_IP_OR_LOOPBACK / EXTERNAL when
// any chain names one, else ANY), then most specific source prefix, then
// the exact source port before "any port". No allocation per connection.
#ifndef XDSFED_LIB_SERVER_FILTER_CHAIN_SELECT_H_
#define XDSFED_LIB_SERVER_FILTER_CHAIN_SELECT_H_

#include <array>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <utility>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "lib/resources/filter_chain_match.h"
#include "lib/server/socket_address.h"

namespace xdsfed::server {

class CompiledFilterChainMap {
 public:
  explicit CompiledFilterChainMap(const resources::FilterChainMap& map);

  // Index into ServerListener::filter_chains, or nullopt: use the
  // default_filter_chain, or close the connection if there is none.
  std::optional<size_t> Select(const SocketAddress& destination,
                               const SocketAddress& source) const;

 private:
  // An address masked to a prefix length, as a hash key.
  struct Key {
    bool ipv6 = false;
    std::array<uint8_t, 16> ip{};
    bool operator==(const Key& o) const { return ipv6 == o.ipv6 && ip == o.ip; }
    template <typename H>
    friend H AbslHashValue(H h, const Key& k) {
      return H::combine(std::move(h), k.ipv6, k.ip);
    }
  };
  // Longest-prefix match over a set of CIDR ranges: one hash table per
  // distinct prefix length, tried from the longest; then the "any" entry.
  // Values index into the owner's entry vector.
  struct PrefixIndex {
    std::vector<std::pair<uint32_t, absl::flat_hash_map<Key, size_t>>>
        by_length;  // longest first (IPv4 and IPv6 lengths kept apart)
    std::optional<size_t> any;
    void Add(const std::optional<resources::CidrRange>& range, size_t value);
    void Finish();
    std::optional<size_t> Find(const SocketAddress& a) const;
  };
  struct SourceIp {
    std::vector<std::pair<uint32_t, size_t>> ports;  // sorted; 0 = any
  };
  struct SourceIps {
    PrefixIndex index;
    std::vector<SourceIp> entries;
  };
  struct DestinationIp {
    std::array<SourceIps, 3> source_types;
  };
  static std::optional<size_t> FromSourceIps(const SourceIps& ips,
                                             const SocketAddress& source);

  PrefixIndex destination_index_;
  std::vector<DestinationIp> destinations_;
};

// One-shot form (compiles the map on each call).
std::optional<size_t> SelectFilterChain(const resources::FilterChainMap& map,
                                        const SocketAddress& destination,
                                        const SocketAddress& source);

}  // namespace xdsfed::server

#endif  // XDSFED_LIB_SERVER_FILTER_CHAIN_SELECT_H_
