#include "lib/routing/filter_chain_select.h"

#include <arpa/inet.h>
#include <sys/socket.h>

#include <algorithm>

namespace xdsfed {
namespace routing {

namespace {

using resources::ConnectionSourceType;

absl::uint128 FromBytes(const uint8_t* bytes, size_t n) {
  absl::uint128 v = 0;
  for (size_t i = 0; i < n; ++i) v = (v << 8) | bytes[i];
  return v;
}

// The prefix_len high bits of a 32- or 128-bit address.
absl::uint128 Mask(bool ipv6, uint32_t prefix_len) {
  const uint32_t width = ipv6 ? 128 : 32;
  prefix_len = std::min(prefix_len, width);
  if (prefix_len == 0) return 0;
  const absl::uint128 all =
      ipv6 ? ~absl::uint128(0) : absl::uint128(0xffffffffu);
  return (all >> (width - prefix_len)) << (width - prefix_len);
}

// ::ffff:a.b.c.d -> a.b.c.d
SocketAddress Unmapped(SocketAddress a) {
  if (a.ipv6 && (a.ip >> 32) == absl::uint128(0xffffu)) {
    a.ipv6 = false;
    a.ip &= absl::uint128(0xffffffffu);
  }
  return a;
}

// The address bits of a prefix's text (IPv4-mapped IPv6 text stays IPv6:
// such a prefix never contains an address, which is unmapped).
std::optional<absl::uint128> PrefixBits(const std::string& text, bool ipv6) {
  uint8_t bytes[16];
  if (inet_pton(ipv6 ? AF_INET6 : AF_INET, text.c_str(), bytes) != 1) {
    return std::nullopt;
  }
  return FromBytes(bytes, ipv6 ? 16 : 4);
}

bool IsLoopback(const SocketAddress& a) {
  // Exactly 127.0.0.1 or ::1: C-core's IsLoopbackIp and Envoy's
  // Utility::isLoopbackAddress (grpc-go takes all of 127.0.0.0/8).
  return a.ipv6 ? a.ip == 1 : a.ip == absl::uint128(0x7f000001u);
}

}  // namespace

bool BinaryCidr::Contains(const SocketAddress& a) const {
  return a.ipv6 == ipv6 && (a.ip & Mask(ipv6, prefix_len)) == prefix;
}

std::optional<BinaryCidr> BinaryCidr::From(const resources::CidrRange& range) {
  std::optional<absl::uint128> bits =
      PrefixBits(range.address_prefix, range.ipv6);
  if (!bits.has_value()) return std::nullopt;
  BinaryCidr out;
  out.ipv6 = range.ipv6;
  out.prefix_len = std::min<uint32_t>(range.prefix_len, range.ipv6 ? 128 : 32);
  out.prefix = *bits & Mask(out.ipv6, out.prefix_len);
  return out;
}

void FilterChainSelector::PrefixIndex::Add(
    const std::optional<BinaryCidr>& prefix, uint32_t value) {
  if (!prefix.has_value()) {
    any_ = value;
    return;
  }
  std::vector<Level>& levels = levels_[prefix->ipv6 ? 1 : 0];
  auto it = std::find_if(levels.begin(), levels.end(), [&](const Level& l) {
    return l.prefix_len <= prefix->prefix_len;
  });
  if (it == levels.end() || it->prefix_len != prefix->prefix_len) {
    it = levels.insert(
        it,
        Level{prefix->prefix_len, Mask(prefix->ipv6, prefix->prefix_len), {}});
  }
  it->values.emplace(prefix->prefix, value);
}

std::optional<uint32_t> FilterChainSelector::PrefixIndex::Find(
    const SocketAddress* a) const {
  if (a != nullptr) {
    for (const Level& level : levels_[a->ipv6 ? 1 : 0]) {
      auto it = level.values.find(a->ip & level.mask);
      if (it != level.values.end()) return it->second;
    }
  }
  return any_;
}

FilterChainSelector::FilterChainSelector(const resources::FilterChainMap& map) {
  for (const auto& d : map.destination_ips) {
    std::optional<BinaryCidr> prefix;
    if (d.prefix_range.has_value()) {
      prefix = BinaryCidr::From(*d.prefix_range);
      if (!prefix.has_value()) continue;  // not from the validator
    }
    Destination dest;
    for (size_t t = 0; t < 3; ++t) {
      SourceType& type = dest.types[t];
      for (const auto& s : d.source_types[t]) {
        std::optional<BinaryCidr> source;
        if (s.prefix_range.has_value()) {
          source = BinaryCidr::From(*s.prefix_range);
          if (!source.has_value()) continue;
        }
        type.sources.Add(source, static_cast<uint32_t>(type.ports.size()));
        auto& ports = type.ports.emplace_back();
        for (const auto& [port, chain] : s.ports) {
          ports.emplace_back(port, static_cast<uint32_t>(chain));
        }
      }
    }
    destinations_.Add(prefix, static_cast<uint32_t>(destination_data_.size()));
    destination_data_.push_back(std::move(dest));
  }
}

std::optional<size_t> FilterChainSelector::Select(
    const SocketAddress& local_in, const SocketAddress* peer_in) const {
  const SocketAddress local = Unmapped(local_in);
  SocketAddress peer_storage;
  const SocketAddress* peer = nullptr;
  if (peer_in != nullptr) {
    peer_storage = Unmapped(*peer_in);
    peer = &peer_storage;
  }
  std::optional<uint32_t> d = destinations_.Find(&local);
  if (!d.has_value()) return std::nullopt;
  const Destination& dest = destination_data_[*d];
  ConnectionSourceType kind = ConnectionSourceType::kExternal;
  if (peer != nullptr && (IsLoopback(*peer) ||
                          (peer->ipv6 == local.ipv6 && peer->ip == local.ip))) {
    kind = ConnectionSourceType::kSameIpOrLoopback;
  }
  // Envoy and grpc-go: the connection's own type, else ANY when that type
  // has no chains (C-core would need BOTH specific types empty; header).
  const SourceType* type = &dest.types[static_cast<size_t>(kind)];
  if (type->sources.empty()) {
    type = &dest.types[static_cast<size_t>(ConnectionSourceType::kAny)];
  }
  std::optional<uint32_t> s = type->sources.Find(peer);
  if (!s.has_value()) return std::nullopt;
  const auto& ports = type->ports[*s];
  auto find_port = [&ports](uint32_t port) -> std::optional<size_t> {
    auto it = std::lower_bound(ports.begin(), ports.end(), port,
                               [](const std::pair<uint32_t, uint32_t>& e,
                                  uint32_t p) { return e.first < p; });
    if (it != ports.end() && it->first == port) return it->second;
    return std::nullopt;
  };
  if (peer != nullptr && peer->port != 0) {
    if (auto chain = find_port(peer->port)) return chain;
  }
  return find_port(0);
}

}  // namespace routing
}  // namespace xdsfed
