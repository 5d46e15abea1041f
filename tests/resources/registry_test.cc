// Tests for FindResourceType (lib/resources/registry.cc): every spelling a
// user or a DiscoveryResponse uses for a type (CLI.md §watch, A47 type
// segments of xdstp: names).
#include <memory>
#include <string>

#include "gtest/gtest.h"
#include "lib/resources/cluster.h"
#include "lib/resources/endpoint.h"
#include "lib/resources/listener.h"
#include "lib/resources/resource_type.h"
#include "lib/resources/route_config.h"

namespace xdsfed {
namespace resources {
namespace {

TEST(RegistryTest, FindResourceType) {
  struct Case {
    const char* name;
    const ResourceType* want;  // null: no such type
  };
  const ResourceType* lds = &ListenerResourceType();
  const ResourceType* rds = &RouteConfigResourceType();
  const ResourceType* cds = &ClusterResourceType();
  const ResourceType* eds = &EndpointResourceType();
  const Case kCases[] = {
      // Full type URLs, as in DiscoveryRequest/Response.type_url.
      {"type.googleapis.com/envoy.config.listener.v3.Listener", lds},
      {"type.googleapis.com/envoy.config.route.v3.RouteConfiguration", rds},
      {"type.googleapis.com/envoy.config.cluster.v3.Cluster", cds},
      {"type.googleapis.com/envoy.config.endpoint.v3.ClusterLoadAssignment",
       eds},
      // Bare type names, as in the type segment of an xdstp: name (A47).
      {"envoy.config.listener.v3.Listener", lds},
      {"envoy.config.route.v3.RouteConfiguration", rds},
      {"envoy.config.cluster.v3.Cluster", cds},
      {"envoy.config.endpoint.v3.ClusterLoadAssignment", eds},
      // Short names (CLI.md §validate --type).
      {"Listener", lds},
      {"RouteConfiguration", rds},
      {"Cluster", cds},
      {"ClusterLoadAssignment", eds},
      // CLI aliases, any case (CLI.md §watch).
      {"lds", lds},
      {"RDS", rds},
      {"Cds", cds},
      {"eDs", eds},
      // Unknown spellings.
      {"", nullptr},
      {"listener", nullptr},  // short names are case-sensitive
      {"cluster", nullptr},
      {"xds", nullptr},
      {"envoy.config.cluster.v2.Cluster", nullptr},
      {"type.googleapis.com/envoy.api.v2.Cluster", nullptr},
      {"type.googleapis.com/", nullptr},
      {"ldss", nullptr},
  };
  for (const Case& c : kCases) {
    SCOPED_TRACE(c.name);
    EXPECT_EQ(FindResourceType(c.name), c.want);
  }
}

TEST(RegistryTest, TypeProperties) {
  struct Case {
    const ResourceType* type;
    const char* type_url;
    const char* short_name;
    bool all_required;  // A47 / xDS protocol: LDS and CDS in SotW
  };
  const Case kCases[] = {
      {&ListenerResourceType(),
       "type.googleapis.com/envoy.config.listener.v3.Listener", "Listener",
       true},
      {&RouteConfigResourceType(),
       "type.googleapis.com/envoy.config.route.v3.RouteConfiguration",
       "RouteConfiguration", false},
      {&ClusterResourceType(),
       "type.googleapis.com/envoy.config.cluster.v3.Cluster", "Cluster", true},
      {&EndpointResourceType(),
       "type.googleapis.com/envoy.config.endpoint.v3.ClusterLoadAssignment",
       "ClusterLoadAssignment", false},
  };
  for (const Case& c : kCases) {
    SCOPED_TRACE(c.short_name);
    EXPECT_EQ(c.type->type_url(), c.type_url);
    EXPECT_EQ(c.type->type_name(),
              std::string(c.type_url).substr(kTypeUrlPrefix.size()));
    EXPECT_EQ(c.type->short_name(), c.short_name);
    EXPECT_EQ(c.type->all_resources_required_in_sotw(), c.all_required);
  }
}

// XdsResourceType<T>::Get() is the type the client uses for T (what
// XdsClient::Watch<T> subscribes with), the same object as the named getter.
TEST(RegistryTest, TypedGetIsTheRegisteredType) {
  EXPECT_EQ(&XdsResourceType<Listener>::Get(), &ListenerResourceType());
  EXPECT_EQ(&XdsResourceType<RouteConfig>::Get(), &RouteConfigResourceType());
  EXPECT_EQ(&XdsResourceType<ClusterResource>::Get(), &ClusterResourceType());
  EXPECT_EQ(&XdsResourceType<EndpointResource>::Get(), &EndpointResourceType());
}

// Cast is checked: a value of one type never reads as another, and the
// type-erased ToJson / Equal of a type refuse another type's value.
TEST(RegistryTest, CastChecksTheValueType) {
  ClusterResource cluster;
  cluster.name = "c1";
  std::shared_ptr<const ResourceData> data =
      XdsResourceType<ClusterResource>::Wrap(cluster);
  ASSERT_NE(XdsResourceType<ClusterResource>::Cast(data.get()), nullptr);
  EXPECT_EQ(XdsResourceType<ClusterResource>::Cast(data)->name, "c1");
  EXPECT_EQ(XdsResourceType<Listener>::Cast(data.get()), nullptr);
  EXPECT_EQ(XdsResourceType<EndpointResource>::Cast(data), nullptr);
  EXPECT_EQ(XdsResourceType<Listener>::Cast(nullptr), nullptr);
  EXPECT_EQ(ClusterResourceType().ToJson(data.get())["name"].asString(), "c1");
  EXPECT_TRUE(ListenerResourceType().ToJson(data.get()).isNull());
  EXPECT_TRUE(ClusterResourceType().Equal(data.get(), data.get()));
  EXPECT_FALSE(ListenerResourceType().Equal(data.get(), data.get()));
  EXPECT_FALSE(ClusterResourceType().Equal(data.get(), nullptr));
}

}  // namespace
}  // namespace resources
}  // namespace xdsfed
