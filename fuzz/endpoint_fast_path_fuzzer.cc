// Differential fuzzer for the ClusterLoadAssignment wire-reader fast path
// (lib/resources/endpoint_fast.h) against the libprotobuf path. Invariants
// and input format: fuzz/fast_path_check.h.
#include <cstddef>
#include <cstdint>
#include <string>

#include "envoy/config/endpoint/v3/endpoint.pb.h"
#include "fuzz/fast_path_check.h"
#include "lib/resources/endpoint.h"
#include "lib/resources/endpoint_fast.h"

namespace {

namespace resources = xdsfed::resources;

struct EndpointTraits {
  using Proto = envoy::config::endpoint::v3::ClusterLoadAssignment;
  using Value = resources::EndpointResource;
  // Decoding an assignment reads nothing of the context.
  static constexpr bool kFederationMatters = false;
  static const resources::XdsResourceType<Value>& Type() {
    return resources::EndpointResourceType();
  }
  static bool Fast(const resources::DecodeContext&, absl::string_view bytes,
                   Value* out) {
    return resources::internal::FastDecodeClusterLoadAssignment(bytes, out);
  }
  static absl::StatusOr<Value> Slow(const resources::DecodeContext&,
                                    absl::string_view bytes,
                                    std::string* name) {
    return resources::internal::DecodeClusterLoadAssignmentWithProtobuf(bytes,
                                                                        name);
  }
  static const std::string& NameOf(const Value& value) {
    return value.cluster_name;
  }
};

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  return xdsfed::fuzz::FastPathFuzzerInput<EndpointTraits>(data, size);
}
