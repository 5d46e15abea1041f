#include "lib/server/filter_chain_select.h"

#include <arpa/inet.h>

#include <array>
#include <cstdint>
#include <vector>

namespace xdsfed::server {
namespace {

using resources::CidrRange;
using resources::ConnectionSourceType;
using resources::FilterChainMap;

bool Contains(const CidrRange& range, const SocketAddress& addr) {
  if (range.ipv6 != addr.ipv6) return false;
  std::array<uint8_t, 16> prefix{};
  if (inet_pton(range.ipv6 ? AF_INET6 : AF_INET, range.address_prefix.c_str(),
                prefix.data()) != 1) {
    return false;
  }
  uint32_t bits = range.prefix_len;
  for (size_t i = 0; bits > 0; ++i, bits = bits >= 8 ? bits - 8 : 0) {
    uint8_t mask = bits >= 8 ? 0xff : static_cast<uint8_t>(0xff << (8 - bits));
    if ((prefix[i] & mask) != (addr.ip[i] & mask)) return false;
  }
  return true;
}

// The entry with the longest matching prefix (nullopt = /0, matches all);
// null if none matches.
template <typename T>
const T* MostSpecific(const std::vector<T>& entries, const SocketAddress& a) {
  const T* best = nullptr;
  int best_len = -1;
  for (const T& e : entries) {
    int len = 0;
    if (e.prefix_range.has_value()) {
      if (!Contains(*e.prefix_range, a)) continue;
      len = static_cast<int>(e.prefix_range->prefix_len);
    }
    if (len > best_len) {
      best = &e;
      best_len = len;
    }
  }
  return best;
}

std::optional<size_t> FromSourceIps(
    const std::vector<FilterChainMap::SourceIp>& source_ips,
    const SocketAddress& source) {
  const FilterChainMap::SourceIp* s = MostSpecific(source_ips, source);
  if (s == nullptr) return std::nullopt;
  auto it = s->ports.find(source.port);
  if (it == s->ports.end()) it = s->ports.find(0);
  if (it == s->ports.end()) return std::nullopt;
  return it->second;
}

}  // namespace

std::optional<size_t> SelectFilterChain(const FilterChainMap& map,
                                        const SocketAddress& destination,
                                        const SocketAddress& source) {
  const FilterChainMap::DestinationIp* d =
      MostSpecific(map.destination_ips, destination);
  if (d == nullptr) return std::nullopt;
  const auto& types = d->source_types;
  constexpr size_t kSame =
      static_cast<size_t>(ConnectionSourceType::kSameIpOrLoopback);
  constexpr size_t kExternal =
      static_cast<size_t>(ConnectionSourceType::kExternal);
  // As C-core: ANY is used only when no chain names a specific type.
  if (types[kSame].empty() && types[kExternal].empty()) {
    return FromSourceIps(types[static_cast<size_t>(ConnectionSourceType::kAny)],
                         source);
  }
  bool same = source.IsLoopback() || source.SameIp(destination);
  return FromSourceIps(types[same ? kSame : kExternal], source);
}

}  // namespace xdsfed::server
