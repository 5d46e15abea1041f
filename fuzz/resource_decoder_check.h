// The invariants every resource decoder fuzzer checks, in one place:
// decoding never crashes; a failure is kInvalidArgument (and a "cannot
// decode" failure has no name); a success is a value that prints as a JSON
// object, equals itself and its copy, and equals the value (with the same
// JSON) that decoding the same bytes again gives.
//
//   const auto* cluster = CheckDecode<resources::ClusterResource>(
//       resources::ClusterResourceType(), context, bytes);
//   if (cluster != nullptr) { /* type-specific invariants */ }
#ifndef XDSFED_FUZZ_RESOURCE_DECODER_CHECK_H_
#define XDSFED_FUZZ_RESOURCE_DECODER_CHECK_H_

#include <memory>

#include "absl/status/status.h"
#include "absl/strings/match.h"
#include "absl/strings/string_view.h"
#include "google/protobuf/stubs/logging.h"
#include "lib/base/check.h"
#include "lib/resources/resource_type.h"

namespace xdsfed::fuzz {

// Invalid UTF-8 in a string field makes protobuf log; keep runs quiet.
inline void SilenceProtobufLogs() {
  static const bool kQuiet = [] {
    google::protobuf::SetLogHandler(nullptr);
    return true;
  }();
  (void)kQuiet;
}

// Decodes `bytes` with `type` and checks the shared invariants. Returns the
// value (kept alive by *holder) or null if the bytes were rejected.
template <typename T>
const T* CheckDecode(const resources::XdsResourceType<T>& type,
                     const resources::DecodeContext& context,
                     absl::string_view bytes,
                     std::shared_ptr<const resources::ResourceData>* holder) {
  SilenceProtobufLogs();
  resources::DecodeResult once = type.Decode(context, bytes);
  if (!once.value.ok()) {
    XDSFED_CHECK(once.value.status().code() ==
                 absl::StatusCode::kInvalidArgument);
    if (absl::StartsWith(once.value.status().message(), "cannot decode ")) {
      XDSFED_CHECK(once.name.empty());
    }
    return nullptr;  // rejecting input is fine
  }
  const resources::ResourceData* data = once.value->get();
  const T* value = type.Cast(data);
  XDSFED_CHECK(value != nullptr);
  const Json::Value json = type.ToJson(data);
  XDSFED_CHECK(json.isObject());
  XDSFED_CHECK(type.Equal(data, data));
  const T copy = *value;
  XDSFED_CHECK(copy == *value);
  resources::DecodeResult twice = type.Decode(context, bytes);
  XDSFED_CHECK(twice.value.ok() && twice.name == once.name);
  XDSFED_CHECK(type.Equal(data, twice.value->get()));
  XDSFED_CHECK(type.ToJson(twice.value->get()) == json);
  *holder = *std::move(once.value);
  return value;
}

}  // namespace xdsfed::fuzz

#endif  // XDSFED_FUZZ_RESOURCE_DECODER_CHECK_H_
