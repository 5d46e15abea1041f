// One end of a TCP connection as the xDS-enabled server matches it (A36
// §FilterChainMatch) and the Listener writes it ("ip:port", "[v6]:port"):
// the binary address as one number, so that a prefix match is a mask and a
// compare. Used by filter chain selection, lib/server's accept loop and the
// `xdsfed filter-chain` CLI.
#ifndef XDSFED_LIB_ROUTING_SOCKET_ADDRESS_H_
#define XDSFED_LIB_ROUTING_SOCKET_ADDRESS_H_

#include <sys/socket.h>

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>

#include "absl/numeric/int128.h"
#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"

namespace xdsfed {
namespace routing {

struct SocketAddress {
  bool ipv6 = false;
  absl::uint128 ip = 0;  // the address as a big-endian number (IPv4: low 32)
  uint16_t port = 0;

  // "10.0.0.1:80", "[fd00::1]:80"; nullopt if not an IP literal and port.
  // An IPv4-mapped IPv6 address (::ffff:a.b.c.d) is taken as IPv4, as gRPC
  // does for dual-stack sockets.
  static std::optional<SocketAddress> Parse(absl::string_view host_port);
  // An AF_INET / AF_INET6 sockaddr (from accept / getsockname); nullopt for
  // another family or a short length. IPv4-mapped is IPv4, as Parse.
  static std::optional<SocketAddress> FromSockaddr(const struct sockaddr* addr,
                                                   size_t len);
  // For bind(): fills *storage, returns its length.
  socklen_t ToSockaddr(struct sockaddr_storage* storage) const;
  std::string ToString() const;  // canonical, IPv6 bracketed
  // The peer URI gRPC C-core gives a server for a connection from this
  // address (grpc::ServerContext::peer(), grpc_sockaddr_to_uri):
  // "ipv4:10.0.0.1:80", "ipv6:%5B::1%5D:80" (the URI path's brackets
  // percent-encoded; an IPv4-mapped peer is "ipv4:", as here).
  std::string ToGrpcPeer() const;
  // The inverse, also taking unencoded brackets ("ipv6:[::1]:80") and
  // lowercase escapes; nullopt for another scheme ("unix:...") or a
  // malformed address.
  static std::optional<SocketAddress> FromGrpcPeer(absl::string_view peer);
  bool operator==(const SocketAddress& o) const {
    return ipv6 == o.ipv6 && ip == o.ip && port == o.port;
  }
};

// A listening address an xDS-enabled server is given: "IP:PORT" or
// "[IPv6]:PORT", a literal address and a port in 1..65535 (A36 servers take
// no ephemeral port); the error says which part is wrong.
absl::StatusOr<SocketAddress> ParseListeningAddress(absl::string_view text);

}  // namespace routing
}  // namespace xdsfed

#endif  // XDSFED_LIB_ROUTING_SOCKET_ADDRESS_H_
