// ParseSnapshot: the snapshot file format of ../shared/CLI.md ("Snapshot
// file"), proto3 JSON resources, "@type" overrides, names from keys, errors
// with their paths.
#include <string>

#include "absl/strings/string_view.h"
#include "envoy/config/cluster/v3/cluster.pb.h"
#include "envoy/config/endpoint/v3/endpoint.pb.h"
#include "envoy/config/listener/v3/listener.pb.h"
#include "envoy/config/route/v3/route.pb.h"
#include "envoy/extensions/filters/network/http_connection_manager/v3/http_connection_manager.pb.h"
#include "gtest/gtest.h"
#include "tools/control_plane/control_plane.h"

namespace xdsfed::control_plane {
namespace {

constexpr absl::string_view kListener = "envoy.config.listener.v3.Listener";
constexpr absl::string_view kCluster = "envoy.config.cluster.v3.Cluster";
constexpr absl::string_view kCla =
    "envoy.config.endpoint.v3.ClusterLoadAssignment";

// CLI.md §Snapshot file: one resource per (type, name), parsed as the type.
TEST(ParseSnapshotTest, ValidSnapshots) {
  struct Case {
    const char* label;
    const char* json;
    std::string type;       // type name of the resource checked
    std::string key;        // its snapshot key
    std::string any_type;   // expected Any type URL
    std::string want_name;  // the name field after parsing
  };
  const Case kCases[] = {
      {"bare type name, name from key",
       R"({"version":"1","resources":{"envoy.config.cluster.v3.Cluster":
           {"c1":{"type":"EDS","eds_cluster_config":{}}}}})",
       std::string(kCluster), "c1",
       "type.googleapis.com/envoy.config.cluster.v3.Cluster", "c1"},
      {"full type URL key",
       R"({"version":"7","resources":{
           "type.googleapis.com/envoy.config.cluster.v3.Cluster":
           {"c1":{"name":"c1"}}}})",
       std::string(kCluster), "c1",
       "type.googleapis.com/envoy.config.cluster.v3.Cluster", "c1"},
      {"explicit name kept",
       R"({"version":"1","resources":{"envoy.config.cluster.v3.Cluster":
           {"key":{"name":"other"}}}})",
       std::string(kCluster), "key",
       "type.googleapis.com/envoy.config.cluster.v3.Cluster", "other"},
      {"ClusterLoadAssignment names by cluster_name",
       R"({"version":"1","resources":{
           "envoy.config.endpoint.v3.ClusterLoadAssignment":{"e1":{}}}})",
       std::string(kCla), "e1",
       "type.googleapis.com/envoy.config.endpoint.v3.ClusterLoadAssignment",
       "e1"},
      {"Listener with an HttpConnectionManager Any",
       R"({"version":"1","resources":{"envoy.config.listener.v3.Listener":
           {"xdstp://a.com/envoy.config.listener.v3.Listener/l?b=2&a=1":
            {"api_listener":{"api_listener":{
              "@type":"type.googleapis.com/envoy.extensions.filters.network.http_connection_manager.v3.HttpConnectionManager",
              "rds":{"route_config_name":"r1",
                     "config_source":{"ads":{}}},
              "http_filters":[{"name":"router","typed_config":{
                "@type":"type.googleapis.com/envoy.extensions.filters.http.router.v3.Router"}}]}}}}}})",
       std::string(kListener),
       "xdstp://a.com/envoy.config.listener.v3.Listener/l?b=2&a=1",
       "type.googleapis.com/envoy.config.listener.v3.Listener",
       "xdstp://a.com/envoy.config.listener.v3.Listener/l?b=2&a=1"},
      {"aggregate cluster Any",
       R"({"version":"1","resources":{"envoy.config.cluster.v3.Cluster":
           {"agg":{"cluster_type":{"name":"envoy.clusters.aggregate",
             "typed_config":{"@type":"type.googleapis.com/envoy.extensions.clusters.aggregate.v3.ClusterConfig",
                             "clusters":["a","b"]}}}}}})",
       std::string(kCluster), "agg",
       "type.googleapis.com/envoy.config.cluster.v3.Cluster", "agg"},
      {"@type of the same type",
       R"({"version":"1","resources":{"envoy.config.cluster.v3.Cluster":
           {"c1":{"@type":"type.googleapis.com/envoy.config.cluster.v3.Cluster"}}}})",
       std::string(kCluster), "c1",
       "type.googleapis.com/envoy.config.cluster.v3.Cluster", "c1"},
      // The wrong-type Any a test sends to see a NACK.
      {"@type override sends another type",
       R"({"version":"1","resources":{"envoy.config.listener.v3.Listener":
           {"l1":{"@type":"envoy.config.cluster.v3.Cluster"}}}})",
       std::string(kListener), "l1",
       "type.googleapis.com/envoy.config.cluster.v3.Cluster", "l1"},
  };
  for (const Case& c : kCases) {
    SCOPED_TRACE(c.label);
    absl::StatusOr<Snapshot> snapshot = ParseSnapshot(c.json);
    ASSERT_TRUE(snapshot.ok()) << snapshot.status();
    ASSERT_EQ(snapshot->resources.count(c.type), 1u);
    const auto& by_name = snapshot->resources.at(c.type);
    ASSERT_EQ(by_name.count(c.key), 1u);
    const SnapshotResource& resource = by_name.at(c.key);
    EXPECT_EQ(resource.type_url, c.any_type);
    std::string name;
    if (c.any_type == "type.googleapis.com/envoy.config.cluster.v3.Cluster") {
      envoy::config::cluster::v3::Cluster cluster;
      ASSERT_TRUE(cluster.ParseFromString(resource.bytes));
      name = cluster.name();
    } else if (c.type == kCla) {
      envoy::config::endpoint::v3::ClusterLoadAssignment cla;
      ASSERT_TRUE(cla.ParseFromString(resource.bytes));
      name = cla.cluster_name();
    } else {
      envoy::config::listener::v3::Listener listener;
      ASSERT_TRUE(listener.ParseFromString(resource.bytes));
      name = listener.name();
      envoy::extensions::filters::network::http_connection_manager::v3::
          HttpConnectionManager hcm;
      ASSERT_TRUE(listener.api_listener().api_listener().UnpackTo(&hcm));
      EXPECT_EQ(hcm.rds().route_config_name(), "r1");
      EXPECT_EQ(hcm.http_filters_size(), 1);
    }
    EXPECT_EQ(name, c.want_name);
  }
}

TEST(ParseSnapshotTest, VersionAndEmptyResources) {
  absl::StatusOr<Snapshot> snapshot = ParseSnapshot(R"({"version":"42"})");
  ASSERT_TRUE(snapshot.ok()) << snapshot.status();
  EXPECT_EQ(snapshot->version, "42");
  EXPECT_TRUE(snapshot->resources.empty());
}

// Every bad resource is reported, each under its path.
TEST(ParseSnapshotTest, Errors) {
  struct Case {
    const char* json;
    const char* want;
  };
  const Case kCases[] = {
      {"[1]",
       "invalid snapshot: expected a JSON object with \"version\" and "
       "\"resources\""},
      {"{", "invalid snapshot: malformed JSON: "},
      {R"({"resources":{}})",
       "invalid snapshot: [field:version error:field not present]"},
      {R"({"version":1,"extra":true,"resources":[]})",
       "invalid snapshot: [field:extra error:unknown field; expected "
       "\"version\" or \"resources\"; field:resources error:is not an "
       "object; field:version error:is not a string]"},
      {R"({"version":"1","resources":{"no.such.Type":{},
           "envoy.config.cluster.v3.Cluster":[]}})",
       "invalid snapshot: [field:resources[\"envoy.config.cluster.v3."
       "Cluster\"] error:is not an object; field:resources[\"no.such.Type\"] "
       "error:unknown resource type]"},
      {R"({"version":"1","resources":{"envoy.config.cluster.v3.Cluster":{
           "a":{"bogus":1},"b":3,"c":{"@type":"no.such.Type"},"d":{"@type":5},
           "ok":{}}}})",
       "invalid snapshot: [field:resources[\"envoy.config.cluster.v3."
       "Cluster\"][\"a\"] error:invalid proto3 JSON for "
       "envoy.config.cluster.v3.Cluster: "
       "bogus: Cannot find field.; "
       "field:resources[\"envoy.config.cluster.v3.Cluster\"][\"b\"] error:is "
       "not an object; "
       "field:resources[\"envoy.config.cluster.v3.Cluster\"][\"c\"][\"@type\"]"
       " error:unknown message type \"no.such.Type\"; "
       "field:resources[\"envoy.config.cluster.v3.Cluster\"][\"d\"][\"@type\"]"
       " error:is not a string]"},
      {R"({"version":"1","resources":{
           "envoy.config.cluster.v3.Cluster":{"a":{}},
           "type.googleapis.com/envoy.config.cluster.v3.Cluster":{"a":{}}}})",
       "invalid snapshot: [field:resources[\"type.googleapis.com/"
       "envoy.config.cluster.v3.Cluster\"][\"a\"] error:duplicate resource: "
       "its type is also spelled another way]"},
  };
  for (const Case& c : kCases) {
    SCOPED_TRACE(c.json);
    absl::StatusOr<Snapshot> snapshot = ParseSnapshot(c.json);
    ASSERT_FALSE(snapshot.ok());
    EXPECT_EQ(snapshot.status().code(), absl::StatusCode::kInvalidArgument);
    absl::string_view want = c.want;
    if (want.back() == ' ') {  // malformed JSON: prefix only
      EXPECT_EQ(snapshot.status().message().substr(0, want.size()), want);
    } else {
      EXPECT_EQ(snapshot.status().message(), want);
    }
  }
}

TEST(SnapshotTest, AddUsesTheMessageType) {
  envoy::config::route::v3::RouteConfiguration route;
  route.set_name("r1");
  Snapshot snapshot;
  snapshot.version = "1";
  snapshot.Add("r1", route);
  ASSERT_EQ(
      snapshot.resources.count("envoy.config.route.v3.RouteConfiguration"), 1u);
  const SnapshotResource& resource =
      snapshot.resources["envoy.config.route.v3.RouteConfiguration"]["r1"];
  EXPECT_EQ(resource.type_url,
            "type.googleapis.com/envoy.config.route.v3.RouteConfiguration");
  EXPECT_EQ(resource.bytes, route.SerializeAsString());
}

}  // namespace
}  // namespace xdsfed::control_plane
