#include "lib/base/fallback_gate.h"

#include <cstdlib>

#include "gtest/gtest.h"

namespace xdsfed {
namespace {

// gRFC A71 §Temporary environment variable protection, as current gRPC
// reads it (grpc-go internal/envconfig/xds.go: boolFromEnv(..., true), on
// unless the value is "false" in any case).
TEST(FallbackGateTest, OnUnlessFalse) {
  struct Case {
    const char* value;
    bool want;
  };
  const Case kCases[] = {
      {nullptr, true},  {"", true},       {"true", true},
      {"0", true},      {"no", true},     {"false ", true},
      {"false", false}, {"FALSE", false}, {"False", false},
  };
  for (const Case& c : kCases) {
    SCOPED_TRACE(c.value == nullptr ? "(unset)" : c.value);
    EXPECT_EQ(ParseFallbackGate(c.value), c.want);
  }
}

TEST(FallbackGateTest, ReadsEnvironment) {
  setenv("GRPC_EXPERIMENTAL_XDS_FALLBACK", "false", 1);
  EXPECT_FALSE(FallbackEnabledFromEnv());
  setenv("GRPC_EXPERIMENTAL_XDS_FALLBACK", "true", 1);
  EXPECT_TRUE(FallbackEnabledFromEnv());
  unsetenv("GRPC_EXPERIMENTAL_XDS_FALLBACK");
  EXPECT_TRUE(FallbackEnabledFromEnv());
}

}  // namespace
}  // namespace xdsfed
