// tools/health_backend: the grpc.health.v1 backend tests, demos and
// `xdsfed serve` use (issue 12 CLI: "sleep:MS" answers after MS ms; issue 13
// reads x-backend-id).
#include "tools/health_backend/health_backend.h"

#include <thread>

#include "absl/time/clock.h"
#include "envoy/service/status/v3/csds.grpc.pb.h"
#include "grpcpp/health_check_service_interface.h"
#include "gtest/gtest.h"

namespace xdsfed::health_backend {
namespace {

TEST(ParseSleepMs, Table) {
  struct Case {
    const char* service;
    int64_t want;
  };
  const Case cases[] = {
      {"", -1},
      {"grpc.health.v1.Health", -1},
      {"sleep:0", 0},
      {"sleep:250", 250},
      {"sleep:600000", 600000},  // kMaxSleepMs
      {"sleep:600001", -1},      // above the cap: answer at once
      {"sleep:", -1},
      {"sleep:-5", -1},
      {"sleep:+5", -1},
      {"sleep: 5", -1},
      {"sleep:5ms", -1},
      {"sleep:99999999999999999999", -1},
      {"Sleep:5", -1},
  };
  for (const Case& c : cases) {
    EXPECT_EQ(ParseSleepMs(c.service), c.want) << c.service;
  }
}

class HealthBackendTest : public ::testing::Test {
 protected:
  void SetUp() override {
    absl::StatusOr<int> port = backend_.Start();
    ASSERT_TRUE(port.ok()) << port.status();
    backend_port_ = *port;
    channel_ = grpc::CreateChannel("127.0.0.1:" + std::to_string(*port),
                                   grpc::InsecureChannelCredentials());
  }

  HealthBackend backend_{"b7"};
  int backend_port_ = 0;
  std::shared_ptr<grpc::Channel> channel_;
};

TEST_F(HealthBackendTest, CheckAnswersServingWithBackendId) {
  HealthCheckResult r = HealthCheckOnce(channel_, "", absl::Seconds(10), true);
  ASSERT_TRUE(r.status.ok()) << r.status.error_message();
  EXPECT_EQ(r.serving, grpc::health::v1::HealthCheckResponse::SERVING);
  EXPECT_EQ(r.backend_id, "b7");
  EXPECT_EQ(backend_.service().checks_answered(), 1u);
}

// Issue 29: `control-plane --health-backends ID@HOST:PORT` on a busy port
// used to share it (grpc++'s default SO_REUSEPORT); it is refused.
TEST_F(HealthBackendTest, PortInUseIsRefused) {
  HealthBackend second("b8");
  const std::string address = "127.0.0.1:" + std::to_string(backend_port_);
  absl::StatusOr<int> port = second.Start(address);
  EXPECT_EQ(port.status(), absl::UnavailableError("health backend: address " +
                                                  address + " is in use"));
}

TEST_F(HealthBackendTest, SleepAnswersAfterTheDelay) {
  ASSERT_TRUE(
      HealthCheckOnce(channel_, "", absl::Seconds(10), true).status.ok());
  absl::Time start = absl::Now();
  HealthCheckResult r =
      HealthCheckOnce(channel_, "sleep:300", absl::Seconds(10));
  absl::Duration took = absl::Now() - start;
  ASSERT_TRUE(r.status.ok()) << r.status.error_message();
  EXPECT_EQ(r.backend_id, "b7");
  EXPECT_GE(took, absl::Milliseconds(300));
  EXPECT_LT(took, absl::Seconds(5));
}

TEST_F(HealthBackendTest, SleepLongerThanDeadlineFailsWithDeadline) {
  HealthCheckResult r =
      HealthCheckOnce(channel_, "sleep:5000", absl::Milliseconds(200), true);
  EXPECT_EQ(r.status.error_code(), grpc::StatusCode::DEADLINE_EXCEEDED);
}

TEST_F(HealthBackendTest, ShutdownDoesNotWaitOutASleepingCall) {
  ASSERT_TRUE(
      HealthCheckOnce(channel_, "", absl::Seconds(10), true).status.ok());
  std::thread caller([&] {
    HealthCheckResult r =
        HealthCheckOnce(channel_, "sleep:60000", absl::Seconds(60));
    EXPECT_FALSE(r.status.ok());
  });
  absl::SleepFor(absl::Milliseconds(200));
  absl::Time start = absl::Now();
  backend_.Shutdown();
  EXPECT_LT(absl::Now() - start, absl::Seconds(10));
  caller.join();
}

// Wire compatibility of proto/grpc/health/v1 with gRPC's own: gRPC C++'s
// built-in health service (its own encoder, not our generated code) answers
// our stub's Check.
TEST(HealthProtoWire, GrpcBuiltInHealthServiceAnswersOurStub) {
  grpc::EnableDefaultHealthCheckService(true);
  int port = 0;
  grpc::ServerBuilder builder;
  builder.AddListeningPort("127.0.0.1:0", grpc::InsecureServerCredentials(),
                           &port);
  // The built-in health service needs a sync service's polled queues.
  envoy::service::status::v3::ClientStatusDiscoveryService::Service any_sync;
  builder.RegisterService(&any_sync);
  std::unique_ptr<grpc::Server> server = builder.BuildAndStart();
  grpc::EnableDefaultHealthCheckService(false);
  ASSERT_NE(server, nullptr);
  server->GetHealthCheckService()->SetServingStatus("svc", false);
  auto channel = grpc::CreateChannel("127.0.0.1:" + std::to_string(port),
                                     grpc::InsecureChannelCredentials());
  HealthCheckResult all = HealthCheckOnce(channel, "", absl::Seconds(10), true);
  ASSERT_TRUE(all.status.ok()) << all.status.error_message();
  EXPECT_EQ(all.serving, grpc::health::v1::HealthCheckResponse::SERVING);
  HealthCheckResult svc = HealthCheckOnce(channel, "svc", absl::Seconds(10));
  ASSERT_TRUE(svc.status.ok()) << svc.status.error_message();
  EXPECT_EQ(svc.serving, grpc::health::v1::HealthCheckResponse::NOT_SERVING);
  server->Shutdown();
}

}  // namespace
}  // namespace xdsfed::health_backend
