// Fuzzes EndpointResourceType().Decode. Input: one flag byte (bit 0: the A47
// federation gate), then the serialized ClusterLoadAssignment.
// Invariants: never crashes; a failure is kInvalidArgument; a valid value
// prints as JSON, equals itself and a second decode of the same bytes, has
// priorities without gaps, positive locality and endpoint weights, and drop
// rates of at most one million per million.
#include <cstddef>
#include <cstdint>
#include <string>

#include "absl/status/status.h"
#include "google/protobuf/stubs/logging.h"
#include "lib/base/check.h"
#include "lib/resources/endpoint.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  // Invalid UTF-8 in a string field makes protobuf log; keep the run quiet.
  static const bool kQuiet = [] {
    google::protobuf::SetLogHandler(nullptr);
    return true;
  }();
  (void)kQuiet;
  if (size == 0) return 0;
  xdsfed::resources::DecodeContext context;
  context.federation = (data[0] & 1) != 0;
  const absl::string_view bytes(reinterpret_cast<const char*>(data) + 1,
                                size - 1);
  const xdsfed::resources::ResourceType& type =
      xdsfed::resources::EndpointResourceType();
  const xdsfed::resources::DecodeResult once = type.Decode(context, bytes);
  if (!once.value.ok()) {
    XDSFED_CHECK(once.value.status().code() ==
                 absl::StatusCode::kInvalidArgument);
    return 0;  // rejecting input is fine
  }
  const auto* value = static_cast<const xdsfed::resources::EndpointResource*>(
      once.value->get());
  XDSFED_CHECK(value->cluster_name == once.name);
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
  const Json::Value json = type.ToJson(value);
  XDSFED_CHECK(json.isObject() &&
               json["priorities"].size() == value->priorities.size());
  XDSFED_CHECK(type.Equal(value, value));
  const xdsfed::resources::DecodeResult twice = type.Decode(context, bytes);
  XDSFED_CHECK(twice.value.ok() && twice.name == once.name);
  XDSFED_CHECK(type.Equal(value, twice.value->get()));
  XDSFED_CHECK(type.ToJson(twice.value->get()) == json);
  const xdsfed::resources::EndpointResource copy = *value;
  XDSFED_CHECK(copy == *value);
  return 0;
}
