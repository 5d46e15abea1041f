#include "lib/base/federation_gate.h"

#include <cstdlib>
#include <string>

#include "absl/strings/match.h"

namespace xdsfed {

bool ParseFederationGate(const char* value) {
  return value != nullptr && absl::EqualsIgnoreCase(value, "true");
}

bool FederationEnabledFromEnv() {
  return ParseFederationGate(
      std::getenv(std::string(kFederationEnvVar).c_str()));
}

}  // namespace xdsfed
