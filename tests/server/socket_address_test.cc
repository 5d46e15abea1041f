// Listening addresses of lib/server (A36: literal IP and port, no port 0).
#include "lib/server/socket_address.h"

#include "gtest/gtest.h"

namespace xdsfed::server {
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

TEST(SocketAddress, MappedV4IsV4AndLoopback) {
  sockaddr_in6 a{};
  a.sin6_family = AF_INET6;
  a.sin6_port = htons(9);
  unsigned char mapped[16] = {0, 0, 0,    0,    0,   0, 0, 0,
                              0, 0, 0xff, 0xff, 127, 0, 0, 5};
  memcpy(&a.sin6_addr, mapped, 16);
  auto s =
      SocketAddress::FromSockaddr(reinterpret_cast<sockaddr*>(&a), sizeof(a));
  ASSERT_TRUE(s.ok());
  EXPECT_EQ(s->ToString(), "127.0.0.5:9");
  EXPECT_TRUE(s->IsLoopback());
  EXPECT_TRUE(ParseListeningAddress("[::1]:1")->IsLoopback());
  EXPECT_FALSE(ParseListeningAddress("10.0.0.1:1")->IsLoopback());
}

}  // namespace
}  // namespace xdsfed::server
