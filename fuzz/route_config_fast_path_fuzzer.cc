// Differential fuzzer for the RouteConfiguration wire-reader fast path
// (lib/resources/route_config_fast.h) against the libprotobuf path.
// Invariants and input format: fuzz/fast_path_check.h.
#include <cstddef>
#include <cstdint>
#include <string>

#include "envoy/config/route/v3/route.pb.h"
#include "fuzz/fast_path_check.h"
#include "lib/resources/route_config.h"
#include "lib/resources/route_config_fast.h"

namespace {

namespace resources = xdsfed::resources;

struct RouteConfigTraits {
  using Proto = envoy::config::route::v3::RouteConfiguration;
  using Value = resources::RouteConfig;
  // Decoding a route configuration reads nothing of the context.
  static constexpr bool kFederationMatters = false;
  static const resources::XdsResourceType<Value>& Type() {
    return resources::RouteConfigResourceType();
  }
  static bool Fast(const resources::DecodeContext&, absl::string_view bytes,
                   Value* out) {
    return resources::internal::FastDecodeRouteConfig(bytes, out);
  }
  // What production falls back to (DecodeRouteConfigWithProtobuf), as a
  // value and a name.
  static absl::StatusOr<Value> Slow(const resources::DecodeContext&,
                                    absl::string_view bytes,
                                    std::string* name) {
    const resources::DecodeResult result =
        resources::internal::DecodeRouteConfigWithProtobuf(bytes);
    *name = result.name;
    if (!result.value.ok()) return result.value.status();
    return *Type().Cast(result.value->get());
  }
  static const std::string& NameOf(const Value& value) { return value.name; }
};

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  return xdsfed::fuzz::FastPathFuzzerInput<RouteConfigTraits>(data, size);
}
