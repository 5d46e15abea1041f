// Socket addresses for the xDS-enabled server's own accept loop: the
// listening address a user gives (a literal IP and a port; A36 servers take
// no ephemeral port), and the text form of accepted connections' ends as
// A36 and the Listener resource write them ("ip:port", "[v6]:port").
#ifndef XDSFED_LIB_SERVER_SOCKET_ADDRESS_H_
#define XDSFED_LIB_SERVER_SOCKET_ADDRESS_H_

#include <netinet/in.h>
#include <sys/socket.h>

#include <array>
#include <cstdint>
#include <string>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"

namespace xdsfed::server {

struct SocketAddress {
  bool ipv6 = false;
  // Network byte order; IPv4 uses the first 4 bytes.
  std::array<uint8_t, 16> ip{};
  uint16_t port = 0;

  // "127.0.0.1:50051", "[::1]:50051"; an IPv4-mapped IPv6 address is shown
  // (and matched) as IPv4, as gRPC does.
  std::string ToString() const;
  std::string IpString() const;
  bool IsLoopback() const;
  bool SameIp(const SocketAddress& o) const {
    return ipv6 == o.ipv6 && ip == o.ip;
  }
  // For bind(): fills *storage, returns its length.
  socklen_t ToSockaddr(sockaddr_storage* storage) const;
  static absl::StatusOr<SocketAddress> FromSockaddr(const sockaddr* addr,
                                                    socklen_t len);
};

// "IP:PORT" or "[IPv6]:PORT" with a literal address and a port in 1..65535.
absl::StatusOr<SocketAddress> ParseListeningAddress(absl::string_view text);

}  // namespace xdsfed::server

#endif  // XDSFED_LIB_SERVER_SOCKET_ADDRESS_H_
