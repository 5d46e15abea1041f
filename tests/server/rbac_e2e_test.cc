// lib/server enforces the RBAC HTTP filter (gRFC A41, issue 25 item 2) end
// to end: an XdsServer fed by the embedded control plane over real gRPC on
// loopback, called by a plain grpc++ 1.51 client over connections whose
// source address is chosen (bound to 127.0.0.1 or 127.0.0.2 before
// connecting, then handed to grpc::CreateInsecureChannelFromFd).
//
// SameDecisionsAsGrpcXdsServerBuilder runs the request table against our
// server and against gRPC C++ 1.51's grpc::XdsServerBuilder in the same
// process, both fed the same Listener by the same control plane.
#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <atomic>
#include <cstdlib>
#include <fstream>
#include <memory>
#include <sstream>
#include <string>
#include <vector>

#include "absl/strings/match.h"
#include "absl/strings/str_replace.h"
#include "absl/strings/substitute.h"
#include "grpc/health/v1/health.grpc.pb.h"
#include "grpcpp/create_channel_posix.h"
#include "grpcpp/security/server_credentials.h"
#include "grpcpp/xds_server_builder.h"
#include "gtest/gtest.h"
#include "lib/server/xds_server.h"
#include "tests/server/server_test_support.h"
#include "tools/health_backend/health_backend.h"

namespace xdsfed::server {
namespace {

// A connected socket from `source` (port 0) to 127.0.0.1:`port`, or -1.
int ConnectFrom(const std::string& source, int port) {
  int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  if (fd < 0) return -1;
  sockaddr_in local{};
  local.sin_family = AF_INET;
  inet_pton(AF_INET, source.c_str(), &local.sin_addr);
  sockaddr_in remote{};
  remote.sin_family = AF_INET;
  remote.sin_port = htons(static_cast<uint16_t>(port));
  inet_pton(AF_INET, "127.0.0.1", &remote.sin_addr);
  if (bind(fd, reinterpret_cast<sockaddr*>(&local), sizeof(local)) != 0 ||
      connect(fd, reinterpret_cast<sockaddr*>(&remote), sizeof(remote)) != 0) {
    close(fd);
    return -1;
  }
  return fd;
}

// One Health/Check from `source` with `metadata`; its status code.
grpc::StatusCode CheckFrom(
    const std::string& source, int port,
    const std::vector<std::pair<std::string, std::string>>& metadata,
    std::string* message) {
  const int fd = ConnectFrom(source, port);
  if (fd < 0) return grpc::StatusCode::INTERNAL;
  auto channel = grpc::CreateInsecureChannelFromFd("rbac-e2e", fd);
  auto stub = grpc::health::v1::Health::NewStub(channel);
  grpc::ClientContext context;
  context.set_deadline(std::chrono::system_clock::now() +
                       std::chrono::seconds(10));
  for (const auto& [k, v] : metadata) context.AddMetadata(k, v);
  grpc::health::v1::HealthCheckRequest request;
  grpc::health::v1::HealthCheckResponse response;
  grpc::Status status = stub->Check(&context, request, &response);
  *message = status.error_message();
  return status.error_code();
}

// An HCM with the RBAC filter `rbac` (an RBAC message as JSON) before the
// router, on RDS `route`.
std::string RbacHcm(absl::string_view route, absl::string_view rbac) {
  return absl::Substitute(
      R"({"@type":"type.googleapis.com/envoy.extensions.filters.network.http_connection_manager.v3.HttpConnectionManager",
  "rds":{"config_source":{"ads":{}},"route_config_name":"$0"},
  "http_filters":[
    {"name":"rbac","typed_config":$1},
    {"name":"router","typed_config":{
      "@type":"type.googleapis.com/envoy.extensions.filters.http.router.v3.Router"}}]})",
      route,
      absl::StrCat(
          R"({"@type":"type.googleapis.com/envoy.extensions.filters.http.rbac.v3.RBAC",)",
          rbac.substr(1)));
}

// ALLOW Health calls carrying x-user: alice from 127.0.0.1 only.
constexpr char kPolicy[] = R"({"rules":{"action":"ALLOW","policies":{
  "alice-from-1":{
    "permissions":[{"and_rules":{"rules":[
      {"url_path":{"path":{"prefix":"/grpc.health.v1.Health/"}}},
      {"header":{"name":"x-user","exact_match":"alice"}}]}}],
    "principals":[{"direct_remote_ip":{"address_prefix":"127.0.0.1","prefix_len":32}}]}}}})";

class RbacE2eTest : public ::testing::Test {
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

  // The server Listener: its default chain runs `kPolicy` then the router
  // on RDS "rc", whose one route has `route_extra` fields (e.g. a
  // typed_per_filter_config).
  std::string PlainListener(int port) const {
    return absl::Substitute(
        R"("$0":{"address":{"socket_address":{"address":"127.0.0.1","port_value":$1}},
  "default_filter_chain":{"filters":[{"name":"hcm","typed_config":$2}]}})",
        testing::ServerListenerName(port, "127.0.0.1"), port,
        RbacHcm("rc", policy_));
  }
  void Push(absl::string_view vhost_extra, int second_port = 0) {
    std::string listener = PlainListener(server_port_);
    if (second_port != 0) {
      absl::StrAppend(&listener, ",", PlainListener(second_port));
    }
    const std::string routes = absl::StrCat(
        R"("rc":{"virtual_hosts":[{"name":"vh","domains":["*"],)", vhost_extra,
        R"("routes":[{"match":{"prefix":""},"non_forwarding_action":{}}]}]})");
    auto snapshot = testing::MakeSnapshot(
        ++version_, absl::StrCat(testing::ClientListenerJson(), ",", listener),
        absl::StrCat(testing::ClientRouteJson(), ",", routes),
        testing::ClientClusterJson(),
        testing::ClientEndpointJson(server_port_));
    ASSERT_TRUE(snapshot.ok()) << snapshot.status();
    cp_->SetSnapshot(*std::move(snapshot));
  }

  void StartServer(std::shared_ptr<const Bootstrap> bootstrap = nullptr) {
    XdsServerBuilder builder;
    builder
        .AddListeningPort(testing::HostPort("127.0.0.1", server_port_),
                          grpc::InsecureServerCredentials())
        .RegisterService(&health_)
        .set_bootstrap(bootstrap != nullptr
                           ? bootstrap
                           : testing::ServerBootstrap(cp_port_))
        .set_status_notifier(
            [this](const std::string& a, const absl::Status& s) {
              log_.Record(a, s);
            });
    auto server = builder.BuildAndStart();
    ASSERT_TRUE(server.ok()) << server.status();
    server_ = *std::move(server);
    ASSERT_TRUE(log_.WaitFor(1));
    ASSERT_TRUE(log_.calls()[0].status.ok()) << log_.calls()[0].status;
  }

  struct Row {
    const char* source;  // why this row expects what it does
    std::string from;    // the client's source address
    std::vector<std::pair<std::string, std::string>> metadata;
    grpc::StatusCode want;
  };
  void ExpectRows(const std::vector<Row>& rows, int port = 0) {
    for (const Row& r : rows) {
      SCOPED_TRACE(r.source);
      std::string message;
      EXPECT_EQ(CheckFrom(r.from, port != 0 ? port : server_port_, r.metadata,
                          &message),
                r.want)
          << message;
      if (port != 0) continue;  // gRPC's own text differs
      if (r.want == grpc::StatusCode::PERMISSION_DENIED) {
        EXPECT_TRUE(absl::StartsWith(message, "RBAC: access denied"))
            << message;
      }
    }
  }

  // gRPC C++ 1.51's own xDS-enabled server on `port`, SERVING.
  void StartGrpcServer(int port, std::unique_ptr<grpc::Server>* out) {
    // gRPC reads its bootstrap from the environment (each TEST is its own
    // process under ctest). A41's gate, for gRPCs that still have it.
    setenv("GRPC_XDS_BOOTSTRAP_CONFIG",
           absl::Substitute(R"({"xds_servers":[{"server_uri":"127.0.0.1:$0",
  "channel_creds":[{"type":"insecure"}]}],"node":{"id":"grpc-xds-server"},
  "server_listener_resource_name_template":"$1"})",
                            cp_port_, testing::kServerTemplate)
               .c_str(),
           1);
    setenv("GRPC_XDS_EXPERIMENTAL_RBAC", "true", 1);
    grpc::XdsServerBuilder builder;
    builder.set_status_notifier(&grpc_notifier_);
    builder.AddListeningPort(
        testing::HostPort("127.0.0.1", port),
        grpc::XdsServerCredentials(grpc::InsecureServerCredentials()));
    builder.RegisterService(&grpc_health_);
    *out = builder.BuildAndStart();
    ASSERT_NE(*out, nullptr);
    for (int i = 0; i < 400 && !grpc_notifier_.served.load(); ++i) {
      absl::SleepFor(absl::Milliseconds(25));
    }
    ASSERT_TRUE(grpc_notifier_.served.load())
        << "gRPC's server never reached SERVING";
  }
  struct GrpcNotifier : grpc::XdsServerServingStatusNotifierInterface {
    void OnServingStatusUpdate(std::string,
                               ServingStatusUpdate update) override {
      if (update.status.ok()) served.store(true);
    }
    std::atomic<bool> served{false};
  };

  std::string policy_ = kPolicy;
  GrpcNotifier grpc_notifier_;
  health_backend::HealthService grpc_health_{"grpc-xds-server"};
  std::unique_ptr<control_plane::ControlPlane> cp_;
  int cp_port_ = 0;
  int server_port_ = 0;
  int version_ = 0;
  health_backend::HealthService health_{"rbac-e2e"};
  testing::NotifierLog log_;
  std::unique_ptr<XdsServer> server_;
};

TEST_F(RbacE2eTest, PolicyThenPerRouteOverride) {
  ASSERT_NO_FATAL_FAILURE(Push(""));
  ASSERT_NO_FATAL_FAILURE(StartServer());
  const grpc::StatusCode kOk = grpc::StatusCode::OK;
  const grpc::StatusCode kDenied = grpc::StatusCode::PERMISSION_DENIED;
  ExpectRows({
      {"A41: path, header and direct_remote_ip all match: allowed",
       "127.0.0.1",
       {{"x-user", "alice"}},
       kOk},
      {"A41 header: another value fails exact_match: ALLOW denies",
       "127.0.0.1",
       {{"x-user", "bob"}},
       kDenied},
      {"A41 header: absent fails exact_match", "127.0.0.1", {}, kDenied},
      {"A41 direct_remote_ip = the peer: 127.0.0.2 is outside 127.0.0.1/32",
       "127.0.0.2",
       {{"x-user", "alice"}},
       kDenied},
  });
  // A41 / Envoy: an RBACPerRoute without `rbac` on the virtual host
  // disables the filter there. An RDS-only change: same generation.
  ASSERT_NO_FATAL_FAILURE(Push(
      R"("typed_per_filter_config":{"rbac":{
        "@type":"type.googleapis.com/envoy.extensions.filters.http.rbac.v3.RBACPerRoute"}},)"));
  // Wait until the override is in force (RDS arrives asynchronously).
  std::string message;
  for (int i = 0; i < 200; ++i) {
    if (CheckFrom("127.0.0.2", server_port_, {}, &message) == kOk) break;
    absl::SleepFor(absl::Milliseconds(25));
  }
  ExpectRows({
      {"RBACPerRoute without rbac: from 127.0.0.2, no header",
       "127.0.0.2",
       {},
       kOk},
      {"...and the policy's own case still passes",
       "127.0.0.1",
       {{"x-user", "alice"}},
       kOk},
  });
  EXPECT_EQ(server_->generations_started(), 1u);
}

// Issue 25 item 3: the same Listener (RBAC before the router) served by our
// XdsServer and by gRPC C++ 1.51's grpc::XdsServerBuilder (C-core's RBAC
// filter), the same request table, the same status codes.
TEST_F(RbacE2eTest, SameDecisionsAsGrpcXdsServerBuilder) {
  const int grpc_port = testing::FreePort();
  ASSERT_NO_FATAL_FAILURE(Push("", grpc_port));
  ASSERT_NO_FATAL_FAILURE(StartServer());
  std::unique_ptr<grpc::Server> grpc_server;
  ASSERT_NO_FATAL_FAILURE(StartGrpcServer(grpc_port, &grpc_server));
  const grpc::StatusCode kOk = grpc::StatusCode::OK;
  const grpc::StatusCode kDenied = grpc::StatusCode::PERMISSION_DENIED;
  const std::vector<Row> rows = {
      {"allowed", "127.0.0.1", {{"x-user", "alice"}}, kOk},
      {"wrong header value", "127.0.0.1", {{"x-user", "bob"}}, kDenied},
      {"no header", "127.0.0.1", {}, kDenied},
      {"A41 header values joined with ','",
       "127.0.0.1",
       {{"x-user", "alice"}, {"x-user", "alice"}},
       kDenied},
      {"from 127.0.0.2", "127.0.0.2", {{"x-user", "alice"}}, kDenied},
  };
  {
    SCOPED_TRACE("lib/server");
    ExpectRows(rows);
  }
  {
    SCOPED_TRACE("grpc::XdsServerBuilder");
    ExpectRows(rows, grpc_port);
  }
  grpc_server->Shutdown();
}

// A41 §Proposal: "if the RBAC.action is Action.LOG then the policy will be
// completely ignored, as if RBAC was not configured" (C-core:
// xds_http_rbac_filter.cc "Treat Log action as RBAC being absent"). Both
// servers accept the Listener and let every request through; this is why
// LOG is not a NACK here although issue 25's text says "LOG: NACK, as gRPC".
TEST_F(RbacE2eTest, LogActionAllowsEverythingOnBoth) {
  policy_ = absl::StrReplaceAll(kPolicy,
                                {{R"("action":"ALLOW")", R"("action":"LOG")"}});
  const int grpc_port = testing::FreePort();
  ASSERT_NO_FATAL_FAILURE(Push("", grpc_port));
  ASSERT_NO_FATAL_FAILURE(StartServer());
  std::unique_ptr<grpc::Server> grpc_server;
  ASSERT_NO_FATAL_FAILURE(StartGrpcServer(grpc_port, &grpc_server));
  const std::vector<Row> rows = {
      {"no header", "127.0.0.1", {}, grpc::StatusCode::OK},
      {"from 127.0.0.2",
       "127.0.0.2",
       {{"x-user", "bob"}},
       grpc::StatusCode::OK},
  };
  {
    SCOPED_TRACE("lib/server");
    ExpectRows(rows);
  }
  {
    SCOPED_TRACE("grpc::XdsServerBuilder");
    ExpectRows(rows, grpc_port);
  }
  grpc_server->Shutdown();
}

std::string ReadAll(const std::string& path) {
  std::ifstream in(path);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

// A41 authenticated.principal_name over mTLS: the client certificate's URI
// SANs, then DNS SANs, then the subject (C-core's order), read by lib/server
// from the call's auth context (peer_uri, peer_dns, x509_subject).
TEST_F(RbacE2eTest, MtlsPrincipals) {
  char tmpl[] = "/tmp/xdsfed-rbac-tls-XXXXXX";
  ASSERT_NE(mkdtemp(tmpl), nullptr);
  const std::string dir = tmpl;
  const std::string script = absl::Substitute(
      R"(set -e; cd $0
openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:P-256 -nodes \
  -keyout ca.key -out ca.pem -subj /CN=ca -days 2 2>/dev/null
cert() {
  openssl req -newkey ec -pkeyopt ec_paramgen_curve:P-256 -nodes \
    -keyout $$1.key -out $$1.csr -subj "/CN=$$1" 2>/dev/null
  if [ -n "$$2" ]; then printf 'subjectAltName=%s\n' "$$2" > $$1.ext;
  else : > $$1.ext; fi
  openssl x509 -req -in $$1.csr -CA ca.pem -CAkey ca.key -CAcreateserial \
    -out $$1.pem -days 2 -extfile $$1.ext 2>/dev/null
}
cert server DNS:localhost,IP:127.0.0.1
cert alice URI:spiffe://td/ns/a/sa/alice
cert bob URI:spiffe://td/ns/b/sa/bob,DNS:bob.example
cert carol URI:spiffe://td/ns/c/sa/carol
cert dave "")",
      dir);
  ASSERT_EQ(std::system(script.c_str()), 0) << "openssl failed";
  auto bootstrap = Bootstrap::Parse(
      absl::Substitute(R"({"xds_servers":[{"server_uri":"127.0.0.1:$0",
  "channel_creds":[{"type":"insecure"}]}],"node":{"id":"rbac-tls"},
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
  constexpr char kPrincipals[] = R"({"rules":{"action":"ALLOW","policies":{
    "alice-uri":{"permissions":[{"any":true}],"principals":[
      {"authenticated":{"principal_name":{"exact":"spiffe://td/ns/a/sa/alice"}}}]},
    "bob-dns":{"permissions":[{"any":true}],"principals":[
      {"authenticated":{"principal_name":{"exact":"bob.example"}}}]},
    "dave-subject":{"permissions":[{"any":true}],"principals":[
      {"authenticated":{"principal_name":{"exact":"CN=dave"}}}]}}}})";
  const std::string listener = absl::Substitute(
      R"("$0":{"address":{"socket_address":{"address":"127.0.0.1","port_value":$1}},
  "default_filter_chain":{"filters":[{"name":"hcm","typed_config":$2}],
   "transport_socket":{"name":"tls","typed_config":{
    "@type":"type.googleapis.com/envoy.extensions.transport_sockets.tls.v3.DownstreamTlsContext",
    "require_client_certificate":true,
    "common_tls_context":{
      "tls_certificate_provider_instance":{"instance_name":"id"},
      "validation_context":{"ca_certificate_provider_instance":{"instance_name":"ca"}}}}}}})",
      testing::ServerListenerName(server_port_, "127.0.0.1"), server_port_,
      RbacHcm("rc", kPrincipals));
  auto snapshot = testing::MakeSnapshot(
      1, absl::StrCat(testing::ClientListenerJson(), ",", listener),
      absl::StrCat(testing::ClientRouteJson(), ",",
                   R"("rc":{"virtual_hosts":[{"name":"vh","domains":["*"],
    "routes":[{"match":{"prefix":""},"non_forwarding_action":{}}]}]})"),
      testing::ClientClusterJson(), testing::ClientEndpointJson(server_port_));
  ASSERT_TRUE(snapshot.ok()) << snapshot.status();
  cp_->SetSnapshot(*std::move(snapshot));
  ASSERT_NO_FATAL_FAILURE(StartServer(*bootstrap));
  const std::string target = absl::StrCat("127.0.0.1:", server_port_);
  struct Case {
    const char* source;
    const char* cert;
    grpc::StatusCode want;
  };
  const Case cases[] = {
      {"A41 step 1: a URI SAN matches", "alice", grpc::StatusCode::OK},
      {"C-core: a DNS SAN matches even with a URI SAN present", "bob",
       grpc::StatusCode::OK},
      {"no SAN, no subject matches: ALLOW denies", "carol",
       grpc::StatusCode::PERMISSION_DENIED},
      {"A41 step 3: the subject, RFC 2253", "dave", grpc::StatusCode::OK},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.source);
    grpc::SslCredentialsOptions mtls;
    mtls.pem_root_certs = ReadAll(dir + "/ca.pem");
    mtls.pem_private_key = ReadAll(dir + "/" + c.cert + ".key");
    mtls.pem_cert_chain = ReadAll(dir + "/" + c.cert + ".pem");
    auto stub = grpc::health::v1::Health::NewStub(
        grpc::CreateChannel(target, grpc::SslCredentials(mtls)));
    grpc::ClientContext context;
    context.set_deadline(std::chrono::system_clock::now() +
                         std::chrono::seconds(10));
    context.set_wait_for_ready(true);
    grpc::health::v1::HealthCheckRequest request;
    grpc::health::v1::HealthCheckResponse response;
    grpc::Status status = stub->Check(&context, request, &response);
    EXPECT_EQ(status.error_code(), c.want) << status.error_message();
  }
  (void)!std::system(absl::StrCat("rm -rf ", dir).c_str());
}

}  // namespace
}  // namespace xdsfed::server
