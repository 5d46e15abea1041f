// The GRPC_EXPERIMENTAL_XDS_FEDERATION gate of gRFC A47.
//
// Federation is on only when the variable is set to "true" (compared
// case-insensitively); unset, empty or anything else means off. Modules take
// the gate as an explicit bool so that the library API can override it; this
// is the default they start from.
#ifndef XDSFED_LIB_BASE_FEDERATION_GATE_H_
#define XDSFED_LIB_BASE_FEDERATION_GATE_H_

#include "absl/strings/string_view.h"

namespace xdsfed {

inline constexpr absl::string_view kFederationEnvVar =
    "GRPC_EXPERIMENTAL_XDS_FEDERATION";

// Parses a value of the variable: true only for "true", any case.
bool ParseFederationGate(const char* value);

// Reads the variable from the environment.
bool FederationEnabledFromEnv();

}  // namespace xdsfed

#endif  // XDSFED_LIB_BASE_FEDERATION_GATE_H_
