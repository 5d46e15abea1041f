// lib/xds_config/static_cluster_tree.h: the A37 tree over a fixed set of
// serialized Clusters (what `xdsfed cluster-tree` prints). One table; each
// case names its rule.
#include "lib/xds_config/static_cluster_tree.h"

#include <string>
#include <utility>
#include <vector>

#include "absl/strings/str_join.h"
#include "envoy/config/cluster/v3/cluster.pb.h"
#include "envoy/extensions/clusters/aggregate/v3/cluster.pb.h"
#include "gtest/gtest.h"

namespace xdsfed {
namespace xds_config {
namespace {

using envoy::config::cluster::v3::Cluster;

std::pair<std::string, std::string> Eds(const std::string& name) {
  Cluster c;
  c.set_name(name);
  c.set_type(Cluster::EDS);
  c.mutable_eds_cluster_config()->mutable_eds_config()->mutable_ads();
  return {name, c.SerializeAsString()};
}
std::pair<std::string, std::string> Aggregate(
    const std::string& name, const std::vector<std::string>& children) {
  Cluster c;
  c.set_name(name);
  envoy::extensions::clusters::aggregate::v3::ClusterConfig config;
  for (const std::string& child : children) config.add_clusters(child);
  c.mutable_cluster_type()->set_name("envoy.clusters.aggregate");
  c.mutable_cluster_type()->mutable_typed_config()->PackFrom(config);
  return {name, c.SerializeAsString()};
}
std::pair<std::string, std::string> Invalid(const std::string& name) {
  Cluster c;
  c.set_name(name);
  c.set_type(Cluster::STATIC);  // gRPC supports EDS, LOGICAL_DNS, aggregate
  return {name, c.SerializeAsString()};
}

std::string Mechanisms(const StaticClusterTree& t) {
  std::vector<std::string> names;
  for (const auto& m : t.mechanisms) names.push_back(m.mechanism.cluster);
  return absl::StrJoin(names, ",");
}

TEST(StaticClusterTreeTest, Table) {
  const std::vector<std::pair<std::string, std::string>> snapshot = {
      Aggregate("A", {"B", "C"}),
      Eds("B"),
      Aggregate("C", {"D", "B"}),
      Eds("D"),
      Aggregate("broken", {"B", "missing"}),
      Aggregate("uses-bad", {"bad"}),
      Invalid("bad"),
  };
  struct Case {
    const char* rule;
    const char* root;
    const char* mechanisms;  // when OK
    const char* error;       // substring, "" = OK
  } const kCases[] = {
      {"A37: earliest position wins", "A", "B,D", ""},
      {"a leaf root is its own mechanism", "B", "B", ""},
      {"A37: a missing cluster is TRANSIENT_FAILURE", "broken", "",
       "CDS resource \"missing\" does not exist"},
      {"an invalid Cluster would be NACKed: it does not exist, and why",
       "uses-bad", "", "the snapshot's Cluster \"bad\" is invalid"},
      {"a missing root", "nope", "", "\"nope\" does not exist"},
  };
  for (const Case& c : kCases) {
    SCOPED_TRACE(c.rule);
    StaticClusterTree t = ResolveStaticClusterTree(snapshot, c.root,
                                                   /*federation=*/false,
                                                   /*bootstrap=*/nullptr);
    if (*c.error == '\0') {
      EXPECT_TRUE(t.status.ok()) << t.status;
      EXPECT_EQ(Mechanisms(t), c.mechanisms);
    } else {
      EXPECT_FALSE(t.status.ok());
      EXPECT_NE(t.status.message().find(c.error), absl::string_view::npos)
          << t.status;
    }
  }
}

}  // namespace
}  // namespace xds_config
}  // namespace xdsfed
