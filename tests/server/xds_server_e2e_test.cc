// lib/server end to end (issue 12 "Done when"; A36): an XdsServer fed by the
// embedded control plane over real gRPC on loopback, called by Debian's gRPC
// C++ 1.51 client through its OWN xds: resolver, and by raw sockets.
//
// gRPC's client reads its bootstrap once per process; each TEST runs in its
// own process (gtest_discover_tests: one ctest entry per TEST).
#include <arpa/inet.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <atomic>
#include <cstdlib>
#include <fstream>
#include <sstream>
#include <thread>

#include "gtest/gtest.h"
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
        .AddListeningPort(absl::StrCat("127.0.0.1:", server_port_),
                          grpc::InsecureServerCredentials())
        .RegisterService(&health_)
        .set_bootstrap(bootstrap != nullptr
                           ? bootstrap
                           : testing::ServerBootstrap(cp_port_))
        .set_drain_grace_time(grace)
        .set_max_connection_age(max_age)
        .set_status_notifier(
            [this](const std::string& a, const absl::Status& s) {
              log_.Record(a, s);
            });
    auto server = builder.BuildAndStart();
    ASSERT_TRUE(server.ok()) << server.status();
    server_ = *std::move(server);
  }

  std::shared_ptr<grpc::Channel> Direct() {
    // A fresh channel (its own connection), no reconnect backoff carried.
    grpc::ChannelArguments args;
    args.SetInt("grpc.xdsfed_test_unique", ++unique_);
    return grpc::CreateCustomChannel(absl::StrCat("127.0.0.1:", server_port_),
                                     grpc::InsecureChannelCredentials(), args);
  }

  std::unique_ptr<control_plane::ControlPlane> cp_;
  int cp_port_ = 0;
  int server_port_ = 0;
  int version_ = 0;
  int unique_ = 0;
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
  const std::string routes =
      absl::StrCat(testing::ServerRouteJson("allow"), ",",
                   testing::ServerRouteJson("deny", "/nomatch/"));
  auto chain = [](absl::string_view route) {
    return absl::StrCat(
        R"({"filter_chain_match":{"source_prefix_ranges":[{"address_prefix":"127.0.0.1","prefix_len":32}]},)",
        R"("filters":[{"name":"hcm","typed_config":)", testing::Hcm(route),
        "}]}");
  };
  Push(testing::ServerListenerJson(server_port_, "deny", chain("allow")),
       routes);
  ASSERT_NO_FATAL_FAILURE(StartServer());
  ASSERT_TRUE(log_.WaitFor(1));
  ASSERT_TRUE(log_.calls()[0].status.ok()) << log_.calls()[0].status;
  EXPECT_TRUE(
      HealthCheckOnce(Direct(), "", absl::Seconds(10), true).status.ok());
  Push(testing::ServerListenerJson(server_port_, "allow", chain("deny")),
       routes);
  for (int i = 0; i < 200 && server_->generations_started() < 2; ++i) {
    absl::SleepFor(absl::Milliseconds(25));
  }
  HealthCheckResult r = HealthCheckOnce(Direct(), "", absl::Seconds(10), true);
  EXPECT_EQ(r.status.error_code(), grpc::StatusCode::UNAVAILABLE)
      << r.status.error_message();
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
