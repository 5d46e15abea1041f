// The fast path of EndpointResourceType().Decode (internal, not part of the
// public API): a serialized ClusterLoadAssignment read straight from the
// wire into the validated EndpointResource, with no protobuf messages.
// A 10,000-endpoint assignment is ~60,000 small messages for libprotobuf;
// here an endpoint whose health status gRPC does not use (UNHEALTHY,
// DRAINING, ...) costs a walk over its ~30 bytes and nothing else.
//
//   EndpointResource value;
//   if (internal::FastDecodeClusterLoadAssignment(bytes, &value)) {
//     // exactly the value the libprotobuf path gives for `bytes`
//   } else {
//     auto r = internal::DecodeClusterLoadAssignmentWithProtobuf(bytes, &name);
//   }
//
// The contract is one-sided, as for route_config_fast.h: the fast path
// either gives up (returns false) or returns the value the libprotobuf path
// would return for the same bytes. It gives up on anything unusual on the
// wire (groups, a singular field or oneof set twice, a known field with
// another wire type), on metadata (a Struct tree it does not walk), and on
// every validation error, so that errors and field paths always come from
// the one validator in endpoint.cc. Tests (endpoint_fast_test.cc) and a
// differential fuzzer (endpoint_fast_path_fuzzer) check the contract.
#ifndef XDSFED_LIB_RESOURCES_ENDPOINT_FAST_H_
#define XDSFED_LIB_RESOURCES_ENDPOINT_FAST_H_

#include <cstdint>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "lib/resources/endpoint.h"

namespace xdsfed {
namespace resources {
namespace internal {

// True, with *out set, if `serialized` decodes and validates with no error
// on the libprotobuf path, whose value *out then equals (its cluster_name is
// the resource name). False if the caller must run the libprotobuf path;
// *out is then unspecified.
bool FastDecodeClusterLoadAssignment(absl::string_view serialized,
                                     EndpointResource* out);

// Whether the fast path is in use: off (always false) if the generated
// messages' fields differ from those it was written for
// (descriptor_signature.h).
bool EndpointFastPathAvailable();
// What turned it off, one line per message; empty when available.
std::vector<std::string> EndpointFastPathMismatches();

// The libprotobuf path alone: parse, then validate (endpoint.cc). `name`
// (optional) receives cluster_name whenever the bytes parse.
absl::StatusOr<EndpointResource> DecodeClusterLoadAssignmentWithProtobuf(
    absl::string_view serialized, std::string* name);

// "ip:port" / "[ipv6%scope]:port" in canonical form into *out; false if
// `host` is not an IP address literal (both paths use this one function).
bool FormatIpPort(absl::string_view host, uint32_t port, std::string* out);

}  // namespace internal
}  // namespace resources
}  // namespace xdsfed

#endif  // XDSFED_LIB_RESOURCES_ENDPOINT_FAST_H_
