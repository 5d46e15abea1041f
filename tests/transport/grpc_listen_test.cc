// BuildAndStartListening: a port in use is refused with an error naming the
// address instead of being shared (issue 29 item "a port in use is
// shared": grpc++ sets SO_REUSEPORT by default, GRPC_ARG_ALLOW_REUSEPORT, and
// a second control plane on a busy port took half the clients); sharing
// only when every socket on the port asked for it (Linux SO_REUSEPORT, see
// socket(7)).
#include "lib/transport/grpc_listen.h"

#include <errno.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <memory>
#include <string>

#include "absl/strings/str_cat.h"
#include "grpcpp/generic/async_generic_service.h"
#include "grpcpp/grpcpp.h"
#include "gtest/gtest.h"

namespace xdsfed::transport {
namespace {

// A server with one (generic) service: grpc++ builds none without one.
struct Listening {
  std::unique_ptr<grpc::CallbackGenericService> service;
  std::unique_ptr<grpc::Server> server;
};

Listening Listen(const std::string& address, bool reuse_port, int* port,
                 absl::Status* status) {
  Listening out;
  out.service = std::make_unique<grpc::CallbackGenericService>();
  grpc::ServerBuilder builder;
  builder.RegisterCallbackGenericService(out.service.get());
  ListenOptions options;
  options.allow_reuse_port = reuse_port;
  absl::StatusOr<std::unique_ptr<grpc::Server>> server = BuildAndStartListening(
      builder, address, grpc::InsecureServerCredentials(), options, port);
  *status = server.status();
  if (server.ok()) out.server = *std::move(server);
  return out;
}

// A plain socket listening on 127.0.0.1 at a free port (no SO_REUSEPORT).
int PlainListener(int* port) {
  int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  sockaddr_in a{};
  a.sin_family = AF_INET;
  a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  if (bind(fd, reinterpret_cast<sockaddr*>(&a), sizeof(a)) != 0 ||
      listen(fd, 1) != 0) {
    close(fd);
    return -1;
  }
  socklen_t len = sizeof(a);
  getsockname(fd, reinterpret_cast<sockaddr*>(&a), &len);
  *port = ntohs(a.sin_port);
  return fd;
}

// A gRPC server holds 127.0.0.1:P; a second one asks for the same port.
TEST(BuildAndStartListening, SecondServerOnTheSamePortTable) {
  struct Case {
    const char* name;  // and the source of the expectation
    bool first_reuse, second_reuse;
    bool want_ok;
  };
  const Case kCases[] = {
      // Issue 29: the default refuses a busy port (gRPC's own default would
      // share it).
      {"issue 29: default, default", false, false, false},
      // socket(7) SO_REUSEPORT: every socket on the port must set it.
      {"socket(7): only the second asks", false, true, false},
      {"socket(7): only the first asks", true, false, false},
      {"issue 29: both ask for sharing", true, true, true},
  };
  for (const Case& c : kCases) {
    SCOPED_TRACE(c.name);
    int port = 0;
    absl::Status status;
    Listening first = Listen("127.0.0.1:0", c.first_reuse, &port, &status);
    ASSERT_NE(first.server, nullptr) << status;
    const std::string address = absl::StrCat("127.0.0.1:", port);
    int second_port = -1;
    Listening second = Listen(address, c.second_reuse, &second_port, &status);
    if (c.want_ok) {
      ASSERT_TRUE(status.ok()) << status;
      EXPECT_EQ(second_port, port);
      second.server->Shutdown();
    } else {
      EXPECT_EQ(second.server, nullptr);
      EXPECT_EQ(status, absl::UnavailableError(
                            absl::StrCat("address ", address, " is in use")));
      EXPECT_EQ(second_port, -1);  // untouched on failure
    }
    first.server->Shutdown();
  }
}

// Whatever holds the port, and however the address is spelled.
TEST(BuildAndStartListening, BusyPortHeldByAPlainSocketTable) {
  int port = 0;
  const int fd = PlainListener(&port);
  ASSERT_GE(fd, 0);
  struct Case {
    std::string address, want;
  };
  const Case kCases[] = {
      {absl::StrCat("127.0.0.1:", port),
       absl::StrCat("address 127.0.0.1:", port, " is in use")},
      // gRPC's ipv4: scheme (its URI form of a listening address).
      {absl::StrCat("ipv4:127.0.0.1:", port),
       absl::StrCat("address ipv4:127.0.0.1:", port, " is in use")},
      // gRPC binds every address localhost resolves to; one busy fails all.
      {absl::StrCat("localhost:", port),
       absl::StrCat("address localhost:", port, " is in use")},
      // A wildcard overlaps every local address, 127.0.0.1 too.
      {absl::StrCat("0.0.0.0:", port),
       absl::StrCat("address 0.0.0.0:", port, " is in use")},
  };
  for (const Case& c : kCases) {
    SCOPED_TRACE(c.address);
    int got = -1;
    absl::Status status;
    Listening l = Listen(c.address, /*reuse_port=*/false, &got, &status);
    EXPECT_EQ(l.server, nullptr);
    EXPECT_EQ(status, absl::UnavailableError(c.want));
  }
  close(fd);
}

// A failure that is not a busy port keeps gRPC's silence but names the
// address.
TEST(BuildAndStartListening, OtherFailureNamesTheAddress) {
  int port = -1;
  absl::Status status;
  Listening l =
      Listen("unix:/nonexistent-xdsfed-dir/s.sock", false, &port, &status);
  EXPECT_EQ(l.server, nullptr);
  EXPECT_EQ(status,
            absl::UnavailableError(
                "cannot listen on unix:/nonexistent-xdsfed-dir/s.sock"));
}

TEST(ListenError, Table) {
  struct Case {
    int err;
    absl::Status want;
  };
  const Case kCases[] = {
      {EADDRINUSE, absl::UnavailableError("address 127.0.0.1:80 is in use")},
      {EACCES, absl::UnavailableError(
                   "cannot listen on 127.0.0.1:80: Permission denied")},
  };
  for (const Case& c : kCases) {
    EXPECT_EQ(ListenError("127.0.0.1:80", c.err), c.want);
  }
}

}  // namespace
}  // namespace xdsfed::transport
