// Differential fuzzer for the Cluster wire-reader fast path
// (lib/resources/cluster_fast.h) against the libprotobuf path, with
// federation off and on. Invariants and input format: fuzz/fast_path_check.h.
#include <cstddef>
#include <cstdint>
#include <string>

#include "envoy/config/cluster/v3/cluster.pb.h"
#include "fuzz/fast_path_check.h"
#include "lib/resources/cluster.h"
#include "lib/resources/cluster_fast.h"

namespace {

namespace resources = xdsfed::resources;

struct ClusterTraits {
  using Proto = envoy::config::cluster::v3::Cluster;
  using Value = resources::ClusterResource;
  // With federation, an xdstp: EDS cluster must name its service (A47).
  static constexpr bool kFederationMatters = true;
  static const resources::XdsResourceType<Value>& Type() {
    return resources::ClusterResourceType();
  }
  static bool Fast(const resources::DecodeContext& context,
                   absl::string_view bytes, Value* out) {
    return resources::internal::FastDecodeCluster(context, bytes, out);
  }
  static absl::StatusOr<Value> Slow(const resources::DecodeContext& context,
                                    absl::string_view bytes,
                                    std::string* name) {
    return resources::internal::DecodeClusterWithProtobuf(context, bytes, name);
  }
  static const std::string& NameOf(const Value& value) { return value.name; }
};

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  return xdsfed::fuzz::FastPathFuzzerInput<ClusterTraits>(data, size);
}
