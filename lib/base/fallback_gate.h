// The GRPC_EXPERIMENTAL_XDS_FALLBACK gate of gRFC A71.
//
// A71 put fallback behind the variable; current gRPC turns it on by
// default and off only when the variable is "false" (compared
// case-insensitively; grpc-go internal/envconfig/xds.go
// boolFromEnv("GRPC_EXPERIMENTAL_XDS_FALLBACK", true)), so unset, empty or
// any other value means on. Off: only the first server of each xds_servers
// list is used. Like the federation gate, modules take it as an explicit
// bool (client::XdsClient::Options::fallback); this is its default.
#ifndef XDSFED_LIB_BASE_FALLBACK_GATE_H_
#define XDSFED_LIB_BASE_FALLBACK_GATE_H_

#include "absl/strings/string_view.h"

namespace xdsfed {

inline constexpr absl::string_view kFallbackEnvVar =
    "GRPC_EXPERIMENTAL_XDS_FALLBACK";

// Parses a value of the variable (null: unset): false only for "false",
// any case.
bool ParseFallbackGate(const char* value);

// Reads the variable from the environment.
bool FallbackEnabledFromEnv();

}  // namespace xdsfed

#endif  // XDSFED_LIB_BASE_FALLBACK_GATE_H_
