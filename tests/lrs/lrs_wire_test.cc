// The LRS messages as gRPC C-core 1.51 builds and reads them (xds_api.cc
// CreateLrsInitialRequest / CreateLrsRequest / ParseLrsResponse), and the
// load_reporting_interval clamp.
#include "lib/lrs/internal/lrs_wire.h"

#include <cstdint>
#include <limits>
#include <string>

#include "absl/time/time.h"
#include "gtest/gtest.h"
#include "tests/lrs/lrs_test_util.h"

namespace xdsfed {
namespace lrs {
namespace {

using envoy::service::load_stats::v3::LoadStatsRequest;
using testing::LrsResponseMessage;

std::shared_ptr<const Bootstrap> TestBootstrap() {
  auto bootstrap = Bootstrap::Parse(
      R"({"xds_servers":[{"server_uri":"s:1","channel_creds":[{"type":"insecure"}]}],
          "node":{"id":"n1","cluster":"nc","locality":{"zone":"z"}}})",
      true);
  EXPECT_TRUE(bootstrap.ok()) << bootstrap.status();
  return *bootstrap;
}

// C-core: below 1 s is raised to 1 s; ours: above a day is lowered to a day
// (timers stay finite). No input overflows.
TEST(LrsWireTest, ClampLoadReportingInterval) {
  constexpr int64_t kMax64 = std::numeric_limits<int64_t>::max();
  constexpr int64_t kMin64 = std::numeric_limits<int64_t>::min();
  constexpr int32_t kMax32 = std::numeric_limits<int32_t>::max();
  struct Case {
    int64_t seconds;
    int32_t nanos;
    absl::Duration want;
  };
  const Case kCases[] = {
      {0, 0, absl::Seconds(1)},  // unset
      {0, 999999999, absl::Seconds(1)},
      {-5, 0, absl::Seconds(1)},
      {0, -1, absl::Seconds(1)},
      {1, 0, absl::Seconds(1)},
      {2, 500000000, absl::Milliseconds(2500)},
      {10, -1, absl::Seconds(10) - absl::Nanoseconds(1)},  // out-of-range sign
      {0, kMax32, absl::Nanoseconds(kMax32)},              // nanos > 1 s
      {86400, 0, absl::Hours(24)},
      {86401, 0, absl::Hours(24)},
      {1000000000, 0, absl::Hours(24)},  // 1e9 s
      {kMax64, kMax32, absl::Hours(24)},
      {kMin64, -kMax32, absl::Seconds(1)},
  };
  for (const Case& c : kCases) {
    SCOPED_TRACE(::testing::Message() << c.seconds << "s " << c.nanos << "ns");
    EXPECT_EQ(ClampLoadReportingInterval(c.seconds, c.nanos), c.want);
  }
}

TEST(LrsWireTest, ParseLrsResponse) {
  struct Case {
    const char* name;
    std::string bytes;
    LrsResponse want;
  };
  const Case kCases[] = {
      {"empty message: no clusters, minimum interval", "", {}},
      {"send_all_clusters: the list is ignored (C-core)",
       LrsResponseMessage(true, {"a"}, 5).SerializeAsString(),
       {true, {}, absl::Seconds(5)}},
      {"listed clusters",
       LrsResponseMessage(false, {"b", "a", "a"}, 3).SerializeAsString(),
       {false, {"a", "b"}, absl::Seconds(3)}},
      {"interval clamped",
       LrsResponseMessage(true, {}, 0, 1).SerializeAsString(),
       {true, {}, absl::Seconds(1)}},
  };
  for (const Case& c : kCases) {
    SCOPED_TRACE(c.name);
    absl::StatusOr<LrsResponse> got = ParseLrsResponse(c.bytes);
    ASSERT_TRUE(got.ok()) << got.status();
    EXPECT_EQ(*got, c.want);
  }
  // Not a LoadStatsResponse (truncated field): C-core ignores the response.
  EXPECT_EQ(ParseLrsResponse("\x0a\x05"
                             "ab")
                .status(),
            absl::InvalidArgumentError("cannot parse LoadStatsResponse"));
}

// First request: the ADS node plus "envoy.lrs.supports_send_all_clusters",
// and nothing else.
TEST(LrsWireTest, InitialRequestCarriesNode) {
  LoadStatsRequest request;
  ASSERT_TRUE(request.ParseFromString(
      BuildInitialLrsRequest(BuildLrsNode(*TestBootstrap(), "agent", "9.9"))));
  EXPECT_EQ(request.cluster_stats_size(), 0);
  const auto& node = request.node();
  EXPECT_EQ(node.id(), "n1");
  EXPECT_EQ(node.cluster(), "nc");
  EXPECT_EQ(node.locality().zone(), "z");
  EXPECT_EQ(node.user_agent_name(), "agent");
  EXPECT_EQ(node.user_agent_version(), "9.9");
  EXPECT_EQ(
      std::vector<std::string>(node.client_features().begin(),
                               node.client_features().end()),
      (std::vector<std::string>{"envoy.lb.does_not_support_overprovisioning",
                                "xds.config.resource-in-sotw",
                                "envoy.lrs.supports_send_all_clusters"}));
}

// ClusterStats as C-core fills it.
TEST(LrsWireTest, ReportMessage) {
  ClusterLoadReport with_eds;
  with_eds.cluster_name = "c1";
  with_eds.eds_service_name = "eds1";
  with_eds.drops.uncategorized_drops = 2;
  with_eds.drops.categorized_drops = {{"lb", 3}, {"throttle", 4}};
  with_eds.localities[Locality{"r", "z", "s"}] =
      LocalitySnapshot{5, 6, 7, 18, {{"cpu", {2, 1.5}}}};
  with_eds.load_report_interval = absl::Milliseconds(2500);
  ClusterLoadReport plain;
  plain.cluster_name = "c2";
  plain.load_report_interval = absl::Seconds(1);
  LoadStatsRequest request;
  ASSERT_TRUE(request.ParseFromString(BuildLrsReport({with_eds, plain})));
  EXPECT_FALSE(request.has_node());  // the first request only
  ASSERT_EQ(request.cluster_stats_size(), 2);
  const auto& c1 = request.cluster_stats(0);
  EXPECT_EQ(c1.cluster_name(), "c1");
  EXPECT_EQ(c1.cluster_service_name(), "eds1");
  EXPECT_EQ(c1.total_dropped_requests(), 9u);  // categorized + uncategorized
  ASSERT_EQ(c1.dropped_requests_size(), 2);
  EXPECT_EQ(c1.dropped_requests(0).category(), "lb");
  EXPECT_EQ(c1.dropped_requests(0).dropped_count(), 3u);
  EXPECT_EQ(c1.dropped_requests(1).category(), "throttle");
  EXPECT_EQ(c1.load_report_interval().seconds(), 2);
  EXPECT_EQ(c1.load_report_interval().nanos(), 500000000);
  ASSERT_EQ(c1.upstream_locality_stats_size(), 1);
  const auto& loc = c1.upstream_locality_stats(0);
  EXPECT_EQ(loc.locality().region(), "r");
  EXPECT_EQ(loc.locality().zone(), "z");
  EXPECT_EQ(loc.locality().sub_zone(), "s");
  EXPECT_EQ(loc.total_successful_requests(), 5u);
  EXPECT_EQ(loc.total_requests_in_progress(), 6u);
  EXPECT_EQ(loc.total_error_requests(), 7u);
  EXPECT_EQ(loc.total_issued_requests(), 18u);
  ASSERT_EQ(loc.load_metric_stats_size(), 1);
  EXPECT_EQ(loc.load_metric_stats(0).metric_name(), "cpu");
  EXPECT_EQ(loc.load_metric_stats(0).num_requests_finished_with_metric(), 2u);
  EXPECT_EQ(loc.load_metric_stats(0).total_metric_value(), 1.5);
  const auto& c2 = request.cluster_stats(1);
  EXPECT_EQ(c2.cluster_name(), "c2");
  EXPECT_FALSE(c2.cluster_service_name().size() > 0);
  EXPECT_EQ(c2.total_dropped_requests(), 0u);
  EXPECT_EQ(c2.load_report_interval().seconds(), 1);
}

}  // namespace
}  // namespace lrs
}  // namespace xdsfed
