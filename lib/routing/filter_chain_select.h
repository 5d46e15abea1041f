// Filter chain selection for a connection accepted by an xDS-enabled server
// (A36 §Connection and Request Handling, §FilterChainMatch): the validated
// Listener's FilterChainMap, compiled once per Listener update into prefix
// tables (binary addresses, one hash probe per distinct prefix length), then
// searched per connection without allocating.
//
//   routing::FilterChainSelector selector(server_listener);  // per update
//   // per connection:
//   std::optional<routing::SocketAddress> local =
//       routing::SocketAddress::FromSockaddr(local_sa, local_len);
//   std::optional<routing::SocketAddress> peer = ...;
//   std::optional<size_t> chain = selector.Select(*local, &*peer);
//   if (chain) { /* *server_listener.filter_chains[*chain] (shared) */ }
//   else if (server_listener.default_filter_chain) { /* the default */ }
//   else { /* close the connection */ }
//
// The search follows the map's order (Envoy's "most specific" order, which
// A36 §FilterChainMatch names the standard matching logic): the destination
// entry with the longest prefix containing the local address (an entry with
// no prefix only if none does); in it, the connection's source type
// (SAME_IP_OR_LOOPBACK when the peer is 127.0.0.1 / ::1 or has the local
// address, else EXTERNAL) if any chain names that type, else ANY; the
// longest source prefix containing the peer address (else the entry with
// none); the exact source port, else "any port". A step that finds nothing
// ends the search (no match): it does not fall back to a less specific
// entry. Addresses are compared by family; an IPv4-mapped IPv6 address
// (::ffff:a.b.c.d, as a dual-stack socket reports IPv4 peers) is taken as
// the IPv4 address.
//
// The source-type step is Envoy's documented rule and grpc-go's: a type
// without chains falls back to ANY. gRPC C-core 1.51 differs: it uses ANY
// only when neither SAME_IP_OR_LOOPBACK nor EXTERNAL has chains, so there
// an EXTERNAL peer gets no chain when only SAME_IP_OR_LOOPBACK and ANY do.
#ifndef XDSFED_LIB_ROUTING_FILTER_CHAIN_SELECT_H_
#define XDSFED_LIB_ROUTING_FILTER_CHAIN_SELECT_H_

#include <array>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <utility>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/numeric/int128.h"
#include "absl/strings/string_view.h"
#include "lib/resources/filter_chain_match.h"
#include "lib/resources/listener.h"
#include "lib/routing/socket_address.h"

namespace xdsfed {
namespace routing {

// A CidrRange in binary form; nullopt if its text is not an address.
struct BinaryCidr {
  bool ipv6 = false;
  absl::uint128 prefix = 0;  // masked
  uint32_t prefix_len = 0;
  bool Contains(const SocketAddress& a) const;
  static std::optional<BinaryCidr> From(const resources::CidrRange& range);
};

class FilterChainSelector {
 public:
  FilterChainSelector() = default;  // selects nothing
  explicit FilterChainSelector(const resources::FilterChainMap& map);
  explicit FilterChainSelector(const resources::ServerListener& listener)
      : FilterChainSelector(listener.filter_chain_map) {}

  // The index into ServerListener::filter_chains of the chain for a
  // connection to `local` from `peer`, or nullopt (default_filter_chain, or
  // close). peer == nullptr: the peer is unknown; its source type is taken
  // as EXTERNAL and only entries without a source prefix or port match.
  std::optional<size_t> Select(const SocketAddress& local,
                               const SocketAddress* peer) const;

 private:
  // Longest-prefix match over a list of entries, each with an optional
  // prefix (none = matches any address, least specific).
  class PrefixIndex {
   public:
    void Add(const std::optional<BinaryCidr>& prefix, uint32_t value);
    // The value of the longest prefix containing `a` (a == nullptr: only
    // the entry without a prefix), else of the entry without a prefix.
    std::optional<uint32_t> Find(const SocketAddress* a) const;
    bool empty() const {
      return levels_[0].empty() && levels_[1].empty() && !any_.has_value();
    }

   private:
    struct Level {
      uint32_t prefix_len;
      absl::uint128 mask;
      absl::flat_hash_map<absl::uint128, uint32_t> values;
    };
    std::array<std::vector<Level>, 2> levels_;  // [ipv6], longest first
    std::optional<uint32_t> any_;
  };
  struct SourceType {
    PrefixIndex sources;  // -> index into ports
    // Per source entry: (port, chain) sorted by port; port 0 = any.
    std::vector<std::vector<std::pair<uint32_t, uint32_t>>> ports;
  };
  struct Destination {
    std::array<SourceType, 3> types;  // by resources::ConnectionSourceType
  };
  PrefixIndex destinations_;  // -> index into destination_data_
  std::vector<Destination> destination_data_;
};

}  // namespace routing
}  // namespace xdsfed

#endif  // XDSFED_LIB_ROUTING_FILTER_CHAIN_SELECT_H_
