// The Prometheus exporter (tools/prometheus_exporter, issue 28 item 4)
// scraped over HTTP by a real client (a socket speaking HTTP/1.0 on
// loopback), and the XdsClient's gRFC A78 instruments checked against what
// happened on a real ADS stream to the embedded control plane.
#include "tools/prometheus_exporter/prometheus_exporter.h"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "absl/synchronization/notification.h"
#include "absl/time/clock.h"
#include "absl/time/time.h"
#include "gtest/gtest.h"
#include "lib/bootstrap/bootstrap.h"
#include "lib/client/xds_client.h"
#include "lib/client/xds_client_metrics.h"
#include "lib/metrics/instruments.h"
#include "lib/resources/listener.h"
#include "lib/transport/grpc_transport.h"
#include "tools/control_plane/control_plane.h"

namespace xdsfed::prometheus_exporter {
namespace {

// GET /metrics from 127.0.0.1:port; the body, or nullopt. Reads at most
// 1 MB.
std::optional<std::string> Scrape(int port) {
  const int fd = socket(AF_INET, SOCK_STREAM, 0);
  if (fd < 0) return std::nullopt;
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_port = htons(static_cast<uint16_t>(port));
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  timeval timeout{5, 0};
  setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &timeout, sizeof(timeout));
  if (connect(fd, reinterpret_cast<sockaddr*>(&addr), sizeof(addr)) != 0) {
    close(fd);
    return std::nullopt;
  }
  const std::string request =
      "GET /metrics HTTP/1.0\r\nHost: 127.0.0.1\r\n\r\n";
  if (send(fd, request.data(), request.size(), 0) !=
      static_cast<ssize_t>(request.size())) {
    close(fd);
    return std::nullopt;
  }
  std::string response;
  char buf[4096];
  while (response.size() < (1 << 20)) {
    const ssize_t n = recv(fd, buf, sizeof(buf), 0);
    if (n <= 0) break;
    response.append(buf, static_cast<size_t>(n));
  }
  close(fd);
  if (!absl::StartsWith(response, "HTTP/1.") ||
      !absl::StrContains(response.substr(0, response.find('\n')), " 200")) {
    return std::nullopt;
  }
  const size_t body = response.find("\r\n\r\n");
  if (body == std::string::npos) return std::nullopt;
  return response.substr(body + 4);
}

// The samples of a Prometheus text body: "name{labels}" -> value.
std::map<std::string, double> Samples(const std::string& body) {
  std::map<std::string, double> out;
  for (absl::string_view line : absl::StrSplit(body, '\n')) {
    if (line.empty() || line.front() == '#') continue;
    const size_t space = line.rfind(' ');
    if (space == absl::string_view::npos) continue;
    double v = 0;
    if (!absl::SimpleAtod(line.substr(space + 1), &v)) continue;
    out[std::string(line.substr(0, space))] = v;
  }
  return out;
}

TEST(PrometheusExporter, ServesRecordedValuesWithPrometheusNames) {
  auto exporter = PrometheusExporter::Start("127.0.0.1:0");
  ASSERT_TRUE(exporter.ok()) << exporter.status();
  ASSERT_GT((*exporter)->port(), 0);
  const absl::string_view server[] = {"xds:///svc", "cp.example:443"};
  (*exporter)->AddCounter(metrics::kXdsClientServerFailure, server, 1);
  (*exporter)->AddCounter(metrics::kXdsClientServerFailure, server, 2);
  (*exporter)->SetGauge(metrics::kXdsClientConnected, server, 1);
  (*exporter)->SetGauge(metrics::kXdsClientConnected, server, 0);
  int calls = 0;
  (*exporter)->AddCollectCallback([&calls](metrics::MetricsRecorder& r) {
    // Computed per scrape: the first scrape sets two series, later ones
    // one, so the other disappears.
    ++calls;
    const absl::string_view a[] = {"t", "#old", "acked", "x.T"};
    const absl::string_view b[] = {"t", "#old", "requested", "x.T"};
    r.SetGauge(metrics::kXdsClientResources, a, 7);
    if (calls == 1) r.SetGauge(metrics::kXdsClientResources, b, 2);
  });
  std::optional<std::string> body = Scrape((*exporter)->port());
  ASSERT_TRUE(body.has_value());
  std::map<std::string, double> samples = Samples(*body);
  // Issue 28: names and label names with '.' as '_'.
  const std::string labels =
      R"({grpc_target="xds:///svc",grpc_xds_server="cp.example:443"})";
  EXPECT_EQ(samples[absl::StrCat("grpc_xds_client_server_failure", labels)], 3)
      << *body;
  EXPECT_EQ(samples.count(absl::StrCat("grpc_xds_client_connected", labels)),
            1u)
      << *body;
  EXPECT_EQ(samples[absl::StrCat("grpc_xds_client_connected", labels)], 0);
  const std::string acked =
      R"(grpc_xds_client_resources{grpc_target="t",grpc_xds_authority="#old",grpc_xds_cache_state="acked",grpc_xds_resource_type="x.T"})";
  const std::string requested =
      R"(grpc_xds_client_resources{grpc_target="t",grpc_xds_authority="#old",grpc_xds_cache_state="requested",grpc_xds_resource_type="x.T"})";
  EXPECT_EQ(samples[acked], 7) << *body;
  EXPECT_EQ(samples[requested], 2) << *body;
  body = Scrape((*exporter)->port());
  ASSERT_TRUE(body.has_value());
  samples = Samples(*body);
  EXPECT_EQ(samples[acked], 7);
  EXPECT_EQ(samples.count(requested), 0u) << *body;
}

// Issue 28 bad input: a metrics port in use is a clear error, never a
// shared port (lib/transport/grpc_listen.h's rule for every listener).
TEST(PrometheusExporter, PortInUseIsAnError) {
  // A plain listening socket, as any other process could hold.
  const int fd = socket(AF_INET, SOCK_STREAM, 0);
  ASSERT_GE(fd, 0);
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  ASSERT_EQ(bind(fd, reinterpret_cast<sockaddr*>(&addr), sizeof(addr)), 0);
  ASSERT_EQ(listen(fd, 4), 0);
  socklen_t len = sizeof(addr);
  getsockname(fd, reinterpret_cast<sockaddr*>(&addr), &len);
  const int held = ntohs(addr.sin_port);
  auto exporter = PrometheusExporter::Start(absl::StrCat("127.0.0.1:", held));
  close(fd);
  ASSERT_FALSE(exporter.ok());
  EXPECT_EQ(exporter.status().code(), absl::StatusCode::kUnavailable);
  EXPECT_TRUE(absl::StrContains(exporter.status().message(), "in use"))
      << exporter.status();

  // Another exporter's port.
  auto first = PrometheusExporter::Start("127.0.0.1:0");
  ASSERT_TRUE(first.ok()) << first.status();
  auto second =
      PrometheusExporter::Start(absl::StrCat("127.0.0.1:", (*first)->port()));
  ASSERT_FALSE(second.ok());
  EXPECT_TRUE(absl::StrContains(second.status().message(), "in use"))
      << second.status();

  auto bad = PrometheusExporter::Start("localhost:9464");
  ASSERT_FALSE(bad.ok());
  EXPECT_EQ(bad.status().code(), absl::StatusCode::kInvalidArgument);
}

class ListenerWatcher : public resources::ResourceWatcher<resources::Listener> {
 public:
  void OnChanged(std::shared_ptr<const resources::Listener>) override {
    changed.Notify();
  }
  void OnError(absl::Status) override {
    if (!error.HasBeenNotified()) error.Notify();
  }
  void OnDoesNotExist() override {}
  absl::Notification changed, error;
};

// Polls the exporter until `want` holds (or 10 s).
bool ScrapeUntil(
    int port, const std::function<bool(std::map<std::string, double>&)>& want,
    std::string* last) {
  const absl::Time deadline = absl::Now() + absl::Seconds(10);
  while (absl::Now() < deadline) {
    std::optional<std::string> body = Scrape(port);
    if (body.has_value()) {
      *last = *body;
      std::map<std::string, double> samples = Samples(*body);
      if (want(samples)) return true;
    }
    absl::SleepFor(absl::Milliseconds(50));
  }
  return false;
}

// A78 §XdsClient: one valid and one invalid Listener over a real ADS
// stream, then the control plane goes away.
TEST(PrometheusExporter, XdsClientInstrumentsFollowTheStream) {
  const std::string hcm =
      R"("@type":"type.googleapis.com/envoy.extensions.filters.network.http_connection_manager.v3.HttpConnectionManager",)"
      R"("http_filters":[{"name":"router","typed_config":{"@type":"type.googleapis.com/envoy.extensions.filters.http.router.v3.Router"}}])";
  // "bad" has neither rds nor route_config: NACKed (A27 HCM rules).
  const std::string text = absl::StrCat(
      R"({"version":"1","resources":{"envoy.config.listener.v3.Listener":{)",
      R"("good":{"api_listener":{"api_listener":{)", hcm,
      R"(,"rds":{"config_source":{"ads":{}},"route_config_name":"r"}}}},)",
      R"("bad":{"api_listener":{"api_listener":{)", hcm, "}}}}}}");
  auto snapshot = control_plane::ParseSnapshot(text);
  ASSERT_TRUE(snapshot.ok()) << snapshot.status();
  control_plane::ControlPlane::Options cp_options;
  cp_options.listen = "127.0.0.1:0";
  auto cp = std::make_unique<control_plane::ControlPlane>(cp_options);
  cp->SetSnapshot(*std::move(snapshot));
  absl::StatusOr<int> cp_port = cp->Start();
  ASSERT_TRUE(cp_port.ok()) << cp_port.status();
  const std::string server_uri = absl::StrCat("127.0.0.1:", *cp_port);
  auto bootstrap = Bootstrap::Parse(
      absl::StrCat(R"({"xds_servers":[{"server_uri":")", server_uri,
                   R"(","channel_creds":[{"type":"insecure"}]}],)",
                   R"("node":{"id":"metrics-test"}})"),
      /*federation=*/false);
  ASSERT_TRUE(bootstrap.ok()) << bootstrap.status();

  auto exporter = PrometheusExporter::Start("127.0.0.1:0");
  ASSERT_TRUE(exporter.ok()) << exporter.status();
  client::XdsClient::Options options;
  options.metrics = exporter->get();
  options.metrics_target = "xds:///svc";
  options.backoff.initial = absl::Milliseconds(100);
  options.backoff.max = absl::Milliseconds(500);
  auto client = client::XdsClient::Create(
      *bootstrap, std::make_shared<transport::GrpcXdsTransportFactory>(),
      options);
  ASSERT_TRUE(client.ok()) << client.status();
  std::weak_ptr<client::XdsClient> weak = *client;
  (*exporter)->AddCollectCallback([weak](metrics::MetricsRecorder& r) {
    if (auto c = weak.lock()) client::RecordResourceGauges(*c, "xds:///svc", r);
  });
  auto good = std::make_shared<ListenerWatcher>();
  auto bad = std::make_shared<ListenerWatcher>();
  const client::WatchId good_id =
      (*client)->Watch<resources::Listener>("good", good);
  const client::WatchId bad_id =
      (*client)->Watch<resources::Listener>("bad", bad);
  ASSERT_TRUE(good->changed.WaitForNotificationWithTimeout(absl::Seconds(10)));
  ASSERT_TRUE(bad->error.WaitForNotificationWithTimeout(absl::Seconds(10)));

  const std::string server = absl::StrCat(
      R"({grpc_target="xds:///svc",grpc_xds_server=")", server_uri, R"("})");
  const std::string typed = absl::StrCat(
      R"({grpc_target="xds:///svc",grpc_xds_resource_type="envoy.config.listener.v3.Listener",grpc_xds_server=")",
      server_uri, R"("})");
  const std::string resources_prefix =
      R"(grpc_xds_client_resources{grpc_target="xds:///svc",grpc_xds_authority="#old",grpc_xds_cache_state=")";
  const std::string lds =
      R"(",grpc_xds_resource_type="envoy.config.listener.v3.Listener"})";
  std::string body;
  EXPECT_TRUE(ScrapeUntil(
      (*exporter)->port(),
      [&](std::map<std::string, double>& s) {
        // Each response carried "good" (valid) and, once subscribed, "bad"
        // (invalid): at least one of each; the cache holds one acked and
        // one nacked Listener; the stream is up and never failed.
        return s[absl::StrCat("grpc_xds_client_connected", server)] == 1 &&
               s[absl::StrCat("grpc_xds_client_resource_updates_valid",
                              typed)] >= 1 &&
               s[absl::StrCat("grpc_xds_client_resource_updates_invalid",
                              typed)] >= 1 &&
               s[absl::StrCat(resources_prefix, "acked", lds)] == 1 &&
               s[absl::StrCat(resources_prefix, "nacked", lds)] == 1 &&
               s.count(
                   absl::StrCat("grpc_xds_client_server_failure", server)) == 0;
      },
      &body))
      << body;

  // The control plane goes away: connected 0, one server failure.
  cp->Shutdown();
  cp.reset();
  EXPECT_TRUE(ScrapeUntil(
      (*exporter)->port(),
      [&](std::map<std::string, double>& s) {
        return s[absl::StrCat("grpc_xds_client_connected", server)] == 0 &&
               s[absl::StrCat("grpc_xds_client_server_failure", server)] == 1 &&
               s[absl::StrCat(resources_prefix, "acked", lds)] == 1;
      },
      &body))
      << body;
  (*client)->CancelWatch(good_id);
  (*client)->CancelWatch(bad_id);
}

}  // namespace
}  // namespace xdsfed::prometheus_exporter
