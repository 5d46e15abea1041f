// Issue 24 item 3: xDS security (gRFC A29) end to end over real gRPC on
// loopback, both directions against gRPC C++ 1.51. The matrix:
//   clients {our XdsChannel, gRPC's xds: client with grpc::XdsCredentials}
//   x servers {our XdsServer (lib/server), grpc::XdsServerBuilder with
//              grpc::XdsServerCredentials}
//   x rows {mTLS, TLS only, SAN match, SAN mismatch, server requires a
//           client certificate the client lacks, plaintext}
// with the security from our embedded control plane: the Cluster's
// UpstreamTlsContext for the clients, the Listener's DownstreamTlsContext
// for the servers; the insecure fallback credentials on gRPC's side.
// Every row checks the status, and for a handshake that must fail, that no
// request reached a handler. Certificates are made at test time by openssl
// (short-lived, in a temp dir), never checked in. Each row is its own
// process (ctest runs every TEST_P alone), so gRPC's environment bootstrap
// and connections never leak from one row into another.
#include <cstdlib>
#include <memory>
#include <string>
#include <vector>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/substitute.h"
#include "absl/time/clock.h"
#include "absl/time/time.h"
#include "grpc/health/v1/health.grpc.pb.h"
#include "grpcpp/grpcpp.h"
#include "grpcpp/xds_server_builder.h"
#include "gtest/gtest.h"
#include "lib/bootstrap/bootstrap.h"
#include "lib/channel/unary.h"
#include "lib/channel/xds_channel.h"
#include "lib/server/xds_server.h"
#include "tests/server/server_test_support.h"
#include "tools/control_plane/control_plane.h"
#include "tools/health_backend/health_backend.h"

namespace xdsfed {
namespace {

namespace st = server::testing;
using grpc::health::v1::Health;
using grpc::health::v1::HealthCheckRequest;
using grpc::health::v1::HealthCheckResponse;

// CA, a server certificate (DNS server.test, a SPIFFE URI, IP 127.0.0.1)
// and a client certificate (a SPIFFE URI), valid for one day.
bool MakeCertificates(const std::string& dir) {
  const std::string script = absl::Substitute(
      R"(set -e; cd $0
openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:P-256 -nodes \
  -keyout ca.key -out ca.pem -subj /CN=test-ca -days 1 2>/dev/null
mk() {
  openssl req -newkey ec -pkeyopt ec_paramgen_curve:P-256 -nodes \
    -keyout $$1.key -out $$1.csr -subj /CN=$$1 2>/dev/null
  printf 'subjectAltName=%s\n' "$$2" > $$1.ext
  openssl x509 -req -in $$1.csr -CA ca.pem -CAkey ca.key -CAcreateserial \
    -out $$1.pem -days 1 -extfile $$1.ext 2>/dev/null
}
mk server 'DNS:server.test,URI:spiffe://mesh/ns/default/sa/server,IP:127.0.0.1'
mk client 'URI:spiffe://mesh/ns/default/sa/client')",
      dir);
  return std::system(script.c_str()) == 0;
}

// One bootstrap for all four parties: the control plane, the server
// template, and the file_watcher instances both sides name.
std::string BootstrapJson(int cp_port, const std::string& dir) {
  return absl::Substitute(
      R"({"xds_servers":[{"server_uri":"127.0.0.1:$0",
  "channel_creds":[{"type":"insecure"}]}],"node":{"id":"tls-interop"},
  "server_listener_resource_name_template":"$1",
  "certificate_providers":{
    "server_id":{"plugin_name":"file_watcher","config":{
      "certificate_file":"$2/server.pem","private_key_file":"$2/server.key",
      "refresh_interval":"1s"}},
    "client_id":{"plugin_name":"file_watcher","config":{
      "certificate_file":"$2/client.pem","private_key_file":"$2/client.key",
      "refresh_interval":"1s"}},
    "ca":{"plugin_name":"file_watcher","config":{
      "ca_certificate_file":"$2/ca.pem","refresh_interval":"1s"}},
    "client_ca":{"plugin_name":"file_watcher","config":{
      "ca_certificate_file":"$2/client_ca.pem","refresh_interval":"1s"}}}})",
      cp_port, st::kServerTemplate, dir);
}

struct Row {
  const char* name;
  const char* source;  // why the row expects what it does
  // The Listener chain's DownstreamTlsContext fields ("" = plaintext).
  std::string downstream;
  // The Cluster's UpstreamTlsContext fields ("" = plaintext).
  std::string upstream;
  bool want_ok;
  // A substring our client's failure must contain ("" = not checked).
  std::string our_reason;
};

constexpr char kServerMtls[] = R"("require_client_certificate":true,
  "common_tls_context":{
    "tls_certificate_provider_instance":{"instance_name":"server_id"},
    "validation_context":{"ca_certificate_provider_instance":{"instance_name":"ca"}}})";
constexpr char kServerTls[] = R"("common_tls_context":{
    "tls_certificate_provider_instance":{"instance_name":"server_id"}})";

std::string ClientTls(bool identity, absl::string_view sans = "") {
  return absl::StrCat(
      R"("common_tls_context":{)",
      identity
          ? R"("tls_certificate_provider_instance":{"instance_name":"client_id"},)"
          : "",
      R"("validation_context":{"ca_certificate_provider_instance":{"instance_name":"ca"})",
      sans.empty() ? "" : absl::StrCat(R"(,"match_subject_alt_names":)", sans),
      "}}");
}

std::vector<Row> Rows() {
  return {
      {"Mtls", "A29: mutual TLS, identities and roots from file_watcher",
       kServerMtls, ClientTls(true), true, ""},
      {"TlsOnly",
       "A29: TLS, the server asks no client certificate, the client has none",
       kServerTls, ClientTls(false), true, ""},
      {"SanMatch",
       "A29 §Server Authorization: one SAN (the SPIFFE URI) matches a prefix",
       kServerMtls,
       ClientTls(
           true,
           R"([{"exact":"other.test"},{"prefix":"spiffe://mesh/ns/default/"}])"),
       true, ""},
      {"SanMismatch",
       "A29 §Server Authorization: no SAN matches: the handshake fails",
       kServerMtls, ClientTls(true, R"([{"exact":"other.test"}])"), false,
       "none matches match_subject_alt_names [exact:\"other.test\"]"},
      {"ClientCertificateMissing",
       "A29: the server requires a client certificate the client lacks",
       kServerMtls, ClientTls(false), false, ""},
      {"Plaintext",
       "A29 §Programming API: no security config: the insecure fallback", "",
       "", true, ""},
  };
}

class XdsTlsInteropTest : public ::testing::TestWithParam<Row> {
 protected:
  void SetUp() override {
    char tmpl[] = "/tmp/xdsfed-tls-interop-XXXXXX";
    ASSERT_NE(mkdtemp(tmpl), nullptr);
    dir_ = tmpl;
    ASSERT_TRUE(MakeCertificates(dir_)) << "openssl failed";
    control_plane::ControlPlane::Options options;
    options.listen = "127.0.0.1:0";
    cp_ = std::make_unique<control_plane::ControlPlane>(options);
    absl::StatusOr<int> port = cp_->Start();
    ASSERT_TRUE(port.ok()) << port.status();
    cp_port_ = *port;
    bootstrap_json_ = BootstrapJson(cp_port_, dir_);
    auto bootstrap = Bootstrap::Parse(bootstrap_json_, /*federation=*/false);
    ASSERT_TRUE(bootstrap.ok()) << bootstrap.status();
    bootstrap_ = *std::move(bootstrap);
    // gRPC reads its bootstrap from the environment, once per process.
    setenv("GRPC_XDS_BOOTSTRAP_CONFIG", bootstrap_json_.c_str(), 1);
    our_port_ = st::FreePort();
    grpc_port_ = st::FreePort();
  }
  void TearDown() override {
    our_client_.reset();
    grpc_client_.reset();
    if (our_server_ != nullptr) our_server_->Shutdown();
    our_server_.reset();
    if (grpc_server_ != nullptr) grpc_server_->Shutdown();
    grpc_server_.reset();
    if (cp_ != nullptr) cp_->Shutdown();
    (void)!std::system(absl::StrCat("rm -rf ", dir_).c_str());
  }

  std::string ServerListener(int port, const Row& row) const {
    const std::string chain =
        row.downstream.empty()
            ? ""
            : absl::StrCat(
                  R"({"filters":[{"name":"hcm","typed_config":)",
                  st::Hcm("server-route"),
                  R"(}],"transport_socket":{"name":"tls","typed_config":{
  "@type":"type.googleapis.com/envoy.extensions.transport_sockets.tls.v3.DownstreamTlsContext",)",
                  row.downstream, "}}}");
    if (chain.empty()) return st::ServerListenerJson(port, "server-route");
    // The TLS chain as the default chain: every connection gets it.
    return absl::Substitute(
        R"("$0":{"address":{"socket_address":{"address":"127.0.0.1","port_value":$1}},
  "default_filter_chain":$2})",
        st::ServerListenerName(port), port, chain);
  }
  std::string ClientListener(absl::string_view name,
                             absl::string_view route) const {
    return absl::StrCat("\"", name, R"(":{"api_listener":{"api_listener":)",
                        st::Hcm(route), "}}");
  }
  std::string ClientRoute(absl::string_view name,
                          absl::string_view cluster) const {
    return absl::Substitute(
        R"("$0":{"virtual_hosts":[{"name":"vh","domains":["*"],
  "routes":[{"match":{"prefix":""},"route":{"cluster":"$1"}}]}]})",
        name, cluster);
  }
  std::string Cluster(absl::string_view name, const Row& row) const {
    const std::string tls =
        row.upstream.empty()
            ? ""
            : absl::StrCat(R"(,"transport_socket":{"name":"tls","typed_config":{
  "@type":"type.googleapis.com/envoy.extensions.transport_sockets.tls.v3.UpstreamTlsContext",)",
                           row.upstream, "}}");
    return absl::Substitute(
        R"("$0":{"type":"EDS","eds_cluster_config":{"eds_config":{"ads":{}},"service_name":"$0"}$1})",
        name, tls);
  }
  std::string Endpoints(absl::string_view name, int port) const {
    return absl::Substitute(
        R"("$0":{"endpoints":[{"locality":{"region":"r"},"load_balancing_weight":1,
    "lb_endpoints":[{"endpoint":{"address":{"socket_address":{
      "address":"127.0.0.1","port_value":$1}}}}]}]})",
        name, port);
  }

  void Push(const Row& row) {
    auto snapshot = st::MakeSnapshot(
        1,
        absl::StrCat(ClientListener("svc-ours", "r-ours"), ",",
                     ClientListener("svc-grpc", "r-grpc"), ",",
                     ServerListener(our_port_, row), ",",
                     ServerListener(grpc_port_, row)),
        absl::StrCat(ClientRoute("r-ours", "c-ours"), ",",
                     ClientRoute("r-grpc", "c-grpc"), ",",
                     st::ServerRouteJson("server-route")),
        absl::StrCat(Cluster("c-ours", row), ",", Cluster("c-grpc", row)),
        absl::StrCat(Endpoints("c-ours", our_port_), ",",
                     Endpoints("c-grpc", grpc_port_)));
    ASSERT_TRUE(snapshot.ok()) << snapshot.status();
    cp_->SetSnapshot(*std::move(snapshot));
  }

  void StartServers() {
    server::XdsServerBuilder builder;
    builder
        .AddListeningPort(st::HostPort("127.0.0.1", our_port_),
                          grpc::InsecureServerCredentials())
        .RegisterService(&our_health_)
        .set_bootstrap(bootstrap_)
        .set_status_notifier(
            [this](const std::string& a, const absl::Status& s) {
              log_.Record(a, s);
            });
    auto server = builder.BuildAndStart();
    ASSERT_TRUE(server.ok()) << server.status();
    our_server_ = *std::move(server);
    ASSERT_TRUE(log_.WaitFor(1));
    ASSERT_TRUE(log_.calls()[0].status.ok()) << log_.calls()[0].status;

    grpc::XdsServerBuilder grpc_builder;
    grpc_builder.set_status_notifier(&grpc_notifier_);
    grpc_builder.AddListeningPort(
        st::HostPort("127.0.0.1", grpc_port_),
        grpc::XdsServerCredentials(grpc::InsecureServerCredentials()));
    grpc_builder.RegisterService(&grpc_health_);
    grpc_server_ = grpc_builder.BuildAndStart();
    ASSERT_NE(grpc_server_, nullptr);
    for (int i = 0; i < 400 && !grpc_notifier_.served.load(); ++i) {
      absl::SleepFor(absl::Milliseconds(25));
    }
    ASSERT_TRUE(grpc_notifier_.served.load()) << "gRPC's server not SERVING";
  }

  // One Health/Check from our XdsChannel to `target`.
  grpc::Status OurCall(const std::string& target, absl::Duration deadline) {
    auto ch = channel::XdsChannel::Create(bootstrap_, target, {});
    if (!ch.ok()) {
      return grpc::Status(grpc::StatusCode::INTERNAL,
                          std::string(ch.status().message()));
    }
    grpc::ClientContext ctx;
    ctx.set_deadline(absl::ToChronoTime(absl::Now() + deadline));
    HealthCheckRequest request;
    HealthCheckResponse response;
    grpc::Status s =
        channel::Unary(**ch, "/grpc.health.v1.Health/Check",
                       &Health::Stub::Check, &ctx, request, &response);
    our_client_ = *std::move(ch);  // kept: the diagnosis may still report
    return s;
  }
  grpc::Status GrpcCall(const std::string& target, absl::Duration deadline) {
    auto ch = grpc::CreateChannel(
        target, grpc::XdsCredentials(grpc::InsecureChannelCredentials()));
    grpc::ClientContext ctx;
    ctx.set_deadline(absl::ToChronoTime(absl::Now() + deadline));
    ctx.set_wait_for_ready(false);
    HealthCheckRequest request;
    HealthCheckResponse response;
    grpc::Status s = Health::NewStub(ch)->Check(&ctx, request, &response);
    grpc_client_ = ch;
    return s;
  }

  struct GrpcNotifier : grpc::XdsServerServingStatusNotifierInterface {
    void OnServingStatusUpdate(std::string,
                               ServingStatusUpdate update) override {
      if (update.status.ok()) served.store(true);
    }
    std::atomic<bool> served{false};
  };

  std::string dir_;
  std::unique_ptr<control_plane::ControlPlane> cp_;
  int cp_port_ = 0;
  std::string bootstrap_json_;
  std::shared_ptr<const Bootstrap> bootstrap_;
  int our_port_ = 0;
  int grpc_port_ = 0;
  health_backend::HealthService our_health_{"ours"};
  health_backend::HealthService grpc_health_{"grpc"};
  st::NotifierLog log_;
  GrpcNotifier grpc_notifier_;
  std::unique_ptr<server::XdsServer> our_server_;
  std::unique_ptr<grpc::Server> grpc_server_;
  std::unique_ptr<channel::XdsChannel> our_client_;
  std::shared_ptr<grpc::Channel> grpc_client_;
};

TEST_P(XdsTlsInteropTest, Matrix) {
  const Row& row = GetParam();
  SCOPED_TRACE(row.source);
  ASSERT_NO_FATAL_FAILURE(Push(row));
  ASSERT_NO_FATAL_FAILURE(StartServers());
  struct Leg {
    const char* name;
    bool ours;  // our XdsChannel, else gRPC's xds: client
    const char* target;
    const health_backend::HealthService* handler;
  };
  const Leg legs[] = {
      {"XdsChannel -> XdsServer", true, "xds:///svc-ours", &our_health_},
      {"XdsChannel -> grpc::XdsServerBuilder", true, "xds:///svc-grpc",
       &grpc_health_},
      {"gRPC xds: -> XdsServer", false, "xds:///svc-ours", &our_health_},
      {"gRPC xds: -> grpc::XdsServerBuilder", false, "xds:///svc-grpc",
       &grpc_health_},
  };
  for (const Leg& leg : legs) {
    SCOPED_TRACE(leg.name);
    const uint64_t before = leg.handler->checks_answered();
    grpc::Status s;
    if (row.want_ok) {
      // Connections come up while the servers' Listeners settle.
      for (int i = 0; i < 40; ++i) {
        s = leg.ours ? OurCall(leg.target, absl::Seconds(5))
                     : GrpcCall(leg.target, absl::Seconds(5));
        if (s.ok()) break;
        absl::SleepFor(absl::Milliseconds(100));
      }
      EXPECT_TRUE(s.ok()) << s.error_code() << " " << s.error_message();
      EXPECT_GT(leg.handler->checks_answered(), before);
      continue;
    }
    s = leg.ours ? OurCall(leg.target, absl::Seconds(5))
                 : GrpcCall(leg.target, absl::Seconds(5));
    EXPECT_FALSE(s.ok());
    EXPECT_NE(s.error_code(), grpc::StatusCode::OK);
    if (leg.ours && !row.our_reason.empty()) {
      // The reason arrives with the endpoint's diagnosis: retry until the
      // failing pick names it.
      for (int i = 0;
           i < 50 && !absl::StrContains(s.error_message(), row.our_reason);
           ++i) {
        absl::SleepFor(absl::Milliseconds(100));
        s = OurCall(leg.target, absl::Seconds(5));
      }
      EXPECT_TRUE(absl::StrContains(s.error_message(), row.our_reason))
          << s.error_message();
      EXPECT_TRUE(absl::StrContains(s.error_message(),
                                    "URI:\"spiffe://mesh/ns/default/sa/"
                                    "server\""))
          << "names the SANs presented: " << s.error_message();
    }
    EXPECT_EQ(leg.handler->checks_answered(), before)
        << "a request reached the handler over a failed handshake";
  }
}

// Issue 24 §Bad input: the client's roots file is missing, then empty, then
// not PEM: our XdsChannel's picks fail naming the file and the instance,
// the process keeps going, and the next good file on disk is used without
// a restart (gRPC's file watcher re-reads it every refresh_interval, 1 s
// here). (Unreadable is left out: tests run as root, who reads anything.)
using XdsTlsBadFilesTest = XdsTlsInteropTest;

TEST_F(XdsTlsBadFilesTest, BadRootsFileNamedThenNextGoodFileUsed) {
  Row row{"BadRoots", "issue 24 bad input", kServerMtls, "", true, ""};
  row.upstream = absl::StrCat(
      R"("common_tls_context":{)",
      R"("tls_certificate_provider_instance":{"instance_name":"client_id"},)",
      R"("validation_context":{"ca_certificate_provider_instance":{"instance_name":"client_ca"}}})");
  ASSERT_NO_FATAL_FAILURE(Push(row));
  ASSERT_NO_FATAL_FAILURE(StartServers());
  auto ch = channel::XdsChannel::Create(bootstrap_, "xds:///svc-ours", {});
  ASSERT_TRUE(ch.ok()) << ch.status();
  auto call = [&]() {
    grpc::ClientContext ctx;
    ctx.set_deadline(absl::ToChronoTime(absl::Now() + absl::Seconds(2)));
    HealthCheckRequest request;
    HealthCheckResponse response;
    return channel::Unary(**ch, "/grpc.health.v1.Health/Check",
                          &Health::Stub::Check, &ctx, request, &response);
  };
  const std::string file = absl::StrCat(dir_, "/client_ca.pem");
  const std::string named = absl::StrCat(
      "certificate provider instance \"client_ca\" ca_certificate_file \"",
      file, "\": ");
  struct Step {
    const char* what;
    std::string shell;  // makes the file so
    std::string want;   // in the failing pick's message
  };
  const Step steps[] = {
      {"missing", absl::StrCat("rm -f ", file),
       absl::StrCat(named, "cannot read")},
      {"empty", absl::StrCat(": > ", file), absl::StrCat(named, "is empty")},
      {"not PEM", absl::StrCat("echo not-a-certificate > ", file),
       absl::StrCat(named, "holds no PEM certificate")},
  };
  for (const Step& step : steps) {
    SCOPED_TRACE(step.what);
    ASSERT_EQ(std::system(step.shell.c_str()), 0);
    grpc::Status s;
    for (int i = 0; i < 100; ++i) {
      s = call();
      if (!s.ok() && absl::StrContains(s.error_message(), step.want)) break;
      absl::SleepFor(absl::Milliseconds(100));
    }
    EXPECT_FALSE(s.ok());
    EXPECT_TRUE(absl::StrContains(s.error_message(), step.want))
        << s.error_message();
  }
  EXPECT_EQ(our_health_.checks_answered(), 0u);
  // The next good file: picked up by the watcher, no restart.
  ASSERT_EQ(std::system(absl::StrCat("cp ", dir_, "/ca.pem ", file).c_str()),
            0);
  grpc::Status s;
  for (int i = 0; i < 100 && !(s = call()).ok(); ++i) {
    absl::SleepFor(absl::Milliseconds(100));
  }
  EXPECT_TRUE(s.ok()) << s.error_message();
  EXPECT_GT(our_health_.checks_answered(), 0u);
}

INSTANTIATE_TEST_SUITE_P(Rows, XdsTlsInteropTest, ::testing::ValuesIn(Rows()),
                         [](const ::testing::TestParamInfo<Row>& info) {
                           return std::string(info.param.name);
                         });

}  // namespace
}  // namespace xdsfed
