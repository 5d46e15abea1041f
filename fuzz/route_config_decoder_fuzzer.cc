// Fuzzes RouteConfigResourceType().Decode with the input as the serialized
// RouteConfiguration, under both settings of the federation gate.
// Invariants: those of resource_decoder_check.h, plus every virtual host of
// a valid value has domains and routes.
#include <cstddef>
#include <cstdint>

#include "fuzz/resource_decoder_check.h"
#include "lib/resources/route_config.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const absl::string_view bytes(reinterpret_cast<const char*>(data), size);
  for (bool federation : {false, true}) {
    xdsfed::resources::DecodeContext context;
    context.federation = federation;
    std::shared_ptr<const xdsfed::resources::ResourceData> holder;
    const auto* route_config =
        xdsfed::fuzz::CheckDecode<xdsfed::resources::RouteConfig>(
            xdsfed::resources::RouteConfigResourceType(), context, bytes,
            &holder);
    if (route_config == nullptr) continue;
    for (const auto& vh : route_config->virtual_hosts) {
      XDSFED_CHECK(!vh.domains.empty() && !vh.routes.empty());
    }
  }
  return 0;
}
