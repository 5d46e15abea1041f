// Issue 16 item 7: binary input that fails only because it nests deeper than
// libprotobuf's recursion limit says so, for every resource type; other
// garbage keeps the plain message.
#include "lib/resources/internal/wire_nesting.h"

#include <string>

#include "envoy/config/cluster/v3/cluster.pb.h"
#include "envoy/config/core/v3/base.pb.h"
#include "google/protobuf/struct.pb.h"
#include "gtest/gtest.h"
#include "lib/resources/resource_type.h"

namespace xdsfed::resources {
namespace {

// A Cluster whose metadata holds a list nested `levels` deep:
// Cluster.metadata -> filter_metadata entry -> Struct -> fields entry ->
// Value -> ListValue -> Value -> ... (each list adds two levels).
std::string DeepCluster(int lists) {
  envoy::config::cluster::v3::Cluster cluster;
  cluster.set_name("c");
  google::protobuf::Value* value =
      &(*(*cluster.mutable_metadata()->mutable_filter_metadata())["k"]
             .mutable_fields())["v"];
  for (int i = 0; i < lists; ++i) {
    value = value->mutable_list_value()->add_values();
  }
  value->set_string_value("leaf");
  return cluster.SerializeAsString();
}

TEST(WireNestingTest, DepthTable) {
  const auto& cluster = *envoy::config::cluster::v3::Cluster::descriptor();
  struct Case {
    const char* label;
    std::string bytes;
    int want;
  };
  const Case kCases[] = {
      {"empty", "", 0},
      {"scalar only",
       std::string("\x0a\x01"
                   "c",
                   3),
       0},
      // metadata(1) + entry(2) + Struct(3) + entry(4) + Value(5)
      {"no list", DeepCluster(0), 5},
      {"ten lists", DeepCluster(10), 25},
      {"truncated", std::string("\xca\x01\x05", 3), 0},
      // An unknown group still nests (libprotobuf recurses into it).
      {"unknown groups", std::string("\xfb\x7f\xfb\x7f\xfc\x7f\xfc\x7f", 8), 2},
  };
  for (const Case& c : kCases) {
    SCOPED_TRACE(c.label);
    EXPECT_EQ(WireNestingDepth(cluster, c.bytes), c.want);
  }
}

TEST(WireNestingTest, DecodersNameTheNestingLimit) {
  const ResourceType* type = FindResourceType("Cluster");
  ASSERT_NE(type, nullptr);
  DecodeContext context;
  // 48 lists: 5 + 96 = 101 levels below the top, one past the limit.
  DecodeResult deep = type->Decode(context, DeepCluster(48));
  EXPECT_EQ(deep.value.status().message(),
            "cannot decode Cluster resource: not a serialized "
            "envoy.config.cluster.v3.Cluster: messages nest deeper than "
            "protobuf's limit of 100 levels");
  // 47 lists: 99 levels, within the limit (decodes, then validates).
  DecodeResult within = type->Decode(context, DeepCluster(47));
  EXPECT_EQ(within.value.status().message().find("not a serialized"),
            std::string::npos)
      << within.value.status();
  DecodeResult garbage = type->Decode(context, "\xff\xff");
  EXPECT_EQ(garbage.value.status().message(),
            "cannot decode Cluster resource: not a serialized "
            "envoy.config.cluster.v3.Cluster");
}

}  // namespace
}  // namespace xdsfed::resources
