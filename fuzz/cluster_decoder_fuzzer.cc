// Fuzzes ClusterResourceType().Decode. Input: one flag byte (bit 0: the A47
// federation gate), then the serialized Cluster.
// Invariants: never crashes; a failure is kInvalidArgument; a valid value
// has the decoded name, prints as JSON, equals itself, and decoding the same
// bytes again gives an equal value with the same JSON.
#include <cstddef>
#include <cstdint>
#include <string>

#include "absl/status/status.h"
#include "google/protobuf/stubs/logging.h"
#include "lib/base/check.h"
#include "lib/resources/cluster.h"

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
      xdsfed::resources::ClusterResourceType();
  const xdsfed::resources::DecodeResult once = type.Decode(context, bytes);
  if (!once.value.ok()) {
    XDSFED_CHECK(once.value.status().code() ==
                 absl::StatusCode::kInvalidArgument);
    return 0;  // rejecting input is fine
  }
  const auto* value =
      static_cast<const xdsfed::resources::ClusterResource*>(once.value->get());
  XDSFED_CHECK(value->name == once.name);
  const Json::Value json = type.ToJson(value);
  XDSFED_CHECK(json.isObject() && json["name"].asString() == once.name);
  XDSFED_CHECK(type.Equal(value, value));
  const xdsfed::resources::DecodeResult twice = type.Decode(context, bytes);
  XDSFED_CHECK(twice.value.ok() && twice.name == once.name);
  XDSFED_CHECK(type.Equal(value, twice.value->get()));
  XDSFED_CHECK(type.ToJson(twice.value->get()) == json);
  // A copy of the value is equal, as values are.
  const xdsfed::resources::ClusterResource copy = *value;
  XDSFED_CHECK(copy == *value);
  return 0;
}
