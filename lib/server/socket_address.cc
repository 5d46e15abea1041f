#include "lib/server/socket_address.h"

#include <arpa/inet.h>

#include <cstring>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"

namespace xdsfed::server {

std::string SocketAddress::IpString() const {
  char buf[INET6_ADDRSTRLEN] = {};
  inet_ntop(ipv6 ? AF_INET6 : AF_INET, ip.data(), buf, sizeof(buf));
  return buf;
}

std::string SocketAddress::ToString() const {
  return ipv6 ? absl::StrCat("[", IpString(), "]:", port)
              : absl::StrCat(IpString(), ":", port);
}

bool SocketAddress::IsLoopback() const {
  if (!ipv6) return ip[0] == 127;
  static constexpr std::array<uint8_t, 16> kLoopback6 = {
      0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1};
  return ip == kLoopback6;
}

socklen_t SocketAddress::ToSockaddr(sockaddr_storage* storage) const {
  std::memset(storage, 0, sizeof(*storage));
  if (ipv6) {
    auto* a = reinterpret_cast<sockaddr_in6*>(storage);
    a->sin6_family = AF_INET6;
    a->sin6_port = htons(port);
    std::memcpy(&a->sin6_addr, ip.data(), 16);
    return sizeof(sockaddr_in6);
  }
  auto* a = reinterpret_cast<sockaddr_in*>(storage);
  a->sin_family = AF_INET;
  a->sin_port = htons(port);
  std::memcpy(&a->sin_addr, ip.data(), 4);
  return sizeof(sockaddr_in);
}

absl::StatusOr<SocketAddress> SocketAddress::FromSockaddr(const sockaddr* addr,
                                                          socklen_t len) {
  SocketAddress out;
  if (addr->sa_family == AF_INET && len >= sizeof(sockaddr_in)) {
    const auto* a = reinterpret_cast<const sockaddr_in*>(addr);
    std::memcpy(out.ip.data(), &a->sin_addr, 4);
    out.port = ntohs(a->sin_port);
    return out;
  }
  if (addr->sa_family == AF_INET6 && len >= sizeof(sockaddr_in6)) {
    const auto* a = reinterpret_cast<const sockaddr_in6*>(addr);
    out.port = ntohs(a->sin6_port);
    const uint8_t* b = reinterpret_cast<const uint8_t*>(&a->sin6_addr);
    static constexpr uint8_t kMapped[12] = {0, 0, 0, 0, 0,    0,
                                            0, 0, 0, 0, 0xff, 0xff};
    if (std::memcmp(b, kMapped, 12) == 0) {
      std::memcpy(out.ip.data(), b + 12, 4);
      return out;
    }
    out.ipv6 = true;
    std::memcpy(out.ip.data(), b, 16);
    return out;
  }
  return absl::InvalidArgumentError("not an IPv4 or IPv6 socket address");
}

absl::StatusOr<SocketAddress> ParseListeningAddress(absl::string_view text) {
  auto bad = [&](absl::string_view why) {
    return absl::InvalidArgumentError(
        absl::StrCat("listening address \"", text, "\": ", why));
  };
  std::string host;
  absl::string_view port_text;
  SocketAddress out;
  if (!text.empty() && text.front() == '[') {
    size_t close = text.find(']');
    if (close == absl::string_view::npos || close + 1 >= text.size() ||
        text[close + 1] != ':') {
      return bad("expected [IPv6]:PORT");
    }
    host = std::string(text.substr(1, close - 1));
    port_text = text.substr(close + 2);
    out.ipv6 = true;
  } else {
    size_t colon = text.rfind(':');
    if (colon == absl::string_view::npos) return bad("expected IP:PORT");
    host = std::string(text.substr(0, colon));
    port_text = text.substr(colon + 1);
    if (host.find(':') != std::string::npos) {
      return bad("an IPv6 address must be bracketed");
    }
  }
  if (inet_pton(out.ipv6 ? AF_INET6 : AF_INET, host.c_str(), out.ip.data()) !=
      1) {
    return bad("the host is not a literal IP address");
  }
  uint32_t port = 0;
  if (port_text.empty() || port_text.size() > 5 ||
      port_text.find_first_not_of("0123456789") != absl::string_view::npos ||
      !absl::SimpleAtoi(port_text, &port) || port > 65535) {
    return bad("the port is not a number in 1..65535");
  }
  if (port == 0) {
    return bad("port 0 (ephemeral) is not supported by xDS servers (A36)");
  }
  out.port = static_cast<uint16_t>(port);
  return out;
}

}  // namespace xdsfed::server
