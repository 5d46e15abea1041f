#include "lib/base/federation_gate.h"

#include "gtest/gtest.h"

namespace xdsfed {
namespace {

// gRFC A47 §Temporary environment variable protection: disabled unless the
// variable is set to true.
TEST(FederationGateTest, OnlyTrueEnables) {
  struct Case {
    const char* value;
    bool want;
  };
  const Case kCases[] = {
      {nullptr, false}, {"", false},    {"false", false},
      {"1", false},     {"yes", false}, {"true ", false},
      {"true", true},   {"TRUE", true}, {"True", true},
  };
  for (const Case& c : kCases) {
    SCOPED_TRACE(c.value == nullptr ? "(unset)" : c.value);
    EXPECT_EQ(ParseFederationGate(c.value), c.want);
  }
}

TEST(FederationGateTest, ReadsEnvironment) {
  setenv("GRPC_EXPERIMENTAL_XDS_FEDERATION", "true", 1);
  EXPECT_TRUE(FederationEnabledFromEnv());
  setenv("GRPC_EXPERIMENTAL_XDS_FEDERATION", "false", 1);
  EXPECT_FALSE(FederationEnabledFromEnv());
  unsetenv("GRPC_EXPERIMENTAL_XDS_FEDERATION");
  EXPECT_FALSE(FederationEnabledFromEnv());
}

}  // namespace
}  // namespace xdsfed
