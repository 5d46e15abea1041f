// Issue 3 §4: NameNormalizer::Normalize allocates nothing once warm. Counts
// every heap allocation of this binary (tests/support/alloc_counter.h).
#include "gtest/gtest.h"
#include "lib/name/resource_name.h"
#include "tests/support/alloc_counter.h"

namespace xdsfed {
namespace {

TEST(NameNormalizerNoAllocTest, WarmNormalizeDoesNotAllocate) {
  // The benchmark names, plus one with more params than the inline
  // reserve and escapes in keys.
  const char* const kNames[] = {
      "server.example.com",
      "xdstp://xds.authority.com/envoy.config.listener.v3.Listener/grpc/"
      "client/server.example.com?project_id=1234",
      "xdstp://xds.example.com/envoy.config.listener.v3.Listener/grpc/server/"
      "svc?zone=us-east1-b&project_id=1234",
      "xdstp://xds.authority.com/envoy.config.route.v3.RouteConfiguration/"
      "grpc%2Fserver/route%20config?zone=us-central1-a&project_id=1234&"
      "node.cluster=prod%2Fcell-7",
      "xdstp://traffic-director-global.xds.googleapis.com/"
      "envoy.config.cluster.v3.Cluster/projects/123456789/networks/default/"
      "backend_services/some-service-name-abcdef",
      "xdstp://a/t/x?q=1&p=1&o=1&n=1&m=1&l=1&k=1&j=1&i=1&h=1&g=1&f=1&e=1&d=1&"
      "c=1&b=1&a=1&%5b=2",
  };
  NameNormalizer normalizer;
  for (const char* name : kNames) {
    ASSERT_TRUE(normalizer.Normalize(name, true).ok()) << name;  // warm up
  }
  for (const char* name : kNames) {
    SCOPED_TRACE(name);
    const long before = test_support::AllocationCount();
    for (int i = 0; i < 100; ++i) {
      auto v = normalizer.Normalize(name, true);
      ASSERT_TRUE(v.ok());
    }
    EXPECT_EQ(test_support::AllocationCount() - before, 0);
  }
}

}  // namespace
}  // namespace xdsfed
