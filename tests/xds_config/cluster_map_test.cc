// lib/xds_config/cluster_map.h: the persistent cluster map of XdsConfig.
// Invariant: With() never changes the map it is called on, and shares
// every block but the one it writes.
#include "lib/xds_config/cluster_map.h"

#include <memory>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "gtest/gtest.h"
#include "lib/xds_config/xds_config.h"

namespace xdsfed {
namespace xds_config {
namespace {

std::shared_ptr<const ClusterConfig> Config(const std::string& name, int v) {
  auto c = std::make_shared<ClusterConfig>();
  c->name = name;
  c->tree = {absl::StrCat(v)};
  return c;
}

TEST(ClusterMapTest, WithLeavesTheOriginalAndSharesTheRest) {
  for (size_t n : {0u, 1u, 63u, 64u, 65u, 1000u}) {
    SCOPED_TRACE(n);
    std::vector<std::string> names;
    for (size_t i = 0; i < n; ++i) names.push_back(absl::StrCat("c", 1000 + i));
    ClusterMap map(names);
    for (size_t i = 0; i < n; ++i) map.Set(i, Config(names[i], 0));
    EXPECT_EQ(map.size(), n);
    EXPECT_EQ(map.Find("missing"), nullptr);
    for (size_t slot = 0; slot < n; slot += 37) {
      ClusterMap next = map.With(slot, Config(names[slot], 1));
      EXPECT_EQ(map.Find(names[slot])->tree[0], "0");
      EXPECT_EQ(next.Find(names[slot])->tree[0], "1");
      for (size_t i = 0; i < n; ++i) {
        if (i != slot) {
          EXPECT_EQ(next.ValueAt(i), map.ValueAt(i));
        }
      }
      EXPECT_TRUE(next.SameNames(map));
    }
    size_t seen = 0;
    map.ForEach([&](const ClusterConfig& c) {
      EXPECT_EQ(c.name, names[seen]);
      ++seen;
    });
    EXPECT_EQ(seen, n);
  }
}

}  // namespace
}  // namespace xds_config
}  // namespace xdsfed
