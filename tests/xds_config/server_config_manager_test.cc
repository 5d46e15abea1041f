// lib/xds_config server mode (issue 11 items 2 and 6; A36 §xDS Protocol,
// §RouteConfiguration Resource Handling) over a fake watch source.
#include "lib/xds_config/server_config_manager.h"

#include <memory>
#include <string>
#include <vector>

#include "gtest/gtest.h"
#include "tests/xds_config/fake_watch_source.h"
#include "tests/xds_config/test_resources.h"

namespace xdsfed {
namespace xds_config {
namespace {

using namespace testing;  // NOLINT: test resource builders

constexpr char kName[] = "grpc/server/0.0.0.0:8080";
constexpr char kAddress[] = "0.0.0.0:8080";

// "error: <status>" or "R1=ok R2=NOT_FOUND ..." per RDS name.
std::string Describe(const ServerConfig& c) {
  if (!c.status.ok()) return "error: " + c.status.ToString();
  std::vector<std::string> parts;
  for (const auto& [name, rds] : c.route_configs) {
    parts.push_back(
        absl::StrCat(name, "=",
                     rds.route_config != nullptr
                         ? "ok"
                         : absl::StatusCodeToString(rds.status.code())));
  }
  return parts.empty() ? "serving (no RDS)" : absl::StrJoin(parts, " ");
}

class ServerConfigManagerTest : public ::testing::Test {
 protected:
  void SetUp() override {
    manager_ = ServerConfigManager::Start(
        source_, kName, kAddress,
        [this](std::shared_ptr<const ServerConfig> config) {
          published_.push_back(Describe(*config));
          last_ = std::move(config);
        });
  }
  void TearDown() override { manager_->Stop(); }
  std::string Take() {
    std::string out = absl::StrJoin(published_, "\n");
    published_.clear();
    return out;
  }
  void Listener(std::shared_ptr<const resources::Listener> l) {
    FakeWatchSource::Deliver(source_->lds, kName, std::move(l));
  }
  void Route(const std::string& name, const std::string& cluster = "c") {
    FakeWatchSource::Deliver(source_->rds, name,
                             std::make_shared<const resources::RouteConfig>(
                                 Routes(name, "*", cluster)));
  }

  std::shared_ptr<FakeWatchSource> source_ =
      std::make_shared<FakeWatchSource>();
  std::shared_ptr<ServerConfigManager> manager_;
  std::vector<std::string> published_;
  std::shared_ptr<const ServerConfig> last_;
};

// Issue 11 item 6: a Listener with three chains on two RDS names (and an
// inline default chain): published only once both RDS watches answered
// (A36: "only after every RDS watcher has received some kind of
// notification").
TEST_F(ServerConfigManagerTest, ThreeChainsTwoRdsNames) {
  Listener(ServerListener(kName, kAddress, {"R1", "R2", "R1"}, ""));
  EXPECT_EQ(source_->rds.Names(), "R1,R2");  // one watch per name
  Route("R1");
  EXPECT_EQ(Take(), "");
  Route("R2");
  EXPECT_EQ(Take(), "R1=ok R2=ok");
  ASSERT_NE(last_->listener, nullptr);
  // An RDS update after serving publishes the new config.
  Route("R2", "other");
  EXPECT_EQ(Take(), "R1=ok R2=ok");
}

// RDS error / does-not-exist count as answers: the server serves, and the
// chain's RPCs fail (A36); an error after a value keeps the value.
TEST_F(ServerConfigManagerTest, RdsErrorIsAnAnswer) {
  Listener(ServerListener(kName, kAddress, {"R1", "R2"}, "-"));
  Route("R1");
  FakeWatchSource::Error(source_->rds, "R2", absl::UnavailableError("NACK"));
  EXPECT_EQ(Take(), "R1=ok R2=UNAVAILABLE");
  EXPECT_EQ(last_->route_configs.at("R2").status.message(),
            "RouteConfiguration \"R2\": NACK");
  FakeWatchSource::Error(source_->rds, "R1", absl::UnavailableError("NACK"));
  EXPECT_EQ(Take(), "");  // R1 keeps its value
  FakeWatchSource::DoesNotExist(source_->rds, "R1");
  EXPECT_EQ(Take(), "R1=NOT_FOUND R2=UNAVAILABLE");
}

// Identical updates publish nothing: the same Listener again, the same
// route config again.
TEST_F(ServerConfigManagerTest, IdenticalUpdatePublishesNothing) {
  Listener(ServerListener(kName, kAddress, {"R1"}, ""));
  Route("R1");
  EXPECT_EQ(Take(), "R1=ok");
  Listener(ServerListener(kName, kAddress, {"R1"}, ""));
  Route("R1");
  EXPECT_EQ(Take(), "");
}

// A36: a Listener update is held until the RDS watches it adds have been
// tried; the old config keeps serving meanwhile, and RDS names only the old
// Listener used are released when the new one applies.
TEST_F(ServerConfigManagerTest, ListenerUpdateHeldUntilNewRdsAnswered) {
  Listener(ServerListener(kName, kAddress, {"R1"}, "-"));
  Route("R1");
  EXPECT_EQ(Take(), "R1=ok");
  std::shared_ptr<const resources::Listener> first = last_->listener;
  Listener(ServerListener(kName, kAddress, {"R2"}, "-"));
  EXPECT_EQ(source_->rds.Names(), "R1,R2");
  Route("R1", "changed");  // the held update does not go out with it
  EXPECT_EQ(Take(), "R1=ok");
  EXPECT_EQ(last_->listener, first);
  FakeWatchSource::DoesNotExist(source_->rds, "R2");  // the timer, bounded
  EXPECT_EQ(Take(), "R2=NOT_FOUND");
  EXPECT_EQ(source_->rds.Names(), "R2");
}

// A36: the Listener must carry the listening address, else not serving;
// a client Listener is not a server's. Does-not-exist: not serving.
TEST_F(ServerConfigManagerTest, NotServingCases) {
  Listener(ServerListener(kName, "10.0.0.1:8080", {"R1"}, "-"));
  EXPECT_EQ(Take(),
            "error: FAILED_PRECONDITION: Listener \"grpc/server/0.0.0.0:8080\" "
            "has address 10.0.0.1:8080, not the listening address "
            "0.0.0.0:8080");
  EXPECT_EQ(source_->rds.Names(), "");
  Listener(ClientListener(kName, "R1"));
  EXPECT_NE(Take().find("is not a server Listener"), std::string::npos);
  Listener(ServerListener(kName, kAddress, {}, ""));
  EXPECT_EQ(Take(), "serving (no RDS)");
  FakeWatchSource::DoesNotExist(source_->lds, kName);
  EXPECT_EQ(Take(),
            "error: NOT_FOUND: Listener \"grpc/server/0.0.0.0:8080\" does not "
            "exist");
}

}  // namespace
}  // namespace xds_config
}  // namespace xdsfed
