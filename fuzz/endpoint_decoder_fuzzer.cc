// Fuzzes EndpointResourceType().Decode. Input: one flag byte (bit 0: the A47
// federation gate), then the serialized ClusterLoadAssignment. Invariants:
// those of resource_decoder_check.h, plus priorities without gaps, positive
// locality and endpoint weights, and drop rates of at most one million per
// million.
#include <cstddef>
#include <cstdint>

#include "fuzz/resource_decoder_check.h"
#include "lib/resources/endpoint.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size == 0) return 0;
  xdsfed::resources::DecodeContext context;
  context.federation = (data[0] & 1) != 0;
  const absl::string_view bytes(reinterpret_cast<const char*>(data) + 1,
                                size - 1);
  const auto& type = xdsfed::resources::EndpointResourceType();
  std::shared_ptr<const xdsfed::resources::ResourceData> holder;
  const auto* value =
      xdsfed::fuzz::CheckDecode<xdsfed::resources::EndpointResource>(
          type, context, bytes, &holder);
  if (value == nullptr) return 0;
  for (const auto& priority : value->priorities) {
    XDSFED_CHECK(!priority.localities.empty());
    for (const auto& entry : priority.localities) {
      XDSFED_CHECK(entry.second.weight > 0);
      for (const auto& endpoint : entry.second.endpoints) {
        XDSFED_CHECK(endpoint.load_balancing_weight > 0);
        XDSFED_CHECK(!endpoint.address.empty());
      }
    }
  }
  for (const auto& drop : value->drop_categories) {
    XDSFED_CHECK(!drop.name.empty() && drop.parts_per_million <= 1000000);
  }
  XDSFED_CHECK(type.ToJson(holder.get())["priorities"].size() ==
               value->priorities.size());
  return 0;
}
