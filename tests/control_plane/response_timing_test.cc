// ControlPlane::AdsResponseTimings() and the request log's
// received_unix_nanos: the server-side clock of ACK-latency measurements
// (bench/ack_latency_bench.cc, issue 4 §7).
#include <memory>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/time/clock.h"
#include "envoy/config/cluster/v3/cluster.pb.h"
#include "envoy/service/discovery/v3/ads.grpc.pb.h"
#include "grpcpp/grpcpp.h"
#include "gtest/gtest.h"
#include "tools/control_plane/control_plane.h"

namespace xdsfed::control_plane {
namespace {

using envoy::service::discovery::v3::AggregatedDiscoveryService;
using envoy::service::discovery::v3::DiscoveryRequest;
using envoy::service::discovery::v3::DiscoveryResponse;

constexpr char kCds[] = "type.googleapis.com/envoy.config.cluster.v3.Cluster";

DiscoveryRequest Request(const std::string& nonce, bool nack) {
  DiscoveryRequest request;
  request.mutable_node()->set_id("timing-node");
  request.set_type_url(kCds);
  request.add_resource_names("c1");
  request.set_response_nonce(nonce);
  if (nack) request.mutable_error_detail()->set_message("bad");
  return request;
}

// Each response is timed from its write to the first request carrying its
// nonce; a NACK counts as the answer and is flagged; a later request with the
// same nonce does not move the answer time.
TEST(ResponseTimingTest, ResponsesAreTimedUntilTheirAckOrNack) {
  ControlPlane cp(ControlPlane::Options{});
  Snapshot snapshot;
  snapshot.version = "1";
  envoy::config::cluster::v3::Cluster cluster;
  cluster.set_name("c1");
  snapshot.Add("c1", cluster);
  cp.SetSnapshot(snapshot);
  absl::StatusOr<int> port = cp.Start();
  ASSERT_TRUE(port.ok()) << port.status();

  auto channel = grpc::CreateChannel(absl::StrCat("127.0.0.1:", *port),
                                     grpc::InsecureChannelCredentials());
  auto stub = AggregatedDiscoveryService::NewStub(channel);
  grpc::ClientContext context;
  auto stream = stub->StreamAggregatedResources(&context);
  const absl::Time start = absl::Now();
  ASSERT_TRUE(stream->Write(Request("", false)));
  DiscoveryResponse first;
  ASSERT_TRUE(stream->Read(&first));
  ASSERT_TRUE(stream->Write(Request(first.nonce(), false)));  // ACK
  snapshot.version = "2";
  cp.SetSnapshot(snapshot);
  DiscoveryResponse second;
  ASSERT_TRUE(stream->Read(&second));
  ASSERT_TRUE(stream->Write(Request(second.nonce(), true)));   // NACK
  ASSERT_TRUE(stream->Write(Request(second.nonce(), false)));  // again
  ASSERT_TRUE(cp.WaitForRequests(
      [](const std::vector<Json::Value>& log) { return log.size() >= 4; },
      absl::Seconds(10)));
  const absl::Time end = absl::Now();

  std::vector<ControlPlane::AdsResponseTiming> timings =
      cp.AdsResponseTimings();
  ASSERT_EQ(timings.size(), 2u);
  struct Want {
    const DiscoveryResponse* response;
    const char* version;
    bool nacked;
  };
  const Want kWant[] = {{&first, "1", false}, {&second, "2", true}};
  std::vector<Json::Value> log = cp.RequestLog();
  for (size_t i = 0; i < 2; ++i) {
    SCOPED_TRACE(i);
    const ControlPlane::AdsResponseTiming& t = timings[i];
    EXPECT_EQ(t.nonce, kWant[i].response->nonce());
    EXPECT_EQ(t.type_url, kCds);
    EXPECT_EQ(t.version, kWant[i].version);
    EXPECT_EQ(t.nacked, kWant[i].nacked);
    ASSERT_TRUE(t.write_started.has_value());
    ASSERT_TRUE(t.answered.has_value());
    EXPECT_GE(*t.write_started, start);
    EXPECT_LE(*t.write_started, *t.answered);
    // The answer is the first request naming the nonce (log entry i + 1).
    EXPECT_EQ(absl::ToUnixNanos(*t.answered),
              log[i + 1]["received_unix_nanos"].asInt64());
    EXPECT_LE(*t.answered, end);
  }
  EXPECT_GE(log[3]["received_unix_nanos"].asInt64(),
            absl::ToUnixNanos(*timings[1].answered));
  context.TryCancel();
  cp.Shutdown();
}

}  // namespace
}  // namespace xdsfed::control_plane
