#include "lib/routing/socket_address.h"

#include <arpa/inet.h>
#include <netinet/in.h>

#include <algorithm>
#include <cstring>

#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/strip.h"

namespace xdsfed {
namespace routing {

namespace {

absl::uint128 FromBytes(const uint8_t* bytes, size_t n) {
  absl::uint128 v = 0;
  for (size_t i = 0; i < n; ++i) v = (v << 8) | bytes[i];
  return v;
}

void ToBytes(absl::uint128 v, uint8_t* bytes, size_t n) {
  for (size_t i = 0; i < n; ++i) {
    bytes[i] = static_cast<uint8_t>(absl::Uint128Low64(v >> (8 * (n - 1 - i))));
  }
}

// ::ffff:a.b.c.d -> a.b.c.d
SocketAddress Unmapped(SocketAddress a) {
  if (a.ipv6 && (a.ip >> 32) == absl::uint128(0xffffu)) {
    a.ipv6 = false;
    a.ip &= absl::uint128(0xffffffffu);
  }
  return a;
}

// Splits "ip:port" / "[ip]:port"; false if the shape is wrong. The port
// text is digits only, at most 5 of them (so "+80" and "080000" fail).
bool Split(absl::string_view host_port, absl::string_view* host, bool* ipv6,
           uint32_t* port) {
  absl::string_view port_text;
  if (!host_port.empty() && host_port[0] == '[') {
    const size_t close = host_port.find("]:");
    if (close == absl::string_view::npos) return false;
    *host = host_port.substr(1, close - 1);
    port_text = host_port.substr(close + 2);
    *ipv6 = true;
  } else {
    const size_t colon = host_port.rfind(':');
    if (colon == absl::string_view::npos) return false;
    *host = host_port.substr(0, colon);
    port_text = host_port.substr(colon + 1);
    if (host->find(':') != absl::string_view::npos) return false;
    *ipv6 = false;
  }
  return !port_text.empty() && port_text.size() <= 5 &&
         std::all_of(port_text.begin(), port_text.end(),
                     [](char c) { return c >= '0' && c <= '9'; }) &&
         absl::SimpleAtoi(port_text, port) && *port <= 65535;
}

std::optional<SocketAddress> FromText(absl::string_view host, bool ipv6,
                                      uint16_t port, bool unmap = true) {
  char buf[INET6_ADDRSTRLEN + 1];
  if (host.size() >= sizeof(buf)) return std::nullopt;
  std::memcpy(buf, host.data(), host.size());
  buf[host.size()] = '\0';
  SocketAddress a;
  a.ipv6 = ipv6;
  a.port = port;
  uint8_t bytes[16];
  if (inet_pton(ipv6 ? AF_INET6 : AF_INET, buf, bytes) != 1) {
    return std::nullopt;
  }
  a.ip = FromBytes(bytes, ipv6 ? 16 : 4);
  return unmap ? Unmapped(a) : a;
}

}  // namespace

std::optional<SocketAddress> SocketAddress::Parse(absl::string_view host_port) {
  absl::string_view host;
  bool ipv6 = false;
  uint32_t port = 0;
  if (!Split(host_port, &host, &ipv6, &port)) return std::nullopt;
  return FromText(host, ipv6, static_cast<uint16_t>(port));
}

std::optional<SocketAddress> SocketAddress::FromSockaddr(
    const struct sockaddr* addr, size_t len) {
  if (addr == nullptr) return std::nullopt;
  SocketAddress a;
  if (addr->sa_family == AF_INET && len >= sizeof(sockaddr_in)) {
    sockaddr_in in;
    std::memcpy(&in, addr, sizeof(in));
    a.ip = FromBytes(reinterpret_cast<const uint8_t*>(&in.sin_addr), 4);
    a.port = ntohs(in.sin_port);
    return a;
  }
  if (addr->sa_family == AF_INET6 && len >= sizeof(sockaddr_in6)) {
    sockaddr_in6 in6;
    std::memcpy(&in6, addr, sizeof(in6));
    a.ipv6 = true;
    a.ip = FromBytes(reinterpret_cast<const uint8_t*>(&in6.sin6_addr), 16);
    a.port = ntohs(in6.sin6_port);
    return Unmapped(a);
  }
  return std::nullopt;
}

socklen_t SocketAddress::ToSockaddr(struct sockaddr_storage* storage) const {
  std::memset(storage, 0, sizeof(*storage));
  if (ipv6) {
    sockaddr_in6 in6{};
    in6.sin6_family = AF_INET6;
    in6.sin6_port = htons(port);
    ToBytes(ip, reinterpret_cast<uint8_t*>(&in6.sin6_addr), 16);
    std::memcpy(storage, &in6, sizeof(in6));
    return sizeof(in6);
  }
  sockaddr_in in{};
  in.sin_family = AF_INET;
  in.sin_port = htons(port);
  ToBytes(ip, reinterpret_cast<uint8_t*>(&in.sin_addr), 4);
  std::memcpy(storage, &in, sizeof(in));
  return sizeof(in);
}

std::string SocketAddress::ToString() const {
  char buf[INET6_ADDRSTRLEN];
  uint8_t bytes[16];
  ToBytes(ip, bytes, ipv6 ? 16 : 4);
  inet_ntop(ipv6 ? AF_INET6 : AF_INET, bytes, buf, sizeof(buf));
  return ipv6 ? absl::StrCat("[", buf, "]:", port)
              : absl::StrCat(buf, ":", port);
}

std::string SocketAddress::ToGrpcPeer() const {
  if (!ipv6) return absl::StrCat("ipv4:", ToString());
  char buf[INET6_ADDRSTRLEN];
  uint8_t bytes[16];
  ToBytes(ip, bytes, 16);
  inet_ntop(AF_INET6, bytes, buf, sizeof(buf));
  return absl::StrCat("ipv6:%5B", buf, "%5D:", port);
}

std::optional<SocketAddress> SocketAddress::FromGrpcPeer(
    absl::string_view peer) {
  if (absl::ConsumePrefix(&peer, "ipv4:")) {
    std::optional<SocketAddress> a = Parse(peer);
    if (!a.has_value() || a->ipv6) return std::nullopt;
    return a;
  }
  if (!absl::ConsumePrefix(&peer, "ipv6:")) return std::nullopt;
  // "%5B" / "%5b" / "[" ... "%5D" / "%5d" / "]" ":" port
  if (absl::StartsWithIgnoreCase(peer, "%5B")) {
    peer.remove_prefix(3);
  } else if (!absl::ConsumePrefix(&peer, "[")) {
    return std::nullopt;
  }
  size_t close = std::string::npos;
  size_t skip = 0;
  for (size_t i = 0; i < peer.size(); ++i) {
    if (peer[i] == ']') {
      close = i;
      skip = 1;
      break;
    }
    if (absl::StartsWithIgnoreCase(peer.substr(i), "%5D")) {
      close = i;
      skip = 3;
      break;
    }
  }
  if (close == std::string::npos) return std::nullopt;
  return Parse(
      absl::StrCat("[", peer.substr(0, close), "]", peer.substr(close + skip)));
}

absl::StatusOr<SocketAddress> ParseListeningAddress(absl::string_view text) {
  auto bad = [&](absl::string_view why) {
    return absl::InvalidArgumentError(
        absl::StrCat("listening address \"", text, "\": ", why));
  };
  absl::string_view host;
  bool ipv6 = false;
  uint32_t port = 0;
  if (!Split(text, &host, &ipv6, &port)) {
    if (!text.empty() && text[0] == '[') return bad("expected [IPv6]:PORT");
    const size_t colon = text.rfind(':');
    if (colon != absl::string_view::npos &&
        text.substr(0, colon).find(':') != absl::string_view::npos) {
      return bad("an IPv6 address must be bracketed");
    }
    if (colon == absl::string_view::npos) return bad("expected IP:PORT");
    return bad("the port is not a number in 1..65535");
  }
  // Kept as written: "[::ffff:10.0.0.1]:80" binds a dual-stack IPv6 socket.
  std::optional<SocketAddress> a =
      FromText(host, ipv6, static_cast<uint16_t>(port), /*unmap=*/false);
  if (!a.has_value()) return bad("the host is not a literal IP address");
  if (port == 0) {
    return bad("port 0 (ephemeral) is not supported by xDS servers (A36)");
  }
  return *a;
}

}  // namespace routing
}  // namespace xdsfed
