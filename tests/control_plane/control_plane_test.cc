// ControlPlane over real grpc++ on loopback, driven by plain generated stubs:
// ADS state of the world (Envoy xDS protocol §ACK/NACK and resource
// versioning, §How the client specifies what resources to return), LRS, the
// request log and snapshot file reloads.
#include "tools/control_plane/control_plane.h"

#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <deque>
#include <fstream>
#include <memory>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/synchronization/mutex.h"
#include "absl/time/clock.h"
#include "envoy/config/cluster/v3/cluster.pb.h"
#include "envoy/config/listener/v3/listener.pb.h"
#include "envoy/service/discovery/v3/ads.grpc.pb.h"
#include "envoy/service/load_stats/v3/lrs.grpc.pb.h"
#include "grpcpp/grpcpp.h"
#include "gtest/gtest.h"
#include "lib/json/json_reader.h"

namespace xdsfed::control_plane {
namespace {

using envoy::service::discovery::v3::AggregatedDiscoveryService;
using envoy::service::discovery::v3::DiscoveryRequest;
using envoy::service::discovery::v3::DiscoveryResponse;

constexpr char kLds[] = "type.googleapis.com/envoy.config.listener.v3.Listener";
constexpr char kCds[] = "type.googleapis.com/envoy.config.cluster.v3.Cluster";
constexpr char kRds[] =
    "type.googleapis.com/envoy.config.route.v3.RouteConfiguration";
constexpr absl::Duration kWait = absl::Seconds(10);
// How long "nothing arrives" is watched for.
constexpr absl::Duration kQuiet = absl::Milliseconds(300);

Snapshot MakeSnapshot(const std::string& version,
                      const std::vector<std::string>& clusters,
                      const std::vector<std::string>& listeners = {}) {
  Snapshot snapshot;
  snapshot.version = version;
  for (const std::string& name : clusters) {
    envoy::config::cluster::v3::Cluster cluster;
    cluster.set_name(name);
    snapshot.Add(name, cluster);
  }
  for (const std::string& name : listeners) {
    envoy::config::listener::v3::Listener listener;
    listener.set_name(name);
    snapshot.Add(name, listener);
  }
  return snapshot;
}

// The names inside a response, unwrapping Resource wrappers.
std::vector<std::string> ResourceNames(const DiscoveryResponse& response) {
  std::vector<std::string> names;
  for (const google::protobuf::Any& any : response.resources()) {
    envoy::service::discovery::v3::Resource wrapper;
    if (any.UnpackTo(&wrapper)) {
      names.push_back(wrapper.name());
      continue;
    }
    envoy::config::cluster::v3::Cluster cluster;
    envoy::config::listener::v3::Listener listener;
    if (any.UnpackTo(&cluster)) {
      names.push_back(cluster.name());
    } else if (any.UnpackTo(&listener)) {
      names.push_back(listener.name());
    } else {
      names.push_back("?" + any.type_url());
    }
  }
  return names;
}

// A plain ADS client: a generated stub, a reader thread and a queue.
class AdsClient {
 public:
  explicit AdsClient(int port) {
    channel_ = grpc::CreateChannel(absl::StrCat("127.0.0.1:", port),
                                   grpc::InsecureChannelCredentials());
    stub_ = AggregatedDiscoveryService::NewStub(channel_);
    stream_ = stub_->StreamAggregatedResources(&context_);
    reader_ = std::thread([this] {
      DiscoveryResponse response;
      while (stream_->Read(&response)) {
        absl::MutexLock lock(&mu_);
        responses_.push_back(response);
      }
      absl::MutexLock lock(&mu_);
      done_ = true;
    });
  }
  ~AdsClient() {
    context_.TryCancel();
    reader_.join();
    stream_->Finish().ok();
  }

  void Send(const std::string& type_url, std::vector<std::string> names,
            const std::string& nonce = "", const std::string& version = "",
            bool nack = false) {
    DiscoveryRequest request;
    request.mutable_node()->set_id("test-node");
    request.set_type_url(type_url);
    for (std::string& name : names) request.add_resource_names(name);
    request.set_response_nonce(nonce);
    request.set_version_info(version);
    if (nack) {
      request.mutable_error_detail()->set_code(3);
      request.mutable_error_detail()->set_message("bad resource");
    }
    ASSERT_TRUE(stream_->Write(request));
  }

  // The next response, or nullopt after `timeout`.
  std::optional<DiscoveryResponse> Next(absl::Duration timeout = kWait) {
    absl::MutexLock lock(&mu_);
    auto ready = [this]() ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_) {
      return !responses_.empty() || done_;
    };
    mu_.AwaitWithTimeout(absl::Condition(&ready), timeout);
    if (responses_.empty()) return std::nullopt;
    DiscoveryResponse response = std::move(responses_.front());
    responses_.pop_front();
    return response;
  }

  bool Done() {
    absl::MutexLock lock(&mu_);
    return done_;
  }

 private:
  std::shared_ptr<grpc::Channel> channel_;
  std::unique_ptr<AggregatedDiscoveryService::Stub> stub_;
  grpc::ClientContext context_;
  std::unique_ptr<grpc::ClientReaderWriter<DiscoveryRequest, DiscoveryResponse>>
      stream_;
  std::thread reader_;
  absl::Mutex mu_;
  std::deque<DiscoveryResponse> responses_ ABSL_GUARDED_BY(mu_);
  bool done_ ABSL_GUARDED_BY(mu_) = false;
};

std::unique_ptr<ControlPlane> StartServer(ControlPlane::Options options,
                                          int* port) {
  auto cp = std::make_unique<ControlPlane>(std::move(options));
  absl::StatusOr<int> p = cp->Start();
  EXPECT_TRUE(p.ok()) << p.status();
  *port = p.ok() ? *p : 0;
  return cp;
}

// Envoy xDS protocol §How the client specifies what resources to return:
// named subscriptions get the named resources the snapshot has; an empty list
// is a wildcard for LDS and CDS only; xdstp names match in canonical form.
TEST(ControlPlaneTest, SubscriptionGetsMatchingResources) {
  struct Case {
    const char* label;
    const char* type_url;
    std::vector<std::string> names;
    std::vector<std::string> want;  // names in the response, in order
    bool want_response = true;
  };
  const std::string kFed =
      "xdstp://a.com/envoy.config.cluster.v3.Cluster/c%20x?b=2&a=1";
  const Case kCases[] = {
      {"named", kCds, {"c1"}, {"c1"}},
      {"two names, one missing", kCds, {"c2", "nope", "c1"}, {"c1", "c2"}},
      {"CDS wildcard", kCds, {}, {"c1", "c2", kFed}},
      {"star wildcard", kCds, {"*"}, {"c1", "c2", kFed}},
      {"LDS wildcard", kLds, {}, {"l1"}},
      {"xdstp name, params reordered",
       kCds,
       {"xdstp://a.com/envoy.config.cluster.v3.Cluster/c%20x?a=1&b=2"},
       {kFed}},
      {"xdstp name, encoding differs",
       kCds,
       {"xdstp://a.com/envoy.config.cluster.v3.Cluster/c%20%78?b=2&a=1"},
       {kFed}},
      {"old-style names match exactly", kCds, {"C1"}, {}},
      {"RDS empty list subscribes to nothing", kRds, {}, {}, false},
  };
  int port = 0;
  std::unique_ptr<ControlPlane> cp = StartServer({}, &port);
  cp->SetSnapshot(MakeSnapshot("1", {"c1", "c2", kFed}, {"l1"}));
  for (const Case& c : kCases) {
    SCOPED_TRACE(c.label);
    AdsClient client(port);
    client.Send(c.type_url, c.names);
    std::optional<DiscoveryResponse> response =
        client.Next(c.want_response ? kWait : kQuiet);
    if (!c.want_response) {
      EXPECT_FALSE(response.has_value());
      continue;
    }
    ASSERT_TRUE(response.has_value());
    EXPECT_EQ(response->version_info(), "1");
    EXPECT_EQ(response->type_url(), c.type_url);
    EXPECT_FALSE(response->nonce().empty());
    std::vector<std::string> names = ResourceNames(*response);
    std::sort(names.begin(), names.end());
    EXPECT_EQ(names, c.want);
  }
}

// Envoy xDS protocol §ACK and NACK: an ACK or NACK of the last response with
// the same names asks for nothing; a changed subscription gets a response.
TEST(ControlPlaneTest, AckAndNackSendNothing) {
  int port = 0;
  std::unique_ptr<ControlPlane> cp = StartServer({}, &port);
  cp->SetSnapshot(MakeSnapshot("1", {"c1", "c2"}));
  AdsClient client(port);
  client.Send(kCds, {"c1"});
  std::optional<DiscoveryResponse> first = client.Next();
  ASSERT_TRUE(first.has_value());
  client.Send(kCds, {"c1"}, first->nonce(), "1");  // ACK
  EXPECT_FALSE(client.Next(kQuiet).has_value());
  client.Send(kCds, {"c1"}, first->nonce(), "", /*nack=*/true);
  EXPECT_FALSE(client.Next(kQuiet).has_value());
  client.Send(kCds, {"c1", "c2"}, first->nonce(), "1");
  std::optional<DiscoveryResponse> second = client.Next();
  ASSERT_TRUE(second.has_value());
  EXPECT_NE(second->nonce(), first->nonce());
  EXPECT_EQ(ResourceNames(*second), (std::vector<std::string>{"c1", "c2"}));

  std::vector<Json::Value> log = cp->RequestLog();
  ASSERT_EQ(log.size(), 4u);
  EXPECT_EQ(JsonToString(log[0]["resource_names"]), R"(["c1"])");
  EXPECT_EQ(log[0]["node_id"].asString(), "test-node");
  EXPECT_EQ(log[0]["type_url"].asString(), kCds);
  EXPECT_EQ(log[0]["response_nonce"].asString(), "");
  EXPECT_TRUE(log[0]["error_detail"].isNull());
  EXPECT_EQ(log[1]["version_info"].asString(), "1");
  EXPECT_EQ(log[1]["response_nonce"].asString(), first->nonce());
  EXPECT_EQ(JsonToString(log[2]["error_detail"]),
            R"({"code":3,"message":"bad resource"})");
  EXPECT_EQ(log[0]["stream_id"], log[3]["stream_id"]);
}

// A snapshot change goes to every stream, for every type it subscribes to.
TEST(ControlPlaneTest, SnapshotChangeIsPushedToEveryStream) {
  int port = 0;
  std::unique_ptr<ControlPlane> cp = StartServer({}, &port);
  cp->SetSnapshot(MakeSnapshot("1", {"c1"}, {"l1"}));
  AdsClient a(port);
  AdsClient b(port);
  a.Send(kCds, {"c1"});
  b.Send(kLds, {});
  ASSERT_TRUE(a.Next().has_value());
  ASSERT_TRUE(b.Next().has_value());
  EXPECT_EQ(cp->ActiveAdsStreams(), 2);

  cp->SetSnapshot(MakeSnapshot("2", {"c1"}, {"l1", "l2"}));
  std::optional<DiscoveryResponse> pushed_a = a.Next();
  std::optional<DiscoveryResponse> pushed_b = b.Next();
  ASSERT_TRUE(pushed_a.has_value());
  ASSERT_TRUE(pushed_b.has_value());
  EXPECT_EQ(pushed_a->version_info(), "2");
  EXPECT_EQ(pushed_b->version_info(), "2");
  EXPECT_EQ(ResourceNames(*pushed_b), (std::vector<std::string>{"l1", "l2"}));
  EXPECT_GE(cp->AdsResponsesSent(), 4);
}

TEST(ControlPlaneTest, WrappedResources) {
  ControlPlane::Options options;
  options.wrap_resources = true;
  int port = 0;
  std::unique_ptr<ControlPlane> cp = StartServer(options, &port);
  cp->SetSnapshot(MakeSnapshot("3", {"c1"}));
  AdsClient client(port);
  client.Send(kCds, {"c1"});
  std::optional<DiscoveryResponse> response = client.Next();
  ASSERT_TRUE(response.has_value());
  ASSERT_EQ(response->resources_size(), 1);
  EXPECT_EQ(response->resources(0).type_url(),
            "type.googleapis.com/envoy.service.discovery.v3.Resource");
  envoy::service::discovery::v3::Resource wrapper;
  ASSERT_TRUE(response->resources(0).UnpackTo(&wrapper));
  EXPECT_EQ(wrapper.name(), "c1");
  EXPECT_EQ(wrapper.version(), "3");
  envoy::config::cluster::v3::Cluster cluster;
  ASSERT_TRUE(wrapper.resource().UnpackTo(&cluster));
  EXPECT_EQ(cluster.name(), "c1");
}

TEST(ControlPlaneTest, StreamsEndOnShutdown) {
  int port = 0;
  std::unique_ptr<ControlPlane> cp = StartServer({}, &port);
  AdsClient client(port);
  client.Send(kLds, {});
  ASSERT_TRUE(client.Next().has_value());
  EXPECT_EQ(cp->ActiveAdsStreams(), 1);
  cp->Shutdown();
  EXPECT_EQ(cp->ActiveAdsStreams(), 0);
  EXPECT_FALSE(client.Next().has_value());
  EXPECT_TRUE(client.Done());
}

TEST(ControlPlaneTest, LrsRespondsAndLogsReports) {
  ControlPlane::Options options;
  options.lrs_interval = absl::Milliseconds(1500);
  int port = 0;
  std::unique_ptr<ControlPlane> cp = StartServer(options, &port);
  auto channel = grpc::CreateChannel(absl::StrCat("127.0.0.1:", port),
                                     grpc::InsecureChannelCredentials());
  auto stub =
      envoy::service::load_stats::v3::LoadReportingService::NewStub(channel);
  grpc::ClientContext context;
  auto stream = stub->StreamLoadStats(&context);
  envoy::service::load_stats::v3::LoadStatsRequest request;
  request.mutable_node()->set_id("test-node");
  ASSERT_TRUE(stream->Write(request));
  envoy::service::load_stats::v3::LoadStatsResponse response;
  ASSERT_TRUE(stream->Read(&response));
  EXPECT_TRUE(response.send_all_clusters());
  EXPECT_EQ(response.load_reporting_interval().seconds(), 1);
  EXPECT_EQ(response.load_reporting_interval().nanos(), 500000000);

  auto* stats = request.add_cluster_stats();
  stats->set_cluster_name("c1");
  stats->set_total_dropped_requests(7);
  ASSERT_TRUE(stream->Write(request));
  ASSERT_TRUE(cp->WaitForLoadReports(
      [](const std::vector<Json::Value>& reports) {
        return reports.size() >= 2;
      },
      kWait));
  std::vector<Json::Value> reports = cp->LoadReports();
  ASSERT_EQ(reports.size(), 2u);
  EXPECT_EQ(reports[1]["service"].asString(), "lrs");
  EXPECT_EQ(JsonToString(reports[1]["request"]["cluster_stats"]),
            R"([{"cluster_name":"c1","total_dropped_requests":"7"}])");
  EXPECT_EQ(reports[0]["request"]["node"]["id"].asString(), "test-node");
  context.TryCancel();
  stream->Finish().ok();
}

class TempDir {
 public:
  TempDir() {
    char tmpl[] = "/tmp/control_plane_test.XXXXXX";
    path_ = mkdtemp(tmpl);
  }
  ~TempDir() {
    std::string command = "rm -rf " + path_;
    std::system(command.c_str());
  }
  std::string File(const std::string& name) const { return path_ + "/" + name; }

 private:
  std::string path_;
};

// Written to a temporary name and renamed, so the poller never sees half a
// file.
void WriteFileAtomically(const std::string& path, const std::string& text) {
  std::string tmp = path + ".tmp";
  {
    std::ofstream out(tmp, std::ios::trunc);
    out << text;
  }
  ASSERT_EQ(std::rename(tmp.c_str(), path.c_str()), 0);
}

std::string ClusterSnapshotJson(const std::string& version,
                                const std::string& cluster) {
  return absl::StrCat(R"({"version":")", version,
                      R"(","resources":{"envoy.config.cluster.v3.Cluster":{")",
                      cluster, R"(":{}}}})");
}

// The file is polled: a valid change is pushed; a bad file keeps the old
// snapshot. The log file gets one JSON line per request.
TEST(ControlPlaneTest, SnapshotFileReloadAndLogFile) {
  TempDir dir;
  const std::string snapshot_path = dir.File("snapshot.json");
  WriteFileAtomically(snapshot_path, ClusterSnapshotJson("1", "c1"));
  ControlPlane::Options options;
  options.snapshot_file = snapshot_path;
  options.log_file = dir.File("requests.log");
  int port = 0;
  std::unique_ptr<ControlPlane> cp = StartServer(options, &port);
  AdsClient client(port);
  client.Send(kCds, {});
  std::optional<DiscoveryResponse> first = client.Next();
  ASSERT_TRUE(first.has_value());
  EXPECT_EQ(first->version_info(), "1");
  EXPECT_EQ(ResourceNames(*first), std::vector<std::string>{"c1"});

  WriteFileAtomically(snapshot_path, ClusterSnapshotJson("2", "c2"));
  std::optional<DiscoveryResponse> second = client.Next();
  ASSERT_TRUE(second.has_value());
  EXPECT_EQ(second->version_info(), "2");
  EXPECT_EQ(ResourceNames(*second), std::vector<std::string>{"c2"});

  WriteFileAtomically(snapshot_path, R"({"version":"3","resources":[]})");
  EXPECT_FALSE(client.Next(absl::Milliseconds(800)).has_value());
  EXPECT_EQ(cp->GetSnapshot().version, "2");

  client.Send(kCds, {}, second->nonce(), "2");
  ASSERT_TRUE(cp->WaitForRequests(
      [](const std::vector<Json::Value>& log) { return log.size() >= 2; },
      kWait));
  cp->Shutdown();
  std::ifstream log_file(options.log_file);
  std::string line;
  std::vector<Json::Value> lines;
  while (std::getline(log_file, line)) {
    absl::StatusOr<Json::Value> json = ParseJsonText(line);
    ASSERT_TRUE(json.ok()) << line;
    lines.push_back(*json);
  }
  ASSERT_EQ(lines.size(), 2u);
  EXPECT_EQ(lines[0]["type_url"].asString(), kCds);
  EXPECT_EQ(lines[1]["response_nonce"].asString(), second->nonce());
  EXPECT_EQ(lines[1]["version_info"].asString(), "2");
}

TEST(ControlPlaneTest, StartErrors) {
  TempDir dir;
  struct Case {
    const char* label;
    std::string listen;
    std::string snapshot_file;
    std::string snapshot_text;  // written to snapshot_file if non-empty
    std::string want;
  };
  const Case kCases[] = {
      {"missing snapshot file", "127.0.0.1:0", dir.File("none.json"), "",
       "cannot read " + dir.File("none.json") + ": No such file or directory"},
      // Issue 16 item 1: a directory is an error, not an exception.
      {"snapshot is a directory", "127.0.0.1:0", dir.File(""), "",
       "cannot read " + dir.File("") + ": is a directory"},
      {"bad snapshot", "127.0.0.1:0", dir.File("bad.json"),
       R"({"version":"1","resources":{"x.Y":{}}})",
       "invalid snapshot: [field:resources[\"x.Y\"] error:unknown resource "
       "type]"},
      {"bad listen address", "256.0.0.1:1", "", "",
       "cannot listen on 256.0.0.1:1"},
  };
  for (const Case& c : kCases) {
    SCOPED_TRACE(c.label);
    if (!c.snapshot_text.empty()) {
      WriteFileAtomically(c.snapshot_file, c.snapshot_text);
    }
    ControlPlane::Options options;
    options.listen = c.listen;
    options.snapshot_file = c.snapshot_file;
    ControlPlane cp(options);
    absl::StatusOr<int> port = cp.Start();
    ASSERT_FALSE(port.ok());
    EXPECT_EQ(port.status().message(), c.want);
  }
}

// Issue 29: a second `xdsfed control-plane --listen` on a busy port used to
// start (grpc++'s default SO_REUSEPORT) and 3 of 6 clients got nothing; it
// is refused with the address unless both asked to share the port.
TEST(ControlPlaneTest, PortInUseIsRefusedUnlessBothShare) {
  struct Case {
    const char* name;
    bool first_reuse, second_reuse, want_ok;
  };
  const Case kCases[] = {
      {"issue 29: neither asks to share", false, false, false},
      {"socket(7) SO_REUSEPORT: only the first asks", true, false, false},
      {"issue 29: both ask to share", true, true, true},
  };
  for (const Case& c : kCases) {
    SCOPED_TRACE(c.name);
    ControlPlane::Options options;
    options.allow_reuse_port = c.first_reuse;
    ControlPlane first(options);
    absl::StatusOr<int> port = first.Start();
    ASSERT_TRUE(port.ok()) << port.status();
    options.listen = absl::StrCat("127.0.0.1:", *port);
    options.allow_reuse_port = c.second_reuse;
    ControlPlane second(options);
    absl::StatusOr<int> second_port = second.Start();
    if (c.want_ok) {
      EXPECT_EQ(second_port.status(), absl::OkStatus());
      if (second_port.ok()) {
        EXPECT_EQ(*second_port, *port);
      }
    } else {
      EXPECT_EQ(second_port.status(),
                absl::UnavailableError(
                    absl::StrCat("address ", options.listen, " is in use")));
    }
  }
}

// Issue 16 item 6: a DiscoveryRequest that does not parse ends the stream
// with INVALID_ARGUMENT and the parse error, and is logged (it used to end
// with OK, as if the client had half-closed, and log nothing).
TEST(ControlPlaneTest, RequestThatDoesNotParseEndsTheStream) {
  TempDir dir;
  ControlPlane::Options options;
  options.log_file = dir.File("requests.log");
  int port = 0;
  std::unique_ptr<ControlPlane> cp = StartServer(options, &port);
  std::shared_ptr<grpc::Channel> channel = grpc::CreateChannel(
      absl::StrCat("127.0.0.1:", port), grpc::InsecureChannelCredentials());
  // A raw stream, so the bytes can be anything: field 1 (node) claims 5
  // bytes, 2 follow.
  const grpc::internal::RpcMethod method(
      "/envoy.service.discovery.v3.AggregatedDiscoveryService/"
      "StreamAggregatedResources",
      grpc::internal::RpcMethod::BIDI_STREAMING);
  grpc::ClientContext context;
  std::unique_ptr<grpc::ClientReaderWriter<grpc::ByteBuffer, grpc::ByteBuffer>>
      stream(grpc::internal::ClientReaderWriterFactory<
             grpc::ByteBuffer, grpc::ByteBuffer>::Create(channel.get(), method,
                                                         &context));
  const std::string bad =
      "\x0a\x05"
      "ab";
  grpc::Slice slice(bad);
  grpc::ByteBuffer request(&slice, 1);
  ASSERT_TRUE(stream->Write(request));
  grpc::ByteBuffer response;
  EXPECT_FALSE(stream->Read(&response));
  const grpc::Status status = stream->Finish();
  EXPECT_EQ(status.error_code(), grpc::StatusCode::INVALID_ARGUMENT);
  const std::string want =
      "request does not parse: 4 bytes that are not a serialized "
      "envoy.service.discovery.v3.DiscoveryRequest";
  EXPECT_EQ(status.error_message(), want);
  ASSERT_TRUE(cp->WaitForRequests(
      [](const std::vector<Json::Value>& log) { return !log.empty(); }, kWait));
  std::vector<Json::Value> log = cp->RequestLog();
  ASSERT_EQ(log.size(), 1u);
  EXPECT_EQ(log[0]["invalid_request"].asString(), want);
  cp->Shutdown();
  std::ifstream log_file(options.log_file);
  std::string line;
  ASSERT_TRUE(std::getline(log_file, line));
  EXPECT_NE(line.find(want), std::string::npos) << line;
}

// Issue 16 item 4: under churn (many short streams) the in-memory histories
// stay within Options::history_limit, streams leave nothing behind, and the
// log file still has every request.
TEST(ControlPlaneTest, HistoriesAreBoundedUnderChurn) {
  TempDir dir;
  ControlPlane::Options options;
  options.log_file = dir.File("requests.log");
  options.history_limit = 4;
  int port = 0;
  std::unique_ptr<ControlPlane> cp = StartServer(options, &port);
  cp->SetSnapshot(MakeSnapshot("1", {"c1"}));
  constexpr int kStreams = 20;
  for (int i = 0; i < kStreams; ++i) {
    AdsClient client(port);
    client.Send(kCds, {"c1"});
    std::optional<DiscoveryResponse> response = client.Next();
    ASSERT_TRUE(response.has_value());
    client.Send(kCds, {"c1"}, response->nonce(), "1");  // the ACK
    const std::string nonce = response->nonce();
    ASSERT_TRUE(cp->WaitForRequests(
        [&nonce](const std::vector<Json::Value>& log) {
          return !log.empty() &&
                 log.back()["response_nonce"].asString() == nonce;
        },
        kWait));
  }
  for (int i = 0; i < 100 && cp->ActiveAdsStreams() > 0; ++i) {
    absl::SleepFor(absl::Milliseconds(20));
  }
  EXPECT_EQ(cp->ActiveAdsStreams(), 0);
  EXPECT_GE(cp->RequestLog().size(), 4u);
  EXPECT_LT(cp->RequestLog().size(), 8u);
  std::vector<ControlPlane::AdsResponseTiming> timings =
      cp->AdsResponseTimings();
  ASSERT_EQ(timings.size(), 4u);
  // The newest are kept, and ACKs still find theirs.
  EXPECT_EQ(timings.back().nonce, std::to_string(kStreams));
  EXPECT_TRUE(timings.back().answered.has_value());
  EXPECT_EQ(cp->AdsResponsesSent(), kStreams);
  cp->Shutdown();
  std::ifstream log_file(options.log_file);
  std::string line;
  int lines = 0;
  while (std::getline(log_file, line)) ++lines;
  EXPECT_EQ(lines, 2 * kStreams);
}

}  // namespace
}  // namespace xdsfed::control_plane
