// Listener decoder fuzzer: bytes -> ListenerResourceType().Decode. Invariants:
// - decoding never crashes, throws or aborts;
// - a failure is kInvalidArgument: "cannot decode Listener..." with no name,
//   or "errors validating Listener: [field:..." listing field paths;
// - a success gives a value whose ToJson works and that equals itself and
//   the value decoded again from the same bytes.
#include <cstddef>
#include <cstdint>
#include <string>

#include "absl/strings/match.h"
#include "absl/strings/string_view.h"
#include "lib/base/check.h"
#include "lib/resources/resource_type.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const absl::string_view bytes(reinterpret_cast<const char*>(data), size);
  const xdsfed::resources::ResourceType& type =
      xdsfed::resources::ListenerResourceType();
  for (bool federation : {false, true}) {
    xdsfed::resources::DecodeContext context;
    context.federation = federation;
    xdsfed::resources::DecodeResult once = type.Decode(context, bytes);
    if (!once.value.ok()) {
      XDSFED_CHECK(once.value.status().code() ==
                   absl::StatusCode::kInvalidArgument);
      const absl::string_view message = once.value.status().message();
      if (absl::StartsWith(message, "cannot decode ")) {
        XDSFED_CHECK(once.name.empty());
      } else {
        XDSFED_CHECK(
            absl::StartsWith(message, "errors validating Listener: [field:"));
      }
      continue;
    }
    const void* value = once.value->get();
    XDSFED_CHECK(value != nullptr);
    XDSFED_CHECK(type.ToJson(value).isObject());
    XDSFED_CHECK(type.Equal(value, value));
    xdsfed::resources::DecodeResult twice = type.Decode(context, bytes);
    XDSFED_CHECK(twice.value.ok() && twice.name == once.name);
    XDSFED_CHECK(type.Equal(value, twice.value->get()));
  }
  return 0;
}
