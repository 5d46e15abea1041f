// Differential fuzzer for an RDS update decoded against the value a client
// holds (RouteConfigResourceType().DecodeUpdate and
// internal::FastDecodeRouteConfigUpdate, lib/resources/route_config_fast.h)
// against the full decode of the update alone.
//
// Input: the held configuration's bytes and the update's, separated by the
// first "@@@@" (no separator: the update is the held bytes again). Each part
// is the serialized message, or "t:" + protobuf text format (serialized
// before the check, as in fast_path_check.h).
//
// Invariants, whenever the held bytes decode (to the held value):
//   - DecodeUpdate gives Decode's name and status (message included), or an
//     equal value; the held pointer itself exactly when the update's
//     outcome is kUnchanged;
//   - kUnchanged: the update decodes to a value equal to the held one;
//     kDecoded: to a value equal to *out.
#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>

#include "absl/strings/match.h"
#include "absl/strings/string_view.h"
#include "envoy/config/route/v3/route.pb.h"
#include "fuzz/fast_path_check.h"
#include "google/protobuf/stubs/logging.h"
#include "google/protobuf/text_format.h"
#include "lib/base/check.h"
#include "lib/resources/resource_type.h"
#include "lib/resources/route_config.h"
#include "lib/resources/route_config_fast.h"

namespace {

namespace resources = xdsfed::resources;

// The bytes of one part; false for text that does not parse.
bool PartBytes(absl::string_view part, std::string* out) {
  if (!absl::StartsWith(part, "t:")) {
    *out = std::string(part);
    return true;
  }
  envoy::config::route::v3::RouteConfiguration proto;
  google::protobuf::TextFormat::Parser parser;
  xdsfed::fuzz::SilentTextErrors errors;
  parser.RecordErrorsTo(&errors);
  if (!parser.ParseFromString(std::string(part.substr(2)), &proto)) {
    return false;
  }
  *out = proto.SerializeAsString();
  return true;
}

const resources::RouteConfig& ValueOf(const resources::DecodeResult& r) {
  return *resources::RouteConfigResourceType().Cast(r.value->get());
}

void CheckUpdate(const std::string& held_bytes, const std::string& update) {
  const auto& type = resources::RouteConfigResourceType();
  const resources::DecodeResult held = type.Decode({}, held_bytes);
  if (!held.value.ok()) return;
  const auto shared_bytes = std::make_shared<const std::string>(held_bytes);
  const resources::DecodeResult full = type.Decode({}, update);

  resources::RouteConfig out;
  const resources::internal::RouteConfigUpdate outcome =
      resources::internal::FastDecodeRouteConfigUpdate(update, ValueOf(held),
                                                       held_bytes, &out);
  using Outcome = resources::internal::RouteConfigUpdate;
  if (outcome == Outcome::kUnchanged) {
    XDSFED_CHECK(full.value.ok());
    XDSFED_CHECK(ValueOf(full) == ValueOf(held));
  } else if (outcome == Outcome::kDecoded) {
    XDSFED_CHECK(full.value.ok());
    XDSFED_CHECK(ValueOf(full) == out);
  }

  const resources::PreviousLookup previous = [&](absl::string_view) {
    return resources::PreviousResource{*held.value, shared_bytes};
  };
  const resources::DecodeResult update_result =
      type.DecodeUpdate({}, update, previous);
  XDSFED_CHECK(update_result.name == full.name);
  XDSFED_CHECK(update_result.value.ok() == full.value.ok());
  if (!full.value.ok()) {
    XDSFED_CHECK(update_result.value.status() == full.value.status());
    return;
  }
  XDSFED_CHECK(ValueOf(update_result) == ValueOf(full));
  // The held pointer comes back only for an unchanged update (the lookup
  // answers for any name, so the outcome above is the one DecodeUpdate saw
  // whenever the update carries a name).
  if (update_result.value->get() == held.value->get()) {
    XDSFED_CHECK(ValueOf(full) == ValueOf(held));
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  static const bool kQuiet = [] {
    google::protobuf::SetLogHandler(nullptr);
    return true;
  }();
  (void)kQuiet;
  const absl::string_view input(reinterpret_cast<const char*>(data), size);
  const size_t separator = input.find("@@@@");
  const absl::string_view held_part =
      separator == absl::string_view::npos ? input : input.substr(0, separator);
  const absl::string_view update_part = separator == absl::string_view::npos
                                            ? input
                                            : input.substr(separator + 4);
  std::string held_bytes;
  std::string update;
  if (!PartBytes(held_part, &held_bytes) || !PartBytes(update_part, &update)) {
    return 0;
  }
  CheckUpdate(held_bytes, update);
  return 0;
}
