// lib/server end to end (issue 12 "Done when"; A36): an XdsServer fed by the
// embedded control plane over real gRPC on loopback, called by Debian's gRPC
// C++ 1.51 client through its OWN xds: resolver, and by raw sockets.
//
// gRPC's client reads its bootstrap once per process; each TEST runs in its
// own process (gtest_discover_tests: one ctest entry per TEST).
#include <arpa/inet.h>
#include <dirent.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cstdlib>
#include <fstream>
#include <mutex>
#include <sstream>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include "gtest/gtest.h"
#include "lib/admin/csds_client.h"
#include "lib/server/xds_server.h"
#include "tests/server/server_test_support.h"
#include "tools/health_backend/health_backend.h"

namespace xdsfed::server {
namespace {

using health_backend::HealthCheckOnce;
using health_backend::HealthCheckResult;
using health_backend::HealthService;
using testing::NotifierLog;

class XdsServerE2eTest : public ::testing::Test {
 protected:
  void SetUp() override {
    server_port_ = testing::FreePort();
    control_plane::ControlPlane::Options options;
    options.listen = "127.0.0.1:0";
    cp_ = std::make_unique<control_plane::ControlPlane>(options);
    absl::StatusOr<int> port = cp_->Start();
    ASSERT_TRUE(port.ok()) << port.status();
    cp_port_ = *port;
  }
  void TearDown() override {
    if (server_ != nullptr) server_->Shutdown();
    server_.reset();
    if (cp_ != nullptr) cp_->Shutdown();
  }

  // The client chain to the server is always there; the server Listener
  // only when `listener` is not empty.
  void Push(absl::string_view listener, absl::string_view routes) {
    std::string listeners = std::string(testing::ClientListenerJson());
    if (!listener.empty()) absl::StrAppend(&listeners, ",", listener);
    std::string all_routes = testing::ClientRouteJson();
    if (!routes.empty()) absl::StrAppend(&all_routes, ",", routes);
    auto snapshot = testing::MakeSnapshot(
        ++version_, listeners, all_routes, testing::ClientClusterJson(),
        testing::ClientEndpointJson(server_port_));
    ASSERT_TRUE(snapshot.ok()) << snapshot.status();
    cp_->SetSnapshot(*std::move(snapshot));
  }

  void StartServer(absl::Duration max_age = absl::Seconds(30),
                   absl::Duration grace = absl::Seconds(3),
                   std::shared_ptr<const Bootstrap> bootstrap = nullptr) {
    client::XdsClient::Options client_options;
    client_options.does_not_exist_timeout = absl::Seconds(1);
    XdsServerBuilder builder;
    builder.set_xds_client_options(client_options)
        .AddListeningPort(testing::HostPort(listen_host_, server_port_),
                          grpc::InsecureServerCredentials())
        .RegisterService(&health_)
        .set_bootstrap(bootstrap != nullptr
                           ? bootstrap
                           : testing::ServerBootstrap(cp_port_))
        .set_drain_grace_time(grace)
        .set_max_connection_age(max_age)
        .set_csds_service(csds_)
        .set_status_notifier(
            [this](const std::string& a, const absl::Status& s) {
              log_.Record(a, s);
            });
    auto server = builder.BuildAndStart();
    ASSERT_TRUE(server.ok()) << server.status();
    server_ = *std::move(server);
  }

  // `host`: the server's address the connection goes to.
  std::shared_ptr<grpc::Channel> Direct(absl::string_view host = "127.0.0.1") {
    // A fresh channel (its own connection), no reconnect backoff carried.
    grpc::ChannelArguments args;
    args.SetInt("grpc.xdsfed_test_unique", ++unique_);
    return grpc::CreateCustomChannel(testing::HostPort(host, server_port_),
                                     grpc::InsecureChannelCredentials(), args);
  }

  // A filter chain with `match` (a FilterChainMatch) whose
  // HttpConnectionManager uses RDS `route`: "allow" passes every RPC, "deny"
  // none (the routes ExpectServedThenRefused serves).
  static std::string Chain(absl::string_view match, absl::string_view route) {
    return absl::StrCat(R"({"filter_chain_match":)", match,
                        R"(,"filters":[{"name":"hcm","typed_config":)",
                        testing::Hcm(route), "}]}");
  }

  // Starts serving Listener `first` and expects an RPC on a new connection
  // to pass; then pushes `second` and, once its generation is up, expects
  // one on a new connection to fail UNAVAILABLE. RDS "allow" and "deny" are
  // served with both.
  void ExpectServedThenRefused(const std::string& first,
                               const std::string& second) {
    const std::string routes =
        absl::StrCat(testing::ServerRouteJson("allow"), ",",
                     testing::ServerRouteJson("deny", "/nomatch/"));
    Push(first, routes);
    ASSERT_NO_FATAL_FAILURE(StartServer());
    ASSERT_TRUE(log_.WaitFor(1));
    ASSERT_TRUE(log_.calls()[0].status.ok()) << log_.calls()[0].status;
    HealthCheckResult served =
        HealthCheckOnce(Direct(), "", absl::Seconds(10), true);
    EXPECT_TRUE(served.status.ok()) << served.status.error_message();
    Push(second, routes);
    for (int i = 0; i < 200 && server_->generations_started() < 2; ++i) {
      absl::SleepFor(absl::Milliseconds(25));
    }
    HealthCheckResult refused =
        HealthCheckOnce(Direct(), "", absl::Seconds(10), true);
    EXPECT_EQ(refused.status.error_code(), grpc::StatusCode::UNAVAILABLE)
        << refused.status.error_message();
  }

  // A chain per destination address (prefix_ranges /32 or /128).
  struct DestinationChain {
    std::string ip;
    std::string route;  // "allow" or "deny"
  };
  // Served in turn, each a Listener whose default chain denies every RPC:
  // an RPC over a new connection to each `dial` address passes exactly when
  // its `want_ok` says (that is, when the address's own chain allows it).
  struct ChainsRow {
    std::vector<DestinationChain> chains;
    std::vector<std::pair<std::string, bool>> dial;  // address, want_ok
  };
  void ExpectChainsByDestination(const std::vector<ChainsRow>& rows) {
    const std::string routes =
        absl::StrCat(testing::ServerRouteJson("allow"), ",",
                     testing::ServerRouteJson("deny", "/nomatch/"));
    for (size_t i = 0; i < rows.size(); ++i) {
      SCOPED_TRACE(::testing::Message() << "Listener " << i + 1);
      std::string chains;
      for (const DestinationChain& c : rows[i].chains) {
        const int len = c.ip.find(':') == std::string::npos ? 32 : 128;
        if (!chains.empty()) chains += ",";
        chains += Chain(absl::StrCat(R"({"prefix_ranges":[{"address_prefix":")",
                                     c.ip, R"(","prefix_len":)", len, "}]}"),
                        c.route);
      }
      Push(testing::ServerListenerJson(server_port_, "deny", chains,
                                       listen_host_),
           routes);
      if (i == 0) {
        ASSERT_NO_FATAL_FAILURE(StartServer());
        ASSERT_TRUE(log_.WaitFor(1));
        ASSERT_TRUE(log_.calls()[0].status.ok()) << log_.calls()[0].status;
      }
      for (int t = 0; t < 200 && server_->generations_started() < i + 1; ++t) {
        absl::SleepFor(absl::Milliseconds(25));
      }
      ASSERT_GE(server_->generations_started(), i + 1);
      for (const auto& [address, want_ok] : rows[i].dial) {
        SCOPED_TRACE(address);
        HealthCheckResult r =
            HealthCheckOnce(Direct(address), "", absl::Seconds(10), true);
        if (want_ok) {
          EXPECT_TRUE(r.status.ok()) << r.status.error_message();
        } else {
          EXPECT_EQ(r.status.error_code(), grpc::StatusCode::UNAVAILABLE)
              << r.status.error_message();
        }
      }
    }
  }

  std::unique_ptr<control_plane::ControlPlane> cp_;
  std::string listen_host_ = "127.0.0.1";  // StartServer listens here
  int cp_port_ = 0;
  int server_port_ = 0;
  int version_ = 0;
  int unique_ = 0;
  bool csds_ = false;  // StartServer: set_csds_service
  HealthService health_{"e2e-backend"};
  NotifierLog log_;
  std::unique_ptr<XdsServer> server_;
};

// A36 lifecycle with gRPC C++ 1.51's own xDS client as the caller:
// NOT_SERVING (no Listener) -> SERVING -> Listener update (new generation,
// RPCs keep working) -> RDS-only change (no new generation) -> Listener
// deleted -> NOT_SERVING; the notifier's calls checked at each step.
TEST_F(XdsServerE2eTest, GrpcClientThroughLifecycle) {
  const std::string routes = absl::StrCat(testing::ServerRouteJson("s1"), ",",
                                          testing::ServerRouteJson("s2"));
  Push("", routes);
  ASSERT_NO_FATAL_FAILURE(StartServer());
  const std::string address = absl::StrCat("127.0.0.1:", server_port_);
  EXPECT_EQ(server_->listener_resource_name(),
            testing::ServerListenerName(server_port_));

  // §Serving and Not Serving: the Listener does not exist.
  ASSERT_TRUE(log_.WaitFor(1));
  EXPECT_EQ(log_.calls()[0].address, address);
  EXPECT_FALSE(log_.calls()[0].status.ok());
  EXPECT_FALSE(server_->serving());
  HealthCheckResult refused =
      HealthCheckOnce(Direct(), "", absl::Milliseconds(500));
  EXPECT_EQ(refused.status.error_code(), grpc::StatusCode::UNAVAILABLE);
  EXPECT_GE(server_->connections_closed_unserved(), 1u);

  Push(testing::ServerListenerJson(server_port_, "s1"), routes);
  ASSERT_TRUE(log_.WaitFor(2));
  EXPECT_TRUE(log_.calls()[1].status.ok()) << log_.calls()[1].status;
  EXPECT_EQ(server_->generations_started(), 1u);

  setenv("GRPC_XDS_BOOTSTRAP_CONFIG",
         absl::Substitute(
             R"({"xds_servers":[{"server_uri":"127.0.0.1:$0",
  "channel_creds":[{"type":"insecure"}],"server_features":["xds_v3"]}],
  "node":{"id":"xds-server-e2e-client"}})",
             cp_port_)
             .c_str(),
         1);
  auto xds_channel =
      grpc::CreateChannel("xds:///svc", grpc::InsecureChannelCredentials());
  HealthCheckResult r =
      HealthCheckOnce(xds_channel, "", absl::Seconds(30), true);
  ASSERT_TRUE(r.status.ok()) << r.status.error_message();
  EXPECT_EQ(r.backend_id, "e2e-backend");

  // Listener update: a new generation; the xds channel keeps working.
  Push(testing::ServerListenerJson(server_port_, "s2"), routes);
  for (int i = 0; i < 200 && server_->generations_started() < 2; ++i) {
    absl::SleepFor(absl::Milliseconds(25));
  }
  EXPECT_EQ(server_->generations_started(), 2u);
  for (int i = 0; i < 5; ++i) {
    HealthCheckResult again =
        HealthCheckOnce(xds_channel, "", absl::Seconds(10), true);
    EXPECT_TRUE(again.status.ok()) << again.status.error_message();
  }
  ASSERT_TRUE(HealthCheckOnce(Direct(), "", absl::Seconds(5)).status.ok());

  // An RDS-only change applies without a new generation.
  Push(testing::ServerListenerJson(server_port_, "s2"),
       absl::StrCat(testing::ServerRouteJson("s1"), ",",
                    testing::ServerRouteJson("s2", "/grpc.health.v1.")));
  absl::SleepFor(absl::Milliseconds(500));
  EXPECT_EQ(server_->generations_started(), 2u);
  EXPECT_EQ(log_.calls().size(), 2u);  // still serving: no call
  EXPECT_TRUE(HealthCheckOnce(xds_channel, "", absl::Seconds(10)).status.ok());

  // A36 per RPC: an RDS change to a route that does not match fails RPCs on
  // an existing connection of the current generation with UNAVAILABLE,
  // without a new generation. (A draining generation keeps the routes it
  // had: the RDS names only its old Listener used are no longer watched.)
  auto existing = Direct();
  ASSERT_TRUE(HealthCheckOnce(existing, "", absl::Seconds(10)).status.ok());
  Push(testing::ServerListenerJson(server_port_, "s2"),
       absl::StrCat(testing::ServerRouteJson("s1"), ",",
                    testing::ServerRouteJson("s2", "/nomatch/")));
  grpc::StatusCode code = grpc::StatusCode::OK;
  for (int i = 0; i < 100 && code == grpc::StatusCode::OK; ++i) {
    code = HealthCheckOnce(existing, "", absl::Seconds(10)).status.error_code();
    if (code == grpc::StatusCode::OK) absl::SleepFor(absl::Milliseconds(20));
  }
  EXPECT_EQ(code, grpc::StatusCode::UNAVAILABLE);
  EXPECT_EQ(server_->generations_started(), 2u);

  // Deleted: NOT_SERVING; new connections are closed.
  Push("", routes);
  ASSERT_TRUE(log_.WaitFor(3));
  EXPECT_FALSE(log_.calls()[2].status.ok());
  EXPECT_EQ(log_.calls()[2].address, address);
  EXPECT_FALSE(server_->serving());
  EXPECT_EQ(HealthCheckOnce(Direct(), "", absl::Milliseconds(500))
                .status.error_code(),
            grpc::StatusCode::UNAVAILABLE);
  EXPECT_EQ(log_.calls().size(), 3u);
}

// A36: while not serving, a connection is accepted and closed without a byte
// (no HTTP/2 SETTINGS): the peer reads EOF at once.
TEST_F(XdsServerE2eTest, NotServingClosesWithoutSendingAByte) {
  Push("", "");
  ASSERT_NO_FATAL_FAILURE(StartServer());
  ASSERT_TRUE(log_.WaitFor(1));
  int fd = socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in a{};
  a.sin_family = AF_INET;
  a.sin_port = htons(server_port_);
  a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  ASSERT_EQ(connect(fd, reinterpret_cast<sockaddr*>(&a), sizeof(a)), 0);
  pollfd p{fd, POLLIN, 0};
  ASSERT_EQ(poll(&p, 1, 5000), 1);
  char buf[64];
  EXPECT_EQ(read(fd, buf, sizeof(buf)), 0);  // EOF, no data
  close(fd);
}

// Issue 12 "bad input": silent connections and garbage bytes do not block
// the accept loop or other connections, and cost no thread each.
TEST_F(XdsServerE2eTest, SilentAndGarbageConnectionsDoNotBlockOthers) {
  Push(testing::ServerListenerJson(server_port_, "s1"),
       testing::ServerRouteJson("s1"));
  ASSERT_NO_FATAL_FAILURE(StartServer());
  ASSERT_TRUE(log_.WaitFor(1));
  ASSERT_TRUE(log_.calls()[0].status.ok()) << log_.calls()[0].status;
  std::vector<int> fds;
  for (int i = 0; i < 200; ++i) {
    int fd = socket(AF_INET, SOCK_STREAM, 0);
    sockaddr_in a{};
    a.sin_family = AF_INET;
    a.sin_port = htons(server_port_);
    a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    ASSERT_EQ(connect(fd, reinterpret_cast<sockaddr*>(&a), sizeof(a)), 0);
    if (i % 2 == 1) {
      const char garbage[] = "GET / HTTP/1.1\r\n\r\n\x00\xff\x17garbage";
      (void)!write(fd, garbage, sizeof(garbage));
    }
    fds.push_back(fd);
  }
  HealthCheckResult r = HealthCheckOnce(Direct(), "", absl::Seconds(10));
  EXPECT_TRUE(r.status.ok()) << r.status.error_message();
  EXPECT_GE(server_->connections_accepted(), 201u);
  for (int fd : fds) close(fd);
}

// A36 per RPC on the connection's own chain: chain 0 (source 127.0.0.1/32)
// and the default chain route differently, and a loopback client gets
// chain 0's routes; swapped, it gets the other verdict.
TEST_F(XdsServerE2eTest, RpcsAreRoutedByTheirConnectionsChain) {
  const std::string source = R"({"source_prefix_ranges":[
    {"address_prefix":"127.0.0.1","prefix_len":32}]})";
  ExpectServedThenRefused(
      testing::ServerListenerJson(server_port_, "deny", Chain(source, "allow")),
      testing::ServerListenerJson(server_port_, "allow",
                                  Chain(source, "deny")));
}

// A36 §FilterChainMatch: a chain's prefix_ranges match the connection's
// destination, the address the server listens on (127.0.0.1 here); a chain
// for another destination leaves the connection to the default chain.
TEST_F(XdsServerE2eTest, DestinationPrefixSelectsTheChain) {
  auto destination = [](absl::string_view ip) {
    return absl::StrCat(R"({"prefix_ranges":[{"address_prefix":")", ip,
                        R"(","prefix_len":32}]})");
  };
  ExpectServedThenRefused(
      testing::ServerListenerJson(server_port_, "deny",
                                  Chain(destination("127.0.0.1"), "allow")),
      testing::ServerListenerJson(server_port_, "deny",
                                  Chain(destination("127.0.0.2"), "allow")));
}

// Issue 29 B(a), A36 §FilterChainMatch: prefix_ranges match a connection's
// destination, its real local address. A server listening on a wildcard
// (0.0.0.0, the usual way to run one) learns it per connection
// (getsockname): 127.0.0.1 and 127.0.0.2 select different chains. Every
// other server test listens on 127.0.0.1, where the listening address is
// the destination.
TEST_F(XdsServerE2eTest, WildcardIpv4ListenerSelectsChainsByLocalAddress) {
  listen_host_ = "0.0.0.0";
  ExpectChainsByDestination({
      {{{"127.0.0.1", "allow"}, {"127.0.0.2", "deny"}},
       {{"127.0.0.1", true}, {"127.0.0.2", false}}},
      {{{"127.0.0.1", "deny"}, {"127.0.0.2", "allow"}},
       {{"127.0.0.1", false}, {"127.0.0.2", true}}},
  });
}

bool HaveIpv6Loopback() {
  const int fd = socket(AF_INET6, SOCK_STREAM | SOCK_CLOEXEC, 0);
  if (fd < 0) return false;
  sockaddr_in6 a{};
  a.sin6_family = AF_INET6;
  a.sin6_addr = in6addr_loopback;
  const bool ok = bind(fd, reinterpret_cast<sockaddr*>(&a), sizeof(a)) == 0;
  close(fd);
  return ok;
}

// The same on [::] (dual stack): an IPv4 connection's local address arrives
// IPv4-mapped (::ffff:127.0.0.2) and is matched as IPv4, as gRPC C-core and
// grpc-go do (they unmap before matching); [::1] matches its IPv6 chain.
TEST_F(XdsServerE2eTest, WildcardIpv6ListenerSelectsChainsByLocalAddress) {
  if (!HaveIpv6Loopback()) GTEST_SKIP() << "no IPv6 loopback ([::1]) here";
  listen_host_ = "::";
  ExpectChainsByDestination({
      {{{"127.0.0.1", "allow"}, {"127.0.0.2", "deny"}, {"::1", "deny"}},
       {{"127.0.0.1", true}, {"127.0.0.2", false}, {"::1", false}}},
      {{{"127.0.0.1", "deny"}, {"127.0.0.2", "allow"}, {"::1", "allow"}},
       {{"127.0.0.1", false}, {"127.0.0.2", true}, {"::1", true}}},
  });
}

std::string ReadAll(const std::string& path) {
  std::ifstream in(path);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

// A36 §Connection and Request Handling 3 / A29: a chain with a
// DownstreamTlsContext is served with TLS from the bootstrap's file_watcher
// certificate providers; require_client_certificate makes it mutual TLS.
// Certificates are made here by openssl.
TEST_F(XdsServerE2eTest, TlsChainFromFileWatcherProviders) {
  char tmpl[] = "/tmp/xdsfed-server-tls-XXXXXX";
  ASSERT_NE(mkdtemp(tmpl), nullptr);
  const std::string dir = tmpl;
  const std::string script = absl::Substitute(
      R"(set -e; cd $0
openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:P-256 -nodes \
  -keyout ca.key -out ca.pem -subj /CN=ca -days 2 2>/dev/null
for n in server client; do
  openssl req -newkey ec -pkeyopt ec_paramgen_curve:P-256 -nodes \
    -keyout $$n.key -out $$n.csr -subj /CN=$$n 2>/dev/null
  printf 'subjectAltName=DNS:localhost,IP:127.0.0.1\n' > $$n.ext
  openssl x509 -req -in $$n.csr -CA ca.pem -CAkey ca.key -CAcreateserial \
    -out $$n.pem -days 2 -extfile $$n.ext 2>/dev/null
done)",
      dir);
  ASSERT_EQ(std::system(script.c_str()), 0) << "openssl failed";
  auto bootstrap =
      Bootstrap::Parse(absl::Substitute(
                           R"({"xds_servers":[{"server_uri":"127.0.0.1:$0",
  "channel_creds":[{"type":"insecure"}]}],"node":{"id":"xds-server-tls"},
  "server_listener_resource_name_template":"$1",
  "certificate_providers":{
    "id":{"plugin_name":"file_watcher","config":{
      "certificate_file":"$2/server.pem","private_key_file":"$2/server.key",
      "refresh_interval":"1s"}},
    "ca":{"plugin_name":"file_watcher","config":{
      "ca_certificate_file":"$2/ca.pem"}}}})",
                           cp_port_, testing::kServerTemplate, dir),
                       false);
  ASSERT_TRUE(bootstrap.ok()) << bootstrap.status();
  const std::string tls_chain = absl::StrCat(
      R"({"filters":[{"name":"hcm","typed_config":)", testing::Hcm("s1"),
      R"(}],"transport_socket":{"name":"tls","typed_config":{
  "@type":"type.googleapis.com/envoy.extensions.transport_sockets.tls.v3.DownstreamTlsContext",
  "require_client_certificate":true,
  "common_tls_context":{
    "tls_certificate_provider_instance":{"instance_name":"id"},
    "validation_context":{"ca_certificate_provider_instance":{"instance_name":"ca"}}}}}})");
  Push(testing::ServerListenerJson(server_port_, "s1", tls_chain),
       testing::ServerRouteJson("s1"));
  ASSERT_NO_FATAL_FAILURE(
      StartServer(absl::Seconds(30), absl::Seconds(3), *bootstrap));
  ASSERT_TRUE(log_.WaitFor(1));
  ASSERT_TRUE(log_.calls()[0].status.ok()) << log_.calls()[0].status;

  const std::string target = absl::StrCat("127.0.0.1:", server_port_);
  grpc::SslCredentialsOptions mtls;
  mtls.pem_root_certs = ReadAll(dir + "/ca.pem");
  mtls.pem_private_key = ReadAll(dir + "/client.key");
  mtls.pem_cert_chain = ReadAll(dir + "/client.pem");
  HealthCheckResult ok =
      HealthCheckOnce(grpc::CreateChannel(target, grpc::SslCredentials(mtls)),
                      "", absl::Seconds(10), true);
  EXPECT_TRUE(ok.status.ok()) << ok.status.error_message();
  EXPECT_EQ(ok.backend_id, "e2e-backend");

  grpc::SslCredentialsOptions no_client_cert;
  no_client_cert.pem_root_certs = mtls.pem_root_certs;
  EXPECT_FALSE(HealthCheckOnce(grpc::CreateChannel(target, grpc::SslCredentials(
                                                               no_client_cert)),
                               "", absl::Seconds(2))
                   .status.ok())
      << "require_client_certificate";
  EXPECT_FALSE(HealthCheckOnce(Direct(), "", absl::Seconds(2)).status.ok())
      << "plaintext on a TLS chain";
  (void)!std::system(absl::StrCat("rm -rf ", dir).c_str());
}

// 50 Listener updates while a client sends back-to-back RPCs (issue 12
// §Performance; A36 "draining must not cause the server to spuriously fail
// RPCs"): zero failed RPCs. Connections live 300 ms, grace 3 s.
TEST_F(XdsServerE2eTest, FiftyListenerUpdatesFailNoRpc) {
  const std::string routes = absl::StrCat(testing::ServerRouteJson("s1"), ",",
                                          testing::ServerRouteJson("s2"));
  Push(testing::ServerListenerJson(server_port_, "s1"), routes);
  ASSERT_NO_FATAL_FAILURE(
      StartServer(absl::Milliseconds(300), absl::Seconds(3)));
  ASSERT_TRUE(log_.WaitFor(1));
  ASSERT_TRUE(log_.calls()[0].status.ok());
  auto channel = Direct();
  ASSERT_TRUE(
      HealthCheckOnce(channel, "", absl::Seconds(10), true).status.ok());
  std::atomic<bool> stop{false};
  std::atomic<int> ok{0};
  std::atomic<int> failed{0};
  std::string first_failure;
  std::thread caller([&] {
    while (!stop.load()) {
      HealthCheckResult r = HealthCheckOnce(channel, "", absl::Seconds(10));
      if (r.status.ok()) {
        ok.fetch_add(1);
      } else if (failed.fetch_add(1) == 0) {
        first_failure =
            absl::StrCat(r.status.error_code(), " ", r.status.error_message());
      }
    }
  });
  for (int i = 0; i < 50; ++i) {
    Push(testing::ServerListenerJson(server_port_, i % 2 == 0 ? "s2" : "s1"),
         routes);
    const uint64_t want = static_cast<uint64_t>(i) + 2;
    for (int w = 0; w < 400 && server_->generations_started() < want; ++w) {
      absl::SleepFor(absl::Milliseconds(5));
    }
    absl::SleepFor(absl::Milliseconds(100));
  }
  stop = true;
  caller.join();
  EXPECT_EQ(server_->generations_started(), 51u);
  EXPECT_EQ(failed.load(), 0) << first_failure;
  EXPECT_GT(ok.load(), 100);
  std::printf("50 Listener updates: %d RPCs OK, %d failed, %lu connections\n",
              ok.load(), failed.load(),
              static_cast<unsigned long>(server_->connections_accepted()));
}

}  // namespace
}  // namespace xdsfed::server

namespace xdsfed::server {
namespace {

using health_backend::HealthCheckOnce;
using health_backend::HealthCheckResult;

// A server Listener at 127.0.0.1:port that A36 §Resource Validation rejects
// ("use_original_dst must not be true"), otherwise the same as the good one.
std::string BadServerListenerJson(int port, absl::string_view route) {
  std::string good = testing::ServerListenerJson(port, route);
  const std::string address_key = R"("address":{)";
  good.insert(good.find(address_key), R"("use_original_dst":true,)");
  return good;
}

// Counts this process's threads.
int ThreadCount() {
  int n = 0;
  if (DIR* d = opendir("/proc/self/task")) {
    while (dirent* e = readdir(d)) {
      if (e->d_name[0] != '.') ++n;
    }
    closedir(d);
  }
  return n;
}

// Issue 12 "Bad input" / A36 §xDS Protocol: a Listener update the XdsClient
// NACKs changes nothing: the last good Listener keeps serving (existing and
// new connections), no new generation, the notifier is not called.
TEST_F(XdsServerE2eTest, NackedListenerKeepsTheLastGoodOneServing) {
  const std::string routes = absl::StrCat(testing::ServerRouteJson("s1"), ",",
                                          testing::ServerRouteJson("s2"));
  Push(testing::ServerListenerJson(server_port_, "s1"), routes);
  ASSERT_NO_FATAL_FAILURE(StartServer());
  ASSERT_TRUE(log_.WaitFor(1));
  ASSERT_TRUE(log_.calls()[0].status.ok()) << log_.calls()[0].status;
  auto existing = Direct();
  ASSERT_TRUE(
      HealthCheckOnce(existing, "", absl::Seconds(10), true).status.ok());

  Push(BadServerListenerJson(server_port_, "s2"), routes);
  // Longer than the does-not-exist timeout (1 s): a NACK must not turn into
  // a deletion either.
  absl::SleepFor(absl::Milliseconds(2500));
  EXPECT_TRUE(server_->serving());
  EXPECT_EQ(server_->generations_started(), 1u);
  EXPECT_EQ(log_.calls().size(), 1u) << log_.calls().back().status;
  EXPECT_TRUE(HealthCheckOnce(existing, "", absl::Seconds(10)).status.ok());
  EXPECT_TRUE(HealthCheckOnce(Direct(), "", absl::Seconds(10)).status.ok());

  // The next good update is applied (the NACK did not wedge the watch).
  Push(testing::ServerListenerJson(server_port_, "s2"), routes);
  for (int i = 0; i < 200 && server_->generations_started() < 2; ++i) {
    absl::SleepFor(absl::Milliseconds(25));
  }
  EXPECT_EQ(server_->generations_started(), 2u);
  EXPECT_EQ(log_.calls().size(), 1u);
}

// A Listener whose TLS chain names a certificate provider instance the
// server's bootstrap lacks is NACKed by the XdsClient (C-core's rule), not
// found only when the generation is built: first NOT_SERVING with the
// field path; after a good Listener, the same bad one changes nothing.
TEST_F(XdsServerE2eTest, AbsentCertificateProviderInstanceIsNacked) {
  const std::string tls_chain = absl::StrCat(
      R"({"filters":[{"name":"hcm","typed_config":)", testing::Hcm("s1"),
      R"(}],"transport_socket":{"name":"tls","typed_config":{
  "@type":"type.googleapis.com/envoy.extensions.transport_sockets.tls.v3.DownstreamTlsContext",
  "common_tls_context":{
    "tls_certificate_provider_instance":{"instance_name":"absent"}}}}})");
  const std::string bad =
      testing::ServerListenerJson(server_port_, "s1", tls_chain);
  Push(bad, testing::ServerRouteJson("s1"));
  ASSERT_NO_FATAL_FAILURE(StartServer());
  ASSERT_TRUE(log_.WaitFor(1));
  const absl::Status nacked = log_.calls()[0].status;
  EXPECT_FALSE(nacked.ok());
  EXPECT_NE(nacked.message().find(
                "filter_chains[0].transport_socket.typed_config.value[envoy."
                "extensions.transport_sockets.tls.v3.DownstreamTlsContext]."
                "common_tls_context.tls_certificate_provider_instance."
                "instance_name error:unrecognized certificate provider "
                "instance name \"absent\""),
            std::string::npos)
      << nacked;
  EXPECT_EQ(server_->generations_started(), 0u);

  Push(testing::ServerListenerJson(server_port_, "s1"),
       testing::ServerRouteJson("s1"));
  ASSERT_TRUE(log_.WaitFor(2));
  ASSERT_TRUE(log_.calls()[1].status.ok()) << log_.calls()[1].status;
  Push(bad, testing::ServerRouteJson("s1"));
  absl::SleepFor(absl::Milliseconds(1500));
  EXPECT_EQ(log_.calls().size(), 2u) << log_.calls().back().status;
  EXPECT_EQ(server_->generations_started(), 1u);
  EXPECT_TRUE(HealthCheckOnce(Direct(), "", absl::Seconds(10)).status.ok());
}

// An async grpc.health.v1 Check service for RegisterAsyncServiceFactory:
// one instance per generation, answering with x-backend-id "async-<gen>".
class AsyncHealth : public AsyncServiceInstance {
 public:
  AsyncHealth(uint64_t generation, std::atomic<int>* destroyed)
      : id_(absl::StrCat("async-", generation)), destroyed_(destroyed) {}
  ~AsyncHealth() override {
    if (poller_.joinable()) poller_.join();
    destroyed_->fetch_add(1);
  }
  grpc::Service* service() override { return &service_; }
  void Start(grpc::ServerCompletionQueue* cq) override {
    cq_ = cq;
    Request();
    poller_ = std::thread([this] {
      void* tag;
      bool ok;
      while (cq_->Next(&tag, &ok)) static_cast<Call*>(tag)->Proceed(ok);
    });
  }
  void Stop() override {
    std::lock_guard<std::mutex> lock(mu_);
    stopping_ = true;
  }
  void Join() override {
    if (poller_.joinable()) poller_.join();
  }

 private:
  struct Call {
    explicit Call(AsyncHealth* o) : owner(o) {}
    void Proceed(bool ok) {
      if (!ok || finished) {
        delete this;
        return;
      }
      owner->Request();
      context.AddInitialMetadata(health_backend::kBackendIdHeader, owner->id_);
      response.set_status(grpc::health::v1::HealthCheckResponse::SERVING);
      finished = true;
      std::lock_guard<std::mutex> lock(owner->mu_);
      if (owner->stopping_) {
        delete this;  // no operation on a queue about to shut down
        return;
      }
      writer.Finish(response, grpc::Status::OK, this);
    }
    AsyncHealth* const owner;
    grpc::ServerContext context;
    grpc::health::v1::HealthCheckRequest request;
    grpc::health::v1::HealthCheckResponse response;
    grpc::ServerAsyncResponseWriter<grpc::health::v1::HealthCheckResponse>
        writer{&context};
    bool finished = false;
  };
  void Request() {
    std::lock_guard<std::mutex> lock(mu_);
    if (stopping_) return;
    Call* call = new Call(this);
    service_.RequestCheck(&call->context, &call->request, &call->writer, cq_,
                          cq_, call);
  }

  const std::string id_;
  std::atomic<int>* const destroyed_;
  grpc::health::v1::Health::AsyncService service_;
  grpc::ServerCompletionQueue* cq_ = nullptr;
  std::thread poller_;
  std::mutex mu_;
  bool stopping_ = false;
};

// Issue 12 API: an async service through a factory called once per server
// generation, each instance on its own completion queue; a Listener update
// makes a second instance that serves new connections; all are stopped and
// destroyed by Shutdown.
TEST_F(XdsServerE2eTest, AsyncServiceFactoryOncePerGeneration) {
  const std::string routes = absl::StrCat(testing::ServerRouteJson("s1"), ",",
                                          testing::ServerRouteJson("s2"));
  Push(testing::ServerListenerJson(server_port_, "s1"), routes);
  std::atomic<int> made{0};
  std::atomic<int> destroyed{0};
  client::XdsClient::Options client_options;
  client_options.does_not_exist_timeout = absl::Seconds(1);
  XdsServerBuilder builder;
  builder.set_xds_client_options(client_options)
      .AddListeningPort(absl::StrCat("127.0.0.1:", server_port_),
                        grpc::InsecureServerCredentials())
      .RegisterAsyncServiceFactory([&](uint64_t generation) {
        made.fetch_add(1);
        return std::make_unique<AsyncHealth>(generation, &destroyed);
      })
      .set_bootstrap(testing::ServerBootstrap(cp_port_))
      .set_status_notifier([this](const std::string& a, const absl::Status& s) {
        log_.Record(a, s);
      });
  auto server = builder.BuildAndStart();
  ASSERT_TRUE(server.ok()) << server.status();
  server_ = *std::move(server);
  ASSERT_TRUE(log_.WaitFor(1));
  ASSERT_TRUE(log_.calls()[0].status.ok()) << log_.calls()[0].status;
  auto first = Direct();
  HealthCheckResult r = HealthCheckOnce(first, "", absl::Seconds(10), true);
  ASSERT_TRUE(r.status.ok()) << r.status.error_message();
  EXPECT_EQ(r.backend_id, "async-1");
  EXPECT_EQ(made.load(), 1);

  Push(testing::ServerListenerJson(server_port_, "s2"), routes);
  for (int i = 0; i < 200 && server_->generations_started() < 2; ++i) {
    absl::SleepFor(absl::Milliseconds(25));
  }
  EXPECT_EQ(made.load(), 2);
  r = HealthCheckOnce(Direct(), "", absl::Seconds(10), true);
  ASSERT_TRUE(r.status.ok()) << r.status.error_message();
  EXPECT_EQ(r.backend_id, "async-2");
  // The old connection stays on its (draining) generation's instance.
  r = HealthCheckOnce(first, "", absl::Seconds(10));
  EXPECT_TRUE(r.status.ok()) << r.status.error_message();
  EXPECT_EQ(r.backend_id, "async-1");
  for (int i = 0; i < 20; ++i) {
    EXPECT_TRUE(HealthCheckOnce(first, "", absl::Seconds(10)).status.ok());
  }
  server_->Shutdown();
  EXPECT_EQ(destroyed.load(), 2);
}

// Issue 12 items 5-6, measured (README "Drain without failed RPCs"): after a
// Listener update an existing connection moves to the new generation at its
// max-age GOAWAY (within 1.1 x max age of the connection's start, gRPC's
// jitter; 1.5 s of slack for a loaded machine), not at the update; after a
// delete, NOT_SERVING is reported at once and the existing connection keeps
// working until that GOAWAY, after which it is refused. No RPC fails on the
// way. The generation serving each RPC is told by the async instance's
// x-backend-id.
TEST_F(XdsServerE2eTest, DrainTimesAfterUpdateAndDelete) {
  constexpr absl::Duration kMaxAge = absl::Seconds(2);
  const std::string routes = absl::StrCat(testing::ServerRouteJson("s1"), ",",
                                          testing::ServerRouteJson("s2"));
  Push(testing::ServerListenerJson(server_port_, "s1"), routes);
  std::atomic<int> destroyed{0};
  client::XdsClient::Options client_options;
  client_options.does_not_exist_timeout = absl::Seconds(1);
  XdsServerBuilder builder;
  builder.set_xds_client_options(client_options)
      .AddListeningPort(absl::StrCat("127.0.0.1:", server_port_),
                        grpc::InsecureServerCredentials())
      .RegisterAsyncServiceFactory([&](uint64_t generation) {
        return std::make_unique<AsyncHealth>(generation, &destroyed);
      })
      .set_bootstrap(testing::ServerBootstrap(cp_port_))
      .set_max_connection_age(kMaxAge)
      .set_drain_grace_time(absl::Seconds(3))
      .set_status_notifier([this](const std::string& a, const absl::Status& s) {
        log_.Record(a, s);
      });
  auto server = builder.BuildAndStart();
  ASSERT_TRUE(server.ok()) << server.status();
  server_ = *std::move(server);
  ASSERT_TRUE(log_.WaitFor(1));
  ASSERT_TRUE(log_.calls()[0].status.ok()) << log_.calls()[0].status;

  auto channel = Direct();
  HealthCheckResult r = HealthCheckOnce(channel, "", absl::Seconds(10), true);
  const absl::Time connected = absl::Now();
  ASSERT_TRUE(r.status.ok()) << r.status.error_message();
  ASSERT_EQ(r.backend_id, "async-1");
  absl::SleepFor(absl::Milliseconds(500));

  Push(testing::ServerListenerJson(server_port_, "s2"), routes);
  for (int i = 0; i < 400 && server_->generations_started() < 2; ++i) {
    absl::SleepFor(absl::Milliseconds(5));
  }
  const absl::Time updated = absl::Now();
  int failed = 0;
  std::string backend;
  absl::Time moved = absl::InfiniteFuture();
  while (absl::Now() < updated + kMaxAge * 2) {
    r = HealthCheckOnce(channel, "", absl::Seconds(5), true);
    if (!r.status.ok()) ++failed;
    if (r.backend_id == "async-2") {
      moved = absl::Now();
      break;
    }
    absl::SleepFor(absl::Milliseconds(5));
  }
  ASSERT_NE(moved, absl::InfiniteFuture()) << "never moved to generation 2";
  EXPECT_EQ(failed, 0);
  EXPECT_LE(moved - connected, kMaxAge * 1.1 + absl::Milliseconds(1500));
  const absl::Time reconnected = moved;

  Push("", routes);
  ASSERT_TRUE(log_.WaitFor(2));
  const absl::Time not_serving = absl::Now();
  EXPECT_FALSE(log_.calls()[1].status.ok());
  absl::Time refused = absl::InfiniteFuture();
  int ok_after_delete = 0;
  while (absl::Now() < not_serving + kMaxAge * 2) {
    r = HealthCheckOnce(channel, "", absl::Milliseconds(500));
    if (!r.status.ok()) {
      refused = absl::Now();
      break;
    }
    ++ok_after_delete;
    absl::SleepFor(absl::Milliseconds(5));
  }
  ASSERT_NE(refused, absl::InfiniteFuture());
  EXPECT_GT(ok_after_delete, 0);
  EXPECT_LE(refused - reconnected, kMaxAge * 1.1 + absl::Milliseconds(1500));
  std::printf(
      "max age %s: update -> existing connection on the new generation %s "
      "(connection age then %s, %d failed RPCs); delete -> NOT_SERVING "
      "reported, existing connection served %d more RPCs and was refused "
      "%s later (connection age %s)\n",
      absl::FormatDuration(kMaxAge).c_str(),
      absl::FormatDuration(moved - updated).c_str(),
      absl::FormatDuration(moved - connected).c_str(), failed, ok_after_delete,
      absl::FormatDuration(refused - not_serving).c_str(),
      absl::FormatDuration(refused - reconnected).c_str());
}

// Issue 29 item 4, what `xdsfed serve` does on SIGTERM: Shutdown(grace)
// refuses new connections at once, lets the three RPCs running on an
// existing connection finish (1.5 s each, grace 5 s) and returns when they
// have, not at the end of the grace.
TEST_F(XdsServerE2eTest, ShutdownRefusesNewConnectionsAndDrainsRunningRpcs) {
  Push(testing::ServerListenerJson(server_port_, "s1"),
       testing::ServerRouteJson("s1"));
  ASSERT_NO_FATAL_FAILURE(StartServer());
  ASSERT_TRUE(log_.WaitFor(1));
  ASSERT_TRUE(log_.calls()[0].status.ok()) << log_.calls()[0].status;
  auto channel = Direct();
  ASSERT_TRUE(
      HealthCheckOnce(channel, "", absl::Seconds(10), true).status.ok());
  std::vector<HealthCheckResult> results(3);
  std::vector<std::thread> rpcs;
  for (HealthCheckResult& r : results) {
    rpcs.emplace_back([&r, channel] {
      r = HealthCheckOnce(channel, "sleep:1500", absl::Seconds(10));
    });
  }
  absl::SleepFor(absl::Milliseconds(300));  // the three are running
  const absl::Time start = absl::Now();
  std::thread shutdown([this] { server_->Shutdown(absl::Seconds(5)); });
  absl::SleepFor(absl::Milliseconds(100));
  // A new connection is refused (the listening socket is closed).
  int fd = socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in a{};
  a.sin_family = AF_INET;
  a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  a.sin_port = htons(server_port_);
  EXPECT_NE(connect(fd, reinterpret_cast<sockaddr*>(&a), sizeof(a)), 0);
  EXPECT_EQ(errno, ECONNREFUSED);
  close(fd);
  shutdown.join();
  const absl::Duration took = absl::Now() - start;
  for (std::thread& t : rpcs) t.join();
  for (const HealthCheckResult& r : results) {
    EXPECT_TRUE(r.status.ok()) << r.status.error_message();
  }
  EXPECT_LT(took, absl::Seconds(3));
  std::printf("Shutdown(5s) with three running 1.5 s RPCs took %s\n",
              absl::FormatDuration(took).c_str());
}

// Issue 29 item 4: set_csds_service serves CSDS of the server's own
// XdsClient on its listening port.
TEST_F(XdsServerE2eTest, ServesCsdsOfItsOwnXdsClient) {
  Push(testing::ServerListenerJson(server_port_, "s1"),
       testing::ServerRouteJson("s1"));
  csds_ = true;
  ASSERT_NO_FATAL_FAILURE(StartServer());
  ASSERT_TRUE(log_.WaitFor(1));
  ASSERT_TRUE(log_.calls()[0].status.ok()) << log_.calls()[0].status;
  auto response = admin::FetchClientStatus(Direct(), absl::Seconds(10));
  ASSERT_TRUE(response.ok()) << response.status();
  std::vector<admin::CsdsResource> rows = admin::FlattenClientStatus(*response);
  auto row = std::find_if(rows.begin(), rows.end(), [&](const auto& r) {
    return r.name == testing::ServerListenerName(server_port_);
  });
  ASSERT_NE(row, rows.end());
  EXPECT_EQ(row->node_id, "xds-server-test");
  EXPECT_EQ(row->client_status, "ACKED");
}

// A36 §Serving and Not Serving: "Communication failures do not impact the
// XdsServer's xDS configuration": with the control plane gone, the server
// stays SERVING, the notifier is not called, old and new connections work.
TEST_F(XdsServerE2eTest, ControlPlaneLossChangesNothing) {
  Push(testing::ServerListenerJson(server_port_, "s1"),
       testing::ServerRouteJson("s1"));
  ASSERT_NO_FATAL_FAILURE(StartServer());
  ASSERT_TRUE(log_.WaitFor(1));
  ASSERT_TRUE(log_.calls()[0].status.ok()) << log_.calls()[0].status;
  auto existing = Direct();
  ASSERT_TRUE(
      HealthCheckOnce(existing, "", absl::Seconds(10), true).status.ok());

  cp_->Shutdown();
  cp_.reset();
  // Past the does-not-exist timeout (1 s) and a few reconnect attempts.
  absl::SleepFor(absl::Seconds(3));
  EXPECT_TRUE(server_->serving());
  EXPECT_EQ(log_.calls().size(), 1u) << log_.calls().back().status;
  EXPECT_EQ(server_->generations_started(), 1u);
  EXPECT_TRUE(HealthCheckOnce(existing, "", absl::Seconds(10)).status.ok());
  for (int i = 0; i < 5; ++i) {
    HealthCheckResult r = HealthCheckOnce(Direct(), "", absl::Seconds(10));
    EXPECT_TRUE(r.status.ok()) << r.status.error_message();
  }
}

// Issue 12 "Bad input": 10,000 idle (silent) connections do not add a thread
// each and do not stop the server from serving a new connection. The client
// ends live in a forked child (only async-signal-safe calls there) so this
// process holds only the 10,000 server ends under its descriptor limit.
TEST_F(XdsServerE2eTest, TenThousandIdleConnectionsAddNoThreadEach) {
  constexpr int kConnections = 10000;
  rlimit limit{};
  ASSERT_EQ(getrlimit(RLIMIT_NOFILE, &limit), 0);
  const rlim_t want = kConnections + 1000;
  if (limit.rlim_cur < want) {
    limit.rlim_cur = std::min<rlim_t>(want, limit.rlim_max);
    setrlimit(RLIMIT_NOFILE, &limit);
    getrlimit(RLIMIT_NOFILE, &limit);
  }
  if (limit.rlim_cur < want) {
    GTEST_SKIP() << "RLIMIT_NOFILE " << limit.rlim_cur << " < " << want;
  }
  Push(testing::ServerListenerJson(server_port_, "s1"),
       testing::ServerRouteJson("s1"));
  ASSERT_NO_FATAL_FAILURE(StartServer());
  ASSERT_TRUE(log_.WaitFor(1));
  ASSERT_TRUE(log_.calls()[0].status.ok()) << log_.calls()[0].status;
  ASSERT_TRUE(
      HealthCheckOnce(Direct(), "", absl::Seconds(10), true).status.ok());
  const int threads_before = ThreadCount();
  const uint64_t accepted_before = server_->connections_accepted();

  int ready[2];
  int done[2];
  ASSERT_EQ(pipe(ready), 0);
  ASSERT_EQ(pipe(done), 0);
  pid_t child = fork();
  ASSERT_GE(child, 0);
  if (child == 0) {
    close(ready[0]);
    close(done[1]);
    sockaddr_in a{};
    a.sin_family = AF_INET;
    a.sin_port = htons(server_port_);
    a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    char opened = 1;
    for (int i = 0; i < kConnections; ++i) {
      int fd = socket(AF_INET, SOCK_STREAM, 0);
      if (fd < 0 ||
          connect(fd, reinterpret_cast<sockaddr*>(&a), sizeof(a)) != 0) {
        opened = 0;
        break;
      }
    }
    (void)!write(ready[1], &opened, 1);
    char c;
    (void)!read(done[0], &c, 1);  // until the parent is done
    _exit(0);
  }
  close(ready[1]);
  close(done[0]);
  char opened = 0;
  ASSERT_EQ(read(ready[0], &opened, 1), 1);
  EXPECT_EQ(opened, 1) << "the child could not open its connections";
  for (int i = 0; i < 400 && server_->connections_accepted() <
                                 accepted_before + kConnections;
       ++i) {
    absl::SleepFor(absl::Milliseconds(25));
  }
  EXPECT_GE(server_->connections_accepted(), accepted_before + kConnections);
  // A new connection is still served while the 10,000 sit idle.
  HealthCheckResult r = HealthCheckOnce(Direct(), "", absl::Seconds(10));
  EXPECT_TRUE(r.status.ok()) << r.status.error_message();
  const int threads_after = ThreadCount();
  std::printf("10,000 idle connections: %d threads before, %d after\n",
              threads_before, threads_after);
  EXPECT_LT(threads_after - threads_before, 32);
  close(done[1]);
  close(ready[0]);
  int wstatus = 0;
  waitpid(child, &wstatus, 0);
}

}  // namespace
}  // namespace xdsfed::server
