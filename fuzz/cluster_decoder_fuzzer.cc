// Fuzzes ClusterResourceType().Decode. Input: one flag byte (bit 0: the A47
// federation gate), then the serialized Cluster. Invariants: those of
// resource_decoder_check.h, plus the value carries the decoded name, also in
// its JSON.
#include <cstddef>
#include <cstdint>

#include "fuzz/resource_decoder_check.h"
#include "lib/resources/cluster.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size == 0) return 0;
  xdsfed::resources::DecodeContext context;
  context.federation = (data[0] & 1) != 0;
  const absl::string_view bytes(reinterpret_cast<const char*>(data) + 1,
                                size - 1);
  const auto& type = xdsfed::resources::ClusterResourceType();
  std::shared_ptr<const xdsfed::resources::ResourceData> holder;
  const auto* cluster =
      xdsfed::fuzz::CheckDecode<xdsfed::resources::ClusterResource>(
          type, context, bytes, &holder);
  if (cluster == nullptr) return 0;
  XDSFED_CHECK(type.ToJson(holder.get())["name"].asString() == cluster->name);
  return 0;
}
