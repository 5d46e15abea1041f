// Issue 24's goals for endpoint TLS (gRFC A29 client side), each measured
// against a plain grpc::Channel with the same TLS credentials to the same
// server (a loopback health backend serving mutual TLS, certificates made
// by openssl at start):
//
// BM_NewConnection/0 vs /1, interleaved: a new mTLS connection + the first
//   RPC. /0: grpc::CreateCustomChannel with one TlsCredentials object (the
//   same provider files, a local subchannel pool so every iteration makes
//   its own connection) + one Check. /1: a new XdsChannel on an XdsClient
//   that already holds the resources (so no xDS fetch is timed: the
//   configuration comes from the client's cache) whose cluster has an
//   UpstreamTlsContext with a SAN matcher + one Check through it.
//   Goal: /1 within 1.1x of /0.
// BM_UnaryTls/0 vs /1, interleaved: steady unary Check throughput over
//   that mTLS connection, plain channel vs XdsChannel (pick, the call on the
//   endpoint's cached stub, Finish). Goal: /1 >= 0.97x of /0.
// BM_PickTls: XdsChannel::Pick + Finish on the TLS endpoint; counter
//   allocs_per_pick (goal: what BM_PickReal has on a plaintext endpoint:
//   the SAN check runs in the handshake, never in Pick).
#include <condition_variable>
#include <cstdlib>
#include <memory>
#include <mutex>
#include <string>

#include "absl/strings/str_cat.h"
#include "absl/strings/substitute.h"
#include "absl/time/clock.h"
#include "benchmark/benchmark.h"
#include "grpcpp/generic/generic_stub.h"
#include "grpcpp/grpcpp.h"
#include "grpcpp/security/tls_certificate_provider.h"
#include "grpcpp/security/tls_certificate_verifier.h"
#include "grpcpp/security/tls_credentials_options.h"
#include "lib/bootstrap/bootstrap.h"
#include "lib/channel/generic_call.h"
#include "lib/channel/xds_channel.h"
#include "lib/client/xds_client.h"
#include "lib/transport/grpc_transport.h"
#include "tests/support/alloc_counter.h"
#include "tools/control_plane/control_plane.h"
#include "tools/health_backend/health_backend.h"

namespace xdsfed {
namespace channel {
namespace {

constexpr char kCheck[] = "/grpc.health.v1.Health/Check";

std::string ReadAll(const std::string& path) {
  FILE* f = fopen(path.c_str(), "rb");
  if (f == nullptr) return "";
  std::string out;
  char buf[4096];
  size_t n;
  while ((n = fread(buf, 1, sizeof(buf), f)) > 0) out.append(buf, n);
  fclose(f);
  return out;
}

struct TlsLoopback {
  std::string dir;
  health_backend::HealthService health{"tls-backend"};
  std::unique_ptr<grpc::Server> backend;
  int port = 0;
  control_plane::ControlPlane cp{control_plane::ControlPlane::Options()};
  std::shared_ptr<const Bootstrap> bootstrap;
  std::shared_ptr<client::XdsClient> client;
  std::unique_ptr<XdsChannel> xds;
  std::shared_ptr<grpc::ChannelCredentials> plain_creds;
  std::shared_ptr<grpc::Channel> plain;
  std::unique_ptr<grpc::GenericStub> plain_stub;
  bool ok = false;

  TlsLoopback() {
    char tmpl[] = "/tmp/xdsfed-tls-bench-XXXXXX";
    if (mkdtemp(tmpl) == nullptr) return;
    dir = tmpl;
    const std::string script = absl::Substitute(
        R"(set -e; cd $0
openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:P-256 -nodes \
  -keyout ca.key -out ca.pem -subj /CN=ca -days 1 2>/dev/null
for n in server client; do
  openssl req -newkey ec -pkeyopt ec_paramgen_curve:P-256 -nodes \
    -keyout $$n.key -out $$n.csr -subj /CN=$$n 2>/dev/null
  printf 'subjectAltName=URI:spiffe://bench/%s,IP:127.0.0.1\n' $$n > $$n.ext
  openssl x509 -req -in $$n.csr -CA ca.pem -CAkey ca.key -CAcreateserial \
    -out $$n.pem -days 1 -extfile $$n.ext 2>/dev/null
done)",
        dir);
    if (std::system(script.c_str()) != 0) return;
    // The backend: mutual TLS, client certificates required.
    grpc::SslServerCredentialsOptions server_tls(
        GRPC_SSL_REQUEST_AND_REQUIRE_CLIENT_CERTIFICATE_AND_VERIFY);
    server_tls.pem_root_certs = ReadAll(dir + "/ca.pem");
    server_tls.pem_key_cert_pairs.push_back(
        {ReadAll(dir + "/server.key"), ReadAll(dir + "/server.pem")});
    grpc::ServerBuilder builder;
    builder.AddListeningPort("127.0.0.1:0",
                             grpc::SslServerCredentials(server_tls), &port);
    builder.RegisterService(&health);
    backend = builder.BuildAndStart();
    if (backend == nullptr || port == 0) return;

    const int cp_port = *cp.Start();
    const std::string hcm =
        R"({"@type":"type.googleapis.com/envoy.extensions.filters.network.http_connection_manager.v3.HttpConnectionManager",
  "rds":{"config_source":{"ads":{}},"route_config_name":"route"},
  "http_filters":[{"name":"router","typed_config":{"@type":"type.googleapis.com/envoy.extensions.filters.http.router.v3.Router"}}]})";
    const std::string upstream =
        R"({"@type":"type.googleapis.com/envoy.extensions.transport_sockets.tls.v3.UpstreamTlsContext",
  "common_tls_context":{
    "tls_certificate_provider_instance":{"instance_name":"client_id"},
    "validation_context":{"ca_certificate_provider_instance":{"instance_name":"ca"},
      "match_subject_alt_names":[{"exact":"spiffe://bench/server"}]}}})";
    auto snapshot = control_plane::ParseSnapshot(absl::Substitute(
        R"({"version":"1","resources":{
 "envoy.config.listener.v3.Listener":{"svc":{"api_listener":{"api_listener":$0}}},
 "envoy.config.route.v3.RouteConfiguration":{"route":{"virtual_hosts":[{"name":"vh","domains":["svc"],"routes":[{"match":{"prefix":""},"route":{"cluster":"c"}}]}]}},
 "envoy.config.cluster.v3.Cluster":{"c":{"type":"EDS","eds_cluster_config":{"eds_config":{"ads":{}}},"transport_socket":{"name":"tls","typed_config":$2}}},
 "envoy.config.endpoint.v3.ClusterLoadAssignment":{"c":{"endpoints":[{"locality":{"zone":"z"},"load_balancing_weight":1,"lb_endpoints":[{"endpoint":{"address":{"socket_address":{"address":"127.0.0.1","port_value":$1}}}}]}]}}}})",
        hcm, port, upstream));
    if (!snapshot.ok()) return;
    cp.SetSnapshot(*snapshot);
    auto parsed = Bootstrap::Parse(
        absl::Substitute(R"({"xds_servers":[{"server_uri":"127.0.0.1:$0",
  "channel_creds":[{"type":"insecure"}]}],"node":{"id":"bench"},
  "certificate_providers":{
    "client_id":{"plugin_name":"file_watcher","config":{
      "certificate_file":"$1/client.pem","private_key_file":"$1/client.key"}},
    "ca":{"plugin_name":"file_watcher","config":{
      "ca_certificate_file":"$1/ca.pem"}}}})",
                         cp_port, dir),
        false);
    if (!parsed.ok()) return;
    bootstrap = *parsed;
    auto c = client::XdsClient::Create(
        bootstrap, std::make_shared<transport::GrpcXdsTransportFactory>(), {});
    if (!c.ok()) return;
    client = *c;
    auto ch = XdsChannel::Create(client, "xds:///svc", {});
    if (!ch.ok()) return;
    xds = *std::move(ch);

    // The plain channel's credentials: the same files and the same chain
    // check against the CA; the host name check gives way as for the
    // XdsChannel (its :authority is "svc"), with no SAN check in its place
    // (so the plain side does a little less).
    grpc::experimental::TlsChannelCredentialsOptions options;
    options.set_verify_server_certs(true);
    options.set_check_call_host(false);
    options.set_certificate_verifier(
        std::make_shared<grpc::experimental::NoOpCertificateVerifier>());
    options.set_certificate_provider(
        std::make_shared<grpc::experimental::FileWatcherCertificateProvider>(
            dir + "/client.key", dir + "/client.pem", dir + "/ca.pem", 600));
    options.watch_root_certs();
    options.watch_identity_key_cert_pairs();
    plain_creds = grpc::experimental::TlsCredentials(options);
    plain = NewPlain();
    plain_stub = std::make_unique<grpc::GenericStub>(plain);
    ok = GenericUnary(*xds, kCheck, "", absl::Now() + absl::Seconds(10))
             .status.ok() &&
         PlainUnary(*plain_stub).ok();
  }

  std::shared_ptr<grpc::Channel> NewPlain() const {
    grpc::ChannelArguments args;
    args.SetString(GRPC_ARG_DEFAULT_AUTHORITY, "svc");
    // Its own connection each time, as a new XdsChannel's endpoint has.
    args.SetInt(GRPC_ARG_USE_LOCAL_SUBCHANNEL_POOL, 1);
    return grpc::CreateCustomChannel(absl::StrCat("ipv4:127.0.0.1:", port),
                                     plain_creds, args);
  }

  static grpc::Status PlainUnary(grpc::GenericStub& stub) {
    grpc::ClientContext ctx;
    ctx.set_deadline(std::chrono::system_clock::now() +
                     std::chrono::seconds(10));
    grpc::Slice slice("");
    grpc::ByteBuffer request(&slice, 1), response;
    std::mutex mu;
    std::condition_variable cv;
    bool done = false;
    grpc::Status status;
    stub.UnaryCall(&ctx, kCheck, grpc::StubOptions(), &request, &response,
                   [&](grpc::Status s) {
                     std::lock_guard<std::mutex> lock(mu);
                     status = std::move(s);
                     done = true;
                     cv.notify_all();
                   });
    std::unique_lock<std::mutex> lock(mu);
    cv.wait(lock, [&] { return done; });
    return status;
  }
};

TlsLoopback& Get() {
  static TlsLoopback* loopback = new TlsLoopback();
  return *loopback;
}

void BM_NewConnection(benchmark::State& state) {
  TlsLoopback& lb = Get();
  if (!lb.ok) {
    state.SkipWithError("setup failed");
    return;
  }
  const bool xds = state.range(0) == 1;
  state.SetLabel(xds ? "XdsChannel" : "grpc::CreateChannel");
  int64_t failed = 0;
  for (auto _ : state) {
    bool ok = false;
    if (xds) {
      auto ch = XdsChannel::Create(lb.client, "xds:///svc", {});
      ok = ch.ok() &&
           GenericUnary(**ch, kCheck, "", absl::Now() + absl::Seconds(10))
               .status.ok();
    } else {
      auto ch = lb.NewPlain();
      grpc::GenericStub stub(ch);
      ok = TlsLoopback::PlainUnary(stub).ok();
    }
    if (!ok) ++failed;
  }
  if (failed > 0) state.SkipWithError("RPCs failed");
  state.SetItemsProcessed(state.iterations());
}
BENCHMARK(BM_NewConnection)
    ->Arg(0)
    ->Arg(1)
    ->Arg(0)
    ->Arg(1)
    ->Arg(0)
    ->Arg(1)
    ->Iterations(100)
    ->UseRealTime();

void BM_UnaryTls(benchmark::State& state) {
  TlsLoopback& lb = Get();
  if (!lb.ok) {
    state.SkipWithError("setup failed");
    return;
  }
  const bool xds = state.range(0) == 1;
  state.SetLabel(xds ? "XdsChannel" : "plain TLS channel");
  int64_t failed = 0;
  for (auto _ : state) {
    bool ok = false;
    if (xds) {
      PickResult pick =
          lb.xds->Pick(PickArgs{kCheck, {}}, absl::Now() + absl::Seconds(10));
      ok = pick.status.ok() &&
           TlsLoopback::PlainUnary(pick.endpoint->Stub<grpc::GenericStub>())
               .ok();
      pick.tracker.Finish(ok);
    } else {
      ok = TlsLoopback::PlainUnary(*lb.plain_stub).ok();
    }
    if (!ok) ++failed;
  }
  if (failed > 0) state.SkipWithError("RPCs failed");
  state.SetItemsProcessed(state.iterations());
}
BENCHMARK(BM_UnaryTls)
    ->Arg(0)
    ->Arg(1)
    ->Arg(0)
    ->Arg(1)
    ->Arg(0)
    ->Arg(1)
    ->UseRealTime();

void BM_PickTls(benchmark::State& state) {
  TlsLoopback& lb = Get();
  if (!lb.ok) {
    state.SkipWithError("setup failed");
    return;
  }
  const PickArgs args{kCheck, {}};
  int64_t allocs_before = 0;
  bool first = true;
  for (auto _ : state) {
    if (first) {
      allocs_before = test_support::AllocationCount();
      first = false;
    }
    PickResult r = lb.xds->Pick(args, absl::InfiniteFuture());
    benchmark::DoNotOptimize(r.endpoint.get());
    r.tracker.Finish(true);
  }
  state.counters["allocs_per_pick"] = benchmark::Counter(
      static_cast<double>(test_support::AllocationCount() - allocs_before) /
      static_cast<double>(state.iterations()));
  state.SetItemsProcessed(state.iterations());
}
BENCHMARK(BM_PickTls);

}  // namespace
}  // namespace channel
}  // namespace xdsfed

BENCHMARK_MAIN();
