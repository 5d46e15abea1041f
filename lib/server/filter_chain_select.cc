#include "lib/server/filter_chain_select.h"

#include <arpa/inet.h>

#include <algorithm>

namespace xdsfed::server {
namespace {

using resources::ConnectionSourceType;

// Bit 8 of the length tells IPv6 from IPv4 in by_length.
constexpr uint32_t kV6Bit = 0x100;

}  // namespace

void CompiledFilterChainMap::PrefixIndex::Add(
    const std::optional<resources::CidrRange>& range, size_t value) {
  if (!range.has_value()) {
    any = value;
    return;
  }
  Key key;
  key.ipv6 = range->ipv6;
  if (inet_pton(range->ipv6 ? AF_INET6 : AF_INET, range->address_prefix.c_str(),
                key.ip.data()) != 1) {
    return;  // validated ranges always parse; a bad one matches nothing
  }
  const uint32_t len =
      std::min<uint32_t>(range->prefix_len, range->ipv6 ? 128 : 32);
  // Ranges arrive normalized (masked); mask again so the key is canonical.
  for (uint32_t bit = len; bit < 128; ++bit) {
    key.ip[bit / 8] &= static_cast<uint8_t>(~(0x80u >> (bit % 8)));
  }
  const uint32_t tagged = len | (range->ipv6 ? kV6Bit : 0);
  for (auto& [l, map] : by_length) {
    if (l == tagged) {
      map.emplace(key, value);
      return;
    }
  }
  by_length.emplace_back(tagged, absl::flat_hash_map<Key, size_t>());
  by_length.back().second.emplace(key, value);
}

void CompiledFilterChainMap::PrefixIndex::Finish() {
  std::sort(by_length.begin(), by_length.end(),
            [](const auto& a, const auto& b) {
              return (a.first & 0xff) > (b.first & 0xff);
            });
}

std::optional<size_t> CompiledFilterChainMap::PrefixIndex::Find(
    const SocketAddress& a) const {
  for (const auto& [tagged, map] : by_length) {
    if (((tagged & kV6Bit) != 0) != a.ipv6) continue;
    const uint32_t len = tagged & 0xff;
    Key key;
    key.ipv6 = a.ipv6;
    const uint32_t bytes = len / 8;
    for (uint32_t i = 0; i < bytes; ++i) key.ip[i] = a.ip[i];
    if (len % 8 != 0) {
      key.ip[bytes] =
          static_cast<uint8_t>(a.ip[bytes] & (0xff << (8 - len % 8)));
    }
    auto it = map.find(key);
    if (it != map.end()) return it->second;
  }
  return any;
}

CompiledFilterChainMap::CompiledFilterChainMap(
    const resources::FilterChainMap& map) {
  destinations_.reserve(map.destination_ips.size());
  for (size_t d = 0; d < map.destination_ips.size(); ++d) {
    const auto& in = map.destination_ips[d];
    destination_index_.Add(in.prefix_range, d);
    DestinationIp out;
    for (size_t t = 0; t < in.source_types.size(); ++t) {
      SourceIps& ips = out.source_types[t];
      for (const auto& s : in.source_types[t]) {
        ips.index.Add(s.prefix_range, ips.entries.size());
        SourceIp ip;
        ip.ports.assign(s.ports.begin(), s.ports.end());  // std::map: sorted
        ips.entries.push_back(std::move(ip));
      }
      ips.index.Finish();
    }
    destinations_.push_back(std::move(out));
  }
  destination_index_.Finish();
}

std::optional<size_t> CompiledFilterChainMap::FromSourceIps(
    const SourceIps& ips, const SocketAddress& source) {
  std::optional<size_t> e = ips.index.Find(source);
  if (!e.has_value()) return std::nullopt;
  const auto& ports = ips.entries[*e].ports;
  auto find = [&](uint32_t port) -> const std::pair<uint32_t, size_t>* {
    auto it = std::lower_bound(ports.begin(), ports.end(), port,
                               [](const std::pair<uint32_t, size_t>& p,
                                  uint32_t v) { return p.first < v; });
    return it != ports.end() && it->first == port ? &*it : nullptr;
  };
  const auto* hit = find(source.port);
  if (hit == nullptr) hit = find(0);
  if (hit == nullptr) return std::nullopt;
  return hit->second;
}

std::optional<size_t> CompiledFilterChainMap::Select(
    const SocketAddress& destination, const SocketAddress& source) const {
  std::optional<size_t> d = destination_index_.Find(destination);
  if (!d.has_value()) return std::nullopt;
  const auto& types = destinations_[*d].source_types;
  constexpr size_t kAny = static_cast<size_t>(ConnectionSourceType::kAny);
  constexpr size_t kSame =
      static_cast<size_t>(ConnectionSourceType::kSameIpOrLoopback);
  constexpr size_t kExternal =
      static_cast<size_t>(ConnectionSourceType::kExternal);
  // As C-core: ANY is used only when no chain names a specific type.
  if (types[kSame].entries.empty() && types[kExternal].entries.empty()) {
    return FromSourceIps(types[kAny], source);
  }
  const bool same = source.IsLoopback() || source.SameIp(destination);
  return FromSourceIps(types[same ? kSame : kExternal], source);
}

std::optional<size_t> SelectFilterChain(const resources::FilterChainMap& map,
                                        const SocketAddress& destination,
                                        const SocketAddress& source) {
  return CompiledFilterChainMap(map).Select(destination, source);
}

}  // namespace xdsfed::server
