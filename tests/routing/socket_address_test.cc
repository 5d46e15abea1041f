// SocketAddress (lib/routing/socket_address.h): listening addresses of
// lib/server (A36: literal IP and port, no port 0) and sockaddr round trips.
#include "lib/routing/socket_address.h"

#include <netinet/in.h>

#include <cstring>

#include "gtest/gtest.h"

namespace xdsfed::routing {
namespace {

TEST(ParseListeningAddress, Table) {
  struct Case {
    const char* input;
    const char* canonical;  // nullptr: rejected
  };
  const Case cases[] = {
      {"127.0.0.1:50051", "127.0.0.1:50051"},
      {"0.0.0.0:8080", "0.0.0.0:8080"},
      {"[::]:80", "[::]:80"},
      {"[::1]:443", "[::1]:443"},
      {"[0:0::1]:443", "[::1]:443"},
      {"[::ffff:10.0.0.1]:80", "[::ffff:10.0.0.1]:80"},  // stays IPv6
      {"127.0.0.1:0", nullptr},  // A36: no ephemeral ports
      {"127.0.0.1:65536", nullptr},
      {"127.0.0.1:-1", nullptr},
      {"127.0.0.1:", nullptr},
      {"127.0.0.1", nullptr},
      {"localhost:80", nullptr},  // no name resolution
      {"::1:80", nullptr},        // IPv6 must be bracketed
      {"[::1]80", nullptr},
      {"[::1:80", nullptr},
      {"", nullptr},
  };
  for (const Case& c : cases) {
    absl::StatusOr<SocketAddress> a = ParseListeningAddress(c.input);
    if (c.canonical == nullptr) {
      EXPECT_FALSE(a.ok()) << c.input;
    } else {
      ASSERT_TRUE(a.ok()) << c.input << ": " << a.status();
      EXPECT_EQ(a->ToString(), c.canonical);
    }
  }
}

TEST(SocketAddress, MappedV4FromSockaddrIsV4) {
  sockaddr_in6 a{};
  a.sin6_family = AF_INET6;
  a.sin6_port = htons(9);
  unsigned char mapped[16] = {0, 0, 0,    0,    0,   0, 0, 0,
                              0, 0, 0xff, 0xff, 127, 0, 0, 5};
  std::memcpy(&a.sin6_addr, mapped, 16);
  std::optional<SocketAddress> s =
      SocketAddress::FromSockaddr(reinterpret_cast<sockaddr*>(&a), sizeof(a));
  ASSERT_TRUE(s.has_value());
  EXPECT_FALSE(s->ipv6);
  EXPECT_EQ(s->ToString(), "127.0.0.5:9");
  // Too short for its family: rejected.
  EXPECT_FALSE(SocketAddress::FromSockaddr(reinterpret_cast<sockaddr*>(&a),
                                           sizeof(a) - 1)
                   .has_value());
}

// bind() gets the address given; getsockname()'s answer reads back equal.
TEST(SocketAddress, ToSockaddrRoundTrips) {
  for (const char* text :
       {"127.0.0.1:50051", "[::1]:443", "[fd00::1:2]:80", "0.0.0.0:1"}) {
    absl::StatusOr<SocketAddress> a = ParseListeningAddress(text);
    ASSERT_TRUE(a.ok()) << text;
    sockaddr_storage storage;
    const socklen_t len = a->ToSockaddr(&storage);
    EXPECT_EQ(len, a->ipv6 ? sizeof(sockaddr_in6) : sizeof(sockaddr_in));
    std::optional<SocketAddress> back = SocketAddress::FromSockaddr(
        reinterpret_cast<const sockaddr*>(&storage), len);
    ASSERT_TRUE(back.has_value()) << text;
    EXPECT_EQ(*back, *a) << text;
  }
}

}  // namespace
}  // namespace xdsfed::routing
