#include "lib/base/fallback_gate.h"

#include <cstdlib>
#include <string>

#include "absl/strings/match.h"

namespace xdsfed {

bool ParseFallbackGate(const char* value) {
  return value == nullptr || !absl::EqualsIgnoreCase(value, "false");
}

bool FallbackEnabledFromEnv() {
  return ParseFallbackGate(std::getenv(std::string(kFallbackEnvVar).c_str()));
}

}  // namespace xdsfed
