// The fast path of ClusterResourceType().Decode (internal, not part of the
// public API): a serialized Cluster read straight from the wire into the
// validated ClusterResource, with no protobuf messages (a Cluster on an
// arena cost ~1,000 instructions for the arena alone; bench/RESULTS.md).
//
//   ClusterResource value;
//   if (internal::FastDecodeCluster(context, bytes, &value)) {
//     // exactly the value the libprotobuf path gives for `bytes`
//   } else {
//     auto r = internal::DecodeClusterWithProtobuf(context, bytes, &name);
//   }
//
// The contract is one-sided, as for route_config_fast.h: the fast path
// either gives up (returns false) or returns the value the libprotobuf path
// would return. It handles EDS and aggregate clusters and gives up on
// LOGICAL_DNS ones, on load_assignment, metadata, transport_socket (a
// TLS cluster, A29: the full decoder validates its UpstreamTlsContext),
// api_config_source and path config sources, on anything unusual on the
// wire (groups, a singular field or oneof set twice, a known field with
// another wire type) and on every validation error, so that errors and
// field paths always come from the one validator in cluster.cc. Tests
// (cluster_fast_test.cc) and a differential fuzzer
// (cluster_fast_path_fuzzer) check the contract.
#ifndef XDSFED_LIB_RESOURCES_CLUSTER_FAST_H_
#define XDSFED_LIB_RESOURCES_CLUSTER_FAST_H_

#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "lib/resources/cluster.h"
#include "lib/resources/resource_type.h"

namespace xdsfed {
namespace resources {
namespace internal {

// True, with *out set, if `serialized` decodes and validates with no error
// on the libprotobuf path under `context`, whose value *out then equals
// (its name is the resource name). False if the caller must run the
// libprotobuf path; *out is then unspecified.
bool FastDecodeCluster(const DecodeContext& context,
                       absl::string_view serialized, ClusterResource* out);

// Whether the fast path is in use: off (always false) if the generated
// messages' fields differ from those it was written for
// (descriptor_signature.h).
bool ClusterFastPathAvailable();
// What turned it off, one line per message; empty when available.
std::vector<std::string> ClusterFastPathMismatches();

// The libprotobuf path alone: parse, then validate (cluster.cc). `name`
// (optional) receives the resource's name whenever the bytes parse.
absl::StatusOr<ClusterResource> DecodeClusterWithProtobuf(
    const DecodeContext& context, absl::string_view serialized,
    std::string* name);

}  // namespace internal
}  // namespace resources
}  // namespace xdsfed

#endif  // XDSFED_LIB_RESOURCES_CLUSTER_FAST_H_
