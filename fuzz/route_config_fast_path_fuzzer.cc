// Differential fuzzer for the RouteConfiguration wire-reader fast path
// (lib/resources/route_config_fast.h) against the libprotobuf path.
// Invariants, on every input:
//   - if FastDecodeRouteConfig takes the bytes, the libprotobuf path accepts
//     them too, with an equal value and the same resource name;
//   - RouteConfigResourceType().Decode (fast path, then libprotobuf) gives
//     exactly what the libprotobuf path alone gives: same name, same status
//     (message included) or equal values.
// Input: raw bytes are the serialized RouteConfiguration. An input starting
// with "t:" is instead a RouteConfiguration in protobuf text format (the
// rest), serialized before the check, so that mutations explore valid
// configurations field by field and not only broken wire bytes.
#include <cstddef>
#include <cstdint>
#include <string>

#include "absl/strings/match.h"
#include "absl/strings/string_view.h"
#include "envoy/config/route/v3/route.pb.h"
#include "google/protobuf/io/tokenizer.h"
#include "google/protobuf/stubs/logging.h"
#include "google/protobuf/text_format.h"
#include "lib/base/check.h"
#include "lib/resources/resource_type.h"
#include "lib/resources/route_config.h"
#include "lib/resources/route_config_fast.h"

namespace {

using xdsfed::resources::DecodeResult;
using xdsfed::resources::RouteConfig;

// Text-format parse errors are expected; keep runs quiet.
class SilentErrors : public google::protobuf::io::ErrorCollector {
 public:
  void AddError(int, int, const std::string&) override {}
  void AddWarning(int, int, const std::string&) override {}
};

const RouteConfig& ValueOf(const DecodeResult& r) {
  return *xdsfed::resources::RouteConfigResourceType().Cast(r.value->get());
}

void Check(absl::string_view bytes) {
  namespace internal = xdsfed::resources::internal;
  const DecodeResult slow = internal::DecodeRouteConfigWithProtobuf(bytes);
  RouteConfig fast;
  if (internal::FastDecodeRouteConfig(bytes, &fast)) {
    XDSFED_CHECK(slow.value.ok());
    XDSFED_CHECK(fast == ValueOf(slow));
    XDSFED_CHECK(fast.name == slow.name);
  }
  const DecodeResult both =
      xdsfed::resources::RouteConfigResourceType().Decode({}, bytes);
  XDSFED_CHECK(both.name == slow.name);
  XDSFED_CHECK(both.value.ok() == slow.value.ok());
  if (both.value.ok()) {
    XDSFED_CHECK(ValueOf(both) == ValueOf(slow));
  } else {
    XDSFED_CHECK(both.value.status() == slow.value.status());
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
  if (absl::StartsWith(input, "t:")) {
    envoy::config::route::v3::RouteConfiguration proto;
    google::protobuf::TextFormat::Parser parser;
    SilentErrors errors;
    parser.RecordErrorsTo(&errors);
    const std::string text(input.substr(2));
    if (!parser.ParseFromString(text, &proto)) return 0;
    Check(proto.SerializeAsString());
    return 0;
  }
  Check(input);
  return 0;
}
