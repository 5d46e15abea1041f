// lib/xds_config client mode (issue 11 items 2 and 6) over a fake watch
// source: every event is delivered by the test, so each case can say
// exactly which snapshots must (and must not) be published. Each test names
// the rule it checks.
#include "lib/xds_config/xds_dependency_manager.h"

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

constexpr char kListener[] = "L";

class XdsDependencyManagerTest : public ::testing::Test {
 protected:
  void Start(const std::string& authority = "svc.example.com") {
    XdsDependencyManager::Options options;
    options.dns_resolver = dns_;
    manager_ = XdsDependencyManager::Start(
        source_, kListener, authority, options,
        [this](std::shared_ptr<const XdsConfig> config) {
          published_.push_back(Describe(*config));
          last_ = std::move(config);
        });
  }
  void TearDown() override {
    if (manager_ != nullptr) manager_->Stop();
  }
  // The snapshots since the last call, joined by "\n".
  std::string Take() {
    std::string out = absl::StrJoin(published_, "\n");
    published_.clear();
    return out;
  }
  void Listener(std::shared_ptr<const resources::Listener> l) {
    FakeWatchSource::Deliver(source_->lds, kListener, std::move(l));
  }
  void Route(resources::RouteConfig rc) {
    std::string name = rc.name;
    FakeWatchSource::Deliver(
        source_->rds, name,
        std::make_shared<const resources::RouteConfig>(std::move(rc)));
  }
  void Cluster(std::shared_ptr<const resources::ClusterResource> c) {
    std::string name = c->name;
    FakeWatchSource::Deliver(source_->cds, name, std::move(c));
  }
  void Eps(const std::string& name, int salt = 1) {
    FakeWatchSource::Deliver(source_->eds, name, Endpoints(name, 1, 1, salt));
  }

  std::shared_ptr<FakeWatchSource> source_ =
      std::make_shared<FakeWatchSource>();
  std::shared_ptr<FakeDnsResolver> dns_ = std::make_shared<FakeDnsResolver>();
  std::shared_ptr<XdsDependencyManager> manager_;
  std::vector<std::string> published_;
  std::shared_ptr<const XdsConfig> last_;
};

// Issue 11 item 2: a snapshot goes out only when every watch started has
// answered; Listener -> RDS -> clusters (incl. weighted_clusters) -> EDS.
TEST_F(XdsDependencyManagerTest, PublishesOnlyWhenComplete) {
  Start();
  EXPECT_EQ(source_->lds.Names(), "L");
  Listener(ClientListener(kListener, "R"));
  EXPECT_EQ(source_->rds.Names(), "R");
  EXPECT_EQ(Take(), "");  // RDS not answered
  Route(Routes("R", "svc.example.com", "A", "B,C"));
  EXPECT_EQ(source_->cds.Names(), "A,B,C");
  Cluster(Eds("A"));
  Cluster(Eds("B"));
  Cluster(Eds("C"));
  Eps("A");
  Eps("B");
  EXPECT_EQ(Take(), "");  // C's endpoints not answered
  Eps("C");
  EXPECT_EQ(Take(),
            "A: EDS A(10.1.0.1:80); B: EDS B(10.1.0.1:80); C: EDS "
            "C(10.1.0.1:80)");
  ASSERT_NE(last_->virtual_host, nullptr);
  EXPECT_EQ(last_->virtual_host->name, "vh-svc.example.com");
  EXPECT_EQ(last_->route_config_name, "R");
}

// Issue 11 item 6 (snapshot completeness table): each case drives the
// manager to one situation and says what the published snapshots are.
TEST_F(XdsDependencyManagerTest, MissingRdsIsAnErrorSnapshotNotAHang) {
  // "Done when": a Listener naming a RouteConfiguration that never arrives
  // gives a snapshot with that error once the client's does-not-exist timer
  // fires (the fake delivers that event).
  Start();
  Listener(ClientListener(kListener, "R"));
  EXPECT_EQ(Take(), "");
  FakeWatchSource::DoesNotExist(source_->rds, "R");
  EXPECT_EQ(Take(),
            "error: NOT_FOUND: RouteConfiguration \"R\" does not exist");
  ASSERT_NE(last_->listener, nullptr);  // the Listener is there
  // It arrives later: a complete snapshot follows.
  Route(Routes("R", "*", "A"));
  Cluster(Eds("A"));
  Eps("A");
  EXPECT_EQ(Take(), "A: EDS A(10.1.0.1:80)");
}

TEST_F(XdsDependencyManagerTest, ClusterErrorNextToGoodCluster) {
  // One cluster's failure is in its ClusterConfig; the other is usable.
  Start();
  Listener(ClientListener(kListener, "R"));
  Route(Routes("R", "*", "good,bad"));
  Cluster(Eds("good"));
  Eps("good");
  EXPECT_EQ(Take(), "");
  FakeWatchSource::DoesNotExist(source_->cds, "bad");
  EXPECT_EQ(Take(),
            "bad: error: CDS resource \"bad\" does not exist; good: EDS "
            "good(10.1.0.1:80)");
  // A transient error on a cluster before any config is also per cluster.
  Route(Routes("R", "*", "good,flaky"));
  EXPECT_EQ(source_->cds.Names(), "flaky,good");
  FakeWatchSource::Error(source_->cds, "flaky",
                         absl::UnavailableError("connection refused"));
  EXPECT_EQ(Take(),
            "flaky: error: CDS resource \"flaky\": connection refused; good: "
            "EDS good(10.1.0.1:80)");
}

TEST_F(XdsDependencyManagerTest, AggregateChangeDropsALeaf) {
  // The tree A -> [B, C] becomes A -> [B]: C's CDS and EDS watches are
  // cancelled on that update, and the snapshot has one leaf.
  Start();
  Listener(ClientListener(kListener, "R"));
  Route(Routes("R", "*", "A"));
  Cluster(Aggregate("A", "B,C"));
  Cluster(Eds("B"));
  Cluster(Eds("C"));
  Eps("B");
  Eps("C", 2);
  EXPECT_EQ(Take(), "A: EDS B(10.1.0.1:80) | EDS C(10.2.0.1:80)");
  EXPECT_EQ(source_->eds.Names(), "B,C");
  Cluster(Aggregate("A", "B"));
  EXPECT_EQ(Take(), "A: EDS B(10.1.0.1:80)");
  EXPECT_EQ(source_->cds.Names(), "A,B");
  EXPECT_EQ(source_->eds.Names(), "B");
  EXPECT_EQ(last_->clusters.Find("A")->tree,
            (std::vector<std::string>{"A", "B"}));
}

TEST_F(XdsDependencyManagerTest, ListenerDoesNotExist) {
  Start();
  FakeWatchSource::DoesNotExist(source_->lds, kListener);
  EXPECT_EQ(Take(), "error: NOT_FOUND: Listener \"L\" does not exist");
  // After a complete config, it drops everything the Listener led to.
  Listener(ClientListener(kListener, "R"));
  Route(Routes("R", "*", "A"));
  Cluster(Eds("A"));
  Eps("A");
  EXPECT_EQ(Take(), "A: EDS A(10.1.0.1:80)");
  FakeWatchSource::DoesNotExist(source_->lds, kListener);
  EXPECT_EQ(Take(), "error: NOT_FOUND: Listener \"L\" does not exist");
  EXPECT_EQ(source_->rds.Names(), "");
  EXPECT_EQ(source_->cds.Names(), "");
  EXPECT_EQ(source_->eds.Names(), "");
}

TEST_F(XdsDependencyManagerTest, ErrorsBeforeAndAfterAValue) {
  // Before any value an error is the snapshot; after one, the value stays
  // and nothing is published.
  Start();
  FakeWatchSource::Error(source_->lds, kListener,
                         absl::UnavailableError("no route to host"));
  EXPECT_EQ(Take(), "error: UNAVAILABLE: Listener \"L\": no route to host");
  Listener(ClientListener(kListener, "R"));
  FakeWatchSource::Error(source_->rds, "R", absl::UnavailableError("NACK"));
  EXPECT_EQ(Take(), "error: UNAVAILABLE: RouteConfiguration \"R\": NACK");
  Route(Routes("R", "*", "A"));
  Cluster(Eds("A"));
  Eps("A");
  EXPECT_EQ(Take(), "A: EDS A(10.1.0.1:80)");
  FakeWatchSource::Error(source_->lds, kListener,
                         absl::UnavailableError("stream reset"));
  FakeWatchSource::Error(source_->rds, "R", absl::UnavailableError("NACK"));
  FakeWatchSource::Error(source_->cds, "A", absl::UnavailableError("NACK"));
  EXPECT_EQ(Take(), "");
}

TEST_F(XdsDependencyManagerTest, VirtualHostForTheAuthority) {
  // The data-plane authority picks the virtual host (A47 / gRPC's
  // xds_routing ranking); none is an error snapshot.
  Start("api.example.com");
  Listener(ClientListener(kListener, "R"));
  resources::RouteConfig rc = Routes("R", "other.com", "X");
  rc.virtual_hosts.push_back(
      Routes("R", "*.example.com", "A").virtual_hosts[0]);
  Route(rc);
  EXPECT_EQ(source_->cds.Names(), "A");
  Cluster(Eds("A"));
  Eps("A");
  EXPECT_EQ(Take(), "A: EDS A(10.1.0.1:80)");
  Route(Routes("R", "other.com", "X"));
  EXPECT_EQ(Take(),
            "error: NOT_FOUND: no virtual host in RouteConfiguration \"R\" "
            "matches the domain \"api.example.com\"");
  EXPECT_EQ(source_->cds.Names(), "");
}

TEST_F(XdsDependencyManagerTest, InlineRouteConfigAndRdsSwitch) {
  // Inline route_config: no RDS watch. Switching to RDS starts it; the old
  // clusters stay watched until the new route answers, then are released.
  Start();
  Listener(InlineListener(kListener, Routes("inline", "*", "A")));
  EXPECT_EQ(source_->rds.Names(), "");
  Cluster(Eds("A"));
  Eps("A");
  EXPECT_EQ(Take(), "A: EDS A(10.1.0.1:80)");
  EXPECT_EQ(last_->route_config_name, "");
  Listener(ClientListener(kListener, "R"));
  EXPECT_EQ(source_->rds.Names(), "R");
  EXPECT_EQ(source_->cds.Names(), "A");
  EXPECT_EQ(Take(), "");
  Route(Routes("R", "*", "B"));
  EXPECT_EQ(source_->cds.Names(), "B");
  Cluster(Eds("B"));
  Eps("B");
  EXPECT_EQ(Take(), "B: EDS B(10.1.0.1:80)");
  // A new RDS name: the old RDS watch goes at once.
  Listener(ClientListener(kListener, "R2"));
  EXPECT_EQ(source_->rds.Names(), "R2");
}

TEST_F(XdsDependencyManagerTest, EdsUpdateReplacesOneClusterConfig) {
  // Issue 11 item 7: an EDS update republishes with the other clusters'
  // configs shared, not rebuilt.
  Start();
  Listener(ClientListener(kListener, "R"));
  Route(Routes("R", "*", "A,B"));
  Cluster(Eds("A"));
  Cluster(Eds("B"));
  Eps("A");
  Eps("B");
  Take();
  std::shared_ptr<const XdsConfig> before = last_;
  Eps("A", 7);
  EXPECT_EQ(Take(), "A: EDS A(10.7.0.1:80); B: EDS B(10.1.0.1:80)");
  EXPECT_NE(last_->clusters.Get("A"), before->clusters.Get("A"));
  EXPECT_EQ(last_->clusters.Get("B"), before->clusters.Get("B"));
  EXPECT_EQ(last_->listener, before->listener);
  EXPECT_EQ(last_->route_config, before->route_config);
  // The snapshot already published is unchanged.
  EXPECT_EQ(Describe(*before), "A: EDS A(10.1.0.1:80); B: EDS B(10.1.0.1:80)");
}

TEST_F(XdsDependencyManagerTest, LogicalDnsLeafAndReresolution) {
  // A37: a LOGICAL_DNS leaf resolves through the DNS resolver; the data
  // plane's re-resolution request reaches it, and is ignored for EDS.
  Start();
  Listener(ClientListener(kListener, "R"));
  Route(Routes("R", "*", "A"));
  Cluster(Aggregate("A", "e,d"));
  Cluster(Eds("e"));
  Cluster(Dns("d", "localhost", 8080));
  Eps("e");
  ASSERT_EQ(dns_->pending.size(), 1u);
  dns_->AnswerAll(std::vector<std::string>{"127.0.0.1:8080"});
  EXPECT_EQ(Take(), "A: EDS e(10.1.0.1:80) | LOGICAL_DNS d(127.0.0.1:8080)");
  manager_->RequestReresolution("A", "e");
  EXPECT_EQ(dns_->pending.size(), 0u);
  manager_->RequestReresolution("A", "d");
  EXPECT_EQ(dns_->pending.size(), 1u);
  // The route drops A: its DNS query in flight is cancelled.
  Route(Routes("R", "*", "e"));
  EXPECT_EQ(dns_->pending.size(), 0u);
  EXPECT_EQ(dns_->cancelled, 1);
}

TEST_F(XdsDependencyManagerTest, StopReleasesEverything) {
  Start();
  Listener(ClientListener(kListener, "R"));
  Route(Routes("R", "*", "A"));
  Cluster(Eds("A"));
  manager_->Stop();
  EXPECT_EQ(source_->lds.Names(), "");
  EXPECT_EQ(source_->rds.Names(), "");
  EXPECT_EQ(source_->cds.Names(), "");
  EXPECT_EQ(source_->eds.Names(), "");
  Eps("A");
  EXPECT_EQ(Take(), "");
}

// "Done when": 10,000 clusters named by one route config: the manager
// stays linear (this finishes in well under a second; bench/ has figures).
TEST_F(XdsDependencyManagerTest, TenThousandClusters) {
  Start();
  Listener(ClientListener(kListener, "R"));
  std::vector<std::string> names;
  for (int i = 0; i < 10000; ++i) names.push_back(absl::StrCat("c", i));
  Route(Routes("R", "*", absl::StrJoin(names, ",")));
  for (const std::string& name : names) Cluster(Eds(name));
  for (const std::string& name : names) Eps(name);
  ASSERT_EQ(published_.size(), 1u);
  EXPECT_EQ(last_->clusters.size(), 10000u);
  EXPECT_NE(last_->clusters.Find("c9999"), nullptr);
}

}  // namespace
}  // namespace xds_config
}  // namespace xdsfed
